//! Mistral's instruct formats for Tekken files, as `mistral-common` (1.13.1) writes them with
//! `encode_chat_completion(ChatCompletionRequest(messages, tools))`: its request validator
//! (`protocol/instruct/validator.py`), its normalizer (`protocol/instruct/normalize.py`) and
//! `InstructTokenizerV3` to `V13` (`tokens/tokenizers/instruct.py`), by the file's version:
//!
//! - v3 (both of `mistral-common`'s own Tekken files): every non-empty system message joined
//!   with a blank line before the last user message's text; a tool call list as one JSON array
//!   after `[TOOL_CALLS]`, each call `{"name", "arguments", "id"}`; a tool result as
//!   `[TOOL_RESULTS]{"content": ..., "call_id": ...}[/TOOL_RESULTS]`, its content read as JSON
//!   where it is JSON;
//! - v7: each system message where it stands, between `[SYSTEM_PROMPT]` and
//!   `[/SYSTEM_PROMPT]`; tool calls as v3 (an assistant message may hold text and calls); a
//!   tool result as `[TOOL_RESULTS]ID[TOOL_CONTENT]CONTENT[/TOOL_RESULTS]`;
//! - v11: as v7, each call as `[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]ARGUMENTS`;
//! - v13: as v11 without call ids (`[TOOL_CALLS]NAME[ARGS]ARGUMENTS`,
//!   `[TOOL_RESULTS]CONTENT[/TOOL_RESULTS]`), and the tool list before the first user message
//!   instead of the last.
//!
//! The tool list is `[AVAILABLE_TOOLS]` and the definitions as `json.dumps` writes
//! `{"type": "function", "function": {"name", "description", "parameters"}}` for each, then
//! `[/AVAILABLE_TOOLS]`, right before that user message's `[INST]`. In all: neighbouring
//! messages of one role joined with a blank line (empty ones skipped), `[INST]`...`[/INST]`
//! around user turns and `</s>` after assistant turns (with trailing spaces dropped), and
//! nothing after the last `[/INST]` or `[/TOOL_RESULTS]`. Checked against `mistral-common` for
//! every version in `.ci/run`.
//!
//! `read.rs` reads the messages and refuses what `mistral-common` refuses; `write.rs` joins
//! them as its normalizer does and writes them as its instruct tokenizers do.

mod read;
mod write;

use minijinja::value::Value;

use crate::error::{Error, TemplateErrorKind};
use crate::prompt::control::ControlTokens;
use crate::tokenizer::{TekkenTokenizer, TekkenVersion};

/// The versions whose instruct format this writes.
const WRITTEN: [TekkenVersion; 4] = [
    TekkenVersion::V3,
    TekkenVersion::V7,
    TekkenVersion::V11,
    TekkenVersion::V13,
];

/// The instruct format of a Tekken version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Format {
    /// v3: system messages joined before the last user message, tool calls as a JSON list.
    V3,
    /// v7: system messages in place, between `[SYSTEM_PROMPT]` and `[/SYSTEM_PROMPT]`.
    V7,
    /// v11: each tool call as `[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]ARGUMENTS`.
    V11,
    /// v13: no call ids, the tool list before the first user message.
    V13,
}

impl Format {
    /// The control tokens this format writes for any conversation.
    fn writes(self) -> &'static [&'static str] {
        match self {
            Format::V3 => &["<s>", "</s>", "[INST]", "[/INST]"],
            _ => &[
                "<s>",
                "</s>",
                "[INST]",
                "[/INST]",
                "[SYSTEM_PROMPT]",
                "[/SYSTEM_PROMPT]",
            ],
        }
    }

    /// The control tokens this format writes for tools, calls and results. `mistral-common`'s
    /// instruct tokenizer looks each up when it is built, and refuses a file that lacks one;
    /// here a file without them still writes conversations that need none.
    fn writes_for_tools(self) -> &'static [&'static str] {
        match self {
            Format::V3 => &[
                "[AVAILABLE_TOOLS]",
                "[/AVAILABLE_TOOLS]",
                "[TOOL_RESULTS]",
                "[/TOOL_RESULTS]",
                "[TOOL_CALLS]",
            ],
            Format::V7 => &[
                "[AVAILABLE_TOOLS]",
                "[/AVAILABLE_TOOLS]",
                "[TOOL_RESULTS]",
                "[/TOOL_RESULTS]",
                "[TOOL_CALLS]",
                "[TOOL_CONTENT]",
            ],
            Format::V11 | Format::V13 => &[
                "[AVAILABLE_TOOLS]",
                "[/AVAILABLE_TOOLS]",
                "[TOOL_RESULTS]",
                "[/TOOL_RESULTS]",
                "[TOOL_CALLS]",
                "[TOOL_CONTENT]",
                "[ARGS]",
                "[CALL_ID]",
            ],
        }
    }
}

/// The format of `tekken`'s version and its control tokens: the file's named special tokens,
/// or (a v3 or v7 file that lists none) the ones `mistral-common` gives such a file.
///
/// # Errors
///
/// [`Error::ChatTemplate`] naming the file's version when it is not one of [`WRITTEN`], when a
/// v11 or v13 file lists no special tokens (`mistral-common` refuses it), or when the list
/// lacks a token the format writes.
pub(super) fn format_of(tekken: &TekkenTokenizer) -> Result<(Format, Vec<String>), Error> {
    let version = tekken.version();
    let refuse = |problem: String| Err(Error::template(TemplateErrorKind::Unsupported, problem));
    let format = match version {
        TekkenVersion::V3 => Format::V3,
        TekkenVersion::V7 => Format::V7,
        TekkenVersion::V11 => Format::V11,
        TekkenVersion::V13 => Format::V13,
        _ => {
            let written: Vec<&str> = WRITTEN.iter().map(|v| v.as_str()).collect();
            return refuse(format!(
                "the Tekken file's version is {version}; Mistral's instruct format is written here for versions {} only",
                written.join(", ")
            ));
        }
    };
    let control = match tekken.special_tokens() {
        Some(tokens) => tokens.to_vec(),
        None if version > TekkenVersion::V7 => {
            return refuse(format!(
                "the Tekken file ({version}) lists no special_tokens, which a file after v7 must (mistral-common refuses it)"
            ));
        }
        None => default_control_tokens(),
    };
    if let Some(missing) = format
        .writes()
        .iter()
        .find(|t| !control.iter().any(|c| c == *t))
    {
        return refuse(format!(
            "the Tekken file's special_tokens lack {missing}, which Mistral's {version} format writes"
        ));
    }
    Ok((format, control))
}

/// The control tokens `mistral-common`'s Tekkenizer gives a file that lists none
/// (`DEPRECATED_SPECIAL_TOKENS`), as text.
fn default_control_tokens() -> Vec<String> {
    [
        "<unk>",
        "<s>",
        "</s>",
        "[INST]",
        "[/INST]",
        "[AVAILABLE_TOOLS]",
        "[/AVAILABLE_TOOLS]",
        "[TOOL_RESULTS]",
        "[/TOOL_RESULTS]",
        "[TOOL_CALLS]",
        "[IMG]",
        "<pad>",
        "[IMG_BREAK]",
        "[IMG_END]",
        "[PREFIX]",
        "[MIDDLE]",
        "[SUFFIX]",
        "[SYSTEM_PROMPT]",
        "[/SYSTEM_PROMPT]",
        "[TOOL_CONTENT]",
    ]
    .map(String::from)
    .into_iter()
    .collect()
}

/// The prompt text for `messages` (the last of which is the user's) and `tools` (the
/// definitions, already checked by `Tools`) in `format`. `control` breaks a control token
/// that only reading a JSON text back makes (an escaped `\u005bINST]`), as the messages'
/// own were broken before.
///
/// # Errors
///
/// [`Error::Conversation`] naming the message and the rule where `mistral-common` refuses the
/// conversation, or where a message has a shape this format does not write.
pub(super) fn render(
    messages: &[Value],
    tools: Option<&Value>,
    format: Format,
    control: &ControlTokens,
) -> Result<String, Error> {
    let read = read::conversation(messages, format, control)?;
    let tools = match tools {
        Some(tools) => write::tool_list(tools)?,
        None => None,
    };
    let uses_tools = tools.is_some()
        || read.iter().any(|message| match &message.kind {
            read::Kind::Assistant { calls, .. } => !calls.is_empty(),
            read::Kind::Tool(_) => true,
            _ => false,
        });
    if uses_tools
        && let Some(missing) = format
            .writes_for_tools()
            .iter()
            .find(|t| control.tokens().binary_search(&(**t).to_string()).is_err())
    {
        return Err(Error::template(
            TemplateErrorKind::Unsupported,
            format!(
                "the Tekken file's special_tokens lack {missing}, which Mistral's format writes for tools, tool calls and tool results (mistral-common refuses such a file)"
            ),
        ));
    }
    write::prompt(&read, tools.as_deref(), format)
}

/// Checks tool definitions as `mistral-common` reads them (function names, descriptions).
///
/// # Errors
///
/// [`Error::PromptSetting`] (setting `tools`) naming the tool.
pub(super) fn check_tools(tools: &Value) -> Result<(), Error> {
    write::tool_list(tools).map(|_| ())
}

#[cfg(test)]
mod tests;

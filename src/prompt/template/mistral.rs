//! Mistral's instruct format for Tekken files (instruct version 3, which both of
//! `mistral-common`'s Tekken files carry), as `mistral-common`'s `encode_chat_completion`
//! writes it: neighbouring messages of one role joined with a blank line, every system
//! message joined before the last user message, `[INST]`...`[/INST]` around user turns and
//! `</s>` after assistant turns (with trailing spaces dropped). Checked against
//! `mistral-common` in `.ci/run`.

use minijinja::value::Value;

use crate::error::Error;
use crate::prompt::message::{role_of, text_content};

/// The control tokens `mistral-common`'s Tekkenizer reserves (`SpecialTokens`), as text.
pub(super) fn control_tokens() -> Vec<String> {
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

/// The prompt text for `messages`, the last of which is the user's.
pub(super) fn render(messages: &[Value]) -> Result<String, Error> {
    let mut system = Vec::new();
    // (role, joined content) of the user and assistant runs, in order.
    let mut turns: Vec<(String, String)> = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        let role = role_of(message).unwrap_or_default();
        let content = text_content(message).ok_or_else(|| Error::Conversation {
            problem: format!(
                "message {index}: Mistral's format here takes text content (a string) only"
            ),
        })?;
        match role.as_str() {
            "system" => system.push(content),
            "user" | "assistant" => match turns.last_mut() {
                Some((last, text)) if *last == role => {
                    text.push_str("\n\n");
                    text.push_str(&content);
                }
                _ => turns.push((role, content)),
            },
            other => {
                return Err(Error::Conversation {
                    problem: format!(
                        "message {index}: Mistral's format here takes system, user and assistant messages, not `{other}`"
                    ),
                });
            }
        }
    }
    if turns.first().is_some_and(|(role, _)| role != "user") {
        return Err(Error::Conversation {
            problem: "Mistral's format needs the first message after the system messages to be the user's".to_string(),
        });
    }
    let last_user = turns.iter().rposition(|(role, _)| role == "user");
    let mut out = String::from("<s>");
    for (i, (role, content)) in turns.iter().enumerate() {
        if role == "user" {
            out.push_str("[INST]");
            if Some(i) == last_user && !system.is_empty() {
                out.push_str(&system.join("\n\n"));
                out.push_str("\n\n");
            }
            out.push_str(content);
            out.push_str("[/INST]");
        } else {
            out.push_str(content.trim_end_matches(' '));
            out.push_str("</s>");
        }
    }
    Ok(out)
}

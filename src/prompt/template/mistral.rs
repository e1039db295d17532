//! Mistral's instruct formats for Tekken files, as `mistral-common`'s `encode_chat_completion`
//! writes them (its `InstructRequestNormalizer` and `InstructTokenizerV3` to `V13`), by the
//! file's tokenizer version:
//!
//! - v3 (both of `mistral-common`'s own Tekken files): every non-empty system message joined
//!   with a blank line before the last user message's text;
//! - v7, v11 and v13: each system message where it stands, between `[SYSTEM_PROMPT]` and
//!   `[/SYSTEM_PROMPT]`. v11 and v13 differ from v7 only in how tool calls, tool results and
//!   the tool list are written, and this format takes no tool messages, so the three write
//!   the same text.
//!
//! In all: neighbouring messages of one role joined with a blank line (empty ones skipped),
//! `[INST]`...`[/INST]` around user turns and `</s>` after assistant turns (with trailing
//! spaces dropped), and nothing after the last `[/INST]`. Checked against `mistral-common`
//! for every version in `.ci/run`.

use minijinja::value::Value;

use crate::error::Error;
use crate::prompt::message::{role_of, text_content};
use crate::tokenizer::{TekkenTokenizer, TekkenVersion};

/// The versions whose instruct format this writes.
const WRITTEN: [TekkenVersion; 4] = [
    TekkenVersion::V3,
    TekkenVersion::V7,
    TekkenVersion::V11,
    TekkenVersion::V13,
];

/// How system messages are written: the only difference between the formats here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    /// v3: joined before the last user message.
    V3,
    /// v7, v11, v13: in place, between `[SYSTEM_PROMPT]` and `[/SYSTEM_PROMPT]`.
    V7,
}

impl Format {
    /// The control tokens this format writes.
    fn writes(self) -> &'static [&'static str] {
        match self {
            Format::V3 => &["<s>", "</s>", "[INST]", "[/INST]"],
            Format::V7 => &[
                "<s>",
                "</s>",
                "[INST]",
                "[/INST]",
                "[SYSTEM_PROMPT]",
                "[/SYSTEM_PROMPT]",
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
    let refuse = |problem: String| Err(Error::ChatTemplate { problem });
    let format = match version {
        TekkenVersion::V3 => Format::V3,
        TekkenVersion::V7 | TekkenVersion::V11 | TekkenVersion::V13 => Format::V7,
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

/// A run of messages of one role, joined (v7's system messages are each their own).
struct Turn {
    role: String,
    text: String,
    /// The index of its first message, to name it.
    first: usize,
}

/// The prompt text for `messages`, the last of which is the user's, in `format`.
pub(super) fn render(messages: &[Value], format: Format) -> Result<String, Error> {
    // The system messages of v3, joined before the last user message.
    let mut system = Vec::new();
    let mut turns: Vec<Turn> = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        let role = role_of(message).unwrap_or_default();
        let content = text_content(message).ok_or_else(|| Error::Conversation {
            problem: format!(
                "message {index}: Mistral's format here takes text content (a string) only"
            ),
        })?;
        if index == 0 && role == "assistant" {
            return Err(Error::Conversation {
                problem:
                    "Mistral's format needs the conversation to start with a system or user message"
                        .to_string(),
            });
        }
        if role == "system"
            && index > 0
            && role_of(&messages[index - 1]).as_deref() == Some("assistant")
        {
            return Err(Error::Conversation {
                problem: format!(
                    "message {index}: Mistral's format takes no system message right after an assistant message (mistral-common refuses it)"
                ),
            });
        }
        // v3 refuses an empty assistant message; v7 and later an empty run of them (below).
        if format == Format::V3 && role == "assistant" && content.is_empty() {
            return Err(empty_assistant(index));
        }
        let joins = turns.last().is_some_and(|turn| turn.role == role);
        match role.as_str() {
            "system" | "user" | "assistant" => {}
            other => {
                return Err(Error::Conversation {
                    problem: format!(
                        "message {index}: Mistral's format here takes system, user and assistant messages, not `{other}`"
                    ),
                });
            }
        }
        if role == "system" && format == Format::V3 {
            if !content.is_empty() {
                system.push(content);
            }
            // Still a run of its own: the user messages around it stay two turns.
            turns.push(Turn {
                role,
                text: String::new(),
                first: index,
            });
        } else if joins && role != "system" {
            let text = &mut turns.last_mut().expect("a run to join").text;
            if !text.is_empty() && !content.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(&content);
        } else {
            turns.push(Turn {
                role,
                text: content,
                first: index,
            });
        }
    }
    let user = |first| Turn {
        role: "user".to_string(),
        text: String::new(),
        first,
    };
    if format == Format::V3 {
        turns.retain(|turn| turn.role != "system");
        // mistral-common's v3 normalizer opens with an empty user message when the first
        // turn is not the user's.
        if turns.first().is_none_or(|turn| turn.role != "user") {
            turns.insert(0, user(0));
        }
    } else if turns.is_empty() {
        turns.push(user(0));
    }
    let last_user = turns.iter().rposition(|turn| turn.role == "user");
    let mut out = String::from("<s>");
    for (i, turn) in turns.iter().enumerate() {
        match turn.role.as_str() {
            "user" => {
                out.push_str("[INST]");
                if Some(i) == last_user && !system.is_empty() {
                    out.push_str(&system.join("\n\n"));
                    out.push_str("\n\n");
                }
                out.push_str(&turn.text);
                out.push_str("[/INST]");
            }
            "system" => {
                out.push_str("[SYSTEM_PROMPT]");
                out.push_str(&turn.text);
                out.push_str("[/SYSTEM_PROMPT]");
            }
            _ if turn.text.is_empty() => return Err(empty_assistant(turn.first)),
            _ => {
                out.push_str(turn.text.trim_end_matches(' '));
                out.push_str("</s>");
            }
        }
    }
    Ok(out)
}

fn empty_assistant(index: usize) -> Error {
    Error::Conversation {
        problem: format!(
            "message {index}: Mistral's format takes no assistant turn without text (mistral-common refuses it)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(pairs: &[(&str, &str)]) -> Vec<Value> {
        pairs
            .iter()
            .map(|(role, content)| Value::from_pairs([("role", *role), ("content", *content)]))
            .collect()
    }

    /// Messages as (role, content), with what v3 writes and what v7 and later write.
    type Case<'a> = (&'a [(&'a str, &'a str)], &'a str, &'a str);

    /// Each case with what mistral-common 1.13.1 writes for a v3 file and for v7, v11 and v13
    /// files (`encode_chat_completion(...).text`).
    #[test]
    fn each_format_writes_what_mistral_common_writes() {
        let cases: [Case<'_>; 6] = [
            (
                &[
                    ("system", "S"),
                    ("user", "A"),
                    ("assistant", "B "),
                    ("user", "C"),
                    ("system", "T"),
                    ("user", "D"),
                ],
                "<s>[INST]A[/INST]B</s>[INST]C[/INST][INST]S\n\nT\n\nD[/INST]",
                "<s>[SYSTEM_PROMPT]S[/SYSTEM_PROMPT][INST]A[/INST]B</s>[INST]C[/INST][SYSTEM_PROMPT]T[/SYSTEM_PROMPT][INST]D[/INST]",
            ),
            (
                &[
                    ("user", "a"),
                    ("user", ""),
                    ("user", "b"),
                    ("assistant", "x  "),
                    ("assistant", "y "),
                    ("user", "q"),
                ],
                "<s>[INST]a\n\nb[/INST]x  \n\ny</s>[INST]q[/INST]",
                "<s>[INST]a\n\nb[/INST]x  \n\ny</s>[INST]q[/INST]",
            ),
            (
                &[("user", "a"), ("system", "s"), ("user", "b")],
                "<s>[INST]a[/INST][INST]s\n\nb[/INST]",
                "<s>[INST]a[/INST][SYSTEM_PROMPT]s[/SYSTEM_PROMPT][INST]b[/INST]",
            ),
            (
                &[("system", "s"), ("assistant", "x"), ("user", "u")],
                "<s>[INST][/INST]x</s>[INST]s\n\nu[/INST]",
                "<s>[SYSTEM_PROMPT]s[/SYSTEM_PROMPT]x</s>[INST]u[/INST]",
            ),
            (
                &[("system", ""), ("user", "u")],
                "<s>[INST]u[/INST]",
                "<s>[SYSTEM_PROMPT][/SYSTEM_PROMPT][INST]u[/INST]",
            ),
            (
                &[
                    ("system", "s"),
                    ("system", ""),
                    ("system", "t"),
                    ("user", "u"),
                ],
                "<s>[INST]s\n\nt\n\nu[/INST]",
                "<s>[SYSTEM_PROMPT]s[/SYSTEM_PROMPT][SYSTEM_PROMPT][/SYSTEM_PROMPT][SYSTEM_PROMPT]t[/SYSTEM_PROMPT][INST]u[/INST]",
            ),
        ];
        for (pairs, v3, v7) in cases {
            let messages = messages(pairs);
            assert_eq!(render(&messages, Format::V3).unwrap(), v3, "{pairs:?}");
            assert_eq!(render(&messages, Format::V7).unwrap(), v7, "{pairs:?}");
        }
    }

    /// What mistral-common refuses, refused in one line naming the message.
    #[test]
    fn what_mistral_common_refuses_is_refused() {
        let empty_run = messages(&[
            ("user", "u"),
            ("assistant", ""),
            ("assistant", "x"),
            ("user", "v"),
        ]);
        // v7 joins the run first, and "x" is its text; v3 refuses the empty message.
        assert_eq!(
            render(&empty_run, Format::V7).unwrap(),
            "<s>[INST]u[/INST]x</s>[INST]v[/INST]"
        );
        for (pairs, formats, problem) in [
            (
                &empty_run[..],
                &[Format::V3][..],
                "message 1: Mistral's format takes no assistant turn without text",
            ),
            (
                &messages(&[("user", "u"), ("assistant", ""), ("user", "v")])[..],
                &[Format::V3, Format::V7][..],
                "message 1: Mistral's format takes no assistant turn without text",
            ),
            (
                &messages(&[
                    ("user", "u"),
                    ("assistant", "a"),
                    ("system", "s"),
                    ("user", "v"),
                ])[..],
                &[Format::V3, Format::V7][..],
                "message 2: Mistral's format takes no system message right after an assistant message",
            ),
            (
                &messages(&[("assistant", "a"), ("user", "v")])[..],
                &[Format::V3, Format::V7][..],
                "start with a system or user message",
            ),
        ] {
            for &format in formats {
                let err = render(pairs, format).unwrap_err().to_string();
                assert!(
                    err.contains(problem) && !err.contains('\n'),
                    "{format:?}: {err}"
                );
            }
        }
    }
}

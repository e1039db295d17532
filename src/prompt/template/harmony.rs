//! gpt-oss's Harmony format, written as `openai-harmony`'s
//! `render_conversation_for_completion(conversation, Role.ASSISTANT)` writes it (checked
//! against the `openai-harmony` Python package in `.ci/run`). Written here rather than taken
//! from the `openai-harmony` crate, which fetches its vocabulary over HTTP and pulls in an
//! HTTP client and image code.

use minijinja::value::Value;

use crate::error::Error;
use crate::prompt::ConversationDate;
use crate::prompt::message::{role_of, text_content};

/// Harmony's control tokens (`o200k_harmony`): the named ones, and the reserved ids
/// 200000..=201088 that the named ones leave, as `<|reserved_N|>`.
pub(super) fn control_tokens() -> Vec<String> {
    const NAMED: [(&str, u32); 9] = [
        ("<|startoftext|>", 199_998),
        ("<|endoftext|>", 199_999),
        ("<|return|>", 200_002),
        ("<|constrain|>", 200_003),
        ("<|channel|>", 200_005),
        ("<|start|>", 200_006),
        ("<|end|>", 200_007),
        ("<|message|>", 200_008),
        ("<|call|>", 200_012),
    ];
    let mut tokens: Vec<String> = NAMED.iter().map(|(t, _)| (*t).to_string()).collect();
    tokens.extend(
        (200_000..=201_088u32)
            .filter(|id| !NAMED.iter().any(|(_, named)| named == id))
            .map(|id| format!("<|reserved_{id}|>")),
    );
    // gpt-oss's tokenizer.json also names 200018 `<|endofprompt|>`.
    tokens.push("<|endofprompt|>".to_string());
    tokens
}

/// The system message `openai-harmony`'s `SystemContent.new()` writes, with the date.
fn system_message(date: ConversationDate) -> String {
    format!(
        "<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\n\
         Knowledge cutoff: 2024-06\nCurrent date: {date}\n\nReasoning: medium\n\n\
         # Valid channels: analysis, commentary, final. Channel must be included for every \
         message.<|end|>"
    )
}

/// The prompt for `messages`: a leading system message becomes the developer message's
/// instructions; user and assistant messages follow; the prompt ends ready for the
/// assistant's answer.
pub(super) fn render(messages: &[Value], date: ConversationDate) -> Result<String, Error> {
    let mut out = system_message(date);
    for (index, message) in messages.iter().enumerate() {
        let role = role_of(message).unwrap_or_default();
        let content = text_content(message).ok_or_else(|| Error::Conversation {
            problem: format!(
                "message {index}: the Harmony format takes text content (a string) only"
            ),
        })?;
        match role.as_str() {
            "system" | "developer" if index == 0 => {
                out.push_str("<|start|>developer<|message|># Instructions\n\n");
                out.push_str(&content);
                out.push_str("<|end|>");
            }
            "user" => {
                out.push_str("<|start|>user<|message|>");
                out.push_str(&content);
                out.push_str("<|end|>");
            }
            "assistant" => {
                out.push_str("<|start|>assistant<|channel|>final<|message|>");
                out.push_str(&content);
                out.push_str("<|end|>");
            }
            other => {
                return Err(Error::Conversation {
                    problem: format!(
                        "message {index}: the Harmony format here takes a first system message, \
                         then user and assistant messages, not `{other}`"
                    ),
                });
            }
        }
    }
    out.push_str("<|start|>assistant");
    Ok(out)
}

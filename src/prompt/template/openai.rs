//! OpenAI's chat models, counted by the rule OpenAI publishes (the OpenAI cookbook, "How to
//! count tokens with tiktoken", `num_tokens_from_messages`, checked by OpenAI against
//! `usage.prompt_tokens`): 3 tokens per message, every string value encoded, 1 more per
//! `name`, and 3 priming the reply. There is no prompt text: the messages are sent as they
//! are, and the API writes its own framing. Tools, where given, add what the cookbook's
//! `num_tokens_for_tools` counts (`openai_tools.rs`): an estimate.

use minijinja::value::{Value, ValueKind};

use super::openai_tools::{Constants, pieces as tool_pieces};
use super::{Piece, Rendered};
use crate::error::Error;
use crate::tokenizer::Encoding;

const TOKENS_PER_MESSAGE: usize = 3;
const TOKENS_PER_NAME: usize = 1;
const REPLY_PRIMING: usize = 3;

/// The encoding's special tokens: never sent as text (tiktoken's `encode` refuses them by
/// default, and the cookbook's rule uses it).
pub(super) fn control_tokens(encoding: Encoding) -> Vec<String> {
    let mut tokens = vec!["<|endoftext|>".to_string()];
    match encoding {
        Encoding::O200kBase => tokens.push("<|endofprompt|>".to_string()),
        Encoding::Cl100kBase => tokens.extend(
            [
                "<|fim_prefix|>",
                "<|fim_middle|>",
                "<|fim_suffix|>",
                "<|endofprompt|>",
            ]
            .map(String::from),
        ),
        _ => {}
    }
    tokens
}

/// The pieces to count: every string value of every message, in order, then the tools' (in
/// no message: the tools are no turn's).
pub(super) fn render(
    messages: &[Value],
    tools: Option<(&Value, Constants)>,
) -> Result<Rendered, Error> {
    let mut pieces = Vec::new();
    let mut fixed_tokens = REPLY_PRIMING;
    let mut per_message = Vec::with_capacity(messages.len());
    for (index, message) in messages.iter().enumerate() {
        let first_piece = pieces.len();
        let mut own = TOKENS_PER_MESSAGE;
        for key in message.try_iter().map_err(|_| not_a_message(index))? {
            let value = message.get_item(&key).map_err(|_| not_a_message(index))?;
            match value.kind() {
                ValueKind::String => {
                    pieces.push(Piece::Owned(value.as_str().unwrap_or_default().to_string()));
                }
                // `content: null` beside tool calls would be sent, but the rule has no count
                // for it; neither has it for anything else that is not a string.
                _ => {
                    return Err(Error::Conversation {
                        problem: format!(
                            "message {index}: OpenAI's counting rule covers string fields only, and `{key}` is not a string"
                        ),
                    });
                }
            }
            if key.as_str() == Some("name") {
                own += TOKENS_PER_NAME;
            }
        }
        fixed_tokens += own;
        per_message.push((first_piece..pieces.len(), own));
    }
    if let Some((tools, constants)) = tools {
        let (texts, fixed) = tool_pieces(tools, constants);
        pieces.extend(texts.into_iter().map(Piece::Owned));
        fixed_tokens += fixed;
    }
    Ok(Rendered {
        text: None,
        pieces,
        fixed_tokens,
        controls: Vec::new(),
        per_message: Some(per_message),
    })
}

fn not_a_message(index: usize) -> Error {
    Error::Conversation {
        problem: format!("message {index} is not an object"),
    }
}

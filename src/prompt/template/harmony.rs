//! gpt-oss's Harmony format, as vLLM's chat endpoint serves gpt-oss
//! (`vllm/entrypoints/openai/parser/harmony_utils.py`: `extract_instructions_from_messages`,
//! `build_harmony_preamble`, `parse_chat_inputs_to_harmony_messages`) and `openai-harmony`'s
//! `render_conversation_for_completion(conversation, Role.ASSISTANT)` writes it (checked against
//! both mappings' Python in `tests/reference/whole_prompt.py`, run by `.ci/run`). Written here
//! rather than taken from the `openai-harmony` crate, which fetches its vocabulary over HTTP
//! and pulls in an HTTP client and image code.
//!
//! The mapping: a first system (or developer) message is the developer message's
//! instructions; the tools follow them there (`DeveloperContent.with_function_tools`, in
//! `harmony_tools.rs`), and the system message then says where calls go. An assistant message
//! with `tool_calls` becomes its content on `commentary`, its `reasoning` on `analysis`, and
//! one `to=functions.NAME` message per call on `commentary` with content type `json`; a `tool`
//! message is from `functions.NAME` (its call's, found by `tool_call_id`) to the assistant on
//! `commentary`; any other assistant message is its `reasoning` on `analysis` and its content
//! on `final`. Reasoning before the last final answer is dropped, as vLLM drops it.

use std::collections::HashMap;

use minijinja::value::{Value, ValueKind};

use super::ReasoningEffort;
use super::harmony_tools::{Function, section};
use crate::error::Error;
use crate::prompt::ConversationDate;
use crate::prompt::message::role_of;

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

/// The system message `openai-harmony`'s `SystemContent.new()` writes, with the effort and the
/// date, and (where there are function tools) where their calls go.
fn system_message(date: ConversationDate, effort: ReasoningEffort, tools: bool) -> String {
    let calls = if tools {
        "\nCalls to these tools must go to the commentary channel: 'functions'."
    } else {
        ""
    };
    format!(
        "<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\n\
         Knowledge cutoff: 2024-06\nCurrent date: {date}\n\nReasoning: {effort}\n\n\
         # Valid channels: analysis, commentary, final. Channel must be included for every \
         message.{calls}<|end|>"
    )
}

/// What the template is given besides the messages.
pub(super) struct Given<'a> {
    pub(super) tools: Option<&'a Value>,
    pub(super) date: ConversationDate,
    pub(super) effort: ReasoningEffort,
}

/// One Harmony message, rendered.
struct Written {
    /// On the `analysis` channel: dropped before the last final answer.
    analysis: bool,
    /// An assistant's message on the `final` channel.
    is_final: bool,
    text: String,
}

impl Written {
    fn new(header: &str, content: &str, end: &str) -> Written {
        Written {
            analysis: false,
            is_final: false,
            text: format!("<|start|>{header}<|message|>{content}{end}"),
        }
    }
}

/// The prompt for `messages`, ready for the assistant's answer.
pub(super) fn render(messages: &[Value], given: &Given<'_>) -> Result<String, Error> {
    let functions = functions(given.tools)?;
    let (instructions, rest) = match messages.first() {
        Some(first) if matches!(role_of(first).as_deref(), Some("system" | "developer")) => {
            (text_of(first, "content", 0)?, &messages[1..])
        }
        _ => (None, messages),
    };
    let mut out = system_message(given.date, given.effort, !functions.is_empty());
    // vLLM writes a developer message only for instructions that are not empty, or tools;
    // its instructions are then written even when empty.
    if instructions.as_deref().is_some_and(|i| !i.is_empty()) || !functions.is_empty() {
        let mut sections = Vec::new();
        if let Some(instructions) = instructions {
            sections.push("# Instructions".to_string());
            sections.push(instructions);
        }
        if !functions.is_empty() {
            sections.push(section(&functions));
        }
        out.push_str(&Written::new("developer", &sections.join("\n\n"), "<|end|>").text);
    }
    let offset = messages.len() - rest.len();
    let names = call_names(rest);
    let mut written = Vec::new();
    for (index, message) in rest.iter().enumerate() {
        write_message(message, index + offset, &names, &mut written)?;
    }
    let last_final = written.iter().rposition(|w| w.is_final);
    for (i, message) in written.iter().enumerate() {
        if !(message.analysis && last_final.is_some_and(|last| i < last)) {
            out.push_str(&message.text);
        }
    }
    out.push_str("<|start|>assistant");
    Ok(out)
}

/// One chat message as Harmony messages, as vLLM's `parse_chat_input_to_harmony_message`
/// maps it.
fn write_message(
    message: &Value,
    index: usize,
    names: &HashMap<String, String>,
    out: &mut Vec<Written>,
) -> Result<(), Error> {
    let role = role_of(message).unwrap_or_default();
    let calls = field(message, "tool_calls")
        .filter(|calls| calls.kind() == ValueKind::Seq && calls.len().unwrap_or(0) > 0);
    if role == "assistant"
        && let Some(calls) = calls
    {
        if let Some(content) = text_of(message, "content", index)?.filter(|c| !c.is_empty()) {
            out.push(Written::new(
                "assistant<|channel|>commentary",
                &content,
                "<|end|>",
            ));
        }
        reasoning(message, index, out)?;
        for call in calls.try_iter().into_iter().flatten() {
            let function = field(&call, "function").unwrap_or_default();
            let name = field(&function, "name")
                .and_then(|n| n.as_str().map(str::to_string))
                .unwrap_or_default();
            let arguments = arguments(field(&function, "arguments"));
            out.push(Written::new(
                &format!("assistant to=functions.{name}<|channel|>commentary json"),
                &arguments,
                "<|call|>",
            ));
        }
        return Ok(());
    }
    if role == "tool" {
        let name = field(message, "tool_call_id")
            .and_then(|id| id.as_str().and_then(|id| names.get(id)).cloned())
            .unwrap_or_default();
        let content = text_of(message, "content", index)?.unwrap_or_default();
        out.push(Written::new(
            &format!("functions.{name} to=assistant<|channel|>commentary"),
            &content,
            "<|end|>",
        ));
        return Ok(());
    }
    if role == "assistant" {
        reasoning(message, index, out)?;
    }
    let content = text_of(message, "content", index)?.unwrap_or_default();
    match role.as_str() {
        // vLLM keeps an assistant's message only where its (first part of) content is not
        // empty.
        "assistant" if first_text_is_empty(message) => {}
        "assistant" => out.push(Written {
            is_final: true,
            ..Written::new("assistant<|channel|>final", &content, "<|end|>")
        }),
        "user" | "system" | "developer" => out.push(Written::new(&role, &content, "<|end|>")),
        other => {
            return Err(Error::Conversation {
                problem: format!(
                    "message {index}: the Harmony format takes system, developer, user, \
                     assistant and tool messages, not `{other}`"
                ),
            });
        }
    }
    Ok(())
}

/// An assistant's `reasoning`, where it has some, on the `analysis` channel.
fn reasoning(message: &Value, index: usize, out: &mut Vec<Written>) -> Result<(), Error> {
    let Some(reasoning) = field(message, "reasoning").filter(Value::is_true) else {
        return Ok(());
    };
    let Some(text) = reasoning
        .as_str()
        .filter(|_| reasoning.kind() == ValueKind::String)
    else {
        return Err(Error::Conversation {
            problem: format!("message {index}: its `reasoning` must be a string"),
        });
    };
    out.push(Written {
        analysis: true,
        ..Written::new("assistant<|channel|>analysis", text, "<|end|>")
    });
    Ok(())
}

/// A call's `arguments` as written: a string as it is; an object (or any other JSON value)
/// as compact JSON, its keys in their order; nothing where absent, null or empty.
fn arguments(arguments: Option<Value>) -> String {
    match arguments.filter(Value::is_true) {
        None => String::new(),
        Some(text) if text.kind() == ValueKind::String => {
            text.as_str().unwrap_or_default().to_string()
        }
        Some(value) => serde_json::to_string(&value).unwrap_or_default(),
    }
}

/// Each tool call's `id`, with its function's name: what a result's `tool_call_id` finds.
fn call_names(messages: &[Value]) -> HashMap<String, String> {
    let mut names = HashMap::new();
    for message in messages {
        let Some(calls) = field(message, "tool_calls") else {
            continue;
        };
        for call in calls.try_iter().into_iter().flatten() {
            let id = field(&call, "id").and_then(|id| id.as_str().map(str::to_string));
            let name = field(&call, "function")
                .and_then(|f| field(&f, "name"))
                .and_then(|n| n.as_str().map(str::to_string));
            if let (Some(id), Some(name)) = (id, name) {
                names.insert(id, name);
            }
        }
    }
    names
}

/// A field of an object, where it is there (JSON `null` included).
fn field(value: &Value, key: &str) -> Option<Value> {
    if value.kind() != ValueKind::Map {
        return None;
    }
    value.get_attr(key).ok().filter(|v| !v.is_undefined())
}

/// A text field: a string, or text parts (`[{"type": "text", "text": ...}]`) joined; `None`
/// where absent or null.
fn text_of(message: &Value, key: &str, index: usize) -> Result<Option<String>, Error> {
    let Some(value) = field(message, key).filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    if value.kind() == ValueKind::String {
        return Ok(Some(value.as_str().unwrap_or_default().to_string()));
    }
    let not_text = || Error::Conversation {
        problem: format!(
            "message {index}: the Harmony format takes text content (a string or text parts) only"
        ),
    };
    if value.kind() != ValueKind::Seq {
        return Err(not_text());
    }
    let mut text = String::new();
    for part in value.try_iter().into_iter().flatten() {
        match field(&part, "text") {
            Some(t) if t.kind() == ValueKind::String => text.push_str(t.as_str().unwrap_or("")),
            _ => return Err(not_text()),
        }
    }
    Ok(Some(text))
}

/// Whether a message's content, or its first text part, is empty (vLLM looks no further).
fn first_text_is_empty(message: &Value) -> bool {
    let Some(content) = field(message, "content").filter(|c| !c.is_none()) else {
        return true;
    };
    let first = if content.kind() == ValueKind::Seq {
        content
            .get_item(&Value::from(0))
            .ok()
            .and_then(|part| field(&part, "text"))
    } else {
        Some(content)
    };
    first.is_none_or(|text| text.as_str().is_none_or(str::is_empty))
}

/// The function tools, as vLLM hands them to `ToolDescription.new` (a missing description
/// is empty).
fn functions(tools: Option<&Value>) -> Result<Vec<Function>, Error> {
    let mut functions = Vec::new();
    for (index, tool) in tools
        .into_iter()
        .flat_map(|t| t.try_iter().into_iter().flatten())
        .enumerate()
    {
        let function = field(&tool, "function").unwrap_or_default();
        let name = field(&function, "name")
            .and_then(|n| n.as_str().map(str::to_string))
            .unwrap_or_default();
        let description = match field(&function, "description").filter(|d| !d.is_none()) {
            None => String::new(),
            Some(d) if d.kind() == ValueKind::String => d.as_str().unwrap_or_default().to_string(),
            Some(_) => {
                return Err(Error::PromptSetting {
                    setting: "tools",
                    problem: format!(
                        "tool {index} (`{name}`): the Harmony format needs its `description` to be a string"
                    ),
                });
            }
        };
        functions.push(Function {
            name,
            description,
            parameters: field(&function, "parameters").filter(|p| !p.is_none()),
        });
    }
    Ok(functions)
}

//! A conversation read (`read.rs`) written as `mistral-common` writes it: neighbouring messages
//! of one role joined as its normalizer joins them (`InstructRequestNormalizer`, `V7`, `V13`
//! in `protocol/instruct/normalize.py`), then each written by its instruct tokenizer
//! (`InstructTokenizerV3` to `V13` in `tokens/tokenizers/instruct.py`).

use minijinja::value::{Value, ValueKind};

use super::Format;
use super::read::{Call, Kind, NAME_RULE, Read, ToolResult, is_function_name};
use crate::error::Error;
use crate::prompt::template::jinja::pyjson;

/// A message once joined with its neighbours of the same role.
enum Entry<'a> {
    /// v3's system messages are written with the last user message: this one only keeps
    /// the user messages around it apart.
    Gap,
    System(&'a str),
    User(String),
    Assistant {
        text: String,
        calls: Vec<&'a Call>,
        first: usize,
    },
    Tool(&'a ToolResult),
}

pub(super) fn empty_assistant(index: usize) -> Error {
    Error::Conversation {
        problem: format!(
            "message {index}: Mistral's format takes no assistant turn without text (mistral-common refuses it)"
        ),
    }
}

/// `json.dumps` of a value: the values here come from JSON, so it always writes.
fn dumps(value: &Value) -> Result<String, Error> {
    pyjson::dumps(value).map_err(|problem| Error::Conversation {
        problem: format!("Mistral's format cannot write a value as JSON: {problem}"),
    })
}

/// The tool list as `[AVAILABLE_TOOLS]` holds it: `json.dumps` of each definition as
/// `Tool.model_dump` gives it (`{"type", "function": {"name", "description", "parameters"}}`,
/// `description` `""` and `parameters` `{}` where missing, other fields left out, as
/// `Tool.from_openai` reads them). `None` for an empty list, which writes nothing.
///
/// # Errors
///
/// [`Error::PromptSetting`] (setting `tools`) for a function name or description
/// `mistral-common` refuses.
pub(super) fn tool_list(tools: &Value) -> Result<Option<String>, Error> {
    let mut list = Vec::new();
    for (index, tool) in tools.try_iter().into_iter().flatten().enumerate() {
        let function = tool.get_attr("function").unwrap_or_default();
        let get = |name: &str| {
            function
                .get_attr(name)
                .ok()
                .filter(|v| !v.is_undefined() && !v.is_none())
        };
        let name = get("name")
            .and_then(|n| n.as_str().map(str::to_string))
            .unwrap_or_default();
        let refuse = |problem: String| Error::PromptSetting {
            setting: "tools",
            problem: format!("tool {index} (`{name}`): {problem}"),
        };
        if !is_function_name(&name) {
            return Err(refuse(format!("its name {NAME_RULE}")));
        }
        let description = match get("description") {
            None => Value::from(""),
            Some(text) if text.kind() == ValueKind::String => text,
            Some(_) => {
                return Err(refuse(
                    "its `description` must be a string for Mistral's format".to_string(),
                ));
            }
        };
        let parameters =
            get("parameters").unwrap_or_else(|| Value::from_pairs(Vec::<(&str, Value)>::new()));
        list.push(Value::from_pairs([
            ("type", Value::from("function")),
            (
                "function",
                Value::from_pairs([
                    ("name", Value::from(name.as_str())),
                    ("description", description),
                    ("parameters", parameters),
                ]),
            ),
        ]));
    }
    if list.is_empty() {
        return Ok(None);
    }
    dumps(&Value::from(list)).map(Some)
}

/// The messages joined as the normalizer joins them; v3's system messages apart.
fn entries<'a>(read: &'a [Read], format: Format) -> (Vec<Entry<'a>>, Vec<&'a str>) {
    let mut system = Vec::new();
    let mut entries: Vec<Entry<'a>> = Vec::new();
    // v11 and v13 put each run of results in the order of the calls made since the last
    // run of results (`_inplace_sort_tool_messages`).
    let mut latest_calls: Vec<&'a str> = Vec::new();
    let mut run_start = 0;
    for message in read {
        match (&message.kind, entries.last_mut()) {
            (Kind::User(text), Some(Entry::User(joined))) => {
                if !joined.is_empty() && !text.is_empty() {
                    joined.push_str("\n\n");
                }
                joined.push_str(text);
            }
            (
                Kind::Assistant { text, calls },
                Some(Entry::Assistant {
                    text: joined,
                    calls: all,
                    ..
                }),
            ) => {
                if !joined.is_empty() && !text.is_empty() {
                    joined.push_str("\n\n");
                }
                joined.push_str(text);
                all.extend(calls);
            }
            (kind, last) => {
                let last_was_tool = matches!(last, Some(Entry::Tool(_)));
                if let Some(Entry::Assistant { calls, .. }) = &last {
                    latest_calls.extend(calls.iter().map(|c| c.id.as_deref().unwrap_or("null")));
                }
                if last_was_tool && !matches!(kind, Kind::Tool(_)) {
                    sort_results(&mut entries[run_start..], &latest_calls, format);
                    latest_calls.clear();
                }
                if !last_was_tool {
                    run_start = entries.len();
                }
                entries.push(match kind {
                    Kind::System(text) if format == Format::V3 => {
                        if !text.is_empty() {
                            system.push(text.as_str());
                        }
                        Entry::Gap
                    }
                    Kind::System(text) => Entry::System(text),
                    Kind::User(text) => Entry::User(text.clone()),
                    Kind::Assistant { text, calls } => Entry::Assistant {
                        text: text.clone(),
                        calls: calls.iter().collect(),
                        first: message.index,
                    },
                    Kind::Tool(result) => Entry::Tool(result),
                });
            }
        }
    }
    if matches!(entries.last(), Some(Entry::Tool(_))) {
        sort_results(&mut entries[run_start..], &latest_calls, format);
    }
    if format == Format::V3 {
        entries.retain(|entry| !matches!(entry, Entry::Gap));
        // v3's normalizer opens with an empty user message when the first is not the user's.
        if !matches!(entries.first(), Some(Entry::User(_))) {
            entries.insert(0, Entry::User(String::new()));
        }
    } else if entries.is_empty() {
        entries.push(Entry::User(String::new()));
    }
    (entries, system)
}

/// A run of results in the order of `calls` (those no call names last), stable.
fn sort_results(run: &mut [Entry<'_>], calls: &[&str], format: Format) {
    if format < Format::V11 {
        return;
    }
    let rank = |entry: &Entry<'_>| match entry {
        Entry::Tool(result) => calls
            .iter()
            .position(|id| *id == result.id)
            .unwrap_or(usize::MAX),
        _ => usize::MAX,
    };
    run.sort_by_key(rank);
}

/// The prompt text.
pub(super) fn prompt(read: &[Read], tools: Option<&str>, format: Format) -> Result<String, Error> {
    let (entries, system) = entries(read, format);
    let is_user = |e: &Entry<'_>| matches!(e, Entry::User(_));
    let first_user = entries.iter().position(is_user);
    let last_user = entries.iter().rposition(is_user);
    // Where the tool list goes: before the first user message from v13, the last before.
    let tools_at = if format == Format::V13 {
        first_user
    } else {
        last_user
    };
    let mut out = String::from("<s>");
    for (i, entry) in entries.iter().enumerate() {
        match entry {
            Entry::Gap => {}
            Entry::User(text) => {
                if let Some(tools) = tools.filter(|_| Some(i) == tools_at) {
                    out.push_str("[AVAILABLE_TOOLS]");
                    out.push_str(tools);
                    out.push_str("[/AVAILABLE_TOOLS]");
                }
                out.push_str("[INST]");
                if Some(i) == last_user && !system.is_empty() {
                    out.push_str(&system.join("\n\n"));
                    out.push_str("\n\n");
                }
                out.push_str(text);
                out.push_str("[/INST]");
            }
            Entry::System(text) => {
                out.push_str("[SYSTEM_PROMPT]");
                out.push_str(text);
                out.push_str("[/SYSTEM_PROMPT]");
            }
            Entry::Assistant { text, calls, first } => {
                if text.is_empty() && calls.is_empty() {
                    return Err(empty_assistant(*first));
                }
                if format == Format::V3 && !text.is_empty() && !calls.is_empty() {
                    return Err(Error::Conversation {
                        problem: format!(
                            "message {first}: Mistral's v3 format takes no assistant text next to tool calls in one run of assistant messages (mistral-common refuses it)"
                        ),
                    });
                }
                out.push_str(text.trim_end_matches(' '));
                write_calls(&mut out, calls, format)?;
                out.push_str("</s>");
            }
            Entry::Tool(result) => {
                out.push_str("[TOOL_RESULTS]");
                match format {
                    Format::V3 => out.push_str(&dumps(&Value::from_pairs([
                        ("content", result.json.clone()),
                        ("call_id", Value::from(result.id.as_str())),
                    ]))?),
                    Format::V7 | Format::V11 => {
                        out.push_str(&result.id);
                        out.push_str("[TOOL_CONTENT]");
                        out.push_str(&result.text);
                    }
                    Format::V13 => out.push_str(&result.text),
                }
                out.push_str("[/TOOL_RESULTS]");
            }
        }
    }
    Ok(out)
}

/// An assistant message's tool calls: one JSON list up to v7, one `[TOOL_CALLS]` each after.
fn write_calls(out: &mut String, calls: &[&Call], format: Format) -> Result<(), Error> {
    if calls.is_empty() {
        return Ok(());
    }
    if format <= Format::V7 {
        let list: Vec<Value> = calls
            .iter()
            .map(|call| {
                let mut fields = vec![
                    ("name", Value::from(call.name.as_str())),
                    ("arguments", call.arguments.clone()),
                ];
                if let Some(id) = call.id.as_deref().filter(|id| *id != "null") {
                    fields.push(("id", Value::from(id)));
                }
                Value::from_pairs(fields)
            })
            .collect();
        out.push_str("[TOOL_CALLS]");
        out.push_str(&dumps(&Value::from(list))?);
        return Ok(());
    }
    for call in calls {
        out.push_str("[TOOL_CALLS]");
        out.push_str(&call.name);
        if format == Format::V11
            && let Some(id) = call.id.as_deref().filter(|id| *id != "null")
        {
            out.push_str("[CALL_ID]");
            out.push_str(id);
        }
        out.push_str("[ARGS]");
        out.push_str(&dumps(&call.arguments)?);
    }
    Ok(())
}

//! Tool definitions for OpenAI's chat models, by the only rule OpenAI publishes: the OpenAI
//! cookbook's `num_tokens_for_tools` ("How to count tokens with tiktoken", section 7,
//! `examples/How_to_count_tokens_with_tiktoken.ipynb` in `openai/openai-cookbook`). It is an
//! estimate: OpenAI does not say how it writes tools for the model, and the rule reads only
//! each function's name and description and each top-level property's name, type,
//! description and enum. Nested objects, array items, `anyOf`/`oneOf`, defaults and `required`
//! are not counted, so a prompt with them counts low.

use minijinja::value::{Value, ValueKind};

use crate::tokenizer::Encoding;

/// The rule's constants for the models it names.
#[derive(Debug, Clone, Copy)]
pub(super) struct Constants {
    func_init: i64,
    prop_init: i64,
    prop_key: i64,
    enum_init: i64,
    enum_item: i64,
    func_end: i64,
}

/// The constants for the models of `encoding` the rule names: gpt-4o and gpt-4o-mini
/// (`o200k_base`), gpt-4 and gpt-3.5-turbo (`cl100k_base`); none for other encodings.
pub(super) fn constants(encoding: Encoding) -> Option<Constants> {
    let func_init = match encoding {
        Encoding::O200kBase => 7,
        Encoding::Cl100kBase => 10,
        _ => return None,
    };
    Some(Constants {
        func_init,
        prop_init: 3,
        prop_key: 3,
        enum_init: -3,
        enum_item: 3,
        func_end: 12,
    })
}

/// What the tools add: the strings the rule encodes, and its constant tokens. Where the
/// cookbook's code would fail (a missing description, `parameters` or `properties`, a type
/// that is not a string, an enum item that is not a string), the missing text counts as
/// empty and a value that is not a string as its JSON.
pub(super) fn pieces(tools: &Value, constants: Constants) -> (Vec<String>, usize) {
    let Constants {
        func_init,
        prop_init,
        prop_key,
        enum_init,
        enum_item,
        func_end,
    } = constants;
    let mut pieces = Vec::new();
    let mut fixed: i64 = 0;
    let functions: Vec<Value> = tools.try_iter().map(Iterator::collect).unwrap_or_default();
    for tool in &functions {
        fixed += func_init;
        let function = field(tool, "function").unwrap_or_default();
        pieces.push(format!(
            "{}:{}",
            text(field(&function, "name")),
            without_period(text(field(&function, "description")))
        ));
        let properties = field(&function, "parameters")
            .and_then(|p| field(&p, "properties"))
            .filter(|p| p.kind() == ValueKind::Map && p.len().unwrap_or(0) > 0);
        let Some(properties) = properties else {
            continue;
        };
        fixed += prop_init;
        for key in properties.try_iter().into_iter().flatten() {
            fixed += prop_key;
            let property = properties.get_item(&key).unwrap_or_default();
            if let Some(items) = field(&property, "enum") {
                fixed += enum_init;
                for item in items.try_iter().into_iter().flatten() {
                    fixed += enum_item;
                    pieces.push(text(Some(item)));
                }
            }
            pieces.push(format!(
                "{}:{}:{}",
                key.as_str().unwrap_or_default(),
                text(field(&property, "type")),
                without_period(text(field(&property, "description")))
            ));
        }
    }
    if !functions.is_empty() {
        fixed += func_end;
    }
    // Each property's key and enum constants together are never below 0 (3 - 3).
    (pieces, usize::try_from(fixed.max(0)).unwrap_or(0))
}

fn field(value: &Value, key: &str) -> Option<Value> {
    if value.kind() != ValueKind::Map {
        return None;
    }
    value.get_attr(key).ok().filter(|v| !v.is_undefined())
}

/// A string as it is; a missing value or null as empty; any other value as its JSON.
fn text(value: Option<Value>) -> String {
    match value.filter(|v| !v.is_none()) {
        None => String::new(),
        Some(v) if v.kind() == ValueKind::String => v.as_str().unwrap_or_default().to_string(),
        Some(v) => serde_json::to_string(&v).unwrap_or_default(),
    }
}

/// The cookbook drops one final period.
fn without_period(mut text: String) -> String {
    if text.ends_with('.') {
        text.pop();
    }
    text
}

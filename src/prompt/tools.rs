//! [`Tools`]: an agent's tool definitions, checked once, given to the chat template as
//! `transformers`' `apply_chat_template(messages, tools=...)` gives them.

use minijinja::value::{Value, ValueKind};

use super::template::ChatTemplate;
use super::untrusted;
use crate::error::Error;

/// Tool definitions: an OpenAI-style JSON array of functions,
/// `[{"type": "function", "function": {"name", "description", "parameters"}}]`, the shape
/// `transformers`, OpenAI, vLLM and `mistral-common` take.
///
/// Each definition is kept as given, its keys in their order (a template writes it with
/// `tojson`, which keeps them); only its shape is checked: an array of objects whose `type`
/// is `"function"`, each with a `function` object holding a non-empty string `name`, and
/// `parameters`, where given, an object.
///
/// ```
/// use mentor_context::prompt::Tools;
///
/// let tools: Tools = r#"[{"type": "function", "function": {"name": "search",
///     "description": "Searches the docs.",
///     "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}}]"#
///     .parse()?;
/// assert_eq!(tools.names().collect::<Vec<_>>(), ["search"]);
/// let bad = r#"[{"type": "function", "function": {"name": "search", "parameters": []}}]"#;
/// assert_eq!(
///     bad.parse::<Tools>().unwrap_err().to_string(),
///     "tool 0 (`search`): `parameters` must be a JSON object, not an array"
/// );
/// # Ok::<(), mentor_context::Error>(())
/// ```
#[derive(Clone, PartialEq)]
pub struct Tools {
    /// The array, as given.
    value: Value,
}

impl Tools {
    /// The definitions in `value`, checked.
    ///
    /// # Errors
    ///
    /// [`Error::PromptSetting`] (setting `tools`) naming the first definition at fault by its
    /// index and name: not an array, an entry that is not a function, a function without a
    /// name, parameters that are not an object.
    pub fn from_value(value: Value) -> Result<Tools, Error> {
        check(&value).map_err(|problem| Error::PromptSetting {
            setting: "tools",
            problem,
        })?;
        Ok(Tools { value })
    }

    /// How many definitions there are.
    #[must_use]
    pub fn len(&self) -> usize {
        self.value.len().unwrap_or(0)
    }

    /// Whether there are none (an empty array: a template sees `tools` as `[]`).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The functions' names, in order.
    pub fn names(&self) -> impl Iterator<Item = String> + '_ {
        self.value
            .try_iter()
            .into_iter()
            .flatten()
            .map(|tool| function_name(&tool).unwrap_or_default())
    }
}

/// The tools as `template` sees them: refused where it takes none yet (an empty array is no
/// tools), their control tokens neutralized unless the messages may keep theirs.
///
/// # Errors
///
/// [`Error::PromptSetting`] (setting `tools`) for tools given to a template that does not take
/// them yet, or that its model's owners refuse (Mistral's function names).
pub(crate) fn for_template(
    tools: Option<Tools>,
    template: &ChatTemplate,
    special_tokens_in_messages: bool,
) -> Result<Option<Value>, Error> {
    let Some(tools) = tools else {
        return Ok(None);
    };
    if !tools.is_empty()
        && let Some(problem) = template.why_no_tools()
    {
        return Err(Error::PromptSetting {
            setting: "tools",
            problem,
        });
    }
    template.check_tools(&tools.value)?;
    Ok(Some(if special_tokens_in_messages {
        tools.value
    } else {
        untrusted::definitions(&tools.value, template.control())
    }))
}

/// The function's name of a definition, where it has one.
fn function_name(tool: &Value) -> Option<String> {
    let name = tool.get_attr("function").ok()?.get_attr("name").ok()?;
    name.as_str().map(str::to_string)
}

/// The first problem in `value`, in words.
fn check(value: &Value) -> Result<(), String> {
    if value.kind() != ValueKind::Seq {
        return Err(format!(
            "tools must be a JSON array of tool definitions, not {}",
            kind_name(value)
        ));
    }
    for (index, tool) in value.try_iter().into_iter().flatten().enumerate() {
        let function = tool.get_attr("function").ok().filter(|f| !f.is_undefined());
        let name = function_name(&tool).filter(|n| !n.is_empty());
        let at = match &name {
            Some(name) => format!("tool {index} (`{name}`)"),
            None => format!("tool {index}"),
        };
        if tool.kind() != ValueKind::Map {
            return Err(format!(
                "{at} must be an object ({{\"type\": \"function\", \"function\": {{...}}}}), not {}",
                kind_name(&tool)
            ));
        }
        let kind = tool.get_attr("type").ok().filter(|t| !t.is_undefined());
        if kind.as_ref().and_then(Value::as_str) != Some("function") {
            return Err(match kind {
                Some(kind) => format!(
                    "{at} is not a function: its `type` is {kind:?}, and only \"function\" is taken"
                ),
                None => format!("{at} is not a function: it needs `\"type\": \"function\"`"),
            });
        }
        let Some(function) = function.filter(|f| f.kind() == ValueKind::Map) else {
            return Err(format!("{at} needs a `function` object"));
        };
        if name.is_none() {
            return Err(format!(
                "{at}: its function needs a `name` that is a non-empty string"
            ));
        }
        let parameters = function
            .get_attr("parameters")
            .ok()
            .filter(|p| !p.is_undefined());
        if let Some(parameters) = parameters
            && parameters.kind() != ValueKind::Map
        {
            return Err(format!(
                "{at}: `parameters` must be a JSON object, not {}",
                kind_name(&parameters)
            ));
        }
    }
    Ok(())
}

/// A JSON kind, in words.
pub(super) fn kind_name(value: &Value) -> &'static str {
    match value.kind() {
        ValueKind::Seq => "an array",
        ValueKind::Map => "an object",
        ValueKind::String => "a string",
        ValueKind::Number => "a number",
        ValueKind::Bool => "a boolean",
        ValueKind::None | ValueKind::Undefined => "null",
        _ => "a value JSON does not have",
    }
}

super::json_setting::json_setting!(Tools, "tools", "tools are");

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(json: &str) -> String {
        json.parse::<Tools>().unwrap_err().to_string()
    }

    const SEARCH: &str = r#"{"type": "function", "function": {"name": "search",
        "description": "Searches.", "parameters": {"type": "object", "properties": {}}}}"#;

    #[test]
    fn a_good_array_is_kept_as_given_keys_in_order() {
        let json = format!(
            r#"[{SEARCH}, {{"function": {{"name": "b", "z": 1, "a": 2}}, "type": "function"}}]"#
        );
        let tools: Tools = json.parse().unwrap();
        assert_eq!(tools.len(), 2);
        assert_eq!(tools.names().collect::<Vec<_>>(), ["search", "b"]);
        let written = serde_json::to_string(&tools).unwrap();
        assert!(
            written.ends_with(r#"{"function":{"name":"b","z":1,"a":2},"type":"function"}]"#),
            "{written}"
        );
        assert!("[]".parse::<Tools>().unwrap().is_empty());
        let read: Tools = serde_json::from_str(&written).unwrap();
        assert_eq!(read, tools);
    }

    #[test]
    fn not_an_array_is_refused() {
        assert_eq!(
            problem(SEARCH),
            "tools must be a JSON array of tool definitions, not an object"
        );
        assert!(problem("[").starts_with("tools are not valid JSON"));
    }

    /// Each bad entry comes after a good one: the message names the bad one, by index and,
    /// where it has one, by name.
    #[test]
    fn each_bad_definition_is_named() {
        let cases = [
            (r#""search""#, "tool 1 must be an object"),
            (
                r#"{"type": "retrieval", "function": {"name": "look"}}"#,
                "tool 1 (`look`) is not a function: its `type` is",
            ),
            (
                r#"{"function": {"name": "look"}}"#,
                "tool 1 (`look`) is not a function: it needs",
            ),
            (
                r#"{"type": "function"}"#,
                "tool 1 needs a `function` object",
            ),
            (
                r#"{"type": "function", "function": {"description": "x"}}"#,
                "tool 1: its function needs a `name`",
            ),
            (
                r#"{"type": "function", "function": {"name": ""}}"#,
                "tool 1: its function needs a `name`",
            ),
            (
                r#"{"type": "function", "function": {"name": 7}}"#,
                "tool 1: its function needs a `name`",
            ),
            (
                r#"{"type": "function", "function": {"name": "look", "parameters": "{}"}}"#,
                "tool 1 (`look`): `parameters` must be a JSON object, not a string",
            ),
            (
                r#"{"type": "function", "function": {"name": "look", "parameters": null}}"#,
                "tool 1 (`look`): `parameters` must be a JSON object, not null",
            ),
        ];
        for (bad, expected) in cases {
            let got = problem(&format!("[{SEARCH}, {bad}]"));
            assert!(got.starts_with(expected), "{bad}: {got}");
            assert!(!got.contains('\n'), "{got}");
        }
    }

    #[test]
    fn the_error_names_the_tools_setting() {
        let err = "{}".parse::<Tools>().unwrap_err();
        assert!(matches!(
            err,
            Error::PromptSetting {
                setting: "tools",
                ..
            }
        ));
    }
}

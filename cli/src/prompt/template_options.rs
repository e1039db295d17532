//! `--template-options FILE.json` and `--template-option NAME=JSON`: the chat template's
//! options, a JSON object, and single options over it.

use mentor_context::prompt::TemplateOptions;
use serde_json::{Map, Value};

use crate::input::Input;
use crate::output::Failure;

/// Parses `NAME=JSON`: the name up to the first `=`, the value after it as JSON (`false`,
/// `"26 Jul 2024"`, `{"a": 1}`), as vLLM's `chat_template_kwargs` take values.
pub(crate) fn parse_option(given: &str) -> Result<(String, Value), String> {
    let Some((name, json)) = given.split_once('=') else {
        return Err("expected NAME=JSON, as enable_thinking=false".to_string());
    };
    if name.is_empty() {
        return Err("expected NAME=JSON: the name is empty".to_string());
    }
    let value = serde_json::from_str(json).map_err(|err| {
        format!(
            "the value of `{name}` is not JSON ({err}); a string is written in double quotes, \
             as {name}='\"{json}\"'"
        )
    })?;
    Ok((name.to_string(), value))
}

/// The options: those of `base` (the settings file's), then the object in `file`'s, then each
/// of `single` in order, a later one over an earlier one of the same name. `None` when
/// none is given anywhere.
pub(crate) fn merge(
    base: Option<&TemplateOptions>,
    file: Option<&Input>,
    single: &[(String, Value)],
) -> Result<Option<TemplateOptions>, Failure> {
    if base.is_none() && file.is_none() && single.is_empty() {
        return Ok(None);
    }
    let mut object = match base {
        Some(options) => object_of(options),
        None => Map::new(),
    };
    if let Some(input) = file {
        let text = input.text()?;
        let options = text
            .parse::<TemplateOptions>()
            .map_err(|err| input.fail_with(&err).at("--template-options"))?;
        object.extend(object_of(&options));
    }
    for (name, value) in single {
        object.insert(name.clone(), value.clone());
    }
    // Only a single option can be wrong here (a name the library sets): the rest was checked.
    Value::Object(object)
        .to_string()
        .parse::<TemplateOptions>()
        .map(Some)
        .map_err(|err| Failure::library(&err).at("--template-option"))
}

/// `options` as a JSON object, its names in order.
fn object_of(options: &TemplateOptions) -> Map<String, Value> {
    match serde_json::to_value(options) {
        Ok(Value::Object(object)) => object,
        _ => Map::new(),
    }
}

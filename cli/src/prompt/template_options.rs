//! `--template-options FILE.json` and `--template-option NAME=JSON`: the chat template's
//! options, a JSON object, and single options over it.

use mentor_context::prompt::TemplateOptions;

use crate::input::Input;
use crate::output::Failure;

/// Parses `NAME=JSON`: the name up to the first `=`, the value after it, checked to be JSON
/// (`false`, `"26 Jul 2024"`, `{"a": 1}`), as vLLM's `chat_template_kwargs` take values. The
/// value is kept as its text, so that the library reads it with its keys in their order.
pub(crate) fn parse_option(given: &str) -> Result<(String, String), String> {
    let Some((name, json)) = given.split_once('=') else {
        return Err("expected NAME=JSON, as enable_thinking=false".to_string());
    };
    if name.is_empty() {
        return Err("expected NAME=JSON: the name is empty".to_string());
    }
    serde_json::from_str::<serde::de::IgnoredAny>(json).map_err(|err| {
        format!(
            "the value of `{name}` is not JSON ({err}); a string is written in double quotes, \
             as {name}='\"{json}\"'"
        )
    })?;
    Ok((name.to_string(), json.to_string()))
}

/// The options: those of `base` (the settings file's), then the object in `file`'s, then each
/// of `single` in order, a later one over an earlier one of the same name. `None` when
/// none is given anywhere.
pub(crate) fn merge(
    base: Option<&TemplateOptions>,
    file: Option<&Input>,
    single: &[(String, String)],
) -> Result<Option<TemplateOptions>, Failure> {
    let mut options = base.cloned();
    if let Some(input) = file {
        let text = input.text()?;
        let read = text
            .parse::<TemplateOptions>()
            .map_err(|err| input.fail_with(&err).at("--template-options"))?;
        options = Some(over(read, options.as_ref()));
    }
    for (name, json) in single {
        let name_json = serde_json::to_string(name).unwrap_or_default();
        let one = format!("{{{name_json}: {json}}}")
            .parse::<TemplateOptions>()
            .map_err(|err| Failure::library(&err).at("--template-option"))?;
        options = Some(over(one, options.as_ref()));
    }
    Ok(options)
}

fn over(given: TemplateOptions, base: Option<&TemplateOptions>) -> TemplateOptions {
    match base {
        Some(base) => given.over(base),
        None => given,
    }
}

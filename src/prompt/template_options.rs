//! [`TemplateOptions`]: the variables a chat template reads besides the messages and the tools
//! (Qwen 3's `enable_thinking`, Llama 3.1's `date_string`), given as `transformers`'
//! `apply_chat_template(**kwargs)` and vLLM's `chat_template_kwargs` give them.

use minijinja::value::{Value, ValueKind};

use super::template::ChatTemplate;
use super::untrusted;
use crate::error::Error;

/// The names an option cannot take: what the library gives the template itself (`messages`,
/// `tools`, `documents`, `add_generation_prompt`, the model's `bos_token` and `eos_token`,
/// the functions `raise_exception` and `strftime_now`), and `apply_chat_template`'s own
/// parameters, which `transformers` never passes to the template
/// (`tokenization_utils_base.py`, `apply_chat_template`; `chat_template_utils.py`,
/// `render_jinja_template`).
///
/// `transformers` lets a keyword override a special token (`{**self.special_tokens_map,
/// **kwargs}`) and fails on `messages` with Python's "got multiple values"; the library
/// refuses them all alike, so that what is counted is always the model's own framing.
pub const RESERVED_TEMPLATE_OPTIONS: &[&str] = &[
    "messages",
    "tools",
    "documents",
    "add_generation_prompt",
    "bos_token",
    "eos_token",
    "raise_exception",
    "strftime_now",
    "conversation",
    "chat_template",
    "continue_final_message",
    "tokenize",
    "sanitize_control_tokens",
    "padding",
    "truncation",
    "max_length",
    "return_tensors",
    "return_dict",
    "return_assistant_tokens_mask",
    "tokenizer_kwargs",
];

/// A chat template's options: a JSON object whose keys are the template's variable names
/// and whose values are what the template sees under them, as
/// `apply_chat_template(messages, enable_thinking=False)` or vLLM's
/// `"chat_template_kwargs": {"enable_thinking": false}` pass them.
///
/// Only Hugging Face (Jinja) templates read options; the built-in ones (OpenAI's rule,
/// Harmony, Mistral) refuse any. A name the library sets itself
/// ([`RESERVED_TEMPLATE_OPTIONS`]) is refused.
///
/// ```
/// use mentor_context::prompt::TemplateOptions;
///
/// let options: TemplateOptions = r#"{"enable_thinking": false}"#.parse()?;
/// assert_eq!(options.names().collect::<Vec<_>>(), ["enable_thinking"]);
/// let err = r#"{"add_generation_prompt": false}"#.parse::<TemplateOptions>().unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "template option `add_generation_prompt` is set by the library itself; it cannot be \
///      given as a template option"
/// );
/// # Ok::<(), mentor_context::Error>(())
/// ```
#[derive(Clone, PartialEq)]
pub struct TemplateOptions {
    /// The object, as given.
    value: Value,
}

impl TemplateOptions {
    /// The options in `value`, checked.
    ///
    /// # Errors
    ///
    /// [`Error::PromptSetting`] (setting `template_options`) when `value` is not an object,
    /// or a name in it is empty or reserved ([`RESERVED_TEMPLATE_OPTIONS`]).
    pub fn from_value(value: Value) -> Result<TemplateOptions, Error> {
        check(&value).map_err(|problem| Error::PromptSetting {
            setting: "template_options",
            problem,
        })?;
        Ok(TemplateOptions { value })
    }

    /// These options over `base`'s: `base`'s names in their order, each with this value where
    /// these name it too, then these' other names. As vLLM's request `chat_template_kwargs`
    /// go over the server's defaults, a request's go over a service profile's.
    #[must_use]
    pub fn over(&self, base: &TemplateOptions) -> TemplateOptions {
        let mine: Vec<(Value, Value)> = self.pairs().collect();
        let mut pairs: Vec<(Value, Value)> = base
            .pairs()
            .map(|(key, value)| match mine.iter().find(|(k, _)| *k == key) {
                Some((_, given)) => (key, given.clone()),
                None => (key, value),
            })
            .collect();
        for (key, value) in mine {
            if !pairs.iter().any(|(k, _)| *k == key) {
                pairs.push((key, value));
            }
        }
        TemplateOptions {
            value: Value::from_pairs(pairs),
        }
    }

    /// How many options there are.
    #[must_use]
    pub fn len(&self) -> usize {
        self.value.len().unwrap_or(0)
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The options' names, in order.
    pub fn names(&self) -> impl Iterator<Item = String> + '_ {
        self.pairs()
            .map(|(key, _)| key.as_str().unwrap_or_default().to_string())
    }

    fn pairs(&self) -> impl Iterator<Item = (Value, Value)> + '_ {
        self.value.try_iter().into_iter().flatten().map(|key| {
            let item = self.value.get_item(&key).unwrap_or_default();
            (key, item)
        })
    }
}

impl Default for TemplateOptions {
    fn default() -> Self {
        TemplateOptions {
            value: Value::from_pairs(std::iter::empty::<(Value, Value)>()),
        }
    }
}

/// The options as `template` sees them: refused where it reads none (no options is none),
/// their control tokens neutralized unless the messages may keep theirs.
///
/// # Errors
///
/// [`Error::PromptSetting`] (setting `template_options`) for options given to a built-in
/// template.
pub(crate) fn for_template(
    options: Option<TemplateOptions>,
    template: &ChatTemplate,
    special_tokens_in_messages: bool,
) -> Result<Option<Value>, Error> {
    let Some(options) = options.filter(|options| !options.is_empty()) else {
        return Ok(None);
    };
    if let Some(problem) = template.refuses_template_options(&options.value) {
        return Err(Error::PromptSetting {
            setting: "template_options",
            problem,
        });
    }
    Ok(Some(if special_tokens_in_messages {
        options.value
    } else {
        untrusted::definitions(&options.value, template.control())
    }))
}

/// The first problem in `value`, in words.
fn check(value: &Value) -> Result<(), String> {
    if value.kind() != ValueKind::Map {
        return Err(format!(
            "template options must be a JSON object of names and values, not {}",
            super::tools::kind_name(value)
        ));
    }
    for key in value.try_iter().into_iter().flatten() {
        let Some(name) = key.as_str().filter(|_| key.kind() == ValueKind::String) else {
            return Err(format!("template option names must be strings, not {key}"));
        };
        if name.is_empty() {
            return Err("a template option needs a non-empty name".to_string());
        }
        if RESERVED_TEMPLATE_OPTIONS.contains(&name) {
            return Err(format!(
                "template option `{name}` is set by the library itself; it cannot be given as a \
                 template option"
            ));
        }
    }
    Ok(())
}

super::json_setting::json_setting!(TemplateOptions, "template_options", "template options are");

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(json: &str) -> String {
        json.parse::<TemplateOptions>().unwrap_err().to_string()
    }

    #[test]
    fn an_object_is_kept_as_given_keys_in_order() {
        let options: TemplateOptions =
            r#"{"z": [1, {"b": 2}], "enable_thinking": false}"#.parse().unwrap();
        assert_eq!(
            options.names().collect::<Vec<_>>(),
            ["z", "enable_thinking"]
        );
        let written = serde_json::to_string(&options).unwrap();
        assert_eq!(written, r#"{"z":[1,{"b":2}],"enable_thinking":false}"#);
        let read: TemplateOptions = serde_json::from_str(&written).unwrap();
        assert_eq!(read, options);
        let given: TemplateOptions =
            r#"{"enable_thinking": true, "date_string": "x"}"#.parse().unwrap();
        assert_eq!(
            serde_json::to_string(&given.over(&options)).unwrap(),
            r#"{"z":[1,{"b":2}],"enable_thinking":true,"date_string":"x"}"#
        );
    }

    #[test]
    fn what_is_not_an_object_of_free_names_is_refused() {
        assert_eq!(
            problem("[]"),
            "template options must be a JSON object of names and values, not an array"
        );
        assert!(problem("{").starts_with("template options are not valid JSON"));
        assert_eq!(
            problem(r#"{"": 1}"#),
            "a template option needs a non-empty name"
        );
        for name in RESERVED_TEMPLATE_OPTIONS {
            let got = problem(&format!(r#"{{"ok": 1, "{name}": true}}"#));
            assert_eq!(
                got,
                format!(
                    "template option `{name}` is set by the library itself; it cannot be \
                     given as a template option"
                )
            );
        }
        let err = TemplateOptions::from_value(Value::from_pairs([("bos_token", "x")])).unwrap_err();
        assert!(matches!(
            err,
            Error::PromptSetting {
                setting: "template_options",
                ..
            }
        ));
    }
}

//! Reading a model's chat template from its `tokenizer_config.json` (or a
//! `chat_template.jinja` file), as `transformers` picks it.

use serde_json::Value as Json;

/// What a `tokenizer_config.json` says about chat.
#[derive(Debug)]
pub(super) struct ChatConfig {
    pub(super) template: String,
    pub(super) bos_token: Option<String>,
    pub(super) eos_token: Option<String>,
}

/// Reads `tokenizer_config.json`. `chat_template` is a string, or a list of named templates
/// of which `transformers` takes the one named `default` when no tools are given.
pub(super) fn read(json: &[u8]) -> Result<ChatConfig, String> {
    let config: Json = serde_json::from_slice(json).map_err(|e| format!("not JSON: {e}"))?;
    let Json::Object(config) = config else {
        return Err("not a JSON object".to_string());
    };
    let template = match config.get("chat_template") {
        Some(Json::String(template)) => template.clone(),
        Some(Json::Array(templates)) => templates
            .iter()
            .find(|t| t.get("name").and_then(Json::as_str) == Some("default"))
            .and_then(|t| t.get("template"))
            .and_then(Json::as_str)
            .ok_or("`chat_template` lists templates but none named `default`")?
            .to_string(),
        Some(_) => {
            return Err(
                "`chat_template` is neither a string nor a list of named templates".to_string(),
            );
        }
        None => {
            return Err(
                "it has no `chat_template` (newer models keep it in chat_template.jinja: pass that file)"
                    .to_string(),
            );
        }
    };
    Ok(ChatConfig {
        template,
        bos_token: token(config.get("bos_token")),
        eos_token: token(config.get("eos_token")),
    })
}

/// A special token as the config writes it: a string, or an `AddedToken` object with
/// `content`.
fn token(value: Option<&Json>) -> Option<String> {
    match value? {
        Json::String(token) => Some(token.clone()),
        Json::Object(token) => token
            .get("content")
            .and_then(Json::as_str)
            .map(ToString::to_string),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_and_tokens_are_read_as_transformers_reads_them() {
        let config = read(br#"{"chat_template": [{"name": "tool_use", "template": "T"}, {"name": "default", "template": "D"}],
            "bos_token": {"__type": "AddedToken", "content": "<s>"}, "eos_token": "</s>"}"#)
        .unwrap();
        assert_eq!(config.template, "D");
        assert_eq!(config.bos_token.as_deref(), Some("<s>"));
        assert_eq!(config.eos_token.as_deref(), Some("</s>"));
        for (json, problem) in [
            (&b"[]"[..], "not a JSON object"),
            (b"{}", "no `chat_template`"),
            (b"{\"chat_template\": 3}", "neither"),
            (
                b"{\"chat_template\": [{\"name\": \"x\", \"template\": \"\"}]}",
                "none named `default`",
            ),
            (b"{", "not JSON"),
        ] {
            let err = read(json).unwrap_err();
            assert!(err.contains(problem), "{err}");
        }
    }
}

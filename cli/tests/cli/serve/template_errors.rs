//! A chat template that fails on a request's conversation: a 422 whose `code` is
//! `CHAT_TEMPLATE` and whose `templateKind` names what happened (it raised, or which bound it
//! met), never a 5xx; the OpenAPI description lists the 422 and the field.

use super::super::TempFile;
use super::{Service, curl, post};
use crate::prompt::chatml_tokenizer;

/// ChatML that fails as the request's `mode` template option asks: raising, looping without
/// end, nesting without end, writing without end.
const FAILS_BY_MODE: &str = "{% if mode == 'raise' %}{{ raise_exception('no system message') }}\
{% elif mode == 'loop' %}{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}\
{% elif mode == 'nest' %}{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}\
{% elif mode == 'write' %}{{ 'x' * 5000000 }}{% endif %}\
{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}\
{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

#[test]
fn a_template_failing_on_the_request_is_a_422_naming_its_kind() {
    let template = TempFile::new("chat_template.jinja", FAILS_BY_MODE.as_bytes());
    let tokenizer = chatml_tokenizer();
    let service = Service::configured(
        format!(
            "[profiles.chat]\nwindow = 8192\nchat_template = \"{}\"\ntokenizer_file = \"{}\"\n",
            template.path(),
            tokenizer.path()
        )
        .as_bytes(),
    );
    let url = service.url("/v1/chat/prompt");
    let body = |mode: &str| {
        serde_json::json!({
            "conversation": [{"role": "user", "content": "What does Plan B cost?"}],
            "results": [{"content": "Plan B costs 12 EUR a month.", "score": 0.9}],
            "template_options": {"mode": mode},
        })
        .to_string()
    };
    assert_eq!(post(&url, &body("none")).status, 200);
    for (mode, kind, words) in [
        ("raise", "RAISED", "the template raised: no system message"),
        ("loop", "OUT_OF_FUEL", "out of fuel"),
        ("nest", "TOO_DEEP", "recursion limit"),
        ("write", "OUTPUT_TOO_LARGE", "the template wrote more than"),
    ] {
        let problem = post(&url, &body(mode)).problem(422, "CHAT_TEMPLATE");
        assert_eq!(problem["templateKind"], kind, "{problem}");
        let detail = problem["detail"].as_str().unwrap();
        assert!(detail.starts_with("chat template: "), "{detail}");
        assert!(detail.contains(words), "{mode}: {detail}");
    }
    // Every other problem stays as it was: a 400 without the field.
    let problem = post(&url, "{\"conversation\": []}").problem(400, "INVALID_ARGUMENT");
    assert!(problem.get("templateKind").is_none(), "{problem}");
    // The description says so.
    let description: serde_json::Value =
        serde_json::from_str(&curl(&[&service.url("/openapi.json")]).body).unwrap();
    let refusal = &description["paths"]["/v1/{profile}/prompt"]["post"]["responses"]["422"];
    assert!(
        refusal["description"]
            .as_str()
            .is_some_and(|d| d.contains("templateKind")),
        "{refusal}"
    );
    let field = &description["components"]["schemas"]["Problem"]["properties"]["templateKind"];
    assert_eq!(field["type"], "string", "{field}");
}

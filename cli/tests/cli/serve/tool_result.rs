//! `"context_in": "tool"` in a profile: the service answers the conversation's pending search
//! call with the context, as the command does; a conversation without one is a problem
//! document naming what is missing.

use super::super::TempFile;
use super::{Service, post};
use crate::prompt::chatml_tokenizer;

const CHATML: &str = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

#[test]
fn a_tool_profile_answers_the_pending_call() {
    let template = TempFile::new("chat_template.jinja", CHATML.as_bytes());
    let tokenizer = chatml_tokenizer();
    let service = Service::configured(
        format!(
            "[profiles.agent]\nwindow = 8192\ncontext_in = \"tool\"\nchat_template = \"{}\"\n\
             tokenizer_file = \"{}\"\n",
            template.path(),
            tokenizer.path()
        )
        .as_bytes(),
    );
    let results = serde_json::json!([{"content": "Plan B costs 12 EUR a month.", "score": 0.9}]);
    let question = serde_json::json!({"role": "user", "content": "What does Plan B cost?"});
    let call = serde_json::json!({"role": "assistant", "content": "", "tool_calls": [{"id": "call_7",
        "type": "function", "function": {"name": "search", "arguments": "{\"q\": \"Plan B\"}"}}]});
    let body = serde_json::json!({"conversation": [question, call], "results": results});
    let answer = post(&service.url("/v1/agent/prompt"), &body.to_string());
    assert_eq!(answer.status, 200, "{answer:#?}");
    let report: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
    let last = report["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "tool");
    assert_eq!(last["tool_call_id"], "call_7");
    assert!(
        last["content"]
            .as_str()
            .unwrap()
            .contains("Plan B costs 12 EUR"),
        "{last}"
    );
    let body = serde_json::json!({"conversation": [question], "results": results});
    let problem = post(&service.url("/v1/agent/prompt"), &body.to_string())
        .problem(400, "INVALID_CONVERSATION");
    let detail = problem["detail"].as_str().unwrap();
    assert!(detail.contains("`tool` placement"), "{detail}");
}

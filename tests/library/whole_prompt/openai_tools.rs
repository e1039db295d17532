//! Tools for OpenAI's chat models: counted by the OpenAI cookbook's `num_tokens_for_tools` for
//! the models it names, reported as an estimate; refused for the others.

use mentor_context::prompt::{ChatTemplate, Message, PromptBuilder, Tools};
use mentor_context::{Encoding, Error};
use serde_json::json;

/// The cookbook's own example (section 7): its tool and its two messages.
fn cookbook_example() -> (Tools, Vec<Message>) {
    let tools = serde_json::from_value(json!([{"type": "function", "function": {
        "name": "get_current_weather",
        "description": "Get the current weather in a given location",
        "parameters": {"type": "object", "properties": {
            "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
            "unit": {"type": "string", "description": "The unit of temperature to return",
                "enum": ["celsius", "fahrenheit"]}},
            "required": ["location"]}}}]))
    .unwrap();
    let messages = vec![
        Message::system(
            "You are a helpful assistant that can answer to questions about the weather.",
        ),
        Message::user("What's the weather like in San Francisco?"),
    ];
    (tools, messages)
}

/// The counts `num_tokens_for_tools` gives the cookbook's example with tiktoken (run in
/// `tests/reference/whole_prompt.py`'s transcription): 101 for gpt-4o, 105 for gpt-4; 33 and
/// 34 without the tool. The report says the count is an estimate, and only then.
#[test]
fn the_cookbooks_example_counts_as_the_cookbook_does() {
    let (tools, messages) = cookbook_example();
    for (encoding, with, without) in [
        (Encoding::O200kBase, 101, 33),
        (Encoding::Cl100kBase, 105, 34),
    ] {
        let template = ChatTemplate::openai(encoding);
        assert!(template.takes_tools() && !template.counts_tools_exactly());
        let count = |tools: Option<Tools>| {
            PromptBuilder::new(template.clone(), 4096)
                .tools(tools)
                .build()
                .unwrap()
                .assemble(&messages, &[])
                .unwrap()
                .into_owned()
        };
        let prompt = count(Some(tools.clone()));
        assert_eq!(prompt.token_count, with, "{encoding}");
        assert_eq!(prompt.parts.tools, with - without, "{encoding}");
        assert!(!prompt.exact);
        let json = serde_json::to_string(&prompt).unwrap();
        assert!(json.contains(r#""exact":false"#), "{json}");
        let plain = count(None);
        assert_eq!(plain.token_count, without, "{encoding}");
        assert!(plain.exact);
        assert!(!serde_json::to_string(&plain).unwrap().contains("exact"));
        // An empty array is no tools: nothing added, nothing estimated.
        let empty = count(Some("[]".parse().unwrap()));
        assert_eq!((empty.token_count, empty.exact), (without, true));
    }
}

/// What the rule does not read changes nothing: nested properties, array items, `anyOf`
/// (the places the docs call it wrong).
#[test]
fn the_rule_reads_only_the_top_level() {
    let count = |parameters: serde_json::Value| {
        let tools: Tools = serde_json::from_value(json!([{"type": "function", "function": {
            "name": "f", "description": "Does f.", "parameters": parameters}}]))
        .unwrap();
        PromptBuilder::new(ChatTemplate::openai(Encoding::O200kBase), 4096)
            .tools(tools)
            .build()
            .unwrap()
            .assemble(&[Message::user("Hi")], &[])
            .unwrap()
            .token_count
    };
    let plain = count(json!({"type": "object", "properties": {"a": {"type": "object"}}}));
    let nested = count(
        json!({"type": "object", "properties": {"a": {"type": "object",
        "properties": {"deep": {"type": "string", "description": "Never counted."}}}}}),
    );
    assert_eq!(plain, nested);
    let more = count(
        json!({"type": "object", "properties": {"a": {"type": "object"},
        "b": {"type": "string", "enum": ["x", "y"]}}}),
    );
    assert!(more > plain);
}

/// Encodings of models the rule does not name refuse tools with one line naming the rule.
#[test]
fn models_the_rule_does_not_name_refuse_tools() {
    let (tools, _) = cookbook_example();
    for encoding in [Encoding::P50kBase, Encoding::R50kBase] {
        let template = ChatTemplate::openai(encoding);
        assert!(!template.takes_tools());
        let err = PromptBuilder::new(template, 4096)
            .tools(tools.clone())
            .build()
            .unwrap_err();
        assert!(
            matches!(
                err,
                Error::PromptSetting {
                    setting: "tools",
                    ..
                }
            ),
            "{err}"
        );
        let text = err.to_string();
        assert!(
            text.contains("num_tokens_for_tools") && text.contains(encoding.as_str()),
            "{text}"
        );
        assert!(!text.contains('\n'));
    }
}

//! What each built-in template writes, as a snapshot: Harmony (gpt-oss), OpenAI's rule for
//! tools and Mistral's four formats, each with tools (and but for OpenAI's rule, a call and
//! its result in the history); and one Hugging Face template, Meta's Llama 3.1 tool template
//! as committed in `fixtures/templates/`.
//! A change in what they render or count shows here as a diff, with no downloaded data (the
//! text against the owners' code: `whole_prompt::reference` and `harmony_reference`).

use mentor_context::Encoding;
use mentor_context::prompt::{
    ChatTemplate, ContextPlacement, ConversationDate, Message, Prompt, PromptBuilder,
    ReasoningEffort,
};
use serde_json::json;

use super::mistral_tools::{VERSIONS, conversation, results, template, tools};

/// The prompt as sent (the text, or the messages where the template writes none), then what
/// the report says of it: the count, whether exact, the parts, what was dropped.
fn shown(prompt: &Prompt<'_>) -> String {
    let sent = match &prompt.prompt {
        Some(text) => text.clone(),
        None => serde_json::to_string_pretty(&prompt.messages).unwrap(),
    };
    let report = json!({
        "tokenCount": prompt.token_count,
        "exact": prompt.exact,
        "parts": prompt.parts,
        "dropped": prompt.dropped,
        "keptTurns": prompt.history.kept_turns,
    });
    format!(
        "{sent}\n---\n{}",
        serde_json::to_string_pretty(&report).unwrap()
    )
}

fn fitted(template: ChatTemplate, window: usize, chat: &[Message]) -> String {
    let results = results();
    let prompt = PromptBuilder::new(template, window)
        .reserve(64)
        .date("2026-12-06".parse::<ConversationDate>().unwrap())
        .tools(Some(tools()))
        .build()
        .unwrap()
        .assemble(chat, &results[..2])
        .unwrap();
    shown(&prompt)
}

#[test]
fn harmony() {
    let chat = conversation(1, "Plan 0 costs 12 EUR.", "plan");
    insta::assert_snapshot!(fitted(ChatTemplate::harmony(), 4096, &chat));
    insta::assert_snapshot!(
        "harmony_high_effort_one_turn_dropped",
        fitted(
            ChatTemplate::harmony_with(ReasoningEffort::High),
            560,
            &conversation(3, "Plan costs 12 EUR.", "plan")
        )
    );
}

#[test]
fn harmony_with_the_context_as_the_search_s_result() {
    let mut chat = conversation(1, "Plan 0 costs 12 EUR.", "plan");
    chat.push(
        serde_json::from_value(json!({"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_search", "type": "function", "function": {"name": "lookup_price",
             "arguments": "{\"plan\": \"B\"}"}}]}))
        .unwrap(),
    );
    let results = results();
    let prompt = PromptBuilder::new(ChatTemplate::harmony(), 4096)
        .reserve(64)
        .date("2026-12-06".parse::<ConversationDate>().unwrap())
        .tools(Some(tools()))
        .context_in(ContextPlacement::Tool)
        .build()
        .unwrap()
        .assemble(&chat, &results[..2])
        .unwrap();
    insta::assert_snapshot!(shown(&prompt));
}

#[test]
fn openai_rule() {
    // The cookbook's rule counts string fields only: a history of text, the tools beside it.
    let chat = [
        Message::system("Answer from the documents."),
        Message::user("What does plan A cost?"),
        Message::assistant("Plan A costs 12 EUR a month."),
        Message::user("And plan B?"),
    ];
    insta::assert_snapshot!(fitted(
        ChatTemplate::openai(Encoding::O200kBase),
        4096,
        &chat
    ));
}

#[test]
fn mistral_each_version() {
    let chat = conversation(1, "Plan 0 costs 12 EUR.", "plan");
    for version in VERSIONS {
        insta::assert_snapshot!(
            format!("mistral_{version}"),
            fitted(template(version), 4096, &chat)
        );
    }
}

/// Meta's Llama 3.1 tool template (`fixtures/templates/llama3_1_tools.jinja`), rendered by our
/// Jinja engine: the tools in the first user message, the call as JSON, its result under
/// `ipython`. Llama's tokenizer is not committed, so o200k_base counts here: the snapshot pins
/// the text and the report's shape; the reference test pins the counts with Llama's own.
#[test]
fn llama3_1_tools_hugging_face_template() {
    let source = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/templates/llama3_1_tools.jinja"),
    )
    .unwrap();
    let control = [
        "<|begin_of_text|>",
        "<|start_header_id|>",
        "<|end_header_id|>",
        "<|eot_id|>",
        "<|eom_id|>",
        "<|python_tag|>",
    ]
    .map(String::from);
    let template = ChatTemplate::jinja(
        &source,
        Encoding::O200kBase,
        control,
        Some("<|begin_of_text|>".into()),
        Some("<|eot_id|>".into()),
    )
    .unwrap();
    let chat = conversation(1, "Plan 0 costs 12 EUR.", "plan");
    insta::assert_snapshot!(fitted(template, 4096, &chat));
}

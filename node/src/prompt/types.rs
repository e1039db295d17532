//! The shapes of the whole prompt's values, declared for the generated `index.d.ts` (never
//! built: what crosses is the library's own serialization, as `crate::types` says).
//! `node/test/prompt.test.mjs` checks their keys against real prompts.
#![allow(dead_code)]

use napi_derive::napi;

use crate::types::Report;

/// A chat message in OpenAI's shape; its fields are kept as given, in their order.
#[napi(object)]
pub struct ChatMessage {
    /// `'system'`, `'user'`, `'assistant'`, `'tool'`, ...
    pub role: String,
    #[napi(ts_type = "string | null | ReadonlyArray<unknown>")]
    pub content: Option<String>,
    pub name: Option<String>,
    #[napi(js_name = "tool_calls", ts_type = "ReadonlyArray<unknown>")]
    pub tool_calls: Option<String>,
    #[napi(js_name = "tool_call_id")]
    pub tool_call_id: Option<String>,
    #[napi(js_name = "reasoning_content")]
    pub reasoning_content: Option<String>,
}

/// A document as a template's `documents` takes it.
#[napi(object, object_from_js = false)]
pub struct TemplateDocument {
    pub title: String,
    pub text: String,
}

/// How `tokenCount` splits between the parts; `template` is the framing, the rest.
#[napi(object, object_from_js = false)]
pub struct PromptParts {
    pub template: u32,
    pub system: u32,
    pub history: u32,
    pub context: u32,
    pub question: u32,
}

/// A message of the history left out for lack of room.
#[napi(object, object_from_js = false)]
pub struct DroppedMessage {
    /// Its index in the conversation.
    pub index: u32,
    pub role: String,
    /// Its share of the prompt had it been kept.
    pub tokens: u32,
}

/// Why the history stopped where it did: the numbers the trimming rule used. A turn costs its
/// messages with their framing (as a dropped message's `tokens`).
#[napi(object, object_from_js = false)]
pub struct PromptHistory {
    /// The history's room: half of what the window leaves after the reserve, the template,
    /// the tools and the system message, at most `historyMaxTokens`.
    pub room: u32,
    /// What a trim leaves the kept turns: the room less `trimStep` of it.
    pub trimmed_room: u32,
    pub turns: u32,
    pub kept_turns: u32,
    /// What the kept turns cost.
    pub kept_tokens: u32,
    /// What the newest dropped turn cost; absent when none was dropped.
    pub next_older_tokens: Option<u32>,
    /// Whether turns went beyond the rule's because the prompt did not fit otherwise.
    pub dropped_to_fit: bool,
}

/// A whole prompt, fitted to the window: what `mentor-context prompt --json` prints.
#[napi(object, object_from_js = false)]
pub struct Prompt {
    /// The prompt text as the model's template writes it (absent for `'openai'`, whose
    /// messages are what is sent).
    pub prompt: Option<String>,
    /// The messages as rendered: the kept history, with the context placed.
    pub messages: Vec<ChatMessage>,
    /// With `contextIn: 'documents'`: what the template was given.
    pub documents: Option<Vec<TemplateDocument>>,
    /// The exact token count: `tokenCount + reserve <= window`.
    pub token_count: u32,
    pub window: u32,
    pub reserve: u32,
    pub parts: PromptParts,
    /// The messages dropped from the history, oldest first.
    pub dropped: Vec<DroppedMessage>,
    /// Why the history stopped where it did.
    pub history: PromptHistory,
    /// The context's report, as `Assembler.assemble` gives it.
    pub context: Report,
}

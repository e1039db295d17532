//! The shapes of the values that cross, declared for the generated `index.d.ts`.
//!
//! These structs are never built: what crosses is the library's own serialization (see
//! `codec`). They exist so that napi-rs writes the TypeScript interfaces from the Rust side;
//! `node/test/types.test.mjs` checks their keys against real reports, so they cannot drift
//! from what `assemble --json` prints.
#![allow(dead_code)]

use napi_derive::napi;

/// A retrieval result in the .NET wire form. Property names are read in any letter case
/// (`Content`, `SourceUrl`), a score may be a string holding a number (`"0.9"`), and a
/// metadata value may be `null`; an unknown property is warned about (an error with
/// `strict`).
#[napi(object, object_to_js = false)]
pub struct MentorRagResult {
    pub content: String,
    #[napi(ts_type = "number | string")]
    pub score: f64,
    #[napi(ts_type = "string | null")]
    pub source_url: Option<String>,
    #[napi(ts_type = "string | null")]
    pub title: Option<String>,
    #[napi(ts_type = "Record<string, string | null> | null")]
    pub metadata: Option<String>,
}

/// The library's settings, as the options of `new Assembler(budget, options)` and
/// `new PromptAssembler(options)`: the names of a settings file and of the command's flags, in
/// camelCase (`maxBlocks`, `--max-blocks`). What each sets is in the crate's `Settings`
/// documentation; `sealKey` is a key given as bytes, which no settings file holds.
#[napi(object, object_to_js = false)]
pub struct Settings {
    pub budget: Option<u32>,
    #[napi(ts_type = "'o200k_base' | 'cl100k_base' | 'p50k_base' | 'r50k_base'")]
    pub encoding: Option<String>,
    pub model: Option<String>,
    pub reserve_output: Option<u32>,
    pub prompt_tokens: Option<u32>,
    #[napi(ts_type = "'bpe-openai' | 'tiktoken'")]
    pub engine: Option<String>,
    pub tokenizer_file: Option<String>,
    #[napi(ts_type = "'huggingface' | 'tekken'")]
    pub tokenizer_kind: Option<String>,
    #[napi(ts_type = "'plain' | 'xml'")]
    pub format: Option<String>,
    #[napi(ts_type = "'anthropic' | 'anthropic-documents' | 'bedrock' | 'cohere' | 'mistral'")]
    pub dialect: Option<String>,
    pub header: Option<String>,
    pub hide_metadata_keys: Option<Vec<String>>,
    pub max_head_tokens: Option<u32>,
    #[napi(ts_type = "'truncate' | 'stop' | 'skip'")]
    pub overflow: Option<String>,
    #[napi(ts_type = "'url-and-content' | 'content' | 'keep'")]
    pub duplicates: Option<String>,
    #[napi(ts_type = "'score' | 'as-given' | 'edges'")]
    pub order: Option<String>,
    pub min_score: Option<f64>,
    pub max_blocks: Option<u32>,
    pub max_per_source: Option<u32>,
    pub min_truncated_tokens: Option<u32>,
    pub cache_bytes: Option<u32>,
    pub seal_key_file: Option<String>,
    pub cache_control: Option<bool>,
    pub strict: Option<bool>,
    pub window: Option<u32>,
    pub reserve: Option<u32>,
    pub chat_template: Option<String>,
    pub date: Option<String>,
    #[napi(ts_type = "'user' | 'system' | 'documents' | 'tool'")]
    pub context_in: Option<String>,
    pub history_max_tokens: Option<u32>,
    pub trim_step: Option<f64>,
    pub allow_special_tokens_in_messages: Option<bool>,
    #[napi(ts_type = "ReadonlyArray<Record<string, unknown>>")]
    pub tools: Option<String>,
    #[napi(ts_type = "Record<string, unknown>")]
    pub template_options: Option<String>,
    #[napi(ts_type = "string | Uint8Array")]
    pub seal_key: Option<String>,
}

/// The options of `assembleMany` and `assembleManyAsync`.
#[napi(object, object_to_js = false)]
pub struct ManyOptions {
    /// Threads that share the work (default: one per core; at most 8 per core).
    pub threads: Option<u32>,
}

/// The options of `Assembler.entries`.
#[napi(object, object_to_js = false)]
pub struct EntriesOptions {
    /// The report of the turn before (or its JSON text): with `cacheControl`, its last entry
    /// is marked too.
    #[napi(ts_type = "Report | string")]
    pub previous: Option<String>,
}

/// The options of `resolveCitations` and `new CitationStream`.
#[napi(object, object_to_js = false)]
pub struct ResolveOptions {
    /// Renumber the answer 1..k in order of first citation.
    pub renumber: Option<bool>,
}

/// A citation chip: what a chat UI shows for block `[index]`.
#[napi(object, object_from_js = false, use_nullable = true)]
pub struct Citation {
    pub index: u32,
    #[napi(ts_type = "string")]
    pub title: Option<String>,
    #[napi(ts_type = "string")]
    pub source_url: Option<String>,
    pub score: f64,
    #[napi(ts_type = "Record<string, string | null>")]
    pub metadata: Option<String>,
    pub truncated: bool,
    pub token_count: u32,
    pub input_index: u32,
    #[napi(ts_type = "number")]
    pub kept_bytes: Option<u32>,
    #[napi(ts_type = "number")]
    pub kept_utf16: Option<u32>,
    pub fingerprint: String,
    pub head_shortened: bool,
}

/// A result left out of the text, with the reason.
#[napi(object, object_from_js = false, use_nullable = true)]
pub struct Omission {
    #[napi(ts_type = "string")]
    pub title: Option<String>,
    #[napi(ts_type = "string")]
    pub source_url: Option<String>,
    pub score: f64,
    #[napi(
        ts_type = "'belowMinScore' | 'duplicate' | 'overBlockLimit' | 'overSourceLimit' | 'didNotFit' | 'alreadyInContext'"
    )]
    pub reason: String,
    pub input_index: u32,
}

/// A model's window, and how it is shared.
#[napi(object, object_from_js = false)]
pub struct ModelWindow {
    pub model: String,
    pub context_window: u32,
    pub reserve_output: u32,
    pub prompt_tokens: u32,
}

/// The report of `mentor-context assemble --json`: `window` and `headroom` only with a
/// model window, `seal` (64 hex digits) only with a `sealKey`, `dialect` only with a
/// dialect.
#[napi(object, object_from_js = false)]
pub struct Report {
    /// The text for the prompt.
    pub context: String,
    /// Its exact count of tokens, at most `budget`.
    pub token_count: u32,
    pub budget: u32,
    pub encoding: String,
    /// One chip per block, in text order.
    pub citations: Vec<Citation>,
    /// Every result left out, best-ranked first.
    pub omitted: Vec<Omission>,
    pub window: Option<ModelWindow>,
    pub headroom: Option<u32>,
    pub seal: Option<String>,
    #[napi(ts_type = "'anthropic' | 'anthropic-documents' | 'bedrock' | 'cohere' | 'mistral'")]
    pub dialect: Option<String>,
    /// The layout the text was written in: what an answer's quotes are checked with.
    pub layout: Option<Layout>,
}

/// The layout a report's text was written in, besides its results: with its `encoding` and
/// `dialect`, what its contents are read back with, so that `resolveCitations` checks quotes
/// from the report alone.
#[napi(object, object_from_js = false, use_nullable = true)]
pub struct Layout {
    /// `plain`, `xml`, or with a dialect the dialect's name.
    pub format: String,
    /// The header the text starts with, with its newline; empty for none.
    pub header: String,
    /// The metadata keys kept out of the prompt, sorted.
    pub hidden_keys: Vec<String>,
    /// The most tokens a block's head may take, or `null`.
    pub max_head_tokens: Option<u32>,
}

/// Where a marker is in the answer: `answer.slice(start, end)`, in UTF-16 code units.
#[napi(object, object_from_js = false)]
pub struct MarkerSpan {
    pub start: u32,
    pub end: u32,
    /// `start` again: JavaScript strings count in UTF-16 code units, as the command's
    /// `startUtf16` does, so a span has the same keys in every language.
    pub start_utf16: u32,
    /// `end` again, as `startUtf16` is `start`.
    pub end_utf16: u32,
}

/// A chip the answer cites: how often, and where.
#[napi(object, object_from_js = false)]
pub struct Cited {
    pub citation: Citation,
    /// Its number in order of first citation.
    pub new_index: u32,
    pub count: u32,
    pub spans: Vec<MarkerSpan>,
    /// The quotes attributed to it, each checked against its content (Anthropic's
    /// `cited_text`, Bedrock's `sourceContent`, Cohere's `text`, a quote before a `[n]`
    /// marker); absent when none (Mistral's references carry no quote).
    pub quotes: Option<Vec<Quote>>,
}

/// A quote attributed to a chip, and whether its check held: found in the chip's content
/// (a quote before a marker, Anthropic's `cited_text`, Bedrock's `sourceContent` where its
/// location points), or the answer span it marks (Cohere's `text`).
#[napi(object, object_from_js = false)]
pub struct Quote {
    pub text: String,
    pub verified: bool,
}

/// A marker that points at no chip.
#[napi(object, object_from_js = false)]
pub struct UnknownMarker {
    pub marker: String,
    pub at: u32,
}

/// What an answer cites; `answer` is the renumbered answer (`null` without `renumber`), or
/// for a model API's response (`resolveResponse`) the response's text, which the spans
/// index.
#[napi(object, object_from_js = false, use_nullable = true)]
pub struct Resolution {
    pub cited: Vec<Cited>,
    pub unknown: Vec<UnknownMarker>,
    #[napi(ts_type = "string")]
    pub answer: Option<String>,
    /// How many of the cited chips' quotes did not check out.
    pub unverified: u32,
}

/// A marker cites chip `index`; `first` is the moment to show its chip.
#[napi(object, object_from_js = false)]
pub struct CitedEvent {
    #[napi(ts_type = "'cited'")]
    pub r#type: String,
    pub index: u32,
    pub new_index: u32,
    pub first: bool,
    pub span: MarkerSpan,
}

/// A marker points at no chip.
#[napi(object, object_from_js = false)]
pub struct UnknownEvent {
    #[napi(ts_type = "'unknown'")]
    pub r#type: String,
    pub marker: String,
    pub at: u32,
}

/// What `CitationStream.push`, `ResponseStream.pushEvent` and `pushSse` return: text safe to show (after what was shown before),
/// and the citations found in it.
#[napi(object, object_from_js = false)]
pub struct StreamOutput {
    pub text: String,
    #[napi(ts_type = "Array<CitedEvent | UnknownEvent>")]
    pub events: Vec<String>,
}

/// What `CitationStream.finish` and `ResponseStream.finish` return: the rest of the text, its events, and the
/// resolution of the whole answer.
#[napi(object, object_from_js = false)]
pub struct StreamEnd {
    pub text: String,
    #[napi(ts_type = "Array<CitedEvent | UnknownEvent>")]
    pub events: Vec<String>,
    pub resolution: Resolution,
}

/// An entry of `dialect: 'anthropic'`: a `search_result` content block (anthropic-sdk-python
/// `search_result_block_param.py`), cited as `search_result_location`.
#[napi(object, object_from_js = false)]
pub struct AnthropicSearchResult {
    #[napi(ts_type = "'search_result'")]
    pub r#type: String,
    /// The result's URL (or its title, or `[n]`).
    pub source: String,
    /// The title (or its URL, or `[n]`).
    pub title: String,
    /// The metadata lines (when there are any), the content, and `(truncated)` after a cut.
    pub content: Vec<TextBlock>,
    pub citations: CitationsConfig,
    #[napi(js_name = "cache_control")]
    pub cache_control: Option<CacheControl>,
}

/// An entry of `dialect: 'anthropic-documents'`: a `document` content block with a
/// plain-text source (`document_block_param.py`), cited as `char_location`.
#[napi(object, object_from_js = false)]
pub struct AnthropicDocument {
    #[napi(ts_type = "'document'")]
    pub r#type: String,
    pub source: PlainTextSource,
    pub title: Option<String>,
    /// The metadata lines (and `(truncated)` after a cut): weighed by the model, not cited.
    pub context: Option<String>,
    pub citations: CitationsConfig,
    #[napi(js_name = "cache_control")]
    pub cache_control: Option<CacheControl>,
}

/// A document's content.
#[napi(object, object_from_js = false)]
pub struct PlainTextSource {
    #[napi(ts_type = "'text'")]
    pub r#type: String,
    #[napi(js_name = "media_type", ts_type = "'text/plain'")]
    pub media_type: String,
    pub data: String,
}

/// `{ type: 'text', text }`.
#[napi(object, object_from_js = false)]
pub struct TextBlock {
    #[napi(ts_type = "'text'")]
    pub r#type: String,
    pub text: String,
}

/// Always `{ enabled: true }`: Anthropic wants citations on all entries or none.
#[napi(object, object_from_js = false)]
pub struct CitationsConfig {
    pub enabled: bool,
}

/// A prompt-cache breakpoint.
#[napi(object, object_from_js = false)]
pub struct CacheControl {
    #[napi(ts_type = "'ephemeral'")]
    pub r#type: String,
}

/// An entry of `dialect: 'cohere'`: a v2 chat document (cohere-python `document.py`),
/// cited by its `id`, the citation's number.
#[napi(object, object_from_js = false)]
pub struct CohereDocument {
    pub id: String,
    /// `title`, `url`, the metadata, `text` (the content), and `truncated: 'true'` after a
    /// cut, in that order.
    #[napi(ts_type = "Record<string, string>")]
    pub data: String,
}

/// An entry of `dialect: 'bedrock'`: a Converse content block holding a document
/// (aws-sdk-rust `sdk/bedrockruntime/src/types/_content_block.rs`), put in a message's
/// `content` as it is; cited in `citationsContent` blocks, `documentIndex` n for citation
/// n + 1.
#[napi(object, object_from_js = false)]
pub struct BedrockDocument {
    pub document: BedrockDocumentBlock,
}

/// A Converse `DocumentBlock` (`_document_block.rs`) with a text source.
#[napi(object, object_from_js = false)]
pub struct BedrockDocumentBlock {
    #[napi(ts_type = "'txt'")]
    pub format: String,
    /// `[n]` and the title in the characters Bedrock allows in a name (ASCII letters and
    /// digits, single spaces, `-`, `()`, `[]`): what its citations give back as `title`.
    pub name: String,
    pub source: BedrockTextSource,
    /// A `source:` line and the metadata lines (and `(truncated)` after a cut): weighed by
    /// the model, not cited.
    pub context: Option<String>,
    pub citations: CitationsConfig,
}

/// A document's text: what `documentChar` locations count characters of.
#[napi(object, object_from_js = false)]
pub struct BedrockTextSource {
    pub text: String,
}

/// An entry of `dialect: 'mistral'`: a document of the tool result Mistral's citations guide
/// describes. The tool message's `content` is `mistralToolContent(entries)`, the object
/// keyed `'0'`, `'1'`, ...: reference id i is citation i + 1.
#[napi(object, object_from_js = false)]
pub struct MistralReference {
    pub title: Option<String>,
    pub url: Option<String>,
    /// The metadata shown in the prompt, in order (absent when there is none).
    #[napi(ts_type = "Record<string, string>")]
    pub metadata: Option<String>,
    /// `[[content]]`.
    pub snippets: Vec<Vec<String>>,
    /// `true` after a cut (absent otherwise).
    #[napi(ts_type = "true")]
    pub truncated: Option<bool>,
}

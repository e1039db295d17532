//! Ranked retrieval results into the context block of an LLM prompt, within a token budget
//! that is exact.
//!
//! The text this crate returns, counted again by the same tokenizer, never exceeds the
//! budget, and the count it reports is the count of the text. Each block carries a citation
//! marker `[n]`, and the citation chips it returns are exactly the blocks in the text,
//! numbered as in the text; every result left out is reported with its reason.
//!
//! # Quick start
//!
//! ```
//! use mentor_context::{ContextBuilder, Encoding, MentorRagResult};
//!
//! // Configure and validate once, at start-up.
//! let assembler = ContextBuilder::new(1500).encoding(Encoding::O200kBase).build()?;
//!
//! // Assemble per request: this cannot fail.
//! let results = vec![
//!     MentorRagResult::new("Plan B costs 12 EUR a month.", Some("https://example.com/prices"), Some("Price list"), 0.91)
//!         .with_metadata([("valid from", "2026-01-01")]),
//!     MentorRagResult::from_content("Plan B cost 10 EUR a month.", 0.87)
//!         .with_source_url("https://example.com/prices-2025")
//!         .with_title("Price list")
//!         .with_metadata([("valid from", "2025-01-01")]),
//! ];
//! let context = assembler.assemble(&results);
//!
//! assert_eq!(
//!     context.text,
//!     "[1] Price list\nvalid from: 2026-01-01\n```\nPlan B costs 12 EUR a month.\n```\n\
//!      [2] Price list\nvalid from: 2025-01-01\n```\nPlan B cost 10 EUR a month.\n```\n"
//! );
//! assert!(context.token_count <= 1500);
//! assert_eq!(context.citations[1].source_url.as_deref(), Some("https://example.com/prices-2025"));
//! # Ok::<(), mentor_context::Error>(())
//! ```
//!
//! # Concepts
//!
//! - [`MentorRagResult`]: one retrieval result, the Rust twin of the .NET record, with the
//!   same JSON wire form ([`parse_results`] reads a request).
//! - [`ContextBuilder`]: the configuration. Every setter states its default;
//!   [`build`](ContextBuilder::build) validates it once and returns an [`Assembler`].
//! - [`Assembler`]: `Send + Sync`, cheap to clone; [`assemble`](Assembler::assemble) turns a
//!   request's results into an [`AssembledContext`]: the text, its exact `token_count`, the
//!   [`Citation`] chips and the [`Omission`]s.
//! - [`Format`]: how a block looks. [`PlainFormat`] (default) and [`XmlFormat`] ship;
//!   [`BuiltinFormat`] picks one by name at run time; implement the trait for your own.
//! - [`TokenCounter`]: how tokens are counted. [`Encoding`] covers OpenAI's encodings, counted
//!   by default with GitHub's `bpe-openai` (`o200k_base`, `cl100k_base`) or tiktoken-rs
//!   (`p50k_base`, `r50k_base`); [`Encoding::with_engine`] picks the [`Engine`] explicitly.
//!   [`TekkenTokenizer`] reads Mistral's Tekken files, and `HuggingFaceTokenizer` (feature
//!   `huggingface`) a model's own `tokenizer.json` (Llama 3, Qwen 3, DeepSeek V3, Gemma 3).
//!   Implement the trait for any other tokenizer.
//! - [`Overflow`] and [`Duplicates`]: what happens to the block that does not fit, and to
//!   repeated results. [`TokenCache`] remembers counts across requests.
//! - [`Order`]: where the chosen blocks stand in the text (by score, as given, best at the
//!   edges); [`ModelWindow`]: a budget from a model's context window
//!   ([`ContextBuilder::for_model`]).
//! - [`parse_request`]: reads a request as .NET's System.Text.Json writes it, and lists the
//!   [`UnknownProperty`]s it ignored; [`deserialize_request`] reads one from any serde
//!   deserializer, and [`deserialize_request_into`] into the last request's results, keeping
//!   their buffers for a service that reads request after request.
//!
//! # Guarantees
//!
//! Each has a test that fails when it breaks (the repository's README lists them):
//!
//! - the text's real count equals `token_count` and is at most the budget, for any input;
//! - chips match the blocks a reader sees one to one, numbered 1..n in text order;
//! - a cut block's content is a prefix of the original ending on a grapheme boundary;
//! - the same input gives byte-identical output, with or without a cache, on any thread;
//! - content, titles, URLs and metadata cannot forge a block, a marker or a closing tag;
//! - no input panics; a result is tokenized only as far as could still fit.
//!
//! # Many requests at once
//!
//! An [`Assembler`] is `Send + Sync` and assembling only reads it, so a benchmark harness or a
//! batch job shares one across threads. With the `rayon` feature, `Assembler::assemble_many`
//! assembles a slice of requests on rayon's pool and returns the contexts in order. Without
//! it, scoped threads from the standard library do the same:
//!
//! ```
//! use mentor_context::{AssembledContext, ContextBuilder, MentorRagResult};
//!
//! let assembler = ContextBuilder::new(200).build()?;
//! let requests: Vec<Vec<MentorRagResult>> = (0..100)
//!     .map(|i| vec![MentorRagResult::from_content(format!("Document {i}."), 0.5)])
//!     .collect();
//!
//! let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
//! let per_thread = requests.len().div_ceil(threads);
//! let contexts: Vec<AssembledContext> = std::thread::scope(|scope| {
//!     let workers: Vec<_> = requests
//!         .chunks(per_thread)
//!         .map(|chunk| {
//!             let assembler = &assembler;
//!             scope.spawn(move || chunk.iter().map(|r| assembler.assemble(r)).collect::<Vec<_>>())
//!         })
//!         .collect();
//!     workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
//! });
//! assert!(contexts[42].text.contains("Document 42."));
//! # Ok::<(), mentor_context::Error>(())
//! ```
//!
//! # Features
//!
//! - `rayon`: [`Assembler::assemble_many`], assembling many requests on rayon's thread pool.
//! - `huggingface`: `HuggingFaceTokenizer`, counting with a local `tokenizer.json` through the
//!   `tokenizers` crate (with onig, a C library, built from source).
//! - `bpe-openai`: no longer needed (`bpe-openai` is the default engine); kept so that
//!   `--features bpe-openai` still builds.
//!
//! # Minimum Rust version
//!
//! Rust 1.91 (edition 2024; `str::floor_char_boundary`).
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

mod assembler;
mod builder;
mod cache;
mod citations;
mod context;
mod error;
mod fingerprint;
mod format;
mod meter;
mod options;
mod provenance;
mod record;
mod tokenizer;
mod window;

/// The README's Rust examples, run as doctests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;

pub use assembler::{Assembler, AssemblyStats, EXPLAINED_RESULTS, Need};
pub use builder::{ContextBuilder, DEFAULT_MIN_TRUNCATED_TOKENS};
pub use cache::TokenCache;
pub use citations::{
    CitationEvent, CitationStream, CitedChip, MAX_MARKER_BYTES, MAX_RANGE, Resolution, Resolver,
    Span, Streamed, UnknownMarker,
};
pub use context::{AssembledContext, Citation, Omission, OmitReason};
pub use error::Error;
pub use format::{
    BlockHead, BuiltinFormat, Format, PlainFormat, XmlFormat, push_line, push_xml_text,
};
pub use options::{Duplicates, Order, Overflow};
pub use provenance::Fingerprint;
pub use record::{
    MentorRagResult, Metadata, ParsedResults, UnknownProperties, UnknownProperty,
    deserialize_request, deserialize_request_into, parse_request, parse_results,
};
#[allow(deprecated)]
pub use tokenizer::FastEncoding;
#[cfg(feature = "huggingface")]
pub use tokenizer::HuggingFaceTokenizer;
pub use tokenizer::{DEFAULT_MAX_CALL_BYTES, Encoding, TokenCounter, openai_splits_exactly};
pub use tokenizer::{Engine, OpenAiTokenizer, TekkenTokenizer};
pub use window::ModelWindow;

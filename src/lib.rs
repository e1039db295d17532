//! Ranked retrieval results into the context block of an LLM prompt, within a token budget
//! that is exact.
//!
//! The text this crate returns, counted again by the same tokenizer, never exceeds the
//! budget, and the count it reports is the count of the text. Each block carries a citation
//! marker `[n]`, and the citations it returns (what a chat UI shows as chips) are exactly the
//! blocks in the text, numbered as in the text; every result left out is reported with its
//! reason.
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
//! # The request path
//!
//! The names at the root are the ones a chat backend uses on every request:
//!
//! - [`MentorRagResult`] (with its [`Metadata`]): one retrieval result, the Rust twin of the
//!   .NET record, with the same JSON wire form.
//! - [`ContextBuilder`]: the configuration. Every setter states its default;
//!   [`build`](ContextBuilder::build) checks it once and returns an [`Assembler`].
//! - [`Assembler`]: `Send + Sync`, cheap to clone. [`assemble`](Assembler::assemble) turns a
//!   request's results into an [`AssembledContext`]: the text, its exact `token_count`, one
//!   [`Citation`] per block and one [`Omission`] (with its [`OmitReason`]) per result left
//!   out. [`assemble_follow_up`](Assembler::assemble_follow_up) continues a conversation with
//!   the earlier blocks kept byte for byte; a citation's [`Fingerprint`] tells them apart.
//! - [`Encoding`], [`Overflow`], [`Duplicates`] and [`Order`]: the named choices; [`Error`]:
//!   what configuring or reading can refuse.
//!
//! The rest lives in modules, by concept:
//!
//! - [`citations`]: reading the model's answer back, whole or streamed, to the citations it
//!   cites ([`citations::Resolver`]).
//! - [`wire`]: reading requests as .NET's System.Text.Json writes them
//!   ([`wire::parse_results`]), with every unknown property reported.
//! - [`tokenizer`]: who counts. [`Encoding`] covers OpenAI's encodings, counted by default
//!   with GitHub's `bpe-openai`; [`tokenizer::TekkenTokenizer`] reads Mistral's Tekken files
//!   and `HuggingFaceTokenizer` (feature `huggingface`) a model's own `tokenizer.json`.
//!   Implement [`tokenizer::TokenCounter`] for any other; [`tokenizer::TokenCache`] remembers
//!   counts across requests.
//! - [`format`](mod@format): how a block looks ([`format::PlainFormat`], the default, and
//!   [`format::XmlFormat`]); implement [`format::Format`] for your own.
//! - [`budget`]: a budget from a model's window ([`budget::ModelWindow`]), and the smallest
//!   budget that would have put a block in an empty context.
//!
//! # Guarantees
//!
//! Each has a test that fails when it breaks (the architecture document lists them):
//!
//! - the text's real count equals `token_count` and is at most the budget, for any input;
//! - citations match the blocks a reader sees one to one, numbered 1..n in text order;
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
//! - `rayon`: `Assembler::assemble_many`, assembling many requests on rayon's thread pool.
//! - `huggingface`: `HuggingFaceTokenizer`, counting with a local `tokenizer.json` through the
//!   `tokenizers` crate (with onig, a C library, built from source).
//! - `unstable_machinery`: `machinery`, the hooks the crate's own command, bindings and
//!   benchmarks use (what an assembly tokenized, reading into reused buffers, starting worker
//!   threads). Outside semantic versioning.
//!
//! The long-form documents are in [`_documentation`]: the architecture (the module map, the
//! way a request flows, the invariants) and the changelog.
//!
//! # Minimum Rust version
//!
//! Rust 1.91 (edition 2024; `str::floor_char_boundary`).
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod assembler;
pub mod budget;
mod builder;
pub mod citations;
mod context;
pub mod dialects;
mod error;
mod fingerprint;
pub mod format;
mod hash;
mod layout;
#[cfg(feature = "unstable_machinery")]
#[cfg_attr(docsrs, doc(cfg(feature = "unstable_machinery")))]
pub mod machinery;
mod meter;
mod named_choice;
mod offsets;
mod options;
pub mod prompt;
mod rag_result;
mod read_file;
mod report_contents;
pub mod seal;
pub mod settings;
pub mod tokenizer;
pub mod wire;

/// Long-form documents, rendered with the API: how the crate is built, and what changed.
pub mod _documentation {
    #[doc = include_str!("../ARCHITECTURE.md")]
    pub mod architecture {}
    #[doc = include_str!("../CHANGELOG.md")]
    pub mod changelog {}
}

/// The README's Rust examples, run as doctests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;

pub use assembler::Assembler;
pub use builder::ContextBuilder;
pub use context::{AssembledContext, Citation, Omission, OmitReason};
pub use error::{Error, ErrorKind, PreviousTurnReason, TemplateError, TemplateErrorKind};
pub use fingerprint::Fingerprint;
pub use layout::Layout;
pub use options::{Duplicates, Order, Overflow};
pub use rag_result::{MentorRagResult, Metadata};
pub use settings::Settings;
pub use tokenizer::Encoding;

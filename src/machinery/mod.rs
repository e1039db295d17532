//! Hooks for the crate's own benchmarks and bindings (feature `unstable_machinery`).
//!
//! Nothing here is covered by semantic versioning: names and behaviour may change in any
//! release. The command (`cli/`) and the Python bindings (`python/`) enable the feature;
//! an application should not need it.

mod decimal;
mod message_error;
mod tool_content;

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use serde::Deserializer;

use crate::MentorRagResult;
pub use crate::assembler::{AssemblyStats, BlockParts, Part, TextParts};
pub use crate::offsets::IndexedText;
use crate::prompt::{Message, Prompt, PromptAssembler};
use crate::wire::{ParsedResults, UnknownProperties};
use crate::{AssembledContext, Assembler};
pub use decimal::shortest_f32;
pub use message_error::MessageError;
pub use tool_content::{cohere_tool_content_of, mistral_tool_content_of};

/// [`deserialize_request`](crate::wire::deserialize_request) into `parsed`, keeping the buffers of the request that was there:
/// each result is read into the one at its place, its strings copied into their capacity
/// and its metadata into its table. A caller that reads request after request (a service,
/// the Python bindings) then allocates each buffer once, not per request. What `parsed`
/// holds after a success is exactly what [`deserialize_request`](crate::wire::deserialize_request) returns.
///
/// # Errors
///
/// As [`deserialize_request`](crate::wire::deserialize_request). After an error `parsed` holds no results and no unknown
/// properties, so that no part of a refused request can be taken for a request.
///
/// ```
/// use mentor_context::machinery::deserialize_request_into;
/// use mentor_context::wire::{ParsedResults, UnknownProperties};
///
/// let mut parsed = ParsedResults::default();
/// for score in ["0.5", "0.75"] {
///     let value = serde_json::json!([{"content": "a", "score": score}]);
///     deserialize_request_into(&value, UnknownProperties::Report, &mut parsed)?;
/// }
/// assert_eq!(parsed.results[0].score, 0.75);
///
/// let missing = serde_json::json!([{"score": 1}]);
/// let err = deserialize_request_into(&missing, UnknownProperties::Report, &mut parsed);
/// assert_eq!(err.unwrap_err().to_string(), "missing field `content`");
/// assert!(parsed.results.is_empty());
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn deserialize_request_into<'de, D: Deserializer<'de>>(
    deserializer: D,
    unknown: UnknownProperties,
    parsed: &mut ParsedResults,
) -> Result<(), D::Error> {
    crate::wire::deserialize_request_into(deserializer, unknown, parsed)
}

/// [`Assembler::assemble`], also returning what the assembly cost: for benchmarks and
/// performance gates.
#[must_use]
pub fn assemble_with_stats<'r>(
    assembler: &Assembler,
    results: &'r [MentorRagResult],
) -> (AssembledContext<'r>, AssemblyStats) {
    assembler.run(results)
}

/// Whether splitting `text` at byte `at` keeps every pre-tokenizer piece whole in all four
/// OpenAI encodings, so that the counts of the halves add up to the count of the whole: the
/// rule the built-in formats are written to (see `ARCHITECTURE.md`, "Exact counts").
#[must_use]
pub fn openai_splits_exactly(text: &str, at: usize) -> bool {
    crate::tokenizer::openai_splits_exactly(text, at)
}

/// Whether NFC leaves the position before `c` alone, whatever comes before it: the
/// stability rule a file with an NFC normalizer (Qwen 3) adds to
/// [`openai_splits_exactly`] (`src/tokenizer/nfc.rs`). Feature `huggingface`.
#[cfg(feature = "huggingface")]
#[cfg_attr(docsrs, doc(cfg(feature = "huggingface")))]
#[must_use]
pub fn nfc_stable(c: char) -> bool {
    crate::tokenizer::nfc_stable(c)
}

/// Where each piece of `context`'s text is (header, opening, each block's head, body and
/// content, closing) and its tokens counted alone, for a page that shows what the budget
/// went on. `context` must be `assembler`'s own (or a follow-up turn it assembled); `None`
/// when its text is not what `assembler` writes for its citations.
///
/// ```
/// use mentor_context::machinery::text_parts;
/// use mentor_context::{ContextBuilder, MentorRagResult};
///
/// let assembler = ContextBuilder::new(100).build()?;
/// let results = [MentorRagResult::from_content("Plan B.", 0.9).with_title("Prices")];
/// let context = assembler.assemble(&results);
/// let parts = text_parts(&assembler, &context).expect("its own text");
/// assert_eq!(&context.text[parts.blocks[0].head.range.clone()], "[1] Prices\n");
/// assert_eq!(&context.text[parts.blocks[0].content.range.clone()], "Plan B.");
/// # Ok::<(), mentor_context::Error>(())
/// ```
#[must_use]
pub fn text_parts(assembler: &Assembler, context: &AssembledContext<'_>) -> Option<TextParts> {
    assembler.text_parts(context)
}

mod workers;

pub use workers::{
    MAX_WORKERS_PER_CORE, WORKER_STACK, WorkersNotStarted, max_workers, start_workers,
};

/// [`PromptAssembler::assemble`], and what it cost in work that does not depend on the machine:
/// the bytes it handed the tokenizer (the context's assembly included), what a warm turn saves,
/// and the renders of the chat template, which stay few however long the conversation is.
///
/// ```
/// use mentor_context::machinery::prompt_with_stats;
/// use mentor_context::prompt::{ChatTemplate, Message, PromptBuilder};
///
/// let prompts = PromptBuilder::new(ChatTemplate::harmony(), 2000).reserve(500).build()?;
/// let (prompt, stats) = prompt_with_stats(&prompts, &[Message::user("Hello?")], &[]);
/// assert!(prompt?.prompt.unwrap().len() >= stats.bytes_tokenized);
/// assert_eq!(stats.renders, 2); // the whole conversation, then the prompt with its context
/// # Ok::<(), mentor_context::Error>(())
/// ```
pub fn prompt_with_stats<'r>(
    prompts: &PromptAssembler,
    conversation: &[Message],
    results: &'r [MentorRagResult],
) -> (Result<Prompt<'r>, crate::Error>, PromptStats) {
    let mut work = crate::prompt::Work::default();
    let prompt = prompts.run(
        conversation,
        results,
        &mut work,
        &crate::prompt::Deadline::never(),
    );
    let stats = PromptStats {
        bytes_tokenized: work.bytes_tokenized,
        renders: work.renders,
    };
    (prompt, stats)
}

/// What one whole prompt cost, in work that does not depend on the machine.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PromptStats {
    /// Bytes handed to the tokenizer.
    pub bytes_tokenized: usize,
    /// Renders of the chat template.
    pub renders: usize,
}

/// The bytes of the regular file at `path`, at most `max_bytes` of them: how the library
/// reads every file it reads (`src/read_file.rs`), for the command's own files. `what` names
/// the kind of file, with its article, in the refusal of a larger one ("a results file").
///
/// ```
/// use mentor_context::machinery::{describe_io_error, read_file};
///
/// let err = read_file(std::path::Path::new("/no/such/file"), 1 << 20, "a results file");
/// assert_eq!(describe_io_error(&err.unwrap_err()), "no such file");
/// ```
///
/// # Errors
///
/// The error opening or reading it, and one for a directory, a FIFO, a device or a socket,
/// and for a file larger than `max_bytes`, each in words [`describe_io_error`] gives.
pub fn read_file(path: &Path, max_bytes: u64, what: &'static str) -> io::Result<Vec<u8>> {
    crate::read_file::read_file(path, file_cap(max_bytes, what))
}

/// [`read_file`] of a stream (standard input): all its bytes, at most `max_bytes`.
///
/// # Errors
///
/// The error reading it, and one when it holds more than `max_bytes`.
pub fn read_capped(reader: impl Read, max_bytes: u64, what: &'static str) -> io::Result<Vec<u8>> {
    crate::read_file::read_capped(reader, file_cap(max_bytes, what))
}

/// The regular file at `path`, opened, with its size, for a reader that streams it (`batch`):
/// what [`read_file`] refuses but for the size.
///
/// # Errors
///
/// As [`read_file`], but for the size.
pub fn open_regular(path: &Path) -> io::Result<(File, u64)> {
    crate::read_file::open_regular(path)
}

/// A read error in a few lowercase words ("no such file", "is a directory, not a file"), as
/// the library's refusals say them.
#[must_use]
pub fn describe_io_error(err: &io::Error) -> String {
    crate::read_file::describe(err)
}

fn file_cap(bytes: u64, what: &'static str) -> crate::read_file::FileCap {
    crate::read_file::FileCap { bytes, what }
}

//! The command line: what clap parses, and how the shared options become a validated
//! [`Assembler`].
//!
//! Option values are parsed straight into the library's own types ([`Overflow`],
//! [`BuiltinFormat`], [`Encoding`]) through their `FromStr`, so the command accepts exactly
//! the names the library does and cannot drift from it.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

use clap::builder::{
    EnumValueParser, PossibleValue, PossibleValuesParser, StringValueParser, TypedValueParser,
};
use clap::error::ErrorKind;
use clap::{Args, Parser, Subcommand};
use mentor_context::budget::ModelWindow;
use mentor_context::dialects::Dialect;
use mentor_context::format::BuiltinFormat;
use mentor_context::machinery::{MAX_WORKERS_PER_CORE, max_workers};
use mentor_context::tokenizer::Engine;
use mentor_context::{Assembler, ContextBuilder, Duplicates, Encoding, Error, Order, Overflow};

use crate::output::{Failure, escape_os};
use crate::tokenizer_file::{self, TokenizerKind};

mod report;
mod settings;

/// Turns ranked retrieval (RAG) results into the context block of an LLM prompt, within an
/// exact token budget.
///
/// The input is a JSON array of results in camelCase wire form:
/// [{"content": "...", "sourceUrl": "...", "title": "...", "score": 0.9, "metadata": {"k": "v"}}]
/// (`content` and `score` are required). Exit status: 0 on success, 2 on bad input (one line
/// on standard error, nothing on standard output), 1 if the output could not be written.
#[derive(Debug, Parser)]
#[command(name = "mentor-context", version)]
// Without a subcommand clap would print the whole help to standard error; a usage error is
// one line like every other.
#[command(arg_required_else_help = false)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

// The doc comments of these variants and of the fields below are the `--help` texts.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Assemble the context and print it (or, with --json, a report with citations).
    Assemble(AssembleArgs),
    /// Time the assembly: run it repeatedly in-process and print min, median and max.
    Bench(BenchArgs),
    /// Read a model's answer against an `assemble --json` report: which chips it cites, in
    /// order of first citation, and which markers point at no chip (one JSON line).
    Cite(crate::cite::CiteArgs),
    /// Assemble many requests: JSON Lines in, one JSON report line out per request, in order.
    Batch(BatchArgs),
    /// Assemble as `assemble` does and write one self-contained HTML page of what the model
    /// is sent: where the budget went, each block with its chip, what was left out and why,
    /// and with --answer the answer's citations linked to their blocks.
    Inspect(crate::inspect::InspectArgs),
    /// Fit a whole prompt to a model's window through its chat template: the conversation
    /// (system message, history, the user's question) and the results, with history trimmed
    /// by whole turns; print the prompt text (or, with --json, the messages, the exact count
    /// and how the window was shared, with the context's report).
    Prompt(crate::prompt::PromptArgs),
}

#[derive(Debug, Args)]
pub(crate) struct AssembleArgs {
    #[command(flatten)]
    pub(crate) build: BuildArgs,

    /// Print a JSON object with the keys context, tokenCount, budget, encoding, citations,
    /// omitted and layout (then a newline) instead of the bare context.
    #[arg(long)]
    pub(crate) json: bool,

    /// The JSON array of results; `-` or no FILE reads standard input.
    #[arg(value_name = "FILE")]
    pub(crate) file: Option<PathBuf>,

    /// Assemble a follow-up turn: keep the blocks of this earlier `assemble --json` report
    /// first, with their numbers and text unchanged, and add new blocks after them. The
    /// report's text must be exactly what these options write for its citations (and, with
    /// --seal-key-file, its seal must match), else it is refused, naming the block.
    #[arg(long, value_name = "REPORT")]
    pub(crate) previous: Option<PathBuf>,

    /// With --dialect anthropic or anthropic-documents: mark the last entry, and in a
    /// follow-up turn the last entry of the earlier turns, with a prompt-cache breakpoint
    /// (`"cache_control": {"type": "ephemeral"}`), so Anthropic's prompt cache keeps hitting.
    #[arg(long)]
    pub(crate) cache_control: bool,
}

#[derive(Debug, Args)]
pub(crate) struct BenchArgs {
    #[command(flatten)]
    pub(crate) build: BuildArgs,

    /// How many timed assemblies to run (after a few untimed warm-up ones) [default: 200; with
    /// --batch, one per request held, so that each is timed once].
    #[arg(long, value_name = "N", value_parser = utf8(parse_iterations))]
    pub(crate) iterations: Option<usize>,

    /// Print one JSON object with the keys iterations, minNs, medianNs, maxNs, floorNs (one
    /// encode of the produced text by the same engine, timed in alternation), tokenCount and
    /// bytesTokenized (then a newline) instead of readable lines.
    #[arg(long)]
    pub(crate) json: bool,

    /// Time the warm path: assemble with a token-count cache (64 MiB), which the warm-up
    /// assemblies fill, as a chat backend that sees the same documents again would. Without
    /// it, every assembly is cold: nothing is remembered between them.
    #[arg(long)]
    pub(crate) cache: bool,

    /// Read FILE as `batch` reads it (JSON Lines, one request per line, a line's budget
    /// applying to it) and time its requests in turn, the first --requests of them: as in a
    /// `batch` run, each assembly meets text the last one did not. The figures are per
    /// request.
    #[arg(long)]
    pub(crate) batch: bool,

    /// With --batch: how many requests to read from FILE and hold in memory.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_BENCH_REQUESTS, value_parser = utf8(parse_iterations), requires = "batch")]
    pub(crate) requests: usize,

    /// The JSON array of results (with --batch, the JSON Lines file), read once; `-` reads
    /// standard input.
    #[arg(value_name = "FILE")]
    pub(crate) file: PathBuf,
}

/// How many timed assemblies `bench` runs by default on one request.
pub(crate) const DEFAULT_BENCH_ITERATIONS: usize = 200;

/// How many requests `bench --batch` holds by default: 1,000 of the 50 x 2 KiB kind are about
/// 120 MB of text, far more than a processor's caches, as a long batch run is.
pub(crate) const DEFAULT_BENCH_REQUESTS: usize = 1000;

/// `batch`: each non-blank line is a JSON array of results, or an object
/// {"id": any, "results": [...], "budget": N} whose id is echoed and whose budget overrides
/// --budget. Each gives one line: the `assemble --json` report with "line" (the physical line,
/// from 1) and "id", or {"line", "id", "error"} for a bad line; the run goes on. Exit status: 0
/// if every line succeeded, 2 if some failed (0 with --exit-zero), 1 if the output could not
/// be written.
#[derive(Debug, Args)]
pub(crate) struct BatchArgs {
    #[command(flatten)]
    pub(crate) build: BuildArgs,

    /// Run this many threads, each reading, assembling and writing lines [default: the number
    /// of cores]. The output is the same, byte for byte, whatever the number.
    #[arg(long, value_name = "N", value_parser = utf8(parse_jobs))]
    pub(crate) jobs: Option<usize>,

    /// Write the reports to this file instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,

    /// Exit 0 when some lines failed, as when none did: their error lines are still written
    /// and the summary counts them. Bad options, an unreadable input or output still exit 2
    /// or 1.
    #[arg(long)]
    pub(crate) exit_zero: bool,

    /// Also write one self-contained HTML page of the run to this file: the summary's
    /// figures, histograms of fill, tokens and assemble time, what was left out by reason,
    /// the slowest and least-filled requests and the failed lines. Rewritten every few
    /// seconds as the run goes, and at its end.
    #[arg(long, value_name = "PAGE")]
    pub(crate) report: Option<PathBuf>,

    /// The JSON Lines file; `-` or no FILE reads standard input.
    #[arg(value_name = "FILE")]
    pub(crate) file: Option<PathBuf>,
}

/// The options of the context builder, shared by `assemble`, `bench` and `batch`.
#[derive(Debug, Args)]
// The `--format` help shows the XML layout's tags as they are; they are not HTML.
#[allow(rustdoc::invalid_html_tags)]
pub(crate) struct BuildArgs {
    /// The most tokens the context may take, header and layout included [default: 4000].
    // Negative numbers are let through to `parse_count`, which names the problem, instead
    // of clap reading `-5` as an unknown option. No default value here: `prompt` refuses a
    // --budget given, since its window sets the budget.
    #[arg(
        long,
        value_name = "TOKENS",
        value_parser = utf8(parse_count),
        allow_negative_numbers = true
    )]
    budget: Option<usize>,

    /// Count tokens with this encoding: o200k_base (the default), cl100k_base, p50k_base or
    /// r50k_base.
    #[arg(
        long,
        value_name = "NAME",
        value_parser = utf8(parse_encoding),
        conflicts_with = "model"
    )]
    encoding: Option<Encoding>,

    /// Count tokens with the encoding of this OpenAI model (gpt-4o: o200k_base, gpt-4:
    /// cl100k_base, ...). With --reserve-output or --prompt-tokens, the budget is what the
    /// model's context window leaves.
    #[arg(long, value_name = "NAME", value_parser = utf8(parse_model))]
    model: Option<Model>,

    /// Block layout: `plain` (numbered `[n] title` heads, fenced content) or `xml`
    /// (<documents><document index="n">...) [default: plain].
    // The library's parser, so an unknown name gets the library's message. No clap default:
    // whether it was given is what a report's own layout is compared with.
    #[arg(
        long,
        value_name = "NAME",
        value_parser = utf8(str::parse::<BuiltinFormat>)
    )]
    format: Option<BuiltinFormat>,

    /// What to do with the first result that does not fit in what is left of the budget.
    #[arg(
        long,
        value_name = "POLICY",
        default_value_t = Overflow::Truncate,
        value_parser = utf8(overflow_parser()),
        // The library's names are case-insensitive, as --format's are.
        ignore_case = true
    )]
    overflow: Overflow,

    /// Leave out results scored below this.
    // Hyphen values, not just negative numbers: clap does not take `-inf` or `-1e-3` for
    // numbers, and would read them as unknown options.
    #[arg(long, value_name = "F", allow_hyphen_values = true, value_parser = utf8(str::parse::<f32>))]
    min_score: Option<f32>,

    /// Put at most this many blocks in the context.
    #[arg(long, value_name = "N", value_parser = utf8(parse_count))]
    max_blocks: Option<usize>,

    /// The same as --duplicates keep: keep every result, even those with the same source URL
    /// and content as a better-ranked one.
    #[arg(long)]
    keep_duplicates: bool,

    /// Keep this metadata key out of the prompt (it stays on the citations of the --json
    /// report). Repeat for several keys.
    #[arg(long, value_name = "KEY", value_parser = utf8(StringValueParser::new()))]
    hide_metadata_key: Vec<String>,

    /// Put this text before the blocks, counted in the budget.
    #[arg(long, value_name = "TEXT", value_parser = utf8(StringValueParser::new()))]
    header: Option<String>,

    /// With --overflow truncate, cut a block only if at least this many tokens of room are
    /// left for its content after its head and frame; otherwise leave it out. A cut block
    /// keeps at least half of the room its content had (not only half of N): its move back
    /// to a word end gives up at most a tenth of what it keeps [default: 32, or the budget
    /// if smaller].
    #[arg(long, value_name = "N", value_parser = utf8(parse_count))]
    min_truncated_tokens: Option<usize>,

    /// Count with this engine: bpe-openai (the default for o200k_base and cl100k_base) or
    /// tiktoken (the reference, and the default for p50k_base and r50k_base). Both give the
    /// same counts.
    #[arg(long, value_name = "NAME", value_parser = utf8(str::parse::<Engine>))]
    engine: Option<Engine>,

    /// Count tokens with a model's own tokenizer file instead of an OpenAI encoding: a Hugging
    /// Face tokenizer.json (Llama 3, Qwen 3, DeepSeek V3, Gemma 3, ...; the command needs the
    /// `huggingface` feature) or a Mistral tekken_*.json. Nothing is downloaded. Reports name
    /// the tokenizer by family and a hash of the file (llama3@6835d61b).
    #[arg(
        long,
        value_name = "PATH",
        conflicts_with_all = ["encoding", "model", "engine"]
    )]
    tokenizer_file: Option<PathBuf>,

    /// What --tokenizer-file is, if not told by its contents (a Tekken file names
    /// default_num_special_tokens near its start; anything else is read as tokenizer.json).
    #[arg(
        long,
        value_name = "KIND",
        value_parser = utf8(EnumValueParser::<TokenizerKind>::new()),
        requires = "tokenizer_file"
    )]
    tokenizer_kind: Option<TokenizerKind>,

    /// Make unknown properties in the input an error (exit 2) instead of a warning.
    #[arg(long)]
    pub(crate) strict: bool,

    /// The order of the blocks in the context. Which results are chosen follows the score
    /// whatever the order; numbers follow the text.
    #[arg(
        long,
        value_name = "ORDER",
        default_value_t = Order::Score,
        value_parser = utf8(order_parser()),
        ignore_case = true
    )]
    order: Order,

    /// Put at most this many blocks from one source URL in the context; lower-ranked results
    /// from other sources fill the room.
    #[arg(long, value_name = "N", value_parser = utf8(parse_count))]
    max_per_source: Option<usize>,

    /// Which results to leave out as duplicates of a better-ranked one [default:
    /// url-and-content].
    #[arg(
        long,
        value_name = "MODE",
        value_parser = utf8(duplicates_parser()),
        ignore_case = true,
        conflicts_with = "keep_duplicates"
    )]
    duplicates: Option<Duplicates>,

    /// Keep each block's head (marker, title, metadata) within this many tokens: the title
    /// and metadata values are shortened, marked with `…`; the citation says so.
    #[arg(long, value_name = "N", value_parser = utf8(parse_count))]
    max_head_tokens: Option<usize>,

    /// With --model: tokens to keep free for the answer. The budget becomes the model's
    /// context window less this and --prompt-tokens.
    #[arg(
        long,
        value_name = "TOKENS",
        value_parser = utf8(parse_count),
        requires = "model",
        conflicts_with = "budget"
    )]
    reserve_output: Option<usize>,

    /// With --model: tokens the rest of the prompt (system message, question, history)
    /// takes. The budget becomes the model's context window less this and --reserve-output.
    #[arg(
        long,
        value_name = "TOKENS",
        value_parser = utf8(parse_count),
        requires = "model",
        conflicts_with = "budget"
    )]
    prompt_tokens: Option<usize>,

    /// Seal every --json report with an HMAC-SHA256 tag, keyed by the bytes of this file (at
    /// least 16; one trailing newline is not part of the key), and continue with --previous
    /// only reports that carry a matching seal. For reports kept where they could be edited.
    #[arg(long, value_name = "PATH")]
    seal_key_file: Option<PathBuf>,

    /// Write a model API's own entries instead of text: anthropic (search_result blocks),
    /// anthropic-documents (document blocks), bedrock (Converse document blocks), cohere
    /// (documents) or mistral (the documents of a tool result). `assemble` prints the
    /// JSON array to put in the request (--json the report); the budget counts the entries'
    /// text as the report's context shows it. `cite` then reads that API's response.
    #[arg(long, value_name = "NAME", value_parser = utf8(str::parse::<Dialect>), conflicts_with = "format")]
    pub(crate) dialect: Option<Dialect>,
}

/// The budget without --budget.
const DEFAULT_BUDGET: usize = 4000;

/// A model named by `--model`: its name (for its context window) and its encoding.
#[derive(Debug, Clone)]
struct Model {
    name: String,
    encoding: Encoding,
}

/// Parses `--encoding`; a model's name is pointed to `--model`, the option that takes it.
fn parse_encoding(name: &str) -> Result<Encoding, String> {
    name.parse::<Encoding>().map_err(|err| match err {
        Error::ModelNamedAsEncoding { encoding, .. } => format!(
            "`{name}` is a model, not an encoding: use --model {name} (or --encoding {encoding})"
        ),
        other => other.to_string(),
    })
}

fn parse_model(name: &str) -> Result<Model, Error> {
    Ok(Model {
        name: name.to_string(),
        encoding: Encoding::for_model(name)?,
    })
}

/// The `--order` parser: the orders listed with their help, then parsed by the library.
fn order_parser() -> impl TypedValueParser<Value = Order> {
    PossibleValuesParser::new([
        PossibleValue::new("score").help("Best score first"),
        PossibleValue::new("as-given").help("The order of the input (already reranked)"),
        PossibleValue::new("edges")
            .help("Best at the start and the end, weakest in the middle (lost in the middle)"),
    ])
    .try_map(|name| name.parse::<Order>())
}

/// The `--duplicates` parser: the modes listed with their help, then parsed by the library.
fn duplicates_parser() -> impl TypedValueParser<Value = Duplicates> {
    PossibleValuesParser::new([
        PossibleValue::new("url-and-content")
            .help("Same source URL and same content as a better-ranked result"),
        PossibleValue::new("content")
            .help("Same content, whatever the URL (mirrors, syndicated pages)"),
        PossibleValue::new("keep").help("Keep every result"),
    ])
    .try_map(|name| name.parse::<Duplicates>())
}

/// The `--overflow` parser: the policies listed with their help (so `--help` explains each
/// and a bad value gets clap's list of possible ones), then parsed by the library.
fn overflow_parser() -> impl TypedValueParser<Value = Overflow> {
    PossibleValuesParser::new([
        PossibleValue::new("truncate")
            .help("Cut its content to fill the budget, mark it truncated, and stop"),
        PossibleValue::new("stop").help("Leave it and every lower-ranked result out"),
        PossibleValue::new("skip").help("Leave it out and keep trying lower-ranked results"),
    ])
    .try_map(|name| name.parse::<Overflow>())
}

/// Options people reach for that are called something else here, with the name to use.
const MISNAMED: [(&str, &str); 2] = [("--tokens", "--budget"), ("--max-tokens", "--budget")];

/// A one-line message for an option of [`MISNAMED`] among `args` (the program name first),
/// before the first `--`. clap's own suggestions only find names spelled alike.
pub(crate) fn misnamed_option(args: impl IntoIterator<Item = OsString>) -> Option<String> {
    args.into_iter()
        .skip(1)
        .take_while(|arg| arg != "--")
        .find_map(|arg| {
            // Argument names are ASCII; a value need not be UTF-8 (a Unix file name).
            let arg = arg.to_string_lossy();
            let name = arg.split('=').next().unwrap_or_default().to_string();
            MISNAMED
                .iter()
                .find(|(wrong, _)| *wrong == name)
                .map(|(wrong, right)| {
                    format!("unexpected argument `{wrong}` (did you mean `{right}`?)")
                })
        })
}

/// `parser`, refusing a value that is not UTF-8 by naming the option: clap's own check says
/// only that some argument was not. File names are `PathBuf`s and need no such check.
#[derive(Clone)]
pub(crate) struct Utf8<P>(P);

pub(crate) fn utf8<P: TypedValueParser>(parser: P) -> Utf8<P> {
    Utf8(parser)
}

impl<P: TypedValueParser> TypedValueParser for Utf8<P> {
    type Value = P::Value;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<P::Value, clap::Error> {
        if value.to_str().is_none() {
            let arg = arg.map_or_else(|| "an argument".to_string(), |arg| format!("'{arg}'"));
            let message = format!(
                "invalid value '{}' for {arg}: not valid UTF-8\n",
                escape_os(value)
            );
            return Err(clap::Error::raw(ErrorKind::InvalidUtf8, message).with_cmd(cmd));
        }
        self.0.parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        self.0.possible_values()
    }
}

/// Parses a count of tokens or blocks. Clap's own parser would call `-5` an "invalid digit";
/// this says what is wrong with it.
pub(crate) fn parse_count(value: &str) -> Result<usize, String> {
    value.parse().map_err(|_| {
        if value.starts_with('-') {
            "negative; expected a whole number, 0 or more".to_string()
        } else if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
            format!("too large; at most {}", usize::MAX)
        } else {
            "expected a whole number, 0 or more".to_string()
        }
    })
}

/// Parses `batch --jobs`: a count of threads, at least one and at most
/// [`max_workers`] (8 per core): more than that only wait, each with a stack.
fn parse_jobs(value: &str) -> Result<usize, String> {
    let max = max_workers();
    match parse_count(value) {
        Ok(0) => Err("expected at least 1".to_string()),
        Ok(n) if n <= max => Ok(n),
        Ok(_) | Err(_) if !value.starts_with('-') && value.bytes().all(|b| b.is_ascii_digit()) => {
            Err(format!(
                "too many; at most {max} here ({MAX_WORKERS_PER_CORE} per core)"
            ))
        }
        other => other,
    }
}

/// The most timed runs `bench` takes: each keeps its time (8 bytes), and a million runs of
/// even the smallest request already take seconds.
pub(crate) const MAX_BENCH_ITERATIONS: usize = 1_000_000;

/// Parses `bench --iterations`: a count, but zero runs would have no median to report, and
/// the times of all runs are kept.
fn parse_iterations(value: &str) -> Result<usize, String> {
    match parse_count(value) {
        Ok(0) => Err("expected at least 1".to_string()),
        Ok(n) if n <= MAX_BENCH_ITERATIONS => Ok(n),
        Ok(_) | Err(_) if !value.starts_with('-') && value.bytes().all(|b| b.is_ascii_digit()) => {
            Err(format!("too many; at most {MAX_BENCH_ITERATIONS}"))
        }
        other => other,
    }
}

impl BuildArgs {
    /// The builder these options describe, not yet validated.
    ///
    /// # Errors
    ///
    /// A bad-input failure when `--engine` does not ship the encoding, when
    /// `--tokenizer-file` cannot be loaded, or a model whose
    /// window the reserve and the prompt fill, or whose window is unknown.
    pub(crate) fn builder(&self) -> Result<ContextBuilder, Failure> {
        // clap rejects --budget with the window's options: the window sets the budget.
        let window = match (&self.model, self.reserve_output, self.prompt_tokens) {
            (Some(model), reserve, prompt) if reserve.is_some() || prompt.is_some() => Some(
                ModelWindow::new(&model.name, reserve.unwrap_or(0), prompt.unwrap_or(0))
                    .map_err(|err| Failure::bad_input(format!("--model: {err}")))?,
            ),
            _ => None,
        };
        let encoding = self.openai_encoding();
        let builder = ContextBuilder::new(self.budget.unwrap_or(DEFAULT_BUDGET));
        let builder = match (&self.tokenizer_file, self.engine) {
            // clap rejects --tokenizer-file with --encoding, --model and --engine.
            (Some(path), _) => builder.tokenizer(tokenizer_file::load(path, self.tokenizer_kind)?),
            (None, Some(engine)) => builder.tokenizer(
                encoding
                    .with_engine(engine)
                    .map_err(|err| Failure::bad_input(format!("--engine: {err}")))?,
            ),
            (None, None) => builder.encoding(encoding),
        };
        Ok(self.layout_options(builder)?.window(window))
    }

    /// The encoding --encoding or --model names, or the default.
    pub(crate) fn openai_encoding(&self) -> Encoding {
        // clap rejects --encoding with --model, so at most one of them is set.
        let model = self.model.as_ref().map(|model| model.encoding);
        self.encoding.or(model).unwrap_or_default()
    }

    /// The options `prompt` cannot take, which `assemble` reads for the budget and the
    /// tokenizer (a whole prompt's window sets the budget, its template counts), by the first
    /// given: a flag and why.
    pub(crate) fn not_for_a_whole_prompt(&self) -> Option<(&'static str, &'static str)> {
        [
            (
                self.budget.is_some(),
                "--budget",
                "the window sets the context's budget: give --window",
            ),
            (
                self.reserve_output.is_some(),
                "--reserve-output",
                "give --reserve",
            ),
            (
                self.prompt_tokens.is_some(),
                "--prompt-tokens",
                "the whole prompt is counted: give --window",
            ),
            (
                self.engine.is_some(),
                "--engine",
                "the chat template's tokenizer counts",
            ),
            (
                self.tokenizer_kind.is_some(),
                "--tokenizer-kind",
                "--chat-template says what --tokenizer-file is",
            ),
        ]
        .into_iter()
        .find_map(|(given, flag, why)| given.then_some((flag, why)))
    }

    /// The --tokenizer-file given, if any.
    pub(crate) fn tokenizer_file(&self) -> Option<&std::path::Path> {
        self.tokenizer_file.as_deref()
    }

    /// Whether --encoding or --model names the encoding.
    pub(crate) fn names_an_encoding(&self) -> bool {
        self.encoding.is_some() || self.model.is_some()
    }

    /// The context builder for a whole prompt: every option but the budget and the
    /// tokenizer, which the prompt's window and template decide.
    pub(crate) fn context_options(&self) -> Result<ContextBuilder, Failure> {
        self.layout_options(ContextBuilder::new(0))
    }

    /// `builder` with the options that shape the context's text and selection, and the seal.
    fn layout_options(&self, builder: ContextBuilder) -> Result<ContextBuilder, Failure> {
        let duplicates = match self.duplicates {
            Some(duplicates) => duplicates,
            None if self.keep_duplicates => Duplicates::Keep,
            None => Duplicates::default(),
        };
        let builder = builder
            .format(self.format.unwrap_or_default())
            .overflow(self.overflow)
            .duplicates(duplicates)
            .min_score(self.min_score)
            .max_blocks(self.max_blocks)
            .min_truncated_tokens(self.min_truncated_tokens)
            .hide_metadata_keys(&self.hide_metadata_key)
            // An empty header is no header, as no --header is.
            .header(self.header.clone().unwrap_or_default())
            .order(self.order)
            .max_per_source(self.max_per_source)
            .max_head_tokens(self.max_head_tokens)
            .dialect(self.dialect);
        match &self.seal_key_file {
            Some(path) => Ok(builder.seal_key(read_seal_key(path)?)),
            None => Ok(builder),
        }
    }

    /// The validated assembler these options describe.
    pub(crate) fn assembler(&self) -> Result<Assembler, Failure> {
        build(&self.builder()?)
    }

    /// The assembler these options describe, counting with `encoding` (a report's) unless
    /// they name a tokenizer themselves: to read back a report that records no layout.
    fn assembler_for_encoding(&self, encoding: &str) -> Result<Assembler, Failure> {
        let named =
            self.encoding.is_some() || self.model.is_some() || self.tokenizer_file.is_some();
        match encoding.parse::<Encoding>() {
            Ok(encoding) if !named => {
                let builder = self.builder()?;
                let builder = match self.engine {
                    Some(engine) => builder.tokenizer(
                        encoding
                            .with_engine(engine)
                            .map_err(|err| Failure::bad_input(format!("--engine: {err}")))?,
                    ),
                    None => builder.encoding(encoding),
                };
                build(&builder)
            }
            _ => self.assembler(),
        }
    }
}

/// The most bytes a seal key file is read for: a key is a few dozen, and a path such as
/// `/dev/zero` must not be read forever.
const MAX_SEAL_KEY_BYTES: u64 = 4096;

/// The key in the file at `path`, without the one newline an editor or `echo` leaves at its
/// end.
fn read_seal_key(path: &std::path::Path) -> Result<Vec<u8>, Failure> {
    use std::io::Read;
    let name = escape_os(path.as_os_str());
    let problem = |err: &std::io::Error| {
        Failure::bad_input(format!(
            "--seal-key-file: {name}: cannot read: {}",
            crate::input::io_problem(err)
        ))
    };
    let mut key = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(MAX_SEAL_KEY_BYTES + 1).read_to_end(&mut key))
        .map_err(|err| problem(&err))?;
    if key.len() as u64 > MAX_SEAL_KEY_BYTES {
        return Err(Failure::bad_input(format!(
            "--seal-key-file: {name}: more than {MAX_SEAL_KEY_BYTES} bytes; a key is a few dozen"
        )));
    }
    if key.ends_with(b"\n") {
        key.pop();
        if key.ends_with(b"\r") {
            key.pop();
        }
    }
    Ok(key)
}

/// Validates `builder`. Called before any input is read, so a configuration that can never
/// produce a context (a header over the budget, say) is reported without waiting for stdin.
pub(crate) fn build(builder: &ContextBuilder) -> Result<Assembler, Failure> {
    builder
        .build()
        .map_err(|err| Failure::bad_input(format!("{}: {err}", option_at_fault(&err))))
}

/// The option to name in the message of a configuration error.
fn option_at_fault(err: &Error) -> &'static str {
    match err {
        Error::HeaderOverBudget { .. } => "--header",
        Error::MinTruncatedOverBudget { .. } => "--min-truncated-tokens",
        Error::SealKeyTooShort { .. } => "--seal-key-file",
        Error::NanMinScore => "--min-score",
        // `Error` is non-exhaustive; a future configuration error still gets a message.
        _ => "options",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn every_listed_overflow_policy_is_a_library_name() {
        let names = ["truncate", "stop", "skip"];
        for name in names {
            let policy: Overflow = name.parse().expect("the library knows it");
            assert_eq!(policy.to_string(), name);
        }
        let default = Overflow::default().to_string();
        assert!(names.contains(&default.as_str()));
    }

    #[test]
    fn names_are_case_insensitive_as_the_library_s_are() {
        let argv = [
            "mentor-context",
            "assemble",
            "--format",
            "XML",
            "--overflow",
            "Stop",
        ];
        let Command::Assemble(args) = Cli::try_parse_from(argv).expect("parses").command else {
            panic!("not assemble");
        };
        assert_eq!(args.build.format, Some(BuiltinFormat::Xml));
        assert_eq!(args.build.overflow, Overflow::Stop);
    }

    #[test]
    fn counts_say_what_is_wrong() {
        assert_eq!(parse_count("12"), Ok(12));
        assert!(parse_count("-5").unwrap_err().starts_with("negative"));
        assert_eq!(
            parse_count("99999999999999999999999"),
            Err(format!("too large; at most {}", usize::MAX))
        );
        assert_eq!(parse_count(&usize::MAX.to_string()), Ok(usize::MAX));
        assert!(parse_count("").unwrap_err().contains("whole number"));
        assert!(parse_iterations("0").unwrap_err().contains("at least 1"));
        assert_eq!(parse_iterations("1000000"), Ok(MAX_BENCH_ITERATIONS));
        for too_many in [
            "1000001",
            "100000000000",
            "18446744073709551615",
            "99999999999999999999999",
        ] {
            assert_eq!(
                parse_iterations(too_many).unwrap_err(),
                "too many; at most 1000000",
                "{too_many}"
            );
        }
        assert!(parse_iterations("-1").unwrap_err().contains("negative"));
        assert!(parse_jobs("0").unwrap_err().contains("at least 1"));
        assert_eq!(parse_jobs("4"), Ok(4));
        let max = max_workers();
        assert_eq!(parse_jobs(&max.to_string()), Ok(max));
        let over = (max + 1).to_string();
        for too_many in [
            over.as_str(),
            "4294967296",
            "18446744073709551615",
            "99999999999999999999",
        ] {
            assert_eq!(
                parse_jobs(too_many).unwrap_err(),
                format!("too many; at most {max} here (8 per core)")
            );
        }
    }
}

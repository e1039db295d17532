//! `mentor-context`: assembles the context block of a prompt from a JSON file of ranked
//! retrieval results, or times that assembly.
//!
//! Scripts and CI call this, so its contract is strict: on success (exit 0) standard output
//! holds exactly the output and nothing else; on any bad input (exit 2) standard output is
//! empty and standard error holds exactly one line saying where the problem is and what it is.
//! Every output is built in full before the first byte is written, so a failure never leaves
//! partial output behind.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Parser, Subcommand, ValueEnum};
use mentor_context::{
    AssembledContext, ContextBuilder, Duplicates, Encoding, Error, MentorRagResult, Overflow,
    PlainFormat, TokenCache, XmlFormat, parse_results,
};
use serde::Serialize;

/// The exit code for bad input of any kind: a bad file, option or configuration.
const EXIT_BAD_INPUT: u8 = 2;

/// The exit code when the output could not be written (standard output closed, disk full).
/// Not the input's fault, so not [`EXIT_BAD_INPUT`].
const EXIT_WRITE_FAILED: u8 = 1;

/// Assemblies run and thrown away before timing: the first ones pay for building the
/// encoding's tables and warming caches and allocators, which a long-running service pays
/// only once.
const WARM_UP_ASSEMBLIES: usize = 3;

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
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Assemble the context and print it (or, with --json, a report with citations).
    Assemble(AssembleArgs),
    /// Time the assembly: run it repeatedly in-process and print min, median and max.
    Bench(BenchArgs),
}

#[derive(Debug, Args)]
struct AssembleArgs {
    #[command(flatten)]
    build: BuildArgs,

    /// Print a JSON object with the keys context, tokenCount, budget, encoding, citations
    /// and omitted (then a newline) instead of the bare context.
    #[arg(long)]
    json: bool,

    /// The JSON array of results; `-` or no FILE reads standard input.
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct BenchArgs {
    #[command(flatten)]
    build: BuildArgs,

    /// How many timed assemblies to run (after a few untimed warm-up ones).
    #[arg(long, value_name = "N", default_value_t = 200, value_parser = parse_iterations)]
    iterations: usize,

    /// Print one JSON object with the keys iterations, minNs, medianNs, maxNs and tokenCount
    /// (then a newline) instead of readable lines.
    #[arg(long)]
    json: bool,

    /// Time the warm path: assemble with a token-count cache (64 MiB), which the warm-up
    /// assemblies fill, as a chat backend that sees the same documents again would. Without
    /// it, every assembly is cold: nothing is remembered between them.
    #[arg(long)]
    cache: bool,

    /// The JSON array of results, read once; `-` reads standard input.
    #[arg(value_name = "FILE")]
    file: PathBuf,
}

/// The options of the context builder, shared by `assemble` and `bench`.
#[derive(Debug, Args)]
struct BuildArgs {
    /// The most tokens the context may take, header and layout included.
    // Negative numbers are let through to `parse_count`, which names the problem, instead
    // of clap reading `-5` as an unknown option.
    #[arg(
        long,
        value_name = "TOKENS",
        default_value_t = 4000,
        value_parser = parse_count,
        allow_negative_numbers = true
    )]
    budget: usize,

    /// Count tokens with this encoding: o200k_base (the default), cl100k_base, p50k_base or
    /// r50k_base.
    #[arg(long, value_name = "NAME", value_parser = parse_encoding, conflicts_with = "model")]
    encoding: Option<Encoding>,

    /// Count tokens with the encoding of this OpenAI model (gpt-4o: o200k_base, gpt-4:
    /// cl100k_base, ...).
    #[arg(long, value_name = "NAME", value_parser = parse_model)]
    model: Option<Encoding>,

    /// Block layout: `plain` (numbered `[n] title` heads, fenced content) or `xml`
    /// (<documents><document index="n">...).
    #[arg(long, value_name = "NAME", default_value = "plain", value_parser = parse_format)]
    format: FormatName,

    /// What to do with the first result that does not fit in what is left of the budget.
    #[arg(long, value_name = "POLICY", value_enum, default_value_t = OverflowPolicy::Truncate)]
    overflow: OverflowPolicy,

    /// Leave out results scored below this.
    #[arg(long, value_name = "F", allow_negative_numbers = true)]
    min_score: Option<f32>,

    /// Put at most this many blocks in the context.
    #[arg(long, value_name = "N", value_parser = parse_count)]
    max_blocks: Option<usize>,

    /// Keep every result, even those with the same source URL and content as a better-ranked
    /// one (by default such duplicates are left out).
    #[arg(long)]
    keep_duplicates: bool,

    /// Keep this metadata key out of the prompt (it stays on the citations of the --json
    /// report). Repeat for several keys.
    #[arg(long, value_name = "KEY")]
    hide_metadata_key: Vec<String>,

    /// Put this text before the blocks, counted in the budget.
    #[arg(long, value_name = "TEXT")]
    header: Option<String>,

    /// With --overflow truncate, cut a block only if at least this many tokens of its content
    /// would be kept; otherwise leave it out [default: 32, or the budget if smaller].
    #[arg(long, value_name = "N", value_parser = parse_count)]
    min_truncated_tokens: Option<usize>,
}

/// The block layouts, by their command-line names.
#[derive(Debug, Clone, Copy)]
enum FormatName {
    Plain,
    Xml,
}

/// [`Overflow`], as the command line spells it.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum OverflowPolicy {
    /// Cut its content to fill the budget, mark it truncated, and stop.
    Truncate,
    /// Leave it and every lower-ranked result out.
    Stop,
    /// Leave it out and keep trying lower-ranked results.
    Skip,
}

impl From<OverflowPolicy> for Overflow {
    fn from(policy: OverflowPolicy) -> Overflow {
        match policy {
            OverflowPolicy::Truncate => Overflow::Truncate,
            OverflowPolicy::Stop => Overflow::Stop,
            OverflowPolicy::Skip => Overflow::Skip,
        }
    }
}

/// Parses a count of tokens or blocks. Clap's own parser would call `-5` an "invalid digit";
/// this says what is wrong with it.
fn parse_count(value: &str) -> Result<usize, String> {
    value.parse().map_err(|_| {
        if value.starts_with('-') {
            "negative; expected a whole number, 0 or more".to_string()
        } else if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
            "too large".to_string()
        } else {
            "expected a whole number, 0 or more".to_string()
        }
    })
}

fn parse_iterations(value: &str) -> Result<usize, String> {
    match parse_count(value)? {
        0 => Err("expected at least 1".to_string()),
        n => Ok(n),
    }
}

// The name parsers return the library's errors, so the messages are the library's.

fn parse_encoding(name: &str) -> Result<Encoding, Error> {
    Encoding::from_name(name)
}

fn parse_model(model: &str) -> Result<Encoding, Error> {
    Encoding::for_model(model)
}

fn parse_format(name: &str) -> Result<FormatName, Error> {
    match name {
        "plain" => Ok(FormatName::Plain),
        "xml" => Ok(FormatName::Xml),
        _ => Err(Error::UnknownFormat {
            name: name.to_string(),
        }),
    }
}

impl BuildArgs {
    /// The configured builder, checked: a configuration that can never produce a context
    /// (a header over the budget, say) is reported before any input is read.
    fn builder(&self) -> Result<ContextBuilder, Failure> {
        let encoding = self.encoding.or(self.model).unwrap_or_default();
        let mut builder = ContextBuilder::new(self.budget)
            .encoding(encoding)
            .overflow(self.overflow.into());
        builder = match self.format {
            FormatName::Plain => builder.format(PlainFormat),
            FormatName::Xml => builder.format(XmlFormat),
        };
        if let Some(min) = self.min_score {
            builder = builder.min_score(min);
        }
        if let Some(max) = self.max_blocks {
            builder = builder.max_blocks(max);
        }
        if let Some(min) = self.min_truncated_tokens {
            builder = builder.min_truncated_tokens(min);
        }
        if self.keep_duplicates {
            builder = builder.duplicates(Duplicates::Keep);
        }
        for key in &self.hide_metadata_key {
            builder = builder.hide_metadata_key(key.clone());
        }
        if let Some(header) = &self.header {
            builder = builder.header(header.clone());
        }
        builder.check().map_err(configuration_failure)?;
        Ok(builder)
    }
}

/// The option to name in the message of a configuration error.
fn option_at_fault(err: &Error) -> &'static str {
    match err {
        Error::HeaderOverBudget { .. } => "--header",
        Error::MinTruncatedOverBudget { .. } => "--min-truncated-tokens",
        Error::NanMinScore => "--min-score",
        _ => "options",
    }
}

/// Where the results come from, and the name that messages give it.
enum Input {
    Stdin,
    File(PathBuf),
}

impl Input {
    fn new(file: Option<&Path>) -> Input {
        match file {
            Some(path) if path != Path::new("-") => Input::File(path.to_path_buf()),
            _ => Input::Stdin,
        }
    }

    fn name(&self) -> String {
        match self {
            Input::Stdin => "<stdin>".to_string(),
            Input::File(path) => path.display().to_string(),
        }
    }

    fn read(&self) -> io::Result<Vec<u8>> {
        match self {
            Input::Stdin => {
                let mut bytes = Vec::new();
                io::stdin().lock().read_to_end(&mut bytes)?;
                Ok(bytes)
            }
            Input::File(path) => std::fs::read(path),
        }
    }

    /// A bad-input failure about this input.
    fn fail(&self, problem: impl std::fmt::Display) -> Failure {
        Failure::bad_input(format!("{}: {problem}", self.name()))
    }

    /// Reads and parses the results, reporting the first problem with its position.
    fn load(&self) -> Result<Vec<MentorRagResult>, Failure> {
        let bytes = self
            .read()
            .map_err(|err| self.fail(format_args!("cannot read: {}", io_problem(&err))))?;
        let text = std::str::from_utf8(&bytes).map_err(|err| {
            let at = err.valid_up_to();
            let (line, column) = line_and_column(&bytes, at);
            self.fail(format_args!(
                "line {line}, column {column}: invalid UTF-8 (byte 0x{:02x})",
                bytes[at]
            ))
        })?;
        // Some Windows tools start UTF-8 files with a byte order mark; it is not JSON.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if text.trim().is_empty() {
            return Err(self.fail("empty input; expected a JSON array of results"));
        }
        parse_results(text).map_err(|err| self.fail(err))
    }
}

/// The 1-based line and column of byte `at`. Columns count bytes, as serde_json's do, so
/// every position this program reports means the same.
fn line_and_column(bytes: &[u8], at: usize) -> (usize, usize) {
    let before = &bytes[..at];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    (line, at - line_start + 1)
}

/// A lowercase description of a read error, without the "(os error 2)" noise.
fn io_problem(err: &io::Error) -> String {
    match err.kind() {
        io::ErrorKind::NotFound => "no such file".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        io::ErrorKind::IsADirectory => "is a directory".to_string(),
        _ => err.to_string(),
    }
}

/// Why the program stops without output: one line for standard error and an exit code.
#[derive(Debug)]
struct Failure {
    code: u8,
    message: String,
}

impl Failure {
    fn bad_input(message: String) -> Failure {
        Failure {
            code: EXIT_BAD_INPUT,
            message,
        }
    }

    /// Writes the message as one line on standard error and returns the exit code.
    fn report(&self) -> ExitCode {
        // Ignore a failure to write to standard error: there is nowhere left to say so.
        let _ = writeln!(io::stderr(), "mentor-context: {}", one_line(&self.message));
        ExitCode::from(self.code)
    }
}

/// `text` with every line break and other control character turned into a space, so that a
/// message stays one line whatever a file name or parser message contains.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// The one-line message of a clap error: its lines up to the usage, which say what is wrong
/// (with any list of possible values or a tip), joined.
fn clap_message(err: &clap::Error) -> String {
    let rendered = err.render().to_string();
    let mut message = String::new();
    let lines = rendered.lines().map(str::trim);
    for line in lines.take_while(|line| !line.starts_with("Usage:")) {
        if line.is_empty() || line.starts_with("For more information") {
            continue;
        }
        if !message.is_empty() {
            // "...were not provided:" runs on into its list; other lines are separate points.
            message.push_str(if message.ends_with(':') { " " } else { "; " });
        }
        message.push_str(line);
    }
    match message.strip_prefix("error: ") {
        Some(rest) => rest.to_string(),
        None => message,
    }
}

fn assemble(args: &AssembleArgs) -> Result<String, Failure> {
    let builder = args.build.builder()?;
    let results = Input::new(args.file.as_deref()).load()?;
    let context = builder.assemble(&results).map_err(configuration_failure)?;
    if args.json {
        json_line(&context)
    } else {
        Ok(context.text)
    }
}

/// A configuration error from the library, naming the option at fault. `assemble` reports
/// only the errors `check` has already ruled out, but a message beats a panic.
fn configuration_failure(err: Error) -> Failure {
    Failure::bad_input(format!("{}: {err}", option_at_fault(&err)))
}

/// `value` as one line of JSON.
fn json_line(value: &impl Serialize) -> Result<String, Failure> {
    match serde_json::to_string(value) {
        Ok(mut json) => {
            json.push('\n');
            Ok(json)
        }
        Err(err) => Err(Failure {
            code: EXIT_WRITE_FAILED,
            message: format!("cannot write JSON: {err}"),
        }),
    }
}

/// What `bench --json` prints.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct BenchReport {
    iterations: usize,
    min_ns: u64,
    median_ns: u64,
    max_ns: u64,
    token_count: usize,
}

/// The cache `bench --cache` uses: far more than any one request file needs.
const BENCH_CACHE_BYTES: usize = 64 << 20;

fn bench(args: &BenchArgs) -> Result<String, Failure> {
    let mut builder = args.build.builder()?;
    if args.cache {
        builder = builder.cache(TokenCache::new(BENCH_CACHE_BYTES));
    }
    let results = Input::new(Some(&args.file)).load()?;
    let mut step = bench_step(&builder, &results);
    let mut token_count = 0;
    for _ in 0..WARM_UP_ASSEMBLIES {
        token_count = step()?.token_count;
    }
    let mut times = Vec::with_capacity(args.iterations);
    for _ in 0..args.iterations {
        let start = Instant::now();
        let context = step()?;
        times.push(u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX));
        std::hint::black_box(context);
    }
    times.sort_unstable();
    let report = BenchReport {
        iterations: times.len(),
        min_ns: times[0],
        median_ns: median(&times),
        max_ns: times[times.len() - 1],
        token_count,
    };
    if args.json {
        json_line(&report)
    } else {
        Ok(format!(
            "iterations: {}\ntokens:     {}\nmin:        {} ns\nmedian:     {} ns\nmax:        {} ns\n",
            report.iterations, report.token_count, report.min_ns, report.median_ns, report.max_ns
        ))
    }
}

/// What one timed bench iteration runs: one assembly, cold or warm as the builder was set up.
fn bench_step<'a>(
    builder: &'a ContextBuilder,
    results: &'a [MentorRagResult],
) -> impl FnMut() -> Result<AssembledContext<'a>, Failure> + 'a {
    move || builder.assemble(results).map_err(configuration_failure)
}

/// The median of sorted, non-empty `times`: the middle one, or the mean of the two middle
/// ones.
fn median(times: &[u64]) -> u64 {
    let mid = times.len() / 2;
    if times.len().is_multiple_of(2) {
        times[mid - 1].midpoint(times[mid])
    } else {
        times[mid]
    }
}

fn write_stdout(output: &str) -> Result<(), Failure> {
    let mut stdout = io::stdout().lock();
    stdout
        .write_all(output.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|err| Failure {
            code: EXIT_WRITE_FAILED,
            message: format!("<stdout>: cannot write: {err}"),
        })
}

/// A panic is a bug, but even then standard error gets one line, not a backtrace hint.
fn report_panics_in_one_line() {
    std::panic::set_hook(Box::new(|info| {
        let message = info.payload_as_str().unwrap_or("unknown panic");
        let location = info
            .location()
            .map(|at| format!(" at {}:{}", at.file(), at.line()))
            .unwrap_or_default();
        let _ = writeln!(
            io::stderr(),
            "mentor-context: internal error{location}: {}",
            one_line(message)
        );
    }));
}

fn main() -> ExitCode {
    report_panics_in_one_line();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // --help and --version are not errors: print them as clap does, exit 0.
        Err(err) if !err.use_stderr() => {
            let _ = err.print();
            return ExitCode::SUCCESS;
        }
        Err(err) => return Failure::bad_input(clap_message(&err)).report(),
    };
    let output = match &cli.command {
        Command::Assemble(args) => assemble(args),
        Command::Bench(args) => bench(args),
    };
    match output.and_then(|output| write_stdout(&output)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.report(),
    }
}

//! The command line: the subcommands and their own flags, as clap parses them. The options
//! every subcommand shares are the library's settings ([`BuildArgs`], in `options/`), whose
//! values are parsed by the library's own `FromStr`, so the command accepts exactly the names
//! the library does and cannot drift from it.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::options::BuildArgs;
use crate::options::parse::{parse_iterations, parse_jobs, utf8};

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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
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
            "--encoding",
            "CL100K_BASE",
        ];
        let Command::Assemble(args) = Cli::try_parse_from(argv).expect("parses").command else {
            panic!("not assemble");
        };
        let settings = args.build.settings().unwrap();
        assert_eq!(
            settings.format,
            Some(mentor_context::format::BuiltinFormat::Xml)
        );
        assert_eq!(settings.overflow, Some(mentor_context::Overflow::Stop));
        assert_eq!(
            settings.encoding,
            Some(mentor_context::Encoding::Cl100kBase)
        );
    }
}

//! `batch`: many requests in one process, JSON Lines in and JSON Lines out.
//!
//! Each non-blank input line is a request; each gives exactly one output line, in input
//! order, whatever the number of jobs: its `assemble --json` report with `line` and `id`, or
//! `{"line", "id", "error"}` when the line is bad. A bad line never stops the run. The parts:
//! [`read`] (lines and requests), [`worker`] (one line's work), [`run`](mod@run) (the jobs,
//! sharing the input and the ordered output), [`summary`] (the line on standard error at the
//! end, from the fixed-size counts of [`histogram`]), [`report`] (the `--report` page) and
//! [`progress`] (the bar, on a terminal).

mod histogram;
mod progress;
pub(crate) mod read;
mod report;
mod run;
mod summary;
mod worker;

pub(crate) use worker::Worker;

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use crate::html::PageFile;
use crate::input::Input;
use crate::options::BuildArgs;
use crate::options::parse::{parse_jobs, utf8};
use crate::output::{EXIT_BAD_INPUT, Failure, error_line, escape_os};
use clap::Args;
use progress::Progress;
use read::Lines;
use report::{About, RunReport};
use run::Ending;

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

/// Runs `batch`: exit 0 when every line gave a context, 2 when some gave an error (all other
/// lines are still written; 0 with `--exit-zero`) or the input or options are bad, 1 when
/// the output cannot be written.
pub(crate) fn run(args: &BatchArgs) -> ExitCode {
    match run_batch(args) {
        Ok(code) => code,
        Err(failure) => failure.report(),
    }
}

fn run_batch(args: &BatchArgs) -> Result<ExitCode, Failure> {
    let configured = args.build.configure()?;
    let assembler = &configured.assembler;
    let (lines, size) = Lines::open(args.file.as_deref())?;
    let mut out = open_output(args)?;
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let jobs = args.jobs.unwrap_or(cores);
    // Written once now, so that a page that cannot be written fails the run before it starts.
    let report = match &args.report {
        Some(path) => Some(RunReport::start(
            PageFile::new(path),
            About {
                input: Input::new(args.file.as_deref()).name(),
                jobs,
                settings: configured.shown(),
            },
        )?),
        None => None,
    };
    let progress = Progress::new(size);
    let start = Instant::now();
    let run::Finished {
        summary,
        report,
        ending,
        ..
    } = run::run(lines, jobs, assembler, &mut out, &progress, report);
    let flushed = out.flush();
    let elapsed = start.elapsed();
    progress.finish();
    if let Ending::OutputFailed(failure) | Ending::NotStarted(failure) = ending {
        return Err(failure);
    }
    flushed.map_err(|err| Failure::write_failed(format!("cannot write the output: {err}")))?;
    error_line(&summary.line(elapsed));
    if let Some(report) = report {
        report.finish(&summary, elapsed)?;
    }
    if let Ending::InputFailed(failure) = ending {
        return Err(failure);
    }
    Ok(if summary.failed() && !args.exit_zero {
        ExitCode::from(EXIT_BAD_INPUT)
    } else {
        ExitCode::SUCCESS
    })
}

/// Standard output, or the file `--output` names, created now: a path that cannot be
/// written fails the run before any input is read.
fn open_output(args: &BatchArgs) -> Result<BufWriter<Box<dyn Write + Send>>, Failure> {
    let out: Box<dyn Write + Send> = match &args.output {
        Some(path) => Box::new(File::create(path).map_err(|err| {
            Failure::write_failed(format!(
                "{}: cannot write: {}",
                escape_os(path.as_os_str()),
                crate::input::io_problem(&err)
            ))
        })?),
        // Not locked once for the run: any job may write, and the buffer locks it only when
        // it flushes.
        None => Box::new(io::stdout()),
    };
    Ok(BufWriter::with_capacity(1 << 16, out))
}

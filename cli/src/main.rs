//! `mentor-context`: assembles the context block of a prompt from a JSON file of ranked
//! retrieval results, or times that assembly.
//!
//! Scripts and CI call this, so its contract is strict: on success (exit 0) standard output
//! holds exactly the output and nothing else; on any bad input (exit 2) standard output is
//! empty and standard error holds exactly one line saying where the problem is and what it is.
//! Every output is built in full before the first byte is written, so a failure never leaves
//! partial output behind.
//!
//! The modules: [`args`] (the command line, and the options turned into an assembler),
//! [`input`] (reading the results), [`output`] (writing, failures and exit codes) and
//! [`bench`](mod@bench) (the `bench` subcommand), [`cite`] (the `cite` subcommand) and
//! [`batch`] (the `batch` subcommand, which streams its output as it goes rather than
//! building it in full first).

mod args;
mod batch;
mod bench;
mod cite;
mod input;
mod output;
mod tokenizer_file;

use std::process::ExitCode;

use clap::Parser;
use mentor_context::MentorRagResult;
use mentor_context::budget::{SMALLEST_BUDGET_RESULTS, SmallestBudget};
use mentor_context::dialects::mark_cache_control;

use crate::args::{AssembleArgs, Cli, Command};
use crate::input::Input;
use crate::output::{Failure, clap_message, error_line, json_line, warning_line, write_stdout};

fn main() -> ExitCode {
    report_panics_in_one_line();
    if let Some(message) = args::misnamed_option(std::env::args_os()) {
        return Failure::bad_input(message).report();
    }
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
        Command::Bench(args) => bench::run(args),
        Command::Cite(args) => cite::run(args),
        // Writes as it goes, and has its own exit codes.
        Command::Batch(args) => return batch::run(args),
    };
    match output.and_then(|output| write_stdout(&output)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.report(),
    }
}

/// Runs `assemble` and returns what to print.
fn assemble(args: &AssembleArgs) -> Result<String, Failure> {
    // The configuration is checked before the input is read: a bad option is reported
    // without waiting for standard input.
    let assembler = args.build.assembler()?;
    if args.cache_control && assembler.dialect().is_none() {
        return Err(Failure::bad_input(
            "--cache-control marks a dialect's entries: give --dialect anthropic or \
             anthropic-documents"
                .to_string(),
        ));
    }
    let input = Input::new(args.file.as_deref());
    let previous = match args.previous.as_deref().map(|path| Input::new(Some(path))) {
        Some(previous) if previous.is_stdin() && input.is_stdin() => {
            return Err(Failure::bad_input(
                "--previous and FILE cannot both be standard input (`-`)".to_string(),
            ));
        }
        Some(previous) => Some((previous.load_report()?, previous)),
        None => None,
    };
    let results = input.load(args.build.strict)?;
    let context = match &previous {
        Some((report, from)) => assembler
            .assemble_follow_up(report, &results)
            .map_err(|err| from.fail(err))?,
        None => assembler.assemble(&results),
    };
    if args.json {
        json_line(&context)
    } else if assembler.dialect().is_some() {
        // The entries to put in the request; the report's text is what the budget counted.
        let mut entries = assembler
            .entries(&context)
            .map_err(|err| Failure::bad_input(err.to_string()))?;
        if args.cache_control {
            let earlier = previous
                .as_ref()
                .map_or(0, |(report, _)| report.citations.len());
            if earlier > 0 {
                mark_cache_control(&mut entries, earlier - 1);
            }
            if let Some(last) = entries.len().checked_sub(1) {
                mark_cache_control(&mut entries, last);
            }
        }
        if entries.is_empty() {
            warning_line(&empty_context(&assembler, &results));
        }
        json_line(&entries)
    } else {
        if context.text.is_empty() {
            warning_line(&empty_context(&assembler, &results));
        }
        Ok(context.text)
    }
}

/// Why the context is empty, in one line: an empty context on standard output alone would
/// look like a failure that said nothing.
fn empty_context(assembler: &mentor_context::Assembler, results: &[MentorRagResult]) -> String {
    let budget = assembler.budget();
    match (results.len(), assembler.smallest_budget(results)) {
        (0, _) => "the context is empty: the input holds no results".to_string(),
        (n, Some(need)) => format!(
            "the context is empty: {n} result{}, none fits in the budget of {budget} tokens \
             (the smallest {} needs {})",
            if n == 1 { "" } else { "s" },
            if n > SMALLEST_BUDGET_RESULTS {
                format!("of the {SMALLEST_BUDGET_RESULTS} best-ranked blocks")
            } else {
                "block".to_string()
            },
            match need {
                SmallestBudget::Exactly(tokens) => tokens.to_string(),
                SmallestBudget::MoreThan(tokens) => format!("more than {tokens}"),
                _ => "more".to_string(),
            }
        ),
        (n, None) => format!(
            "the context is empty: {n} result{}, all left out by --min-score, --max-blocks \
             or --max-per-source",
            if n == 1 { "" } else { "s" }
        ),
    }
}

/// A panic is a bug, but even then standard error gets one line, not a backtrace hint.
fn report_panics_in_one_line() {
    std::panic::set_hook(Box::new(|info| {
        let message = info.payload_as_str().unwrap_or("unknown panic");
        let location = info
            .location()
            .map(|at| format!(" at {}:{}", at.file(), at.line()))
            .unwrap_or_default();
        error_line(&format!("internal error{location}: {message}"));
    }));
}

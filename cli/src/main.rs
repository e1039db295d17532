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
//! [`input`] (reading the results), [`output`] (writing, failures and exit codes),
//! [`assemble`] (the `assemble` subcommand), [`bench`](mod@bench) (`bench`), [`cite`]
//! (`cite`), [`prompt`] (`prompt`, a whole prompt through a chat template), [`inspect`]
//! (`inspect`, one request as an HTML page, made with [`html`]) and
//! [`batch`] (`batch`, which streams its output as it goes rather than building it in full
//! first, and with `--report` writes a page of the run).

mod args;
mod assemble;
mod batch;
mod bench;
mod cite;
mod html;
mod input;
mod inspect;
mod options;
mod output;
mod prompt;
mod serve;

use std::process::ExitCode;

use clap::Parser;

use crate::args::{Cli, Command};
use crate::output::{Failure, clap_message, error_line, write_stdout};

fn main() -> ExitCode {
    report_panics_in_one_line();
    if let Some(message) = args::misnamed_option(std::env::args_os()) {
        return Failure::bad_input(message)
            .with_code(UNKNOWN_SETTING)
            .report();
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // --help and --version are not errors: print them as clap does, exit 0.
        Err(err) if !err.use_stderr() => {
            let _ = err.print();
            return ExitCode::SUCCESS;
        }
        Err(err) => return usage_failure(&err).report(),
    };
    let output = match &cli.command {
        Command::Assemble(args) => assemble::run(args),
        Command::Inspect(args) => inspect::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Cite(args) => cite::run(args),
        Command::Prompt(args) => prompt::run(args),
        // Writes as it goes, and has its own exit codes.
        Command::Batch(args) => return batch::run(args),
        // Runs until it is stopped.
        Command::Serve(args) => return serve::run(args),
    };
    match output.and_then(|output| write_stdout(&output)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.report(),
    }
}

/// The code of a setting the command does not have: the library's, as the bindings say it.
const UNKNOWN_SETTING: &str = mentor_context::ErrorKind::UnknownSetting.code();

/// A command line clap refuses: an unknown flag is an unknown setting, in the words the
/// settings of a file and the bindings use (`unknown setting `--max-block` (did you mean
/// `--max-blocks`?)`); any other usage error is clap's message.
fn usage_failure(err: &clap::Error) -> Failure {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if err.kind() == ErrorKind::UnknownArgument
        && let Some(ContextValue::String(given)) = err.get(ContextKind::InvalidArg)
        && given.starts_with("--")
    {
        let name = given.split('=').next().unwrap_or(given);
        let suggestion = match err.get(ContextKind::SuggestedArg) {
            Some(ContextValue::String(suggested)) => format!(" (did you mean `{suggested}`?)"),
            _ => String::new(),
        };
        return Failure::bad_input(format!("unknown setting `{name}`{suggestion}"))
            .with_code(UNKNOWN_SETTING);
    }
    Failure::bad_input(clap_message(err))
        .with_code(mentor_context::ErrorKind::InvalidArgument.code())
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

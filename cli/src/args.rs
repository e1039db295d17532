//! The command line: the subcommands and their own flags, as clap parses them. The options
//! every subcommand shares are the library's settings ([`BuildArgs`](crate::options::BuildArgs), in `options/`), whose
//! values are parsed by the library's own `FromStr`, so the command accepts exactly the names
//! the library does and cannot drift from it.

use std::ffi::OsString;

use clap::{Parser, Subcommand};

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
    Assemble(crate::assemble::AssembleArgs),
    /// Time the assembly: run it repeatedly in-process and print min, median and max.
    Bench(crate::bench::BenchArgs),
    /// Read a model's answer against an `assemble --json` report: which chips it cites, in
    /// order of first citation, and which markers point at no chip (one JSON line).
    Cite(crate::cite::CiteArgs),
    /// Assemble many requests: JSON Lines in, one JSON report line out per request, in order.
    Batch(crate::batch::BatchArgs),
    /// Assemble as `assemble` does and write one self-contained HTML page of what the model
    /// is sent: where the budget went, each block with its chip, what was left out and why,
    /// and with --answer the answer's citations linked to their blocks.
    Inspect(crate::inspect::InspectArgs),
    /// Fit a whole prompt to a model's window through its chat template: the conversation
    /// (system message, history, the user's question) and the results, with history trimmed
    /// by whole turns; print the prompt text (or, with --json, the messages, the exact count
    /// and how the window was shared, with the context's report).
    Prompt(crate::prompt::PromptArgs),
    /// Serve the library over HTTP for backends in other languages: POST
    /// /v1/{profile}/assemble, /cite and /prompt take JSON and answer with the JSON of
    /// `assemble --json`, `cite` and `prompt --json`; GET /healthz, /metrics and
    /// /openapi.json. Each profile is a set of settings, checked at start.
    Serve(crate::serve::ServeArgs),
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

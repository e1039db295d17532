//! `mentor-context cite REPORT ANSWER`: which citations of a report an answer cites.
//!
//! The output is one JSON line, the library's `Resolution` (the shape Python's and Node's
//! resolvers and the service's `/cite` return): `cited` (in order of first citation, each with
//! its chip as `citation`, its number in order of first citation `newIndex`, its `count`, the
//! `spans` of its markers in bytes and UTF-16 units, and `quotes` when the answer quotes it),
//! `unknown` (citations that point at nothing, each with `marker` and its byte offset `at`),
//! `answer` (`null`; with `--renumber`, renumbered 1..k in order of first citation) and
//! `unverified` (quotes whose check failed: a `[n]`, Anthropic or Bedrock quote not found in
//! the content it cites, a Cohere `text` that is not the answer span it marks). With
//! `--dialect`, ANSWER is the model API's response (its message JSON, its stream's events as
//! JSON Lines, or the raw server-sent events; Bedrock's ConverseStream as JSON Lines of the
//! events the AWS SDKs give), and `answer` is the response's text, which the spans index.
//!
//! The report is read back in the layout it records (format, dialect, header, hidden keys,
//! head cap, encoding), so that quotes are checked against the content the model saw with no
//! option repeated; an option given that disagrees with it gets one warning line, and the
//! report's is used. A report whose text does not read back gets a warning, and its quotes
//! are reported not verified. (A report of an older version records no layout: it is read
//! with the options given, the same as `assemble`'s.)

use std::path::PathBuf;

use clap::Args;
use mentor_context::citations::Resolver;
use mentor_context::{AssembledContext, Assembler};

use crate::input::Input;
use crate::options::BuildArgs;
use crate::output::{Failure, json_line, warning_line};

#[derive(Debug, Args)]
pub(crate) struct CiteArgs {
    #[command(flatten)]
    pub(crate) build: BuildArgs,

    /// Also write the answer renumbered 1..k in order of first citation (`answer`), and each
    /// cited chip's new number (`newIndex`).
    #[arg(long)]
    pub(crate) renumber: bool,

    /// The report of `assemble --json` (one JSON object); `-` reads standard input.
    #[arg(value_name = "REPORT")]
    pub(crate) report: PathBuf,

    /// The model's answer, as text, or with --dialect the API's response; `-` reads
    /// standard input.
    #[arg(value_name = "ANSWER")]
    pub(crate) answer: PathBuf,
}

/// Runs `cite` and returns what to print.
pub(crate) fn run(args: &CiteArgs) -> Result<String, Failure> {
    let report = Input::new(Some(&args.report));
    let answer = Input::new(Some(&args.answer));
    if report.is_stdin() && answer.is_stdin() {
        return Err(Failure::bad_input(
            "REPORT and ANSWER cannot both be standard input (`-`)".to_string(),
        ));
    }
    let context = report.load_report()?;
    let assembler = args.build.assembler_for_report(&context, &report)?;
    // With the layout recorded, the assembler's dialect is the report's.
    match (context.dialect, assembler.dialect()) {
        (Some(dialect), None) => {
            return Err(report.fail(format!(
                "assembled for the {dialect} dialect: give --dialect {dialect}"
            )));
        }
        (found, Some(dialect)) if found != Some(dialect) => {
            return Err(report.fail(format!(
                "assembled {}, not for --dialect {dialect}",
                found.map_or("as text".to_string(), |d| format!("for the {d} dialect"))
            )));
        }
        _ => {}
    }
    let text = answer.text()?;
    let read_back = read_back(&assembler, &context);
    let chips = Resolver::new(&context.citations).dialect(context.dialect);
    let resolver = match &read_back {
        Ok((contents, entries)) => chips.contents(contents).entries(entries),
        // The options could not read it (a tokenizer file's report without --tokenizer-file,
        // say): the report alone may; else each quote is still looked for, and not verified.
        Err(err) => Resolver::try_for_context(&context).unwrap_or_else(|_| {
            warning_line(&format!(
                "{}: quotes cannot be checked against its contents, and are reported not verified: {err}",
                report.name()
            ));
            chips.contents(&[])
        }),
    }
    .renumber(args.renumber);
    let resolution = if assembler.dialect().is_some() {
        resolver
            .response(&text)
            .map_err(|err| answer.fail_with(&err))?
    } else {
        resolver.resolve(&text)
    };
    json_line(&resolution)
}

/// The contents and (in a dialect) the entries of `context`, read back with the options
/// given in the layout the report records.
pub(crate) fn read_back(
    assembler: &Assembler,
    context: &AssembledContext<'_>,
) -> Result<(Vec<String>, Vec<mentor_context::dialects::Entry>), mentor_context::Error> {
    let contents = assembler.contents(context)?;
    let entries = match assembler.dialect() {
        Some(_) => assembler.entries(context)?,
        None => Vec::new(),
    };
    Ok((contents, entries))
}

//! `mentor-context cite REPORT ANSWER`: which chips of a report an answer cites.
//!
//! The output is one JSON line: `cited` (chips in order of first citation, each with
//! `index`, `inputIndex` and `count`), `unknown` (markers that point at no chip, each with
//! `marker` and its byte offset `at`), and with `--renumber` also `answer` (renumbered 1..k
//! in order of first citation) and each chip's `newIndex`.

use std::path::PathBuf;

use clap::Args;
use mentor_context::citations::{Resolution, Resolver};
use serde::Serialize;

use crate::input::Input;
use crate::output::{Failure, json_line};

#[derive(Debug, Args)]
pub(crate) struct CiteArgs {
    /// Also write the answer renumbered 1..k in order of first citation (`answer`), and each
    /// cited chip's new number (`newIndex`).
    #[arg(long)]
    pub(crate) renumber: bool,

    /// The report of `assemble --json` (one JSON object); `-` reads standard input.
    #[arg(value_name = "REPORT")]
    pub(crate) report: PathBuf,

    /// The model's answer, as text; `-` reads standard input.
    #[arg(value_name = "ANSWER")]
    pub(crate) answer: PathBuf,
}

/// What `cite` writes.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct CiteReport {
    cited: Vec<CitedEntry>,
    unknown: Vec<mentor_context::citations::UnknownMarker>,
    #[serde(skip_serializing_if = "Option::is_none")]
    answer: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct CitedEntry {
    index: usize,
    input_index: usize,
    count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    new_index: Option<usize>,
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
    let answer = answer.text()?;
    let resolution = Resolver::for_context(&context)
        .renumber(args.renumber)
        .resolve(&answer);
    json_line(&cite_report(resolution, args.renumber))
}

fn cite_report(resolution: Resolution, renumber: bool) -> CiteReport {
    let cited = resolution
        .cited
        .iter()
        .map(|chip| CitedEntry {
            index: chip.citation.index,
            input_index: chip.citation.input_index,
            count: chip.count,
            new_index: renumber.then_some(chip.new_index),
        })
        .collect();
    CiteReport {
        cited,
        unknown: resolution.unknown,
        answer: resolution.answer,
    }
}

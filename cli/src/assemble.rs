//! `assemble`: one request's results into a context, printed bare or as the `--json` report.
//! [`Request`] reads a request as `assemble` does, for `inspect` too.

use std::path::{Path, PathBuf};

use clap::Args;
use mentor_context::budget::{SMALLEST_BUDGET_RESULTS, SmallestBudget};
use mentor_context::dialects::{Dialect, mark_turn_cache_control, mistral_tool_content};
use mentor_context::{AssembledContext, Assembler, MentorRagResult};

use crate::input::Input;
use crate::options::BuildArgs;
use crate::output::{Failure, json_line, warning_line};

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

/// A request, read and checked: the assembler the options describe, the results, and the
/// report of the turn before if it is a follow-up.
pub(crate) struct Request {
    pub(crate) assembler: Assembler,
    /// The settings the options gave (the assembler may follow a report's layout instead).
    pub(crate) settings: mentor_context::Settings,
    pub(crate) input: Input,
    pub(crate) results: Vec<MentorRagResult>,
    pub(crate) previous: Option<(AssembledContext<'static>, Input)>,
}

impl Request {
    /// Builds the assembler, then reads the previous report and the results.
    pub(crate) fn read(
        build: &BuildArgs,
        file: Option<&Path>,
        previous: Option<&Path>,
    ) -> Result<Request, Failure> {
        // The configuration is checked before the input is read: a bad option is reported
        // without waiting for standard input.
        let configured = build.configure()?;
        let (settings, assembler) = (configured.settings, configured.assembler);
        let input = Input::new(file);
        let previous = match previous.map(|path| Input::new(Some(path))) {
            Some(previous) if previous.is_stdin() && input.is_stdin() => {
                return Err(Failure::bad_input(
                    "--previous and FILE cannot both be standard input (`-`)".to_string(),
                ));
            }
            Some(previous) => Some((previous.load_report()?, previous)),
            None => None,
        };
        // A follow-up turn is written in the layout of the turn before.
        let assembler = match &previous {
            Some((report, from)) => build.assembler_for_report(report, from)?,
            None => assembler,
        };
        let results = input.load(settings.strict)?;
        Ok(Request {
            assembler,
            settings,
            input,
            results,
            previous,
        })
    }

    /// The context `assembler` (this request's, or the same at another budget) makes.
    pub(crate) fn assemble_with(
        &self,
        assembler: &Assembler,
    ) -> Result<AssembledContext<'_>, Failure> {
        match &self.previous {
            Some((report, from)) => assembler
                .assemble_follow_up(report, &self.results)
                .map_err(|err| from.fail_with(&err)),
            None => Ok(assembler.assemble(&self.results)),
        }
    }

    /// The blocks of the turn before, kept first in the text.
    pub(crate) fn earlier_blocks(&self) -> usize {
        self.previous
            .as_ref()
            .map_or(0, |(report, _)| report.citations.len())
    }
}

/// Runs `assemble` and returns what to print.
pub(crate) fn run(args: &AssembleArgs) -> Result<String, Failure> {
    let request = Request::read(&args.build, args.file.as_deref(), args.previous.as_deref())?;
    let assembler = &request.assembler;
    let context = request.assemble_with(assembler)?;
    if args.json {
        json_line(&context)
    } else if assembler.dialect().is_some() {
        // The entries to put in the request; the report's text is what the budget counted.
        let mut entries = assembler
            .entries(&context)
            .map_err(|err| Failure::library(&err))?;
        if request.settings.cache_control {
            mark_turn_cache_control(&mut entries, request.earlier_blocks());
        }
        if entries.is_empty() {
            warning_line(&empty_context(assembler, &request.results));
        }
        if assembler.dialect() == Some(Dialect::Mistral) {
            // What Mistral's citations guide sends as the `tool` message's content: the object
            // keyed "0", "1", ..., whose keys the answer's references name.
            let mut content = mistral_tool_content(&entries);
            content.push('\n');
            return Ok(content);
        }
        json_line(&entries)
    } else {
        if context.text.is_empty() {
            warning_line(&empty_context(&request.assembler, &request.results));
        }
        Ok(context.text)
    }
}

/// Why the context is empty, in one line: an empty context on standard output alone would
/// look like a failure that said nothing.
fn empty_context(assembler: &Assembler, results: &[MentorRagResult]) -> String {
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

//! `inspect`: one request assembled as `assemble` assembles it, written as one
//! self-contained HTML page of what the model is sent.
//!
//! The page shows where the budget went ([`budget`]: header, layout, heads, metadata,
//! content, free), each block in text order with its chip and the exact text sent
//! ([`view`]), the results left out with their reason and, for those that did not fit, the
//! smallest budget that would have taken them in and what each needs alone ([`need`]), the
//! answer's citations linked to their blocks ([`answer`]), and the settings. With `--conversation`, `--window` and
//! `--chat-template` it fits a whole prompt as `prompt` does, and the page shows first where
//! the window went, why the history stopped where it did, and the messages and the prompt
//! text as sent ([`window`]). The page template is `page.html`.

mod answer;
mod budget;
mod need;
mod view;
mod window;

use std::path::PathBuf;

use clap::Args;

use crate::assemble::Request;
use crate::html;
use crate::input::Input;
use crate::options::BuildArgs;
use crate::output::{Failure, escape_os, json_line};
use crate::prompt::PromptOptions;

/// The page's template.
const PAGE: &str = include_str!("page.html");

#[derive(Debug, Args)]
pub(crate) struct InspectArgs {
    #[command(flatten)]
    pub(crate) build: BuildArgs,

    /// Also print the `assemble --json` report the page shows on standard output.
    #[arg(long)]
    pub(crate) json: bool,

    /// The JSON array of results; `-` or no FILE reads standard input.
    #[arg(value_name = "FILE")]
    pub(crate) file: Option<PathBuf>,

    /// Inspect a follow-up turn: as `assemble --previous`, the blocks of this earlier
    /// `assemble --json` report first, then the new ones.
    #[arg(long, value_name = "REPORT")]
    pub(crate) previous: Option<PathBuf>,

    /// A model's answer (text) to show with every citation linked to its block, every marker
    /// that points at no block flagged, and every quote the cited block does not hold
    /// flagged; `-` reads standard input. Not with --dialect (use cite --dialect).
    #[arg(long, value_name = "ANSWER")]
    pub(crate) answer: Option<PathBuf>,

    /// The HTML file to write.
    #[arg(long, value_name = "PAGE")]
    pub(crate) output: PathBuf,

    #[command(flatten)]
    pub(crate) prompt: PromptOptions,
}

/// Runs `inspect`: writes the page, and returns what to print (the report with --json).
pub(crate) fn run(args: &InspectArgs) -> Result<String, Failure> {
    let answer = args.answer.as_deref().map(|path| Input::new(Some(path)));
    // The page reads a text answer's `[n]` markers; a model API's response would be shown as
    // its raw JSON with nothing linked, so it is refused, not drawn wrong.
    if answer.is_some() && args.build.settings()?.dialect.is_some() {
        return Err(Failure::bad_input(
            "--answer reads a text answer's [n] markers, not a dialect's response: read that \
             with cite --dialect"
                .to_string(),
        ));
    }
    if let Some(answer) = &answer {
        let file = Input::new(args.file.as_deref());
        let previous = args.previous.as_deref().map(|p| Input::new(Some(p)));
        if answer.is_stdin() && (file.is_stdin() || previous.is_some_and(|p| p.is_stdin())) {
            return Err(Failure::bad_input(
                "--answer and FILE or --previous cannot both be standard input (`-`)".to_string(),
            ));
        }
    }
    if args.prompt.conversation.is_some() {
        return run_whole_prompt(args, answer.as_ref());
    }
    if let Some(flag) = args.prompt.first_file_given() {
        return Err(Failure::bad_input(format!(
            "{flag}: a whole prompt's setting: give --conversation too to draw a whole prompt"
        )));
    }
    if let Some(flag) = args.prompt.settings.first_given() {
        return Err(Failure::bad_input(format!(
            "{flag}: a whole prompt's setting: give --conversation too to draw a whole prompt"
        )));
    }
    let request = Request::read(&args.build, args.file.as_deref(), args.previous.as_deref())?;
    let answer = answer.map(|answer| answer.text()).transpose()?;
    let context = request.assemble_with(&request.assembler)?;
    let settings = crate::options::shown(&request.settings, &request.assembler);
    let names = view::Names {
        input: request.input.name(),
        previous: args.previous.as_deref().map(|p| escape_os(p.as_os_str())),
    };
    let page = view::page(&request, &context, answer.as_deref(), &settings, &names);
    let html = html::render("inspect.html", PAGE, &page)?;
    html::write_page(&args.output, &html)?;
    if args.json {
        json_line(&context)
    } else {
        Ok(String::new())
    }
}

/// `inspect` of a whole prompt: fitted as `prompt` fits it, drawn with its window first.
fn run_whole_prompt(args: &InspectArgs, answer: Option<&Input>) -> Result<String, Failure> {
    if args.previous.is_some() {
        return Err(Failure::bad_input(
            "--previous continues a context's blocks; a whole prompt carries its history in \
             --conversation"
                .to_string(),
        ));
    }
    let fitted = crate::prompt::fit(&args.build, &args.prompt, args.file.as_deref())?;
    let answer = answer.map(Input::text).transpose()?;
    let context = &fitted.prompt.context;
    // The context's assembler at the budget the fitting gave it: its pieces are counted as
    // they were.
    let assembler = fitted
        .prompts
        .assembler()
        .with_budget(context.budget)
        .map_err(|err| Failure::library(&err))?;
    let mut settings = crate::options::shown(&fitted.settings, &assembler);
    settings.retain(|(flag, _)| flag != "--budget");
    settings.extend([
        ("--window".to_string(), fitted.prompt.window.to_string()),
        ("--reserve".to_string(), fitted.prompt.reserve.to_string()),
        (
            "--chat-template".to_string(),
            fitted.prompts.template().name().to_string(),
        ),
        (
            "--context-in".to_string(),
            fitted.prompts.placement().to_string(),
        ),
        (
            "--trim-step".to_string(),
            fitted.prompts.trim_step().to_string(),
        ),
    ]);
    let request = Request {
        assembler,
        settings: fitted.settings,
        input: fitted.input,
        results: fitted.results,
        previous: None,
    };
    let names = view::Names {
        input: request.input.name(),
        previous: None,
    };
    let messages = serde_json::to_string_pretty(&fitted.prompt.messages)
        .map_err(|err| Failure::write_failed(format!("internal error: the messages: {err}")))?;
    let mut page = view::page(&request, context, answer.as_deref(), &settings, &names);
    page.window = Some(window::window(
        &fitted.prompt,
        &window::Fitting {
            template: fitted.prompts.template().name(),
            history_cap: fitted.prompts.history_max_tokens(),
            trim_step: fitted.prompts.trim_step(),
            messages: &messages,
        },
    ));
    let html = html::render("inspect.html", PAGE, &page)?;
    html::write_page(&args.output, &html)?;
    if args.json {
        json_line(&fitted.prompt)
    } else {
        Ok(String::new())
    }
}

//! `prompt`: a conversation and the results fitted to a model's window through its chat
//! template, printed as the prompt text (or the messages, for OpenAI's rule), or with --json as
//! the whole [`Prompt`] report.
//!
//! [`args`] holds its options; [`template`] turns `--chat-template` into the library's
//! template; [`conversation`] reads the messages.

mod args;
mod conversation;
mod template;

pub(crate) use args::{PromptArgs, PromptOptions};

use std::path::Path;

use mentor_context::prompt::{Prompt, PromptAssembler, PromptBuilder};
use mentor_context::{Error, MentorRagResult};

use crate::args::BuildArgs;
use crate::input::Input;
use crate::output::{Failure, json_line};

/// Runs `prompt` and returns what to print.
pub(crate) fn run(args: &PromptArgs) -> Result<String, Failure> {
    let fitted = fit(&args.build, &args.options, args.file.as_deref())?;
    if args.json {
        json_line(&fitted.prompt)
    } else if let Some(text) = fitted.prompt.prompt {
        Ok(text)
    } else {
        // OpenAI's chat models take messages, not a text: they are what to send.
        json_line(&fitted.prompt.messages)
    }
}

/// A whole prompt fitted, with what it was fitted from: for `prompt` and `inspect`.
pub(crate) struct Fitted {
    pub(crate) prompt: Prompt<'static>,
    pub(crate) prompts: PromptAssembler,
    pub(crate) input: Input,
    pub(crate) results: Vec<MentorRagResult>,
}

/// Fits the conversation `options` names and the results in `file` (standard input without
/// one), with the context's options of `build`.
pub(crate) fn fit(
    build: &BuildArgs,
    options: &PromptOptions,
    file: Option<&Path>,
) -> Result<Fitted, Failure> {
    // The configuration is checked before any input is read, as `assemble`'s is.
    let prompts = prompt_assembler(build, options)?;
    let conversation_input = Input::new(options.conversation.as_deref());
    let input = Input::new(file);
    if conversation_input.is_stdin() && input.is_stdin() {
        return Err(Failure::bad_input(
            "--conversation and RESULTS cannot both be standard input (`-`)".to_string(),
        ));
    }
    let conversation = conversation::read(&conversation_input)?;
    let results = input.load(build.strict)?;
    let prompt = prompts
        .assemble(&conversation, &results)
        .map(Prompt::into_owned)
        .map_err(|err| match err {
            Error::Conversation { .. } => conversation_input.fail(err),
            Error::PromptTooLarge { .. } => Failure::bad_input(format!("--window: {err}")),
            Error::ChatTemplate { .. } => Failure::bad_input(format!("--chat-template: {err}")),
            other => Failure::bad_input(other.to_string()),
        })?;
    Ok(Fitted {
        prompt,
        prompts,
        input,
        results,
    })
}

/// The whole-prompt assembler the options describe, or the one line that says which option
/// is wrong.
fn prompt_assembler(build: &BuildArgs, args: &PromptOptions) -> Result<PromptAssembler, Failure> {
    let (Some(window), Some(template)) = (args.window, args.chat_template.as_deref()) else {
        return Err(Failure::bad_input(
            "a whole prompt needs --conversation, --window and --chat-template".to_string(),
        ));
    };
    if let Some((flag, why)) = build.not_for_a_whole_prompt() {
        return Err(Failure::bad_input(format!(
            "{flag} is not an option of `prompt`: {why}"
        )));
    }
    let template = template::load(template, build)?;
    let mut builder = PromptBuilder::new(template, window)
        .context(build.context_options()?)
        .date(args.date)
        .history_max_tokens(args.history_max_tokens)
        .special_tokens_in_messages(args.allow_special_tokens_in_messages);
    if let Some(reserve) = args.reserve {
        builder = builder.reserve(reserve);
    }
    if let Some(placement) = args.context_in {
        builder = builder.context_in(placement);
    }
    if let Some(step) = args.trim_step {
        builder = builder.trim_step(step);
    }
    builder.build().map_err(|err| {
        let flag = match &err {
            Error::PromptSetting { .. } => setting_at_fault(build, &err.to_string()),
            Error::HeaderOverBudget { .. } => "--header",
            Error::MinTruncatedOverBudget { .. } => "--min-truncated-tokens",
            Error::SealKeyTooShort { .. } => "--seal-key-file",
            Error::NanMinScore => "--min-score",
            _ => "options",
        };
        Failure::bad_input(format!("{flag}: {err}"))
    })
}

/// The flag a whole-prompt setting's error is about, told by the settings given: the
/// library's message says what is wrong, this says where.
fn setting_at_fault(build: &BuildArgs, message: &str) -> &'static str {
    if build.dialect.is_some() {
        "--dialect"
    } else if message.contains("trim") {
        "--trim-step"
    } else if message.contains("documents") {
        "--context-in"
    } else if message.contains("reserve") {
        "--reserve"
    } else {
        "options"
    }
}

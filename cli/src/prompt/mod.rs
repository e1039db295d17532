//! `prompt`: a conversation and the results fitted to a model's window through its chat
//! template, printed as the prompt text (or the messages, for OpenAI's rule), or with --json as
//! the whole [`Prompt`] report.
//!
//! [`args`] holds its options; [`conversation`] reads the messages, [`tools`] the tool
//! definitions and [`template_options`] the template's options. The settings, their rules
//! and the template's choice are the library's ([`Settings::prompt_assembler`]).

mod args;
mod conversation;
mod template_options;
mod tools;

pub(crate) use args::{PromptArgs, PromptOptions, PromptSettings};

use std::path::Path;

use mentor_context::prompt::{Prompt, PromptAssembler};
use mentor_context::settings::Settings;
use mentor_context::{ErrorKind, MentorRagResult};

use crate::input::Input;
use crate::options::BuildArgs;
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
    pub(crate) settings: Settings,
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
    let mut settings = options.over(build.settings()?);
    let mut prompts = settings
        .prompt_assembler()
        .map_err(|err| Failure::library(&err))?;
    let conversation_input = Input::new(options.conversation.as_deref());
    let input = Input::new(file);
    if options.first_file_given().is_some() {
        let tools_input = options.tools.as_deref().map(|path| Input::new(Some(path)));
        let options_input = options
            .template_options
            .as_deref()
            .map(|path| Input::new(Some(path)));
        for (given, flag) in [
            (&tools_input, "--tools"),
            (&options_input, "--template-options"),
        ] {
            let others = [&tools_input, &options_input]
                .into_iter()
                .flatten()
                .filter(|other| other.is_stdin())
                .count();
            if given.as_ref().is_some_and(Input::is_stdin)
                && (conversation_input.is_stdin() || input.is_stdin() || others > 1)
            {
                return Err(Failure::bad_input(format!(
                    "{flag} cannot be standard input (`-`) with --conversation, RESULTS, \
                     --tools or --template-options there too"
                )));
            }
        }
        if let Some(tools_input) = &tools_input {
            settings.tools = Some(tools::read(tools_input)?);
        }
        settings.template_options = template_options::merge(
            settings.template_options.as_ref(),
            options_input.as_ref(),
            &options.template_option,
        )?;
        // Every other setting was checked above: what building refuses now is the tools' or
        // the options', named as flags.
        prompts = settings
            .prompt_assembler()
            .map_err(|err| Failure::library(&err))?;
    }
    if conversation_input.is_stdin() && input.is_stdin() {
        return Err(Failure::bad_input(
            "--conversation and RESULTS cannot both be standard input (`-`)".to_string(),
        ));
    }
    let conversation = conversation::read(&conversation_input)?;
    let results = input.load(settings.strict)?;
    let prompt = prompts
        .assemble(&conversation, &results)
        .map(Prompt::into_owned)
        .map_err(|err| match err.kind() {
            ErrorKind::InvalidConversation => conversation_input.fail_with(&err),
            ErrorKind::WindowTooSmall => Failure::library(&err).at("--window"),
            ErrorKind::ChatTemplate => Failure::library(&err).at("--chat-template"),
            _ => Failure::library(&err),
        })?;
    Ok(Fitted {
        prompt,
        prompts,
        settings,
        input,
        results,
    })
}

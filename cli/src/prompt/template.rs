//! `--chat-template`: a name for the templates the library writes itself, or a model's own
//! template file.

use std::path::Path;

use mentor_context::Encoding;
use mentor_context::prompt::ChatTemplate;
use mentor_context::tokenizer::TekkenTokenizer;

use crate::args::BuildArgs;
use crate::output::{Failure, escape_os};

/// The template `choice` names, with the tokenizer options of `build`: `openai` counts with
/// --encoding or --model, `harmony` with o200k_base and Harmony's tokens, `mistral` with the
/// Tekken file given as --tokenizer-file; any other value is the path of a
/// tokenizer_config.json or chat_template.jinja, counted with the tokenizer.json given as
/// --tokenizer-file.
pub(crate) fn load(choice: &str, build: &BuildArgs) -> Result<ChatTemplate, Failure> {
    let fail = |message: String| Failure::bad_input(format!("--chat-template: {message}"));
    let no_file = |name: &str| match build.tokenizer_file() {
        Some(_) => Err(fail(format!(
            "`{name}` counts with its own encoding; --tokenizer-file is for a template file or \
             `mistral`"
        ))),
        None => Ok(()),
    };
    match choice {
        "openai" => {
            no_file("openai")?;
            Ok(ChatTemplate::openai(build.openai_encoding()))
        }
        "harmony" => {
            no_file("harmony")?;
            if build.names_an_encoding() && build.openai_encoding() != Encoding::O200kBase {
                return Err(fail(
                    "`harmony` (gpt-oss) counts with o200k_base and Harmony's tokens; leave out \
                     --encoding and --model"
                        .to_string(),
                ));
            }
            Ok(ChatTemplate::harmony())
        }
        "mistral" => {
            let path = build.tokenizer_file().ok_or_else(|| {
                fail("`mistral` needs the model's Tekken file as --tokenizer-file".to_string())
            })?;
            let tekken = TekkenTokenizer::from_file(path)
                .map_err(|err| Failure::bad_input(format!("--tokenizer-file: {err}")))?;
            ChatTemplate::mistral(tekken).map_err(|err| fail(err.to_string()))
        }
        path => from_files(Path::new(path), build),
    }
}

/// A model's own template and tokenizer, from their files.
fn from_files(path: &Path, build: &BuildArgs) -> Result<ChatTemplate, Failure> {
    let name = escape_os(path.as_os_str());
    if build.names_an_encoding() {
        return Err(Failure::bad_input(format!(
            "--chat-template {name}: a model's own template counts with its tokenizer.json, \
             given as --tokenizer-file, not --encoding or --model"
        )));
    }
    let tokenizer = build.tokenizer_file().ok_or_else(|| {
        Failure::bad_input(format!(
            "--chat-template {name}: give the model's tokenizer.json as --tokenizer-file \
             (or openai, harmony or mistral for the templates written here)"
        ))
    })?;
    if !path.is_file() {
        return Err(Failure::bad_input(format!(
            "--chat-template: {name}: no such file (the names written here are openai, harmony \
             and mistral)"
        )));
    }
    ChatTemplate::from_files(path, tokenizer).map_err(|err| match err {
        mentor_context::Error::TokenizerFile { .. } => {
            Failure::bad_input(format!("--tokenizer-file: {err}"))
        }
        other => Failure::bad_input(format!("--chat-template: {other}")),
    })
}

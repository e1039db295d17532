//! `--chat-template`: the library's names for the templates it writes, or a model's own
//! template file, with `--tokenizer-file` and `--encoding`/`--model` as the library takes them.

use mentor_context::Error;
use mentor_context::prompt::ChatTemplate;

use crate::args::BuildArgs;
use crate::output::Failure;

/// The template `choice` names (see [`ChatTemplate::named`]), or the one line that names the
/// option at fault.
pub(crate) fn load(choice: &str, build: &BuildArgs) -> Result<ChatTemplate, Failure> {
    let encoding = build.names_an_encoding().then(|| build.openai_encoding());
    ChatTemplate::named(choice, build.tokenizer_file(), encoding).map_err(|err| {
        let flag = match err {
            Error::TokenizerFile { .. } => "--tokenizer-file",
            _ => "--chat-template",
        };
        Failure::bad_input(format!("{flag}: {err}"))
    })
}

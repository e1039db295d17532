//! `--conversation`: an OpenAI-style JSON array of messages.

use mentor_context::Error;
use mentor_context::prompt::Message;

use crate::input::Input;
use crate::output::Failure;

/// The messages in `input`, each checked to be an object with a string `role`. Whether the
/// last one is the user's question the library checks, naming the message.
pub(crate) fn read(input: &Input) -> Result<Vec<Message>, Failure> {
    let text = input.text()?;
    let trimmed = text.trim_start();
    if trimmed.is_empty() {
        return Err(input.fail(
            "empty input; expected a JSON array of messages ({\"role\": ..., \"content\": ...})",
        ));
    }
    if trimmed.starts_with('{') {
        return Err(input
            .fail("a JSON object; expected a JSON array of messages (wrap the message in [ ])"));
    }
    serde_json::from_str(&text).map_err(|err| input.fail_with(&Error::from(err)))
}

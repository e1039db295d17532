//! `--tools`: the agent's tool definitions, an OpenAI-style JSON array.

use mentor_context::prompt::Tools;

use crate::input::Input;
use crate::output::Failure;

/// The tool definitions in `input`, checked; a problem names the file and the tool.
pub(crate) fn read(input: &Input) -> Result<Tools, Failure> {
    let text = input.text()?;
    text.parse::<Tools>()
        .map_err(|err| input.fail_with(&err).at("--tools"))
}

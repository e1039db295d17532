//! The `PromptAssembler` class: a conversation and the results fitted to a model's window
//! through its chat template, as the command's `prompt` fits them.

use mentor_context::ErrorKind;
use mentor_context::prompt::{Message, PromptAssembler};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde::Deserialize;

use crate::depythonize::PyDeserializer;
use crate::errors::{from_library, refused, refused_as};
use crate::pyser::to_python;
use crate::results::read_request;
use crate::settings::{self, SealKey};

/// Fits a whole prompt: the conversation (an optional system message, the history, the
/// user's question last) and the results, to the window less the answer's reserve, through
/// the model's chat template. Configure once; `assemble` per request, from any thread.
#[pyclass(name = "PromptAssembler", module = "mentor_context", frozen)]
pub(crate) struct PyPromptAssembler {
    prompts: PromptAssembler,
    strict: bool,
}

#[pymethods]
impl PyPromptAssembler {
    /// Every setting of the library's `Settings` is a keyword, under its name there; `window`
    /// and `chat_template` may also be given first, in that order.
    #[new]
    #[pyo3(signature = (window=None, chat_template=None, *, seal_key=None, **settings))]
    fn new(
        py: Python<'_>,
        window: Option<&Bound<'_, PyAny>>,
        chat_template: Option<&Bound<'_, PyAny>>,
        seal_key: Option<SealKey>,
        settings: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let settings = settings::read(
            py,
            &[("window", window), ("chat_template", chat_template)],
            settings,
            seal_key,
        )?;
        // Loading a tokenizer.json takes a while: not with the GIL held.
        let prompts = py
            .detach(|| settings.prompt_assembler())
            .map_err(|err| from_library(&err))?;
        Ok(PyPromptAssembler {
            prompts,
            strict: settings.strict,
        })
    }

    /// The whole prompt as a dict, with the keys of `mentor-context prompt --json`: prompt
    /// (not for OpenAI's rule), messages, tokenCount, window, reserve, parts, dropped and
    /// context (the report `Assembler.assemble` gives).
    fn assemble<'py>(
        &self,
        py: Python<'py>,
        conversation: &Bound<'py, PyAny>,
        results: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let conversation = read_conversation(conversation)?;
        let results = read_request(results, self.strict)?.results;
        let prompt = py
            .detach(|| self.prompts.assemble(&conversation, &results))
            .map_err(|err| from_library(&err))?;
        to_python(py, &prompt)
    }

    /// The same as one line of JSON text (no newline): what `prompt --json` prints, byte for
    /// byte.
    fn assemble_json(
        &self,
        py: Python<'_>,
        conversation: &Bound<'_, PyAny>,
        results: &Bound<'_, PyAny>,
    ) -> PyResult<String> {
        let conversation = read_conversation(conversation)?;
        let results = read_request(results, self.strict)?.results;
        py.detach(|| {
            let prompt = self
                .prompts
                .assemble(&conversation, &results)
                .map_err(|err| from_library(&err))?;
            serde_json::to_string(&prompt)
                .map_err(|err| refused(format!("cannot write JSON: {err}")))
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "PromptAssembler(window={}, chat_template={:?}, reserve={})",
            self.prompts.window(),
            self.prompts.template().name(),
            self.prompts.reserve()
        )
    }
}

/// The conversation: a list of message dicts (`{"role": ..., "content": ...}`), read with the
/// library's own rules for a message.
fn read_conversation(conversation: &Bound<'_, PyAny>) -> PyResult<Vec<Message>> {
    Vec::<Message>::deserialize(PyDeserializer(conversation)).map_err(|err| {
        refused_as(
            ErrorKind::InvalidConversation,
            format!("conversation: {err}"),
        )
    })
}

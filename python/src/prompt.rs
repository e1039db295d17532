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
    /// context (the report `Assembler.assemble` gives). `tools` and `template_options` are
    /// this request's: its tools in place of the constructor's, its options over them.
    #[pyo3(signature = (conversation, results, *, tools=None, template_options=None))]
    fn assemble<'py>(
        &self,
        py: Python<'py>,
        conversation: &Bound<'py, PyAny>,
        results: &Bound<'py, PyAny>,
        tools: Option<&Bound<'py, PyAny>>,
        template_options: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let prompts = self.for_request(py, tools, template_options)?;
        let conversation = read_conversation(conversation)?;
        let results = read_request(results, self.strict)?.results;
        let prompt = py
            .detach(|| prompts.assemble(&conversation, &results))
            .map_err(|err| from_library(&err))?;
        to_python(py, &prompt)
    }

    /// The same as one line of JSON text (no newline): what `prompt --json` prints, byte for
    /// byte.
    #[pyo3(signature = (conversation, results, *, tools=None, template_options=None))]
    fn assemble_json(
        &self,
        py: Python<'_>,
        conversation: &Bound<'_, PyAny>,
        results: &Bound<'_, PyAny>,
        tools: Option<&Bound<'_, PyAny>>,
        template_options: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<String> {
        let prompts = self.for_request(py, tools, template_options)?;
        let conversation = read_conversation(conversation)?;
        let results = read_request(results, self.strict)?.results;
        py.detach(|| {
            let prompt = prompts
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

impl PyPromptAssembler {
    /// The assembler for a request with its own `tools` and `template_options`, read as the
    /// settings of those names are (so a bad one is refused in the same words).
    fn for_request(
        &self,
        py: Python<'_>,
        tools: Option<&Bound<'_, PyAny>>,
        template_options: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PromptAssembler> {
        let given = [("tools", tools), ("template_options", template_options)];
        if given
            .iter()
            .all(|(_, value)| value.is_none_or(PyAnyMethods::is_none))
        {
            return Ok(self.prompts.clone());
        }
        let request = settings::read(py, &given, None, None)?;
        self.prompts
            .with_request(request.tools, request.template_options)
            .map_err(|err| match err.setting_at_fault() {
                Some(setting) => refused_as(err.kind(), format!("{setting}: {err}")),
                None => from_library(&err),
            })
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

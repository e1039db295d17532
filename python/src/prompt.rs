//! The `PromptAssembler` class: a conversation and the results fitted to a model's window
//! through its chat template, as the command's `prompt` fits them.

use mentor_context::prompt::{Message, PromptAssembler, PromptBuilder};
use mentor_context::{ContextBuilder, Encoding};
use pyo3::prelude::*;
use serde::Deserialize;

use crate::depythonize::PyDeserializer;
use crate::errors::{from_library, refused};
use crate::options::{Options, SealKey, count};
use crate::pyser::to_python;
use crate::results::read_request;

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
    // One keyword per option, as `Assembler` takes them; pyo3 hands the values over owned.
    #[allow(clippy::too_many_arguments, clippy::needless_pass_by_value)]
    #[new]
    #[pyo3(signature = (
        window, chat_template, *, reserve=None, tokenizer_file=None, encoding=None, model=None,
        date=None, context_in=None, history_max_tokens=None, trim_step=None,
        special_tokens_in_messages=false, format=None, overflow=None, duplicates=None,
        min_score=None, max_blocks=None, min_truncated_tokens=None,
        hide_metadata_keys=Vec::new(), header=None, order=None, max_per_source=None,
        max_head_tokens=None, cache_bytes=None, seal_key=None, strict=false
    ))]
    fn new(
        window: i64,
        chat_template: &str,
        reserve: Option<i64>,
        tokenizer_file: Option<std::path::PathBuf>,
        encoding: Option<String>,
        model: Option<String>,
        date: Option<String>,
        context_in: Option<String>,
        history_max_tokens: Option<i64>,
        trim_step: Option<f64>,
        special_tokens_in_messages: bool,
        format: Option<String>,
        overflow: Option<String>,
        duplicates: Option<String>,
        min_score: Option<f32>,
        max_blocks: Option<i64>,
        min_truncated_tokens: Option<i64>,
        hide_metadata_keys: Vec<String>,
        header: Option<String>,
        order: Option<String>,
        max_per_source: Option<i64>,
        max_head_tokens: Option<i64>,
        cache_bytes: Option<i64>,
        seal_key: Option<SealKey>,
        strict: bool,
        py: Python<'_>,
    ) -> PyResult<Self> {
        if encoding.is_some() && model.is_some() {
            return Err(refused(
                "encoding and model both choose the encoding: give one",
            ));
        }
        let encoding = match (&encoding, &model) {
            (Some(name), _) => Some(name.parse::<Encoding>().map_err(|e| from_library(&e))?),
            (_, Some(model)) => Some(Encoding::for_model(model).map_err(|e| from_library(&e))?),
            _ => None,
        };
        let options = Options {
            format,
            overflow,
            duplicates,
            min_score,
            max_blocks,
            min_truncated_tokens,
            hide_metadata_keys,
            header,
            order,
            max_per_source,
            max_head_tokens,
            cache_bytes,
            seal_key: seal_key.map(SealKey::into_bytes),
            ..Options::default()
        };
        let context = options.layout_builder(ContextBuilder::new(0))?;
        let window = count("window", Some(window))?.unwrap_or_default();
        let reserve = count("reserve", reserve)?;
        let history_max_tokens = count("history_max_tokens", history_max_tokens)?;
        let date = date
            .map(|date| date.parse().map_err(|e| from_library(&e)))
            .transpose()?;
        let placement = context_in
            .map(|name| name.parse().map_err(|e| from_library(&e)))
            .transpose()?;
        // Loading a tokenizer.json takes a while: not with the GIL held.
        let prompts = py
            .detach(|| {
                let template = mentor_context::prompt::ChatTemplate::named(
                    chat_template,
                    tokenizer_file.as_deref(),
                    encoding,
                )?;
                let mut builder = PromptBuilder::new(template, window)
                    .context(context)
                    .date(date)
                    .history_max_tokens(history_max_tokens)
                    .special_tokens_in_messages(special_tokens_in_messages);
                if let Some(reserve) = reserve {
                    builder = builder.reserve(reserve);
                }
                if let Some(placement) = placement {
                    builder = builder.context_in(placement);
                }
                if let Some(step) = trim_step {
                    builder = builder.trim_step(step);
                }
                builder.build()
            })
            .map_err(|err| from_library(&err))?;
        Ok(PyPromptAssembler { prompts, strict })
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
    Vec::<Message>::deserialize(PyDeserializer(conversation))
        .map_err(|err| refused(format!("conversation: {err}")))
}

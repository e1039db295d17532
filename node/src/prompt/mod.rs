//! The `PromptAssembler` class: the whole prompt (a conversation and the results fitted to a
//! model's window through its chat template), as the command's `prompt` makes it.
//!
//! The constructor's options are the library's settings ([`settings`]); [`conversation`]
//! reads the messages; the results are read by the library's wire rules, as `Assembler`'s
//! are ([`request`]).

mod conversation;
mod types;

use mentor_context::prompt::Prompt;
use mentor_context::wire::ParsedResults;
use napi::bindgen_prelude::{Env, Unknown};
use napi::{JsValue, Result};
use napi_derive::napi;

use crate::codec::Codec;
use crate::errors::{Failure, OrThrow};
use crate::raw::{self, Value};
use crate::request::{self, internal};
use crate::{js_value, settings};

/// Fits a conversation (an optional system message, the history, the user's question last)
/// and ranked results to a model's window through the model's own chat template: the
/// messages to send, the prompt text where the template writes one, its exact token count
/// (`tokenCount + reserve <= window`), and the context's report. Configure once (every
/// option is checked here); then `assemble` per turn.
#[napi]
pub struct PromptAssembler {
    prompts: mentor_context::prompt::PromptAssembler,
    strict: bool,
}

#[napi]
impl PromptAssembler {
    /// A configuration: `window` and `chatTemplate`, the prompt options of
    /// `mentor-context prompt` and the context options of `new Assembler` (but those that
    /// set the budget or the tokenizer), in camelCase.
    #[napi(constructor, ts_args_type = "options: Settings")]
    pub fn new(env: &Env, options: Option<Unknown<'_>>) -> Result<Self> {
        let raw = env.raw();
        let codec = Codec::get(raw)?;
        let settings = settings::read(raw, codec, options.map(|o| o.raw()), &[])?;
        let prompts = settings.prompt_assembler().or_throw(raw)?;
        Ok(PromptAssembler {
            prompts,
            strict: settings.strict,
        })
    }

    /// The whole prompt, with exactly the keys of `mentor-context prompt --json`: prompt
    /// (absent for `openai`), messages, tokenCount, window, reserve, parts, dropped, context
    /// (and documents, with `contextIn: 'documents'`).
    #[napi(
        ts_args_type = "conversation: ReadonlyArray<ChatMessage>, results: ReadonlyArray<MentorRagResult>",
        ts_return_type = "Prompt"
    )]
    pub fn assemble<'env>(
        &self,
        env: &'env Env,
        conversation: Unknown<'env>,
        results: Unknown<'env>,
    ) -> Result<Unknown<'env>> {
        let raw = env.raw();
        self.with_prompt(raw, conversation.raw(), results.raw(), |prompt| {
            js_value::to_js(env, &prompt)
        })
    }

    /// The same prompt as one line of JSON text (no newline): what `prompt --json` prints,
    /// byte for byte.
    #[napi(
        ts_args_type = "conversation: ReadonlyArray<ChatMessage>, results: ReadonlyArray<MentorRagResult>"
    )]
    pub fn assemble_json(
        &self,
        env: &Env,
        conversation: Unknown<'_>,
        results: Unknown<'_>,
    ) -> Result<String> {
        let raw = env.raw();
        self.with_prompt(raw, conversation.raw(), results.raw(), |prompt| {
            serde_json::to_string(&prompt)
                .map_err(internal)
                .or_throw(raw)
        })
    }

    /// The model's window in tokens.
    #[napi(getter)]
    pub fn window(&self) -> f64 {
        self.prompts.window() as f64
    }

    /// The tokens kept free for the answer.
    #[napi(getter)]
    pub fn reserve(&self) -> f64 {
        self.prompts.reserve() as f64
    }

    /// The chat template's name, such as `"harmony/o200k_harmony"`.
    #[napi(getter)]
    pub fn chat_template(&self) -> String {
        self.prompts.template().name().to_string()
    }
}

impl PromptAssembler {
    /// Reads the conversation, then the results (giving their warnings), fits them, and
    /// hands the prompt to `use_it`.
    fn with_prompt<T>(
        &self,
        env: raw::Env,
        conversation: Value,
        results: Value,
        use_it: impl FnOnce(Prompt<'_>) -> Result<T>,
    ) -> Result<T> {
        let codec = Codec::get(env)?;
        let messages = conversation::read(env, codec, conversation)?;
        let packed = codec.pack(env, results)?;
        let mut parsed = ParsedResults::default();
        let read = packed
            .reader()
            .map_err(internal)
            .and_then(|reader| request::read_results(reader, self.strict, &mut parsed));
        codec.recycle(packed);
        for warning in read.or_throw(env)? {
            codec.warn(env, &warning)?;
        }
        let prompt = self
            .prompts
            .assemble(&messages, &parsed.results)
            .map_err(|err| {
                use mentor_context::ErrorKind;
                match err.kind() {
                    ErrorKind::WindowTooSmall => Failure::library(&err).at("window"),
                    ErrorKind::ChatTemplate => Failure::library(&err).at("chatTemplate"),
                    _ => Failure::library(&err),
                }
            })
            .or_throw(env)?;
        use_it(prompt)
    }
}

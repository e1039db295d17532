//! The model APIs' dialects from JavaScript: a report's entries and contents, and a
//! provider's response read back against them whole (`resolveResponse`), through the
//! library's `Assembler::entries` and `Resolver::response`. Event by event is
//! `response_stream`, which needs nothing of this module (both write values through
//! `js_value`).
//!
//! Offsets of a resolution index the JavaScript string (UTF-16 code units), as
//! `resolveCitations`'s do; the library's are UTF-8 bytes.

use mentor_context::citations::Resolver;
use mentor_context::dialects::{Entry, mark_turn_cache_control};
use mentor_context::{AssembledContext, Assembler as Library};
use napi::bindgen_prelude::{Env, Unknown};
use napi::sys::ValueType;
use napi::{JsValue, Result};
use napi_derive::napi;

use crate::args;
use crate::assembler::Assembler;
use crate::codec::Codec;
use crate::errors::{ErrorCode, Failure, OrThrow};
use crate::js_value::to_js;
use crate::offsets::Units;
use crate::raw::{self, Value};
use crate::report;
use crate::response_stream::ResponseStream;

/// The options `entries` knows.
const ENTRIES_KNOWN: [&str; 1] = ["previous"];

#[napi]
impl Assembler {
    /// The entries of `report` (a report of this assembler, or its JSON text) in this
    /// assembler's dialect: the array to put in the model API's request (Anthropic
    /// `search_result` or `document` blocks, Bedrock Converse `document` blocks, Cohere
    /// documents, the documents of a Mistral tool result), one per citation, exactly as
    /// `mentor-context assemble --dialect` prints them. With `cacheControl`, the last entry
    /// carries a prompt-cache breakpoint, and so does the last of the `previous` turn's
    /// (its report, for a follow-up turn), as `assemble --cache-control --previous` marks
    /// them.
    #[napi(
        ts_args_type = "report: Report | string, options?: EntriesOptions",
        ts_return_type = "Array<AnthropicSearchResult | AnthropicDocument | BedrockDocument | CohereDocument | MistralReference>"
    )]
    pub fn entries<'env>(
        &self,
        env: &'env Env,
        report: Unknown<'env>,
        options: Option<Unknown<'env>>,
    ) -> Result<Unknown<'env>> {
        let raw = env.raw();
        let codec = Codec::get(raw)?;
        let options = options.map(|o| o.raw());
        args::options(raw, codec, options, &ENTRIES_KNOWN)?;
        let earlier = match options {
            Some(options) => earlier_blocks(raw, codec, options)?,
            None => 0,
        };
        let context = read_report(raw, codec, &self.assembler, report.raw())?;
        let mut entries = self.assembler.entries(&context).or_throw(raw)?;
        if self.cache_control {
            mark_turn_cache_control(&mut entries, earlier);
        }
        to_js(env, &entries)
    }

    /// The content of each block of `report` as the model saw it (cut where the block is
    /// cut), read back from its text: what quotes are checked against.
    #[napi(ts_args_type = "report: Report | string")]
    pub fn contents(&self, env: &Env, report: Unknown<'_>) -> Result<Vec<String>> {
        let raw = env.raw();
        let codec = Codec::get(raw)?;
        let context = read_report(raw, codec, &self.assembler, report.raw())?;
        self.assembler.contents(&context).or_throw(raw)
    }

    /// A model API's whole response read against `report`, as `mentor-context cite
    /// --dialect` reads it: the message JSON, its stream's events as JSON Lines, or the raw
    /// server-sent events. `answer` is the response's text, which the spans index (in
    /// UTF-16 code units); each cited chip's `quotes` are checked against its content.
    #[napi(
        ts_args_type = "report: Report | string, response: string",
        ts_return_type = "Resolution"
    )]
    pub fn resolve_response<'env>(
        &self,
        env: &'env Env,
        report: Unknown<'env>,
        response: Unknown<'env>,
    ) -> Result<Unknown<'env>> {
        let raw = env.raw();
        let codec = Codec::get(raw)?;
        let context = read_report(raw, codec, &self.assembler, report.raw())?;
        let response = args::string(raw, response.raw(), "response")?;
        let mut resolution = resolver(&self.assembler, &context)
            .and_then(|resolver| resolver.response(&response).map_err(Failure::from))
            .or_throw(raw)?;
        let answer = resolution.answer.clone().unwrap_or_default();
        Units::new(&answer).resolution(&mut resolution);
        to_js(env, &resolution)
    }

    /// A reader of a streamed response against `report`, event by event.
    #[napi(ts_args_type = "report: Report | string")]
    pub fn response_stream(&self, env: &Env, report: Unknown<'_>) -> Result<ResponseStream> {
        let raw = env.raw();
        let codec = Codec::get(raw)?;
        let context = read_report(raw, codec, &self.assembler, report.raw())?;
        let stream = resolver(&self.assembler, &context)
            .and_then(|resolver| resolver.response_stream().map_err(Failure::from))
            .or_throw(raw)?;
        Ok(ResponseStream::new(stream))
    }
}

/// `report`, checked to be of `assembler`'s dialect (or text for both), as the command's
/// `cite` checks it.
fn read_report(
    env: raw::Env,
    codec: &Codec,
    assembler: &Library,
    value: Value,
) -> Result<AssembledContext<'static>> {
    let context = report::context(env, codec, value, "report")?;
    let problem = match (context.dialect, assembler.dialect()) {
        (Some(found), None) => Some(format!(
            "assembled for the {found} dialect: give the option dialect: '{found}'"
        )),
        (found, Some(dialect)) if found != Some(dialect) => Some(format!(
            "assembled {}, not for dialect '{dialect}'",
            found.map_or("as text".to_string(), |d| format!("for the {d} dialect"))
        )),
        _ => None,
    };
    match problem {
        Some(problem) => {
            Err(Failure::new(ErrorCode::InvalidReport, format!("report: {problem}")).into_napi(env))
        }
        None => Ok(context),
    }
}

/// A resolver for `context` that owns what it reads against: its chips, and the contents
/// and entries read back with `assembler` (so that quotes, titles and sources are checked
/// as sent).
fn resolver(
    assembler: &Library,
    context: &AssembledContext<'_>,
) -> std::result::Result<Resolver<'static>, Failure> {
    let contents = assembler.contents(context)?;
    let entries: Vec<Entry> = match assembler.dialect() {
        Some(_) => assembler.entries(context)?,
        None => Vec::new(),
    };
    Ok(Resolver::for_context(context)
        .contents(&contents)
        .entries(&entries)
        .into_owned())
}

/// The blocks of the turn before: the citations of `options.previous`, if given.
fn earlier_blocks(env: raw::Env, codec: &Codec, options: Value) -> Result<usize> {
    if raw::type_of(env, options)? != ValueType::napi_object {
        return Ok(0);
    }
    let previous = raw::named(env, options, c"previous")?;
    match raw::type_of(env, previous)? {
        ValueType::napi_undefined | ValueType::napi_null => Ok(0),
        _ => Ok(report::context(env, codec, previous, "previous")?
            .citations
            .len()),
    }
}

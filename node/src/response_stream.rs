//! `ResponseStream`: a model API's streamed response read event by event against a report,
//! through the library's `ResponseStream`; made by `Assembler.responseStream`.

use mentor_context::dialects;
use napi::bindgen_prelude::{Env, Unknown};
use napi::sys::ValueType;
use napi::{JsValue, Result};
use napi_derive::napi;
use serde::Deserialize;

use crate::args;
use crate::codec::{Chunks, Codec};
use crate::errors::{ErrorCode, Failure, OrThrow};
use crate::js_value::to_js;
use crate::offsets::{StreamedAnswer, Units};
use crate::raw::{self, Value};
use crate::request::internal;
use crate::stream::{Finished, Pushed};

/// A model API's response read event by event (Anthropic's Messages stream, Bedrock's
/// ConverseStream events as the AWS SDK gives them, Cohere's v2 chat stream, Mistral's chat
/// completion chunks), from `Assembler.responseStream(report)`.
///
/// `pushEvent(event)` reads one event (its JSON text, or the parsed object); `pushSse(chunk)`
/// reads the raw server-sent events as they come off the wire, in chunks of any size. Each
/// returns the text to show (the answer's text deltas) and the citation events it settled.
/// `finish()` returns the rest and the resolution, which is `resolveResponse`'s on the whole
/// response, or throws if the stream was cut off. Offsets are in UTF-16 code units of the
/// answer.
#[napi]
pub struct ResponseStream {
    /// The library's stream, `None` once finished.
    stream: Option<dialects::ResponseStream<'static>>,
    /// The answer so far: offsets are counted in it.
    answer: StreamedAnswer,
    /// Half a character an SSE chunk ended with, for the next.
    chunks: Chunks,
}

impl ResponseStream {
    pub(crate) fn new(stream: dialects::ResponseStream<'static>) -> ResponseStream {
        ResponseStream {
            stream: Some(stream),
            answer: StreamedAnswer::default(),
            chunks: Chunks::default(),
        }
    }

    fn live(&mut self, env: raw::Env) -> Result<&mut dialects::ResponseStream<'static>> {
        self.stream
            .as_mut()
            .ok_or_else(|| finished().into_napi(env))
    }
}

#[napi]
impl ResponseStream {
    /// Reads one event: its JSON text (a line of JSON Lines, the `data` of a server-sent
    /// event) or the object the provider's SDK gives. Returns the text to show now and the
    /// citation events it settled.
    #[napi(
        ts_args_type = "event: string | Record<string, unknown>",
        ts_return_type = "StreamOutput"
    )]
    pub fn push_event<'env>(
        &mut self,
        env: &'env Env,
        event: Unknown<'env>,
    ) -> Result<Unknown<'env>> {
        let raw = env.raw();
        let event = event_text(raw, event.raw())?;
        let mut out = self.live(raw)?.push_event(&event).or_throw(raw)?;
        self.answer.push(&out.text, &mut out.events);
        to_js(env, &Pushed::of(&out))
    }

    /// Reads a chunk of the raw server-sent-events text (`text/event-stream`), cut anywhere:
    /// events are read as their blank line arrives.
    #[napi(ts_args_type = "chunk: string", ts_return_type = "StreamOutput")]
    pub fn push_sse<'env>(
        &mut self,
        env: &'env Env,
        chunk: Unknown<'env>,
    ) -> Result<Unknown<'env>> {
        let raw = env.raw();
        let chunk = args::chunk(raw, chunk.raw(), "chunk", &mut self.chunks)?;
        let mut out = self.live(raw)?.push_sse(&chunk).or_throw(raw)?;
        self.answer.push(&out.text, &mut out.events);
        to_js(env, &Pushed::of(&out))
    }

    /// The response is over: returns the rest to show, its events, and the resolution of
    /// the whole response. Throws (`INVALID_RESPONSE`) if the stream was cut off before its
    /// last event; the stream is finished either way.
    #[napi(ts_return_type = "StreamEnd")]
    pub fn finish<'env>(&mut self, env: &'env Env) -> Result<Unknown<'env>> {
        let raw = env.raw();
        let stream = self
            .stream
            .take()
            .ok_or_else(|| finished().into_napi(raw))?;
        if self.chunks.holds_half() {
            return Err(Failure::new(
                ErrorCode::InvalidResponse,
                "the response was cut off inside a character (the first half of a surrogate \
                 pair ends it)"
                    .to_string(),
            )
            .into_napi(raw));
        }
        let (mut rest, mut resolution) = stream.finish().or_throw(raw)?;
        self.answer.push(&rest.text, &mut rest.events);
        let answer = resolution.answer.clone().unwrap_or_default();
        Units::new(&answer).resolution(&mut resolution);
        to_js(env, &Finished::of(&rest, &resolution))
    }
}

/// An event given as JSON text, or as an object (written as the JSON `JSON.stringify`
/// would write, for the library to read).
fn event_text(env: raw::Env, value: Value) -> Result<String> {
    if raw::type_of(env, value)? != ValueType::napi_object {
        return args::string(env, value, "event");
    }
    let codec = Codec::get(env)?;
    let packed = codec.pack(env, value)?;
    let read: std::result::Result<String, Failure> = (|| {
        let mut reader = packed.reader().map_err(internal)?;
        let json = serde_json::Value::deserialize(&mut reader)
            .map_err(|err| Failure::new(ErrorCode::InvalidArgument, format!("event: {err}")))?;
        Ok(json.to_string())
    })();
    codec.recycle(packed);
    read.or_throw(env)
}

fn finished() -> Failure {
    Failure::new(
        ErrorCode::StreamFinished,
        "the stream is finished: make a new ResponseStream for another response",
    )
}

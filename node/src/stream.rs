//! `CitationStream`: an answer resolved as it streams in, through the library's
//! `CitationStream`.

use mentor_context::citations::{self, CitationEvent, Resolution, StreamOutput};
use napi::bindgen_prelude::{Env, Unknown};
use napi::{JsValue, Result};
use napi_derive::napi;
use serde::Serialize;

use crate::args;
use crate::citations::KNOWN;
use crate::codec::{Chunks, Codec};
use crate::errors::{ErrorCode, Failure, OrThrow};
use crate::js_value::to_js;
use crate::offsets::{StreamedAnswer, Units};
use crate::report;

/// The library's stream, `None` once finished. It owns what it reads against.
type Live = Option<citations::CitationStream<'static>>;

/// What `push` returns, and `ResponseStream`'s `pushEvent` and `pushSse`.
#[derive(Serialize)]
pub(crate) struct Pushed<'a> {
    text: &'a str,
    events: &'a [CitationEvent],
}

impl<'a> Pushed<'a> {
    pub(crate) fn of(output: &'a StreamOutput) -> Pushed<'a> {
        Pushed {
            text: &output.text,
            events: &output.events,
        }
    }
}

/// What `finish` returns, here and on a `ResponseStream`.
#[derive(Serialize)]
pub(crate) struct Finished<'a> {
    text: &'a str,
    events: &'a [CitationEvent],
    resolution: &'a Resolution,
}

impl<'a> Finished<'a> {
    pub(crate) fn of(rest: &'a StreamOutput, resolution: &'a Resolution) -> Finished<'a> {
        Finished {
            text: &rest.text,
            events: &rest.events,
            resolution,
        }
    }
}

/// Resolves an answer that arrives in chunks, as from an LLM stream (the Vercel AI SDK's
/// `textStream`, say).
///
/// Each `push(chunk)` returns the text that is safe to show and the citation events found.
/// A marker is never shown in part: `[1` at the end of one chunk and `2]` at the start of
/// the next come out together. With `renumber`, the text shown is already renumbered. Put
/// together, the texts, the events and the resolution of `finish()` are those of
/// `resolveCitations` on the whole answer (given a whole report, quotes before `[n]` markers
/// are checked as there). Offsets are in UTF-16 code units of the answer.
#[napi]
pub struct CitationStream {
    stream: Live,
    /// The answer so far: offsets are counted in it.
    answer: StreamedAnswer,
    /// Half a character a chunk ended with, for the next.
    chunks: Chunks,
}

#[napi]
impl CitationStream {
    /// A stream of an answer to `report` (a report of `assemble`, its JSON text, or its
    /// `citations`).
    #[napi(
        constructor,
        ts_args_type = "report: Report | ReadonlyArray<Citation> | string, options?: ResolveOptions"
    )]
    pub fn new(env: &Env, report: Unknown<'_>, options: Option<Unknown<'_>>) -> Result<Self> {
        let raw = env.raw();
        let codec = Codec::get(raw)?;
        let resolver = report::resolver(raw, codec, report.raw())?;
        let options = args::options(raw, codec, options.map(|o| o.raw()), &KNOWN)?;
        let renumber = args::flag(&options, "renumber").or_throw(raw)?;
        Ok(CitationStream {
            stream: Some(resolver.renumber(renumber).stream()),
            answer: StreamedAnswer::default(),
            chunks: Chunks::default(),
        })
    }

    /// Reads the next chunk; returns the text to show now and the events found.
    #[napi(ts_args_type = "chunk: string", ts_return_type = "StreamOutput")]
    pub fn push<'env>(&mut self, env: &'env Env, chunk: Unknown<'env>) -> Result<Unknown<'env>> {
        let raw = env.raw();
        let chunk = args::chunk(raw, chunk.raw(), "chunk", &mut self.chunks)?;
        let pushed = self.stream.as_mut().map(|stream| stream.push(&chunk));
        let Some(mut pushed) = pushed else {
            return Err(finished().into_napi(raw));
        };
        self.answer.push(&chunk, &mut pushed.events);
        to_js(env, &Pushed::of(&pushed))
    }

    /// The answer is complete: returns the rest to show (an unfinished marker is text after
    /// all), its events, and the resolution of the whole answer.
    #[napi(ts_return_type = "StreamEnd")]
    pub fn finish<'env>(&mut self, env: &'env Env) -> Result<Unknown<'env>> {
        let raw = env.raw();
        // Half a character at the very end is a lone surrogate: U+FFFD, as V8 shows it.
        let tail = if self.chunks.holds_half() {
            "\u{FFFD}"
        } else {
            ""
        };
        let finished_stream = self.stream.take().map(|mut stream| {
            let last = stream.push(tail);
            let (rest, resolution) = stream.finish();
            (last, rest, resolution)
        });
        let Some((last, mut rest, mut resolution)) = finished_stream else {
            return Err(finished().into_napi(raw));
        };
        rest.text.insert_str(0, &last.text);
        rest.events.splice(0..0, last.events);
        self.answer.push(tail, &mut rest.events);
        Units::new(self.answer.text()).resolution(&mut resolution);
        to_js(env, &Finished::of(&rest, &resolution))
    }

    /// UTF-16 code units of the answer read but not yet shown: the start of a marker that
    /// the next chunk may finish (0 once finished).
    #[napi(getter)]
    pub fn held_back(&self) -> u32 {
        let bytes = self
            .stream
            .as_ref()
            .map_or(0, citations::CitationStream::held_back);
        self.answer.units_of_last(bytes)
    }
}

fn finished() -> Failure {
    Failure::new(
        ErrorCode::StreamFinished,
        "the stream is finished: make a new CitationStream for another answer",
    )
}

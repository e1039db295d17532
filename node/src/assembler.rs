//! The `Assembler` class: a validated configuration that assembles requests.

use std::cell::Cell;

use mentor_context::wire::ParsedResults;
use napi::bindgen_prelude::{AsyncTask, Env, Unknown};
use napi::{JsValue, Result};
use napi_derive::napi;

use crate::args;
use crate::codec::Codec;
use crate::errors::{ErrorCode, Failure, OrThrow};
use crate::given::{self, Given};
use crate::many::{self, ManyTask};
use crate::raw::{self, Value};
use crate::report;
use crate::request::{self, internal};
use crate::settings;
use crate::tasks::AssembleTask;

/// Assembles ranked retrieval results into the context block of a prompt, within an exact
/// token budget. Configure once (every option is checked here, and a bad one throws with the
/// library's message); then `assemble` per request. With a `dialect`, `entries` gives the
/// model API's own entries, and `resolveResponse` or `responseStream` reads its response.
#[napi]
pub struct Assembler {
    pub(crate) assembler: mentor_context::Assembler,
    pub(crate) strict: bool,
    /// Whether `entries` marks prompt-cache breakpoints (`cacheControl`).
    pub(crate) cache_control: bool,
    /// The buffers the last request was read into, for the next (see `request`).
    reused: Cell<ParsedResults>,
}

/// The buffers kept between requests are let go past this: one huge request should not
/// hold its memory for the life of the assembler.
const MAX_KEPT_RESULTS_BYTES: usize = 4 << 20;

#[napi]
impl Assembler {
    /// A configuration: `budget` in tokens (or none, with a model window), and the options
    /// of `mentor-context assemble` in camelCase.
    #[napi(
        constructor,
        ts_args_type = "budget?: number | null, options?: Settings"
    )]
    pub fn new(
        env: &Env,
        budget: Option<Unknown<'_>>,
        options: Option<Unknown<'_>>,
    ) -> Result<Self> {
        let raw = env.raw();
        let codec = Codec::get(raw)?;
        let budget = match budget {
            Some(budget) => given::primitive(raw, budget.raw())?,
            None => Given::Nothing,
        };
        let budget = settings::count("budget", &budget).or_throw(raw)?;
        let settings = settings::read(raw, codec, options.map(|o| o.raw()), &[("budget", budget)])?;
        let assembler = settings.assembler().or_throw(raw)?;
        Ok(Assembler {
            assembler,
            strict: settings.strict,
            cache_control: settings.cache_control,
            reused: Cell::default(),
        })
    }

    /// The report of one request, with exactly the keys of `mentor-context assemble --json`:
    /// context, tokenCount, budget, encoding, citations, omitted (and window, headroom with
    /// a model window; seal with a seal key).
    #[napi(
        ts_args_type = "results: ReadonlyArray<MentorRagResult>",
        ts_return_type = "Report"
    )]
    pub fn assemble<'env>(&self, env: &'env Env, results: Unknown<'env>) -> Result<Unknown<'env>> {
        let raw = env.raw();
        let codec = Codec::get(raw)?;
        let mut tape = codec.take_tape();
        self.with_results(raw, codec, results.raw(), |results| {
            let context = self.assembler.assemble(results);
            request::write(&context, &mut tape)
        })?;
        let report = codec.unpack(raw, tape)?;
        // SAFETY: a value of this call's handle scope.
        Ok(unsafe { Unknown::from_raw_unchecked(raw, report) })
    }

    /// The same report as one line of JSON text (no newline): what `assemble --json`
    /// prints, byte for byte.
    #[napi(ts_args_type = "results: ReadonlyArray<MentorRagResult>")]
    pub fn assemble_json(&self, env: &Env, results: Unknown<'_>) -> Result<String> {
        let raw = env.raw();
        let codec = Codec::get(raw)?;
        self.with_results(raw, codec, results.raw(), |results| {
            request::to_json(&self.assembler.assemble(results))
        })
    }

    /// The next turn of a conversation: `previous` is the report of the turn before (an
    /// object from `assemble` or this method, or its JSON text). Its text starts the new
    /// text byte for byte and its chips keep their numbers; new blocks follow, within the
    /// budget. A report that is not exactly this assembler's rendering of its citations (or,
    /// with a seal key, whose seal does not match) is refused, naming the block.
    #[napi(
        ts_args_type = "previous: Report | string, results: ReadonlyArray<MentorRagResult>",
        ts_return_type = "Report"
    )]
    pub fn assemble_follow_up<'env>(
        &self,
        env: &'env Env,
        previous: Unknown<'env>,
        results: Unknown<'env>,
    ) -> Result<Unknown<'env>> {
        let raw = env.raw();
        let codec = Codec::get(raw)?;
        let previous = report::previous(raw, codec, previous.raw())?;
        let mut tape = codec.take_tape();
        self.with_results(raw, codec, results.raw(), |results| {
            let context = self.assembler.assemble_follow_up(&previous, results)?;
            request::write(&context, &mut tape)
        })?;
        let report = codec.unpack(raw, tape)?;
        // SAFETY: a value of this call's handle scope.
        Ok(unsafe { Unknown::from_raw_unchecked(raw, report) })
    }

    /// `assemble` on libuv's thread pool, so that a large request does not hold up the event
    /// loop: the results are read into Rust here, then read, assembled and written there.
    #[napi(
        ts_args_type = "results: ReadonlyArray<MentorRagResult>",
        ts_return_type = "Promise<Report>"
    )]
    pub fn assemble_async(
        &self,
        env: &Env,
        results: Unknown<'_>,
    ) -> Result<AsyncTask<AssembleTask>> {
        let raw = env.raw();
        let codec = Codec::get(raw)?;
        // Fresh buffers: these go to another thread.
        let packed = codec.pack(raw, results.raw())?;
        Ok(AsyncTask::new(AssembleTask::new(
            self.assembler.clone(),
            self.strict,
            packed,
        )))
    }

    /// The reports of many requests (each an array of results), in order: each is exactly
    /// what `assemble` returns for it. `threads` threads share the work, this one among them
    /// (default: one per core; at most 8 per core).
    #[napi(
        ts_args_type = "requests: ReadonlyArray<ReadonlyArray<MentorRagResult>>, options?: ManyOptions",
        ts_return_type = "Report[]"
    )]
    pub fn assemble_many<'env>(
        &self,
        env: &'env Env,
        requests: Unknown<'env>,
        options: Option<Unknown<'env>>,
    ) -> Result<Unknown<'env>> {
        let raw = env.raw();
        let task = self.many_task(raw, requests.raw(), options.map(|o| o.raw()))?;
        let reports = task.run().or_throw(raw)?;
        many::to_js(raw, reports)
    }

    /// `assembleMany` on libuv's thread pool (its threads started from there).
    #[napi(
        ts_args_type = "requests: ReadonlyArray<ReadonlyArray<MentorRagResult>>, options?: ManyOptions",
        ts_return_type = "Promise<Report[]>"
    )]
    pub fn assemble_many_async(
        &self,
        env: &Env,
        requests: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> Result<AsyncTask<ManyTask>> {
        let task = self.many_task(env.raw(), requests.raw(), options.map(|o| o.raw()))?;
        Ok(AsyncTask::new(task))
    }

    /// The same configuration with another budget.
    #[napi(ts_args_type = "budget: number")]
    pub fn with_budget(&self, env: &Env, budget: Unknown<'_>) -> Result<Assembler> {
        let raw = env.raw();
        let budget = given::primitive(raw, budget.raw())?;
        let budget = settings::count("budget", &budget)
            .and_then(|budget| {
                budget.ok_or_else(|| {
                    Failure::new(
                        ErrorCode::InvalidArgument,
                        "budget: missing; give the budget in tokens",
                    )
                })
            })
            .and_then(|budget| self.assembler.with_budget(budget).map_err(Failure::from))
            .or_throw(raw)?;
        Ok(Assembler {
            assembler: budget,
            strict: self.strict,
            cache_control: self.cache_control,
            reused: Cell::default(),
        })
    }

    /// The budget in tokens (from the model's window, when one was given).
    #[napi(getter)]
    pub fn budget(&self) -> f64 {
        self.assembler.budget() as f64
    }

    /// The name of the encoding that counts tokens, such as `"o200k_base"`.
    #[napi(getter)]
    pub fn encoding(&self) -> String {
        self.assembler.tokenizer_name().to_string()
    }

    /// The name of the block format, `"plain"` or `"xml"`.
    #[napi(getter)]
    pub fn format(&self) -> String {
        self.assembler.format().name().to_string()
    }

    /// Whether an unknown property in a result is an error (else a warning).
    #[napi(getter)]
    pub fn strict(&self) -> bool {
        self.strict
    }
}

impl Assembler {
    /// Packs and reads `results` (into the last request's buffers when no call in progress
    /// holds them), gives the warnings, and hands the results to `use_them`.
    pub(crate) fn with_results<T>(
        &self,
        env: raw::Env,
        codec: &Codec,
        results: Value,
        use_them: impl FnOnce(&[mentor_context::MentorRagResult]) -> std::result::Result<T, Failure>,
    ) -> Result<T> {
        let packed = codec.pack(env, results)?;
        let mut parsed = self.reused.take();
        let read = packed
            .reader()
            .map_err(internal)
            .and_then(|reader| request::read_results(reader, self.strict, &mut parsed));
        codec.recycle(packed);
        let used = read.map(|warnings| (warnings, use_them(&parsed.results)));
        // On every way out: a refused request may have grown the buffers as much as one that
        // was assembled.
        if reused_bytes(&parsed) <= MAX_KEPT_RESULTS_BYTES {
            self.reused.set(parsed);
        }
        let (warnings, used) = used.or_throw(env)?;
        for warning in warnings {
            codec.warn(env, &warning)?;
        }
        used.or_throw(env)
    }

    /// Hands the buffers requests are read into to `use_them`, keeping them for the next
    /// unless they grew past what is kept.
    pub(crate) fn with_parsed<T>(&self, use_them: impl FnOnce(&mut ParsedResults) -> T) -> T {
        let mut parsed = self.reused.take();
        let used = use_them(&mut parsed);
        if reused_bytes(&parsed) <= MAX_KEPT_RESULTS_BYTES {
            self.reused.set(parsed);
        }
        used
    }

    fn many_task(
        &self,
        env: raw::Env,
        requests: Value,
        options: Option<Value>,
    ) -> Result<ManyTask> {
        let codec = Codec::get(env)?;
        let entries = args::options(env, codec, options, &many::KNOWN)?;
        let threads = many::threads(&entries).or_throw(env)?;
        let packed = codec.pack(env, requests)?;
        ManyTask::new(self.assembler.clone(), self.strict, packed, threads).or_throw(env)
    }
}

/// About the bytes `parsed` holds: its strings' and tables' room.
fn reused_bytes(parsed: &ParsedResults) -> usize {
    let optional = |text: &Option<String>| text.as_ref().map_or(0, String::capacity);
    let results = parsed.results.iter().map(|result| {
        let metadata = result.metadata.as_ref().map_or(0, |table| {
            table
                .iter()
                .map(|(key, value)| key.capacity() + optional(value) + 64)
                .sum()
        });
        result.content.capacity()
            + optional(&result.source_url)
            + optional(&result.title)
            + metadata
    });
    parsed.results.capacity() * size_of::<mentor_context::MentorRagResult>()
        + results.sum::<usize>()
}

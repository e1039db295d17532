//! `assembleMany` and `assembleManyAsync`: many requests, read, assembled and written by
//! worker threads (started through `mentor_context::machinery::start_workers`, as the
//! command's `batch` and Python's `assemble_many` start theirs), reported in order.
//!
//! The requests are packed once, as one value; each thread takes the next request, reads
//! its results by the wire rules, assembles them and writes the report's tape. Only
//! building the reports from their tapes needs JavaScript's thread, at the end.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use mentor_context::Assembler;
use mentor_context::machinery::{MAX_WORKERS_PER_CORE, max_workers, start_workers};
use mentor_context::wire::ParsedResults;
use napi::Result;
use napi::ScopedTask;
use napi::bindgen_prelude::{Env, Unknown};

use crate::codec::{Codec, Packed, Reader, Tape};
use crate::errors::{ErrorCode, Failure, OrThrow};
use crate::given::Given;
use crate::raw;
use crate::request::{self, Done, internal};

/// The options `assembleMany` knows.
pub(crate) const KNOWN: [&str; 1] = ["threads"];

/// The `threads` option: at least 1 and at most 8 per core; by default one per core.
pub(crate) fn threads(entries: &[(String, Given)]) -> std::result::Result<usize, Failure> {
    let given = entries
        .iter()
        .find(|(name, _)| name == "threads")
        .map_or(&Given::Nothing, |(_, given)| given);
    let refused = |what: String| {
        Failure::new(
            ErrorCode::InvalidArgument,
            format!(
                "threads: {what}; expected at least 1 and at most {} here ({MAX_WORKERS_PER_CORE} \
                 per core)",
                max_workers()
            ),
        )
    };
    match crate::settings::count("threads", given)? {
        None => Ok(std::thread::available_parallelism().map_or(1, usize::from)),
        Some(threads) if (1..=max_workers()).contains(&threads) => Ok(threads),
        Some(threads) => Err(refused(threads.to_string())),
    }
}

/// Many requests' work.
pub struct ManyTask {
    assembler: Assembler,
    strict: bool,
    packed: Packed,
    threads: usize,
}

impl ManyTask {
    /// The work of the requests `packed` holds, refused at once if they are not an array.
    pub(crate) fn new(
        assembler: Assembler,
        strict: bool,
        packed: Packed,
        threads: usize,
    ) -> std::result::Result<ManyTask, Failure> {
        let reader = packed.reader().map_err(internal)?;
        if !reader.is_array() {
            return Err(Failure::new(
                ErrorCode::InvalidArgument,
                "requests: expected an array of requests, each an array of results",
            ));
        }
        Ok(ManyTask {
            assembler,
            strict,
            packed,
            threads,
        })
    }

    /// Every request's report, in order; or the first request's failure, in order.
    pub(crate) fn run(&self) -> std::result::Result<Vec<Done>, Failure> {
        let requests: Vec<Reader<'_>> = self
            .packed
            .reader()
            .and_then(Reader::elements)
            .map_err(internal)?;
        let done: Vec<OnceLock<std::result::Result<Done, Failure>>> =
            requests.iter().map(|_| OnceLock::new()).collect();
        let next = AtomicUsize::new(0);
        let job = || {
            let mut parsed = ParsedResults::default();
            loop {
                let at = next.fetch_add(1, Ordering::Relaxed);
                let Some(request) = requests.get(at) else {
                    break;
                };
                let report = request::assemble(
                    &self.assembler,
                    self.strict,
                    request.clone(),
                    &mut parsed,
                    Tape::default(),
                );
                let _ =
                    done[at].set(report.map_err(|failure| failure.at(&format!("requests[{at}]"))));
            }
        };
        // No more threads than requests: a thread costs its start.
        let threads = self.threads.min(requests.len().max(1));
        let started = std::thread::scope(|scope| {
            let started = start_workers(scope, threads, || job);
            if started.is_err() {
                // The threads that started finish the request they hold, and take no more.
                next.store(requests.len(), Ordering::Relaxed);
            } else {
                job();
            }
            started
        });
        started
            .map_err(|err| Failure::new(ErrorCode::ThreadsNotStarted, format!("threads: {err}")))?;
        done.into_iter()
            .map(|report| {
                report
                    .into_inner()
                    .unwrap_or_else(|| Err(internal("a request was not assembled")))
            })
            .collect()
    }
}

impl<'task> ScopedTask<'task> for ManyTask {
    type Output = std::result::Result<Vec<Done>, Failure>;
    type JsValue = Unknown<'task>;

    fn compute(&mut self) -> Result<Self::Output> {
        Ok(self.run())
    }

    fn resolve(&mut self, env: &'task Env, output: Self::Output) -> Result<Unknown<'task>> {
        let raw = env.raw();
        to_js(raw, output.or_throw(raw)?)
    }
}

/// The reports as a JavaScript array, each request's warnings given in order.
pub(crate) fn to_js<'env>(env: raw::Env, reports: Vec<Done>) -> Result<Unknown<'env>> {
    let codec = Codec::get(env)?;
    let array = raw::array(env, reports.len())?;
    for (at, done) in reports.into_iter().enumerate() {
        for warning in &done.warnings {
            codec.warn(env, warning)?;
        }
        let report = codec.unpack(env, done.tape)?;
        raw::set_element(env, array, at, report)?;
    }
    // SAFETY: a value of this call's handle scope.
    Ok(unsafe { Unknown::from_raw_unchecked(env, array) })
}

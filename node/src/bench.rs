//! For `node/benches/assemble.mjs`: the Rust call alone (no packing, no report built), on a
//! request read once; and the report built alone (no reading, no assembly): so the benchmark
//! can time each beside the JavaScript calls in the same run. For `node/benches/plain.mjs`:
//! the plain way across, JSON text in and out (`_plain*`), against the packed codec. Not part
//! of the API: left out of the TypeScript types.

use std::cell::RefCell;

use mentor_context::machinery::deserialize_request_into;
use mentor_context::wire::UnknownProperties;
use mentor_context::{AssembledContext, MentorRagResult};
use napi::bindgen_prelude::{Env, Unknown};
use napi::{JsValue, Result};
use napi_derive::napi;

use crate::assembler::Assembler;
use crate::codec::Codec;
use crate::errors::OrThrow;
use crate::request::{self, internal};

thread_local! {
    /// The report `_benchBuild` builds, read once by `_benchKeep`.
    static KEPT: RefCell<Option<AssembledContext<'static>>> = const { RefCell::new(None) };
    /// The results `_benchAssemble` assembles, read once by `_benchRead`.
    static READ: RefCell<Vec<MentorRagResult>> = const { RefCell::new(Vec::new()) };
}

/// Keeps the report `json` (of `assembleJson`) for `_benchBuild`.
#[napi(js_name = "_benchKeep", skip_typescript)]
// napi-derive registers a function for JavaScript only outside `cfg(test)`.
#[cfg_attr(test, allow(dead_code))]
// napi-derive hands JavaScript strings over as `String`.
#[allow(clippy::needless_pass_by_value)]
pub fn bench_keep(json: String) -> Result<()> {
    let report = serde_json::from_str(&json)
        .map_err(|err| napi::Error::from_reason(format!("not a report: {err}")))?;
    KEPT.with_borrow_mut(|kept| *kept = Some(report));
    Ok(())
}

/// Builds the kept report as `assemble` builds one: onto a tape, then into JavaScript.
#[napi(js_name = "_benchBuild", skip_typescript)]
#[cfg_attr(test, allow(dead_code))]
pub fn bench_build<'env>(env: &'env Env) -> Result<Unknown<'env>> {
    let raw = env.raw();
    let codec = Codec::get(raw)?;
    let mut tape = codec.take_tape();
    KEPT.with_borrow(|kept| match kept {
        Some(report) => request::write(report, &mut tape),
        None => Err(internal("no report kept: call _benchKeep first")),
    })
    .or_throw(raw)?;
    let report = codec.unpack(raw, tape)?;
    // SAFETY: a value of this call's handle scope.
    Ok(unsafe { Unknown::from_raw_unchecked(raw, report) })
}

#[napi]
impl Assembler {
    /// Reads `results` and keeps them for `_benchAssemble` (apart from the assembler's
    /// buffers, which let a request past 4 MiB go).
    #[napi(js_name = "_benchRead", skip_typescript)]
    pub fn bench_read(&self, env: &Env, results: Unknown<'_>) -> Result<()> {
        let raw = env.raw();
        let codec = Codec::get(raw)?;
        let read = self.with_results(raw, codec, results.raw(), |results| Ok(results.to_vec()))?;
        READ.with_borrow_mut(|kept| *kept = read);
        Ok(())
    }

    /// Assembles what `_benchRead` read; returns the token count, so nothing of the report
    /// crosses.
    #[napi(js_name = "_benchAssemble", skip_typescript)]
    pub fn bench_assemble(&self) -> u32 {
        READ.with_borrow(|results| {
            let context = self.assembler.assemble(results);
            u32::try_from(context.token_count).unwrap_or(u32::MAX)
        })
    }

    /// `assemble` the plain way, from and to JSON text.
    #[napi(js_name = "_plainAssemble", skip_typescript)]
    // napi-derive hands JavaScript strings over as `String`.
    #[allow(clippy::needless_pass_by_value)]
    pub fn plain_assemble(&self, env: Env, json: String) -> Result<String> {
        self.plain_read(env, &json, |results| {
            request::to_json(&self.assembler.assemble(results))
        })
    }

    /// `assembleFollowUp` the plain way: the previous report and the request as JSON text.
    #[napi(js_name = "_plainFollowUp", skip_typescript)]
    #[allow(clippy::needless_pass_by_value)]
    pub fn plain_follow_up(&self, env: Env, previous: String, json: String) -> Result<String> {
        let previous: AssembledContext<'static> = serde_json::from_str(&previous)
            .map_err(|err| napi::Error::from_reason(format!("not a report: {err}")))?;
        self.plain_read(env, &json, |results| {
            let context = self.assembler.assemble_follow_up(&previous, results)?;
            request::to_json(&context)
        })
    }
}

impl Assembler {
    /// Reads the request `json` the plain way (serde_json) and hands the results to
    /// `use_them`.
    fn plain_read(
        &self,
        env: Env,
        json: &str,
        use_them: impl FnOnce(&[MentorRagResult]) -> std::result::Result<String, crate::errors::Failure>,
    ) -> Result<String> {
        self.with_parsed(|parsed| {
            let mut reader = serde_json::Deserializer::from_str(json);
            deserialize_request_into(&mut reader, UnknownProperties::Report, parsed)
                .map_err(|err| crate::errors::Failure::library(&err.into()))?;
            use_them(&parsed.results)
        })
        .or_throw(env.raw())
    }
}

/// `resolveCitations` the plain way: the report as JSON text, the resolution as JSON text.
#[napi(js_name = "_plainResolve", skip_typescript)]
#[cfg_attr(test, allow(dead_code))]
#[allow(clippy::needless_pass_by_value)]
pub fn plain_resolve(report: String, answer: String) -> Result<String> {
    let resolver = crate::report::resolver_of_json(&report)
        .map_err(|err| napi::Error::from_reason(format!("not a report: {err}")))?;
    let mut resolution = resolver.resolve(&answer);
    crate::offsets::Units::new(&answer).resolution(&mut resolution);
    serde_json::to_string(&resolution).map_err(|err| napi::Error::from_reason(err.to_string()))
}

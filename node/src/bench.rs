//! For `node/benches/assemble.mjs`: the Rust call alone (no packing, no report built), on a
//! request read once; and the report built alone (no reading, no assembly): so the benchmark
//! can time each beside the JavaScript calls in the same run. Not part of the API: left out
//! of the TypeScript types.

use std::cell::RefCell;

use mentor_context::AssembledContext;
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
    /// Reads `results` into the buffers the next `_benchAssemble` assembles.
    #[napi(js_name = "_benchRead", skip_typescript)]
    pub fn bench_read(&self, env: &Env, results: Unknown<'_>) -> Result<()> {
        let raw = env.raw();
        let codec = Codec::get(raw)?;
        self.with_results(raw, codec, results.raw(), |_| Ok(()))
    }

    /// Assembles what `_benchRead` read; returns the token count, so nothing of the report
    /// crosses.
    #[napi(js_name = "_benchAssemble", skip_typescript)]
    pub fn bench_assemble(&self) -> u32 {
        self.with_kept(|results| {
            let context = self.assembler.assemble(results);
            u32::try_from(context.token_count).unwrap_or(u32::MAX)
        })
    }
}

//! `resolveCitations`: which chips of a report an answer cites, through the library's
//! `Resolver`.

use napi::bindgen_prelude::{Env, Unknown};
use napi::{JsValue, Result};
use napi_derive::napi;

use crate::args;
use crate::codec::Codec;
use crate::errors::OrThrow;
use crate::offsets::Units;
use crate::report;
use crate::request::internal;

/// The options `resolveCitations` and `new CitationStream` know.
pub(crate) const KNOWN: [&str; 1] = ["renumber"];

/// Reads `answer` against the chips of `report` (a report of `assemble`, its JSON text, or
/// its `citations`): the cited chips in order of first citation, with how often and where;
/// the markers that point at no chip; with `renumber`, the answer renumbered 1..k in order
/// of first citation. Given a whole report, each quote before a `[n]` marker is checked
/// against the content of the block it cites, read back from the report in the layout it
/// records (`unverified` counts those not found), as `mentor-context cite` checks it.
///
/// Offsets (`spans`, `at`) index the JavaScript string: `answer.slice(span.start, span.end)`
/// is the marker (the library's own are UTF-8 byte offsets).
#[napi(
    ts_args_type = "report: Report | ReadonlyArray<Citation> | string, answer: string, options?: ResolveOptions",
    ts_return_type = "Resolution"
)]
// napi-derive registers a function for JavaScript only outside `cfg(test)`.
#[cfg_attr(test, allow(dead_code))]
pub fn resolve_citations<'env>(
    env: &'env Env,
    report: Unknown<'env>,
    answer: Unknown<'env>,
    options: Option<Unknown<'env>>,
) -> Result<Unknown<'env>> {
    let raw = env.raw();
    let codec = Codec::get(raw)?;
    let resolver = report::resolver(raw, codec, report.raw())?;
    let answer = args::string(raw, answer.raw(), "answer")?;
    let options = args::options(raw, codec, options.map(|o| o.raw()), &KNOWN)?;
    let renumber = args::flag(&options, "renumber").or_throw(raw)?;
    let mut resolution = resolver.renumber(renumber).resolve(&answer);
    Units::new(&answer).resolution(&mut resolution);
    let mut tape = codec.take_tape();
    tape.write(&resolution).map_err(internal).or_throw(raw)?;
    let value = codec.unpack(raw, tape)?;
    // SAFETY: a value of this call's handle scope.
    Ok(unsafe { Unknown::from_raw_unchecked(raw, value) })
}

//! `assembleAsync`: a request read, assembled and written on libuv's thread pool.
//!
//! Only what needs JavaScript stays on its thread: packing the results (one string and one
//! Float64Array, copied out of V8 before the call returns), and building the report from
//! its tape when the work is done. Reading them by the wire rules, assembling and writing
//! the tape happen on the pool, so a large request does not hold up the event loop.

use mentor_context::Assembler;
use mentor_context::wire::ParsedResults;
use napi::Result;
use napi::ScopedTask;
use napi::bindgen_prelude::{Env, Unknown};

use crate::codec::{Codec, Packed, Tape};
use crate::errors::{Failure, OrThrow};
use crate::request::{self, Done, internal};

/// One request's work, for the pool.
pub struct AssembleTask {
    assembler: Assembler,
    strict: bool,
    packed: Packed,
}

impl AssembleTask {
    pub(crate) fn new(assembler: Assembler, strict: bool, packed: Packed) -> AssembleTask {
        AssembleTask {
            assembler,
            strict,
            packed,
        }
    }
}

impl<'task> ScopedTask<'task> for AssembleTask {
    type Output = std::result::Result<Done, Failure>;
    type JsValue = Unknown<'task>;

    fn compute(&mut self) -> Result<Self::Output> {
        let mut parsed = ParsedResults::default();
        Ok(self.packed.reader().map_err(internal).and_then(|reader| {
            request::assemble(
                &self.assembler,
                self.strict,
                reader,
                &mut parsed,
                Tape::default(),
            )
        }))
    }

    fn resolve(&mut self, env: &'task Env, output: Self::Output) -> Result<Unknown<'task>> {
        let raw = env.raw();
        let done = output.or_throw(raw)?;
        let codec = Codec::get(raw)?;
        for warning in &done.warnings {
            codec.warn(raw, warning)?;
        }
        let report = codec.unpack(raw, done.tape)?;
        // SAFETY: a value of this callback's handle scope.
        Ok(unsafe { Unknown::from_raw_unchecked(raw, report) })
    }
}

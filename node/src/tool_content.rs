//! `mistralToolContent` and `cohereToolContent`: the content of the `tool` message that
//! sends a report's entries as the result of the model's tool call, through the library's
//! `mistral_tool_content` and `cohere_tool_content`.
//!
//! The entries come back as JavaScript values, so each is read as the dialect's entry exactly
//! as `entries` wrote it (the library's `machinery` hooks): another dialect's entries, or an
//! entry with a field added, throw rather than send something else than was given.

use napi::bindgen_prelude::{Env, Unknown};
use napi::{JsValue, Result};
use napi_derive::napi;
use serde::Deserialize;
use serde_json::Value;

use crate::codec::{Codec, Reader};
use crate::errors::{ErrorCode, Failure, OrThrow};
use crate::js_value::to_js;
use crate::raw;
use crate::request::internal;
use crate::types::CohereDocument;

/// One block of a Cohere v2 `tool` message's content (cohere-python `tool_content.py`,
/// `DocumentToolContent`): a document the model may cite.
// Never built, as the shapes of `types.rs` are not: declared for `index.d.ts`, which
// `tool_content.test.mjs` checks against the values `cohereToolContent` returns.
#[allow(dead_code)]
#[napi(object, object_from_js = false)]
pub struct CohereToolContent {
    #[napi(ts_type = "'document'")]
    pub r#type: String,
    pub document: CohereDocument,
}

/// The `content` of the `tool` message that sends `entries` (`entries` of an assembler with
/// `dialect: 'mistral'`) to Mistral: the JSON object keyed `'0'`, `'1'`, ... as its citations
/// guide shows it, so that reference id i is citation i + 1. Byte for byte what
/// `mentor-context assemble --dialect mistral` prints (without the newline). Entries of
/// another dialect, or with a field `entries` does not write, throw `INVALID_ARGUMENT`.
#[napi(
    ts_args_type = "entries: ReadonlyArray<AnthropicSearchResult | AnthropicDocument | BedrockDocument | CohereDocument | MistralReference>",
    ts_return_type = "string"
)]
// napi-derive registers a function for JavaScript only outside `cfg(test)`.
#[cfg_attr(test, allow(dead_code))]
pub fn mistral_tool_content(env: &Env, entries: Unknown<'_>) -> Result<String> {
    read_entries(env.raw(), entries, |values, again| {
        mentor_context::machinery::mistral_tool_content_of(values, again)
    })
}

/// The `content` of the `tool` message that sends `entries` (of an assembler with
/// `dialect: 'cohere'`) to Cohere v2: each entry as `{ type: 'document', document }`, in
/// order. Cohere cites document N of it as `{ type: 'tool', id: 'CALL_ID:N' }`, which
/// `resolveResponse` reads as citation N + 1. Throws as `mistralToolContent` does.
#[napi(
    ts_args_type = "entries: ReadonlyArray<AnthropicSearchResult | AnthropicDocument | BedrockDocument | CohereDocument | MistralReference>",
    ts_return_type = "Array<CohereToolContent>"
)]
#[cfg_attr(test, allow(dead_code))]
pub fn cohere_tool_content<'env>(env: &'env Env, entries: Unknown<'env>) -> Result<Unknown<'env>> {
    let content = read_entries(env.raw(), entries, |values, again| {
        mentor_context::machinery::cohere_tool_content_of(values, again)
    })?;
    to_js(env, &content)
}

/// What `write` makes of `entries`, read as JSON values for its checks and `again` in their
/// keys' order (the packed value read a second time).
fn read_entries<T>(
    env: raw::Env,
    entries: Unknown<'_>,
    write: impl FnOnce(&[Value], &mut Reader<'_>) -> std::result::Result<T, String>,
) -> Result<T> {
    let codec = Codec::get(env)?;
    let packed = codec.pack(env, entries.raw())?;
    let read = (|| {
        let mut reader = packed.reader().map_err(internal)?;
        let values = match reader.unsupported() {
            Some(what) => Err(format!("got {what}")),
            None => Vec::<Value>::deserialize(&mut reader).map_err(|err| err.to_string()),
        }
        .map_err(|problem| {
            refused(format!(
                "entries: expected the array entries returns: {problem}"
            ))
        })?;
        let mut again = packed.reader().map_err(internal)?;
        write(&values, &mut again).map_err(refused)
    })();
    codec.recycle(packed);
    read.or_throw(env)
}

/// `message` as the error of an argument of the wrong shape.
fn refused(message: String) -> Failure {
    Failure::new(ErrorCode::InvalidArgument, message)
}

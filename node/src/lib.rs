//! Node.js bindings of `mentor-context` (napi-rs): the addon that `node/index.js` loads.
//!
//! Everything here is a thin layer over the library: options are parsed by the library's own
//! `FromStr` and validated by `ContextBuilder::build` ([`options`]); results are read by the
//! library's own wire rules (`deserialize_request_into`, [`request`]); reports are the
//! library's own serialization. What is this crate's is how JavaScript values cross
//! ([`codec`], over the raw N-API calls of [`raw`]): packed by JavaScript into one string and
//! one Float64Array, read and written through serde. The classes: [`assembler`]
//! (`Assembler`, with [`tasks`] and [`many`] for the thread pool and worker threads),
//! [`stream`] (`CitationStream`); [`dialects`] (`Assembler.entries`, `resolveResponse`: the
//! model APIs' dialects) and [`response_stream`] (`ResponseStream`), both writing through
//! [`js_value`]; [`citations`]
//! (`resolveCitations`); [`tool_content`] (`mistralToolContent`, `cohereToolContent`: a tool
//! message's content of entries); [`prompt`] (`PromptAssembler`: the whole prompt through a chat
//! template); [`errors`] (the error codes); [`types`] (the TypeScript shapes).
#![deny(missing_docs)]
// Every unsafe block says why it is sound, next to it.
#![deny(clippy::undocumented_unsafe_blocks)]
// napi-derive exports to JavaScript by registration, not by Rust visibility, and wants `pub`
// on what it exports; no Rust crate links to this one, so nothing here is reachable anyway.
#![allow(unreachable_pub)]

mod args;
mod assembler;
mod bench;
mod citations;
mod codec;
mod dialects;
mod errors;
mod given;
mod js_value;
mod many;
mod offsets;
mod prompt;
mod raw;
mod report;
mod request;
mod response_stream;
mod seal_key;
mod settings;
mod stream;
mod tasks;
mod tool_content;
mod types;

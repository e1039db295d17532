#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

mod budget;
mod builder;
mod cache;
mod context;
mod error;
#[cfg(feature = "bpe-openai")]
mod fast;
mod format;
mod record;
mod tokenizer;

pub use budget::Overflow;
pub use builder::{ContextBuilder, Duplicates};
pub use cache::TokenCache;
pub use context::{AssembledContext, Citation, Omission, OmitReason};
pub use error::Error;
#[cfg(feature = "bpe-openai")]
pub use fast::FastEncoding;
pub use format::{BlockHead, Format, PlainFormat, XmlFormat, push_line, push_xml_text};
pub use record::{MentorRagResult, Metadata, parse_results};
pub use tokenizer::{Encoding, TokenCounter, openai_splits_exactly};

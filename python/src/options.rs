//! The keyword arguments of `Assembler(...)` turned into a `ContextBuilder`.
//!
//! Names are parsed by the library's own `FromStr` (so `Assembler` accepts exactly the names
//! the Rust API and the command accept, with the same messages), and the combinations the
//! command line refuses through clap (a budget and a model window both setting the budget,
//! say) are refused here in words.

use mentor_context::budget::ModelWindow;
use mentor_context::dialects::Dialect;
use mentor_context::format::BuiltinFormat;
use mentor_context::tokenizer::{Engine, TokenCache};
use mentor_context::{ContextBuilder, Duplicates, Encoding, Order, Overflow};
use pyo3::{FromPyObject, PyResult};

use crate::errors::{from_library, refused};

/// What `Assembler(...)` was given, before any checking.
#[derive(Debug, Default)]
pub(crate) struct Options {
    pub(crate) budget: Option<i64>,
    pub(crate) encoding: Option<String>,
    pub(crate) model: Option<String>,
    pub(crate) reserve_output: Option<i64>,
    pub(crate) prompt_tokens: Option<i64>,
    pub(crate) engine: Option<String>,
    pub(crate) format: Option<String>,
    pub(crate) overflow: Option<String>,
    pub(crate) duplicates: Option<String>,
    pub(crate) min_score: Option<f32>,
    pub(crate) max_blocks: Option<i64>,
    pub(crate) min_truncated_tokens: Option<i64>,
    pub(crate) hide_metadata_keys: Vec<String>,
    pub(crate) header: Option<String>,
    pub(crate) order: Option<String>,
    pub(crate) max_per_source: Option<i64>,
    pub(crate) max_head_tokens: Option<i64>,
    pub(crate) cache_bytes: Option<i64>,
    pub(crate) seal_key: Option<Vec<u8>>,
    pub(crate) dialect: Option<String>,
}

/// `seal_key=`: bytes as they are, or a string as its UTF-8.
#[derive(Debug, FromPyObject)]
pub(crate) enum SealKey {
    Bytes(Vec<u8>),
    Text(String),
}

impl SealKey {
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        match self {
            SealKey::Bytes(bytes) => bytes,
            SealKey::Text(text) => text.into_bytes(),
        }
    }
}

/// A count given as a Python int: negative numbers are refused by name, as the command's
/// `parse_count` refuses them, instead of surfacing as an `OverflowError`.
pub(crate) fn count(name: &str, value: Option<i64>) -> PyResult<Option<usize>> {
    value
        .map(|value| {
            usize::try_from(value).map_err(|_| {
                refused(format!(
                    "{name}: negative; expected a whole number, 0 or more"
                ))
            })
        })
        .transpose()
}

/// Parses `name` with the library's `FromStr`, keeping the library's message.
fn named<T>(name: Option<&str>) -> PyResult<Option<T>>
where
    T: std::str::FromStr<Err = mentor_context::Error>,
{
    name.map(|name| name.parse::<T>().map_err(|err| from_library(&err)))
        .transpose()
}

impl Options {
    /// The builder these options describe, not yet validated (`build` does that).
    pub(crate) fn builder(&self) -> PyResult<ContextBuilder> {
        let budget = count("budget", self.budget)?;
        let reserve = count("reserve_output", self.reserve_output)?;
        let prompt = count("prompt_tokens", self.prompt_tokens)?;
        if self.model.is_none() && (reserve.is_some() || prompt.is_some()) {
            return Err(refused(
                "reserve_output and prompt_tokens need a model, whose window they share",
            ));
        }
        if self.model.is_some() && self.encoding.is_some() {
            return Err(refused(
                "encoding and model both choose the encoding: give one",
            ));
        }
        // The library would write the dialect and drop the format without a word; the
        // command and Node refuse the pair.
        if self.dialect.is_some() && self.format.is_some() {
            return Err(refused(
                "dialect and format both choose what is written: give one",
            ));
        }
        let window = match &self.model {
            Some(model) if reserve.is_some() || prompt.is_some() => Some(
                ModelWindow::new(model, reserve.unwrap_or(0), prompt.unwrap_or(0))
                    .map_err(|err| from_library(&err))?,
            ),
            _ => None,
        };
        let budget = match (budget, &window) {
            (Some(_), Some(_)) => {
                return Err(refused(
                    "budget and a model window (reserve_output, prompt_tokens) both set the \
                     budget: give one",
                ));
            }
            (Some(budget), None) => budget,
            (None, Some(window)) => window.budget(),
            (None, None) => {
                return Err(refused(
                    "budget: missing; give the budget in tokens, or a model with \
                     reserve_output or prompt_tokens",
                ));
            }
        };
        let encoding = match &self.model {
            Some(model) => Encoding::for_model(model).map_err(|err| from_library(&err))?,
            None => named::<Encoding>(self.encoding.as_deref())?.unwrap_or_default(),
        };
        let builder = ContextBuilder::new(budget);
        let builder = match named::<Engine>(self.engine.as_deref())? {
            Some(engine) => {
                builder.tokenizer(encoding.with_engine(engine).map_err(|e| from_library(&e))?)
            }
            None => builder.encoding(encoding),
        };
        // The window last: it sets the budget (the same order as the command's builder).
        Ok(self.layout_builder(builder)?.window(window))
    }

    /// `builder` with the options that shape the context's text and selection, the cache and
    /// the seal: all but the budget and the tokenizer, which a whole prompt's window and
    /// chat template decide.
    pub(crate) fn layout_builder(&self, builder: ContextBuilder) -> PyResult<ContextBuilder> {
        let builder = builder
            .format(named::<BuiltinFormat>(self.format.as_deref())?.unwrap_or_default())
            .overflow(named::<Overflow>(self.overflow.as_deref())?.unwrap_or_default())
            .duplicates(named::<Duplicates>(self.duplicates.as_deref())?.unwrap_or_default())
            .order(named::<Order>(self.order.as_deref())?.unwrap_or_default())
            .min_score(self.min_score)
            .max_blocks(count("max_blocks", self.max_blocks)?)
            .min_truncated_tokens(count("min_truncated_tokens", self.min_truncated_tokens)?)
            .hide_metadata_keys(&self.hide_metadata_keys)
            .header(self.header.clone().unwrap_or_default())
            .max_per_source(count("max_per_source", self.max_per_source)?)
            .max_head_tokens(count("max_head_tokens", self.max_head_tokens)?)
            .cache(count("cache_bytes", self.cache_bytes)?.map(TokenCache::new));
        let builder = builder.dialect(named::<Dialect>(self.dialect.as_deref())?);
        Ok(match &self.seal_key {
            Some(key) => builder.seal_key(key),
            None => builder,
        })
    }
}

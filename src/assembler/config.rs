//! The validated configuration: what [`ContextBuilder::build`](crate::ContextBuilder::build)
//! turns the builder's choices into, checked once, and all the assembler's modules read.
//!
//! The builder holds [`Choices`] as they were set; [`Config::new`] checks them and works out
//! what depends on the budget. Nothing else reads the choices, so what the assembler sees is
//! always a configuration that can work.

use std::sync::Arc;

use crate::budget::ModelWindow;
use crate::dialects::{Dialect, DialectFormat};
use crate::error::Error;
use crate::format::{Format, PlainFormat};
use crate::layout::Layout;
use crate::options::{Duplicates, Order, Overflow};
use crate::seal::SealKey;
use crate::tokenizer::{Encoding, TokenCache, TokenCounter};

/// Content tokens a cut block needs room for, unless the budget is smaller. Less than a
/// sentence or two tells the model little and costs a head and frame.
pub const DEFAULT_MIN_TRUNCATED_TOKENS: usize = 32;

/// Every choice of an assembly, as set on the builder and not yet checked.
#[derive(Clone)]
pub(crate) struct Choices {
    pub(crate) budget: usize,
    pub(crate) tokenizer: Arc<dyn TokenCounter>,
    pub(crate) format: Arc<dyn Format>,
    pub(crate) overflow: Overflow,
    pub(crate) duplicates: Duplicates,
    pub(crate) min_score: Option<f32>,
    pub(crate) max_blocks: Option<usize>,
    /// `None` until set: the default adapts to small budgets instead of failing them.
    pub(crate) min_truncated_tokens: Option<usize>,
    pub(crate) hidden_keys: Vec<String>,
    pub(crate) header: String,
    pub(crate) cache: Option<TokenCache>,
    pub(crate) order: Order,
    pub(crate) max_per_source: Option<usize>,
    pub(crate) max_head_tokens: Option<usize>,
    pub(crate) window: Option<ModelWindow>,
    pub(crate) seal_key: Option<SealKey>,
    pub(crate) dialect: Option<Dialect>,
}

impl Choices {
    /// The defaults, for `budget` tokens.
    pub(crate) fn new(budget: usize) -> Choices {
        Choices {
            budget,
            tokenizer: Arc::new(Encoding::default()),
            format: Arc::new(PlainFormat),
            overflow: Overflow::default(),
            duplicates: Duplicates::default(),
            min_score: None,
            max_blocks: None,
            min_truncated_tokens: None,
            hidden_keys: Vec::new(),
            header: String::new(),
            cache: None,
            order: Order::default(),
            max_per_source: None,
            max_head_tokens: None,
            window: None,
            seal_key: None,
            dialect: None,
        }
    }
}

/// A configuration that can work: its choices checked, the header in the form it starts the
/// text with, and the room a cut needs worked out for the budget.
#[derive(Clone)]
pub(crate) struct Config {
    pub(crate) budget: usize,
    pub(crate) tokenizer: Arc<dyn TokenCounter>,
    pub(crate) format: Arc<dyn Format>,
    pub(crate) overflow: Overflow,
    pub(crate) duplicates: Duplicates,
    pub(crate) min_score: Option<f32>,
    pub(crate) max_blocks: Option<usize>,
    /// The least room a cut block needs for its content.
    pub(crate) min_truncated_tokens: usize,
    pub(crate) hidden_keys: Vec<String>,
    /// The header with its newline, or empty.
    pub(crate) header: String,
    pub(crate) cache: Option<TokenCache>,
    pub(crate) order: Order,
    pub(crate) max_per_source: Option<usize>,
    pub(crate) max_head_tokens: Option<usize>,
    pub(crate) window: Option<ModelWindow>,
    pub(crate) seal_key: Option<SealKey>,
    /// With a dialect, `format` is its [`DialectFormat`].
    pub(crate) dialect: Option<Dialect>,
    /// The minimum as set, for [`at_budget`](Self::at_budget): the default follows the budget.
    min_truncated_set: Option<usize>,
}

impl Config {
    /// Checks `choices`. The header is checked against the budget when it is counted
    /// ([`Frame::new`](super::frame::Frame::new)).
    ///
    /// # Errors
    ///
    /// [`Error::NanMinScore`], [`Error::SealKeyTooShort`] and
    /// [`Error::MinTruncatedOverBudget`].
    pub(crate) fn new(choices: Choices) -> Result<Config, Error> {
        let Choices {
            budget,
            tokenizer,
            format,
            overflow,
            duplicates,
            min_score,
            max_blocks,
            min_truncated_tokens,
            hidden_keys,
            header,
            cache,
            order,
            max_per_source,
            max_head_tokens,
            window,
            seal_key,
            dialect,
        } = choices;
        // A dialect writes its own layout, whose text its budget counts.
        let format = match dialect {
            Some(dialect) => Arc::new(DialectFormat(dialect)),
            None => format,
        };
        if min_score.is_some_and(f32::is_nan) {
            return Err(Error::NanMinScore);
        }
        if let Some(key) = &seal_key {
            key.check()?;
        }
        let min_truncated_set = min_truncated_tokens;
        let min_truncated_tokens = match min_truncated_tokens {
            Some(min) if min > budget => {
                return Err(Error::MinTruncatedOverBudget {
                    min_tokens: min,
                    budget,
                });
            }
            Some(min) => min,
            None => DEFAULT_MIN_TRUNCATED_TOKENS.min(budget),
        };
        let header = match header.trim_end() {
            "" => String::new(),
            h => format!("{h}\n"),
        };
        Ok(Config {
            budget,
            tokenizer,
            format,
            overflow,
            duplicates,
            min_score,
            max_blocks,
            min_truncated_tokens,
            hidden_keys,
            header,
            cache,
            order,
            max_per_source,
            max_head_tokens,
            window,
            seal_key,
            dialect,
            min_truncated_set,
        })
    }

    /// The same configuration for `budget` tokens, without the window it may have come from.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new).
    pub(crate) fn at_budget(&self, budget: usize) -> Result<Config, Error> {
        let config = self.clone();
        Config::new(Choices {
            budget,
            tokenizer: config.tokenizer,
            format: config.format,
            overflow: config.overflow,
            duplicates: config.duplicates,
            min_score: config.min_score,
            max_blocks: config.max_blocks,
            min_truncated_tokens: config.min_truncated_set,
            hidden_keys: config.hidden_keys,
            // Already trimmed, with its newline: trimming it again gives it back.
            header: config.header,
            cache: config.cache,
            order: config.order,
            max_per_source: config.max_per_source,
            max_head_tokens: config.max_head_tokens,
            window: None,
            seal_key: config.seal_key,
            dialect: config.dialect,
        })
    }
}

impl Config {
    /// What a report's text depends on besides its results and its tokenizer and dialect:
    /// the format, header, hidden keys and head cap. Every report records it.
    pub(crate) fn layout(&self) -> Layout {
        Layout::new(
            self.format.name(),
            &self.header,
            &self.hidden_keys,
            self.max_head_tokens,
        )
    }

    /// What a seal covers besides the report: the layout, the tokenizer and the dialect. A
    /// report is continued only by an assembler that writes it the same way.
    pub(crate) fn sealed_layout(&self) -> String {
        self.layout().sealed(self.tokenizer.name(), self.dialect)
    }

    /// What a seal covered besides the report when reports did not record their layout: a
    /// sealed report of that time still continues. (Its dialect is in its `Debug` form, as it
    /// was then.)
    pub(crate) fn unrecorded_layout(&self) -> String {
        let mut hidden: Vec<&str> = self.hidden_keys.iter().map(String::as_str).collect();
        hidden.sort_unstable();
        hidden.dedup();
        serde_json::json!({
            "tokenizer": self.tokenizer.name(),
            "format": self.format.name(),
            "header": self.header,
            "hidden_keys": hidden,
            "max_head_tokens": self.max_head_tokens,
            "dialect": self.dialect.map(|dialect| format!("{dialect:?}")),
        })
        .to_string()
    }
}

/// Writes the fields both structs share, under `name`.
macro_rules! debug_choices {
    ($type:ty, $name:literal) => {
        impl std::fmt::Debug for $type {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct($name)
                    .field("budget", &self.budget)
                    .field("tokenizer", &self.tokenizer.name())
                    .field("format", &self.format.name())
                    .field("overflow", &self.overflow)
                    .field("duplicates", &self.duplicates)
                    .field("min_score", &self.min_score)
                    .field("max_blocks", &self.max_blocks)
                    .field("min_truncated_tokens", &self.min_truncated_tokens)
                    .field("hidden_keys", &self.hidden_keys)
                    .field("header", &self.header)
                    .field("cache", &self.cache)
                    .field("order", &self.order)
                    .field("max_per_source", &self.max_per_source)
                    .field("max_head_tokens", &self.max_head_tokens)
                    .field("window", &self.window)
                    .field("seal_key", &self.seal_key)
                    .field("dialect", &self.dialect)
                    .finish()
            }
        }
    };
}

debug_choices!(Choices, "ContextBuilder");
debug_choices!(Config, "Config");

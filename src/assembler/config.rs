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
    /// As set; in a [`Config`], with its newline, or empty.
    pub(crate) header: String,
    pub(crate) cache: Option<TokenCache>,
    pub(crate) order: Order,
    pub(crate) max_per_source: Option<usize>,
    pub(crate) max_head_tokens: Option<usize>,
    pub(crate) window: Option<ModelWindow>,
    pub(crate) seal_key: Option<SealKey>,
    /// With a dialect, a [`Config`]'s `format` is its [`DialectFormat`].
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

/// A configuration that can work: its choices checked, with the header in the form it
/// starts the text with (its newline added) and a dialect's format in place of the format,
/// and the room a cut needs worked out for the budget. The assembler's modules read the
/// choices through it (`config.budget`).
#[derive(Clone)]
pub(crate) struct Config {
    choices: Choices,
    /// The least room a cut block needs for its content.
    pub(crate) min_truncated_tokens: usize,
}

impl std::ops::Deref for Config {
    type Target = Choices;

    fn deref(&self) -> &Choices {
        &self.choices
    }
}

impl Config {
    /// Checks `choices`. The header is checked against the budget when it is counted
    /// ([`FixedParts::new`](super::fixed_parts::FixedParts::new)).
    ///
    /// # Errors
    ///
    /// [`Error::NanMinScore`], [`Error::SealKeyTooShort`] and
    /// [`Error::MinTruncatedOverBudget`].
    pub(crate) fn new(mut choices: Choices) -> Result<Config, Error> {
        // A dialect writes its own layout, whose text its budget counts.
        if let Some(dialect) = choices.dialect {
            choices.format = Arc::new(DialectFormat(dialect));
        }
        if choices.min_score.is_some_and(f32::is_nan) {
            return Err(Error::NanMinScore);
        }
        if let Some(key) = &choices.seal_key {
            key.check()?;
        }
        let budget = choices.budget;
        let min_truncated_tokens = match choices.min_truncated_tokens {
            Some(min) if min > budget => {
                return Err(Error::MinTruncatedOverBudget {
                    min_tokens: min,
                    budget,
                });
            }
            Some(min) => min,
            None => DEFAULT_MIN_TRUNCATED_TOKENS.min(budget),
        };
        // Trimming a header that already ends in its newline gives it back.
        choices.header = match choices.header.trim_end() {
            "" => String::new(),
            h => format!("{h}\n"),
        };
        Ok(Config {
            choices,
            min_truncated_tokens,
        })
    }

    /// The same configuration for `budget` tokens, without the window it may have come from.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new).
    pub(crate) fn at_budget(&self, budget: usize) -> Result<Config, Error> {
        Config::new(Choices {
            budget,
            window: None,
            ..self.choices.clone()
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
    /// sealed report of that time still continues. Its dialect is written as that version
    /// wrote it (the variant's name), fixed here rather than taken from `Debug`.
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
            "dialect": self.dialect.map(unrecorded_dialect_name),
        })
        .to_string()
    }
}

impl std::fmt::Debug for Choices {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ContextBuilder")
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

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("choices", &self.choices)
            .field("min_truncated_tokens", &self.min_truncated_tokens)
            .finish()
    }
}

/// A dialect as seals written before reports recorded their layout named it.
fn unrecorded_dialect_name(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Anthropic => "Anthropic",
        Dialect::AnthropicDocuments => "AnthropicDocuments",
        Dialect::Bedrock => "Bedrock",
        Dialect::Cohere => "Cohere",
        Dialect::Mistral => "Mistral",
    }
}

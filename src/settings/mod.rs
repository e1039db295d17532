//! [`Settings`]: every option of an assembler and of a whole prompt as data, read from a
//! settings file, a command line, Python keywords or a JavaScript object, and checked into an
//! [`Assembler`](crate::Assembler) or a [`PromptAssembler`](crate::prompt::PromptAssembler)
//! by one call.
//!
//! The options have one name each, spelled as the caller spells names ([`Spelling`]):
//! `max_blocks` in Rust, Python and settings files, `--max-blocks` on the command line,
//! `maxBlocks` in JavaScript. Errors name an option the way its caller spelled it.
//!
//! ```
//! use mentor_context::settings::{Settings, Spelling};
//!
//! let json = r#"{"budget": 1500, "format": "xml", "hide_metadata_keys": ["chunk_id"]}"#;
//! let settings = Settings::from_json(json, Spelling::Snake)?;
//! let assembler = settings.assembler()?;
//! assert_eq!(assembler.budget(), 1500);
//! assert_eq!(assembler.format().name(), "xml");
//!
//! let err = Settings::from_json(r#"{"maxBlocks": -1}"#, Spelling::Camel).unwrap_err();
//! assert_eq!(err.to_string(), "maxBlocks: negative; expected a whole number, 0 or more");
//! let err = Settings::from_json(r#"{"max_block": 3}"#, Spelling::Snake).unwrap_err();
//! assert_eq!(err.to_string(), "unknown setting `max_block` (did you mean `max_blocks`?)");
//! # Ok::<(), mentor_context::Error>(())
//! ```
//!
//! `read.rs` reads settings from any self-describing serde format, `values.rs` reads the
//! values that serde's own rules read differently in each format (counts from a JavaScript
//! number, a flag given as `null`), `build.rs` holds the rules between options and turns the
//! settings into an assembler.

mod build;
mod read;
mod refusal;
mod seen;
mod spelling;
mod values;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::dialects::Dialect;
use crate::format::BuiltinFormat;
use crate::options::{Duplicates, Order, Overflow};
use crate::prompt::{ContextPlacement, ConversationDate, TemplateOptions, Tools};
use crate::seal::SealKey;
use crate::tokenizer::{Encoding, Engine, TokenizerKind};
pub use spelling::Spelling;

/// Every option of an [`Assembler`](crate::Assembler) and of a
/// [`PromptAssembler`](crate::prompt::PromptAssembler), as data: what a settings file, the
/// command's flags, Python's keyword arguments and a JavaScript options object all describe.
///
/// Unset options (`None`, `false`, empty) take their defaults. [`assembler`](Self::assembler)
/// and [`prompt_assembler`](Self::prompt_assembler) check every option and the rules between
/// them once, and name the option at fault as the caller spells it. In Rust code,
/// [`ContextBuilder`](crate::ContextBuilder) and
/// [`PromptBuilder`](crate::prompt::PromptBuilder) configure the same assemblers with typed
/// values (a custom tokenizer or format, a shared cache); each option below is documented
/// once, on its setter there.
///
/// | setting | what it sets | default |
/// |---|---|---|
/// | `budget` | [`ContextBuilder::budget`](crate::ContextBuilder::budget) | required, unless a model's window sets it (the command: 4000) |
/// | `encoding` | [`ContextBuilder::encoding`](crate::ContextBuilder::encoding) | `o200k_base` |
/// | `model` | an OpenAI model's encoding, and with `reserve_output` or `prompt_tokens` its [`ModelWindow`](crate::budget::ModelWindow) | none |
/// | `reserve_output` | with `model`: [`ModelWindow::new`](crate::budget::ModelWindow::new)'s reserve | none |
/// | `prompt_tokens` | with `model`: [`ModelWindow::new`](crate::budget::ModelWindow::new)'s prompt | none |
/// | `engine` | [`Encoding::with_engine`](crate::Encoding::with_engine) | the encoding's fastest |
/// | `tokenizer_file` | a model's own tokenizer file ([`TokenizerKind::load`]) | none |
/// | `tokenizer_kind` | what `tokenizer_file` is ([`TokenizerKind::of_file`] tells) | by its contents |
/// | `format` | [`ContextBuilder::format`](crate::ContextBuilder::format): `plain` or `xml` | `plain` |
/// | `dialect` | [`ContextBuilder::dialect`](crate::ContextBuilder::dialect) | none (text) |
/// | `header` | [`ContextBuilder::header`](crate::ContextBuilder::header) | none |
/// | `hide_metadata_keys` | [`ContextBuilder::hide_metadata_keys`](crate::ContextBuilder::hide_metadata_keys) | none |
/// | `max_head_tokens` | [`ContextBuilder::max_head_tokens`](crate::ContextBuilder::max_head_tokens) | none |
/// | `overflow` | [`ContextBuilder::overflow`](crate::ContextBuilder::overflow) | `truncate` |
/// | `duplicates` | [`ContextBuilder::duplicates`](crate::ContextBuilder::duplicates) | `url-and-content` |
/// | `order` | [`ContextBuilder::order`](crate::ContextBuilder::order) | `score` |
/// | `min_score` | [`ContextBuilder::min_score`](crate::ContextBuilder::min_score) | none |
/// | `max_blocks` | [`ContextBuilder::max_blocks`](crate::ContextBuilder::max_blocks) | none |
/// | `max_per_source` | [`ContextBuilder::max_per_source`](crate::ContextBuilder::max_per_source) | none |
/// | `min_truncated_tokens` | [`ContextBuilder::min_truncated_tokens`](crate::ContextBuilder::min_truncated_tokens) | 32, or the budget |
/// | `cache_bytes` | a [`TokenCache`](crate::tokenizer::TokenCache) of this many bytes ([`ContextBuilder::cache`](crate::ContextBuilder::cache)) | none |
/// | `seal_key_file` | [`ContextBuilder::seal_key`](crate::ContextBuilder::seal_key), the key read from this file (one trailing newline dropped) | none |
/// | `cache_control` | [`mark_cache_control`](crate::dialects::mark_cache_control) on a dialect's entries | `false` |
/// | `strict` | an unknown property in a result is an error ([`wire::UnknownProperties::Reject`](crate::wire::UnknownProperties::Reject)), not a warning | `false` |
/// | `window` | [`PromptBuilder::new`](crate::prompt::PromptBuilder::new)'s window: makes these whole-prompt settings | none |
/// | `reserve` | [`PromptBuilder::reserve`](crate::prompt::PromptBuilder::reserve) | 1024 |
/// | `chat_template` | [`ChatTemplate::named`](crate::prompt::ChatTemplate::named) | required with `window` |
/// | `date` | [`PromptBuilder::date`](crate::prompt::PromptBuilder::date) | today, in UTC |
/// | `context_in` | [`PromptBuilder::context_in`](crate::prompt::PromptBuilder::context_in) | `user` |
/// | `history_max_tokens` | [`PromptBuilder::history_max_tokens`](crate::prompt::PromptBuilder::history_max_tokens) | none |
/// | `trim_step` | [`PromptBuilder::trim_step`](crate::prompt::PromptBuilder::trim_step) | 0.25 |
/// | `allow_special_tokens_in_messages` | [`PromptBuilder::special_tokens_in_messages`](crate::prompt::PromptBuilder::special_tokens_in_messages) | `false` |
/// | `tools` | [`PromptBuilder::tools`](crate::prompt::PromptBuilder::tools): a JSON array of tool definitions | none |
/// | `template_options` | [`PromptBuilder::template_options`](crate::prompt::PromptBuilder::template_options): a JSON object | none |
///
/// `cache_control` and `strict` are read by the front ends (the entries they write, the
/// results they read); the rest by the assemblers. A seal key given as bytes, which no
/// settings file should hold, is set with [`with_seal_key`](Self::with_seal_key).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
#[allow(clippy::struct_excessive_bools)]
pub struct Settings {
    /// `budget`: see the table above.
    #[serde(
        deserialize_with = "values::count",
        skip_serializing_if = "Option::is_none"
    )]
    pub budget: Option<usize>,
    /// `encoding`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<Encoding>,
    /// `model`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `reserve_output`.
    #[serde(
        deserialize_with = "values::count",
        skip_serializing_if = "Option::is_none"
    )]
    pub reserve_output: Option<usize>,
    /// `prompt_tokens`.
    #[serde(
        deserialize_with = "values::count",
        skip_serializing_if = "Option::is_none"
    )]
    pub prompt_tokens: Option<usize>,
    /// `engine`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine: Option<Engine>,
    /// `tokenizer_file`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokenizer_file: Option<PathBuf>,
    /// `tokenizer_kind`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokenizer_kind: Option<TokenizerKind>,
    /// `format`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<BuiltinFormat>,
    /// `dialect`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dialect: Option<Dialect>,
    /// `header`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    /// `hide_metadata_keys`.
    #[serde(
        deserialize_with = "values::list",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub hide_metadata_keys: Vec<String>,
    /// `max_head_tokens`.
    #[serde(
        deserialize_with = "values::count",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_head_tokens: Option<usize>,
    /// `overflow`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overflow: Option<Overflow>,
    /// `duplicates`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duplicates: Option<Duplicates>,
    /// `order`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub order: Option<Order>,
    /// `min_score`.
    #[serde(
        deserialize_with = "values::score",
        skip_serializing_if = "Option::is_none"
    )]
    pub min_score: Option<f32>,
    /// `max_blocks`.
    #[serde(
        deserialize_with = "values::count",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_blocks: Option<usize>,
    /// `max_per_source`.
    #[serde(
        deserialize_with = "values::count",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_per_source: Option<usize>,
    /// `min_truncated_tokens`.
    #[serde(
        deserialize_with = "values::count",
        skip_serializing_if = "Option::is_none"
    )]
    pub min_truncated_tokens: Option<usize>,
    /// `cache_bytes`.
    #[serde(
        deserialize_with = "values::count",
        skip_serializing_if = "Option::is_none"
    )]
    pub cache_bytes: Option<usize>,
    /// `seal_key_file`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seal_key_file: Option<PathBuf>,
    /// `cache_control`.
    #[serde(deserialize_with = "values::flag", skip_serializing_if = "is_false")]
    pub cache_control: bool,
    /// `strict`.
    #[serde(deserialize_with = "values::flag", skip_serializing_if = "is_false")]
    pub strict: bool,
    /// `window`.
    #[serde(
        deserialize_with = "values::count",
        skip_serializing_if = "Option::is_none"
    )]
    pub window: Option<usize>,
    /// `reserve`.
    #[serde(
        deserialize_with = "values::count",
        skip_serializing_if = "Option::is_none"
    )]
    pub reserve: Option<usize>,
    /// `chat_template`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chat_template: Option<String>,
    /// `date`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<ConversationDate>,
    /// `context_in`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_in: Option<ContextPlacement>,
    /// `history_max_tokens`.
    #[serde(
        deserialize_with = "values::count",
        skip_serializing_if = "Option::is_none"
    )]
    pub history_max_tokens: Option<usize>,
    /// `trim_step`.
    #[serde(
        deserialize_with = "values::share",
        skip_serializing_if = "Option::is_none"
    )]
    pub trim_step: Option<f64>,
    /// `allow_special_tokens_in_messages`.
    #[serde(deserialize_with = "values::flag", skip_serializing_if = "is_false")]
    pub allow_special_tokens_in_messages: bool,
    /// `tools`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Tools>,
    /// `template_options`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub template_options: Option<TemplateOptions>,

    /// A seal key given as bytes ([`with_seal_key`](Self::with_seal_key)).
    #[serde(skip)]
    seal_key: Option<SealKey>,
    /// How the caller spells settings, for the errors.
    #[serde(skip)]
    spelling: Spelling,
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_false(flag: &bool) -> bool {
    !flag
}

impl Settings {
    /// Every setting's name, as [`Spelling::Snake`] spells it, in the order of the table
    /// above: read from the serde description of [`Settings`], so that it cannot leave one
    /// out.
    #[must_use]
    pub fn names() -> &'static [&'static str] {
        read::field_names()
    }

    /// The names a setting's value may take, for the settings that are named choices
    /// (`overflow`: `truncate`, `stop`, `skip`), as [`Spelling::Snake`] names the setting;
    /// `None` for the others. For a front end's types and help, and their tests.
    ///
    /// ```
    /// use mentor_context::Settings;
    ///
    /// assert_eq!(Settings::choices("order"), Some(vec!["score", "as-given", "edges"]));
    /// assert_eq!(Settings::choices("budget"), None);
    /// ```
    #[must_use]
    pub fn choices(setting: &str) -> Option<Vec<&'static str>> {
        fn names<T: Copy>(all: &[T], name: fn(T) -> &'static str) -> Option<Vec<&'static str>> {
            Some(all.iter().map(|&value| name(value)).collect())
        }
        match setting {
            "encoding" => names(Encoding::ALL, Encoding::as_str),
            "engine" => names(Engine::ALL, Engine::as_str),
            "tokenizer_kind" => names(TokenizerKind::ALL, TokenizerKind::as_str),
            "format" => names(BuiltinFormat::ALL, BuiltinFormat::as_str),
            "dialect" => names(Dialect::ALL, Dialect::as_str),
            "overflow" => names(Overflow::ALL, Overflow::as_str),
            "duplicates" => names(Duplicates::ALL, Duplicates::as_str),
            "order" => names(Order::ALL, Order::as_str),
            "context_in" => names(ContextPlacement::ALL, ContextPlacement::as_str),
            _ => None,
        }
    }

    /// The same settings, naming options in errors as `spelling` spells them.
    #[must_use]
    pub fn spelled(mut self, spelling: Spelling) -> Settings {
        self.spelling = spelling;
        self
    }

    /// How errors name options.
    #[must_use]
    pub fn spelling(&self) -> Spelling {
        self.spelling
    }

    /// The same settings with a seal key given as bytes (at least 16; 32 random bytes are
    /// best), for a caller that holds the key in memory. A `seal_key_file` set too is an
    /// error when the settings are checked.
    #[must_use]
    pub fn with_seal_key(mut self, key: impl AsRef<[u8]>) -> Settings {
        self.seal_key = Some(SealKey::new(key.as_ref()));
        self
    }

    /// Whether a seal key is set, as bytes or as a file.
    #[must_use]
    pub fn seals(&self) -> bool {
        self.seal_key.is_some() || self.seal_key_file.is_some()
    }

    /// The name `setting` (as [`Spelling::Snake`] spells it) as this caller spells it.
    pub(crate) fn name(&self, setting: &str) -> String {
        self.spelling.of(setting)
    }
}

//! `new Assembler(budget, options)`: the command's options, in camelCase, into a
//! `ContextBuilder`.
//!
//! Names are parsed by the library's own `FromStr` (so the package accepts exactly the
//! names the command accepts, with the same messages), and the combinations the command
//! refuses through clap (a budget and a model window both setting the budget, say) are
//! refused here in words, naming the option as JavaScript spells it.

use mentor_context::budget::ModelWindow;
use mentor_context::dialects::Dialect;
use mentor_context::format::BuiltinFormat;
use mentor_context::tokenizer::{Engine, TokenCache};
use mentor_context::{ContextBuilder, Duplicates, Encoding, Order, Overflow};

use crate::errors::{ErrorCode, Failure};
use crate::given::Given;

/// The options `new Assembler` knows, as JavaScript spells them.
pub(crate) const KNOWN: [&str; 22] = [
    "encoding",
    "model",
    "reserveOutput",
    "promptTokens",
    "engine",
    "format",
    "overflow",
    "duplicates",
    "keepDuplicates",
    "minScore",
    "maxBlocks",
    "minTruncatedTokens",
    "hideMetadataKeys",
    "header",
    "order",
    "maxPerSource",
    "maxHeadTokens",
    "cacheBytes",
    "sealKey",
    "dialect",
    "cacheControl",
    "strict",
];

/// What `new Assembler(...)` was given, each option read for its type.
#[derive(Debug, Default)]
pub(crate) struct Options {
    pub(crate) budget: Option<usize>,
    encoding: Option<String>,
    model: Option<String>,
    reserve_output: Option<usize>,
    prompt_tokens: Option<usize>,
    engine: Option<String>,
    format: Option<String>,
    overflow: Option<String>,
    duplicates: Option<String>,
    keep_duplicates: bool,
    min_score: Option<f32>,
    max_blocks: Option<usize>,
    min_truncated_tokens: Option<usize>,
    hide_metadata_keys: Vec<String>,
    header: Option<String>,
    order: Option<String>,
    max_per_source: Option<usize>,
    max_head_tokens: Option<usize>,
    cache_bytes: Option<usize>,
    /// Read by the caller from the object itself: bytes do not cross as JSON does.
    pub(crate) seal_key: Option<Vec<u8>>,
    dialect: Option<String>,
    /// Whether `entries` marks prompt-cache breakpoints, as `assemble --cache-control` does.
    pub(crate) cache_control: bool,
    pub(crate) strict: bool,
}

fn refused(message: impl Into<String>) -> Failure {
    Failure::new(ErrorCode::InvalidOption, message)
}

/// A count: a whole number, 0 or more, in the words of the command's `parse_count`.
pub(crate) fn count(name: &str, given: &Given) -> Result<Option<usize>, Failure> {
    match *given {
        Given::Nothing => Ok(None),
        // Whole numbers up to 2^53 are exact in a JavaScript number.
        Given::Number(n) if n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_992.0 => {
            Ok(Some(n as usize))
        }
        Given::Number(n) if n < 0.0 => Err(refused(format!(
            "{name}: negative; expected a whole number, 0 or more"
        ))),
        Given::Number(n) if n.is_finite() && n.fract() == 0.0 => {
            Err(refused(format!("{name}: too large")))
        }
        ref other => Err(refused(format!(
            "{name}: expected a whole number, 0 or more, got {}",
            other.described()
        ))),
    }
}

/// A string, or nothing.
pub(crate) fn text(name: &str, given: Given) -> Result<Option<String>, Failure> {
    match given {
        Given::Nothing => Ok(None),
        Given::Text(text) => Ok(Some(text)),
        other => Err(refused(format!(
            "{name}: expected a string, got {}",
            other.described()
        ))),
    }
}

/// `true` or `false`; nothing is `false`.
pub(crate) fn flag(name: &str, given: &Given) -> Result<bool, Failure> {
    match *given {
        Given::Nothing => Ok(false),
        Given::Flag(flag) => Ok(flag),
        ref other => Err(refused(format!(
            "{name}: expected true or false, got {}",
            other.described()
        ))),
    }
}

/// Parses `name` with the library's `FromStr`, keeping the library's message.
fn named<T>(name: Option<&str>) -> Result<Option<T>, Failure>
where
    T: std::str::FromStr<Err = mentor_context::Error>,
{
    name.map(|name| name.parse::<T>().map_err(|err| Failure::library(&err)))
        .transpose()
}

impl Options {
    /// Reads the entries of the options object (each a known one: `args::options` checks),
    /// refusing a value of the wrong type by name. `budget` is the constructor's first
    /// argument.
    pub(crate) fn read(budget: &Given, entries: Vec<(String, Given)>) -> Result<Options, Failure> {
        let mut read = Options {
            budget: count("budget", budget)?,
            ..Options::default()
        };
        for (name, value) in entries {
            match name.as_str() {
                "encoding" => read.encoding = text(&name, value)?,
                "model" => read.model = text(&name, value)?,
                "reserveOutput" => read.reserve_output = count(&name, &value)?,
                "promptTokens" => read.prompt_tokens = count(&name, &value)?,
                "engine" => read.engine = text(&name, value)?,
                "format" => read.format = text(&name, value)?,
                "overflow" => read.overflow = text(&name, value)?,
                "duplicates" => read.duplicates = text(&name, value)?,
                "keepDuplicates" => read.keep_duplicates = flag(&name, &value)?,
                "minScore" => {
                    read.min_score = match value {
                        Given::Nothing => None,
                        // An f32, as the command's `--min-score` parses one (NaN stays NaN, for
                        // the library to refuse).
                        Given::Number(n) => Some(n as f32),
                        other => {
                            return Err(refused(format!(
                                "minScore: expected a number, got {}",
                                other.described()
                            )));
                        }
                    }
                }
                "maxBlocks" => read.max_blocks = count(&name, &value)?,
                "minTruncatedTokens" => read.min_truncated_tokens = count(&name, &value)?,
                "hideMetadataKeys" => read.hide_metadata_keys = keys(value)?,
                "header" => read.header = text(&name, value)?,
                "order" => read.order = text(&name, value)?,
                "maxPerSource" => read.max_per_source = count(&name, &value)?,
                "maxHeadTokens" => read.max_head_tokens = count(&name, &value)?,
                "cacheBytes" => read.cache_bytes = count(&name, &value)?,
                "dialect" => read.dialect = text(&name, value)?,
                "cacheControl" => read.cache_control = flag(&name, &value)?,
                "strict" => read.strict = flag(&name, &value)?,
                // Read from the object itself by the caller; `args::options` let no other in.
                _ => {}
            }
        }
        Ok(read)
    }

    /// The builder these options describe, not yet validated (`build` does that).
    pub(crate) fn builder(&self) -> Result<ContextBuilder, Failure> {
        let (reserve, prompt) = (self.reserve_output, self.prompt_tokens);
        if self.model.is_none() && (reserve.is_some() || prompt.is_some()) {
            return Err(refused(
                "reserveOutput and promptTokens need a model, whose window they share",
            ));
        }
        self.check_choices()?;
        let window = match &self.model {
            Some(model) if reserve.is_some() || prompt.is_some() => Some(
                ModelWindow::new(model, reserve.unwrap_or(0), prompt.unwrap_or(0))
                    .map_err(|err| Failure::library(&err))?,
            ),
            _ => None,
        };
        let budget = match (self.budget, &window) {
            (Some(_), Some(_)) => {
                return Err(refused(
                    "budget and a model window (reserveOutput, promptTokens) both set the \
                     budget: give one",
                ));
            }
            (Some(budget), None) => budget,
            (None, Some(window)) => window.budget(),
            (None, None) => {
                return Err(refused(
                    "budget: missing; give the budget in tokens, or a model with \
                     reserveOutput or promptTokens",
                ));
            }
        };
        let encoding = match &self.model {
            Some(model) => Encoding::for_model(model).map_err(|err| Failure::library(&err))?,
            None => named::<Encoding>(self.encoding.as_deref())?.unwrap_or_default(),
        };
        let builder = ContextBuilder::new(budget);
        let builder = match named::<Engine>(self.engine.as_deref())? {
            Some(engine) => builder.tokenizer(
                encoding
                    .with_engine(engine)
                    .map_err(|err| Failure::library(&err))?,
            ),
            None => builder.encoding(encoding),
        };
        let builder = self
            .layout(builder)?
            .cache(self.cache_bytes.map(TokenCache::new));
        // The window last: it sets the budget (the same order as the command's builder).
        Ok(builder.window(window))
    }
}

impl Options {
    /// The combinations refused whatever sets the budget: two options choosing one thing.
    fn check_choices(&self) -> Result<(), Failure> {
        if self.model.is_some() && self.encoding.is_some() {
            return Err(refused(
                "encoding and model both choose the encoding: give one",
            ));
        }
        if self.keep_duplicates && self.duplicates.is_some() {
            return Err(refused(
                "keepDuplicates and duplicates both choose the duplicates: give one",
            ));
        }
        if self.dialect.is_some() && self.format.is_some() {
            return Err(refused(
                "dialect and format both choose what is written: give one",
            ));
        }
        if self.cache_control && self.dialect.is_none() {
            return Err(refused(
                "cacheControl marks a dialect's entries: give dialect 'anthropic' or \
                 'anthropic-documents'",
            ));
        }
        Ok(())
    }

    /// `builder` with the options that shape the context's text and selection, and the seal
    /// (not its budget, tokenizer or cache).
    fn layout(&self, builder: ContextBuilder) -> Result<ContextBuilder, Failure> {
        let duplicates = match named::<Duplicates>(self.duplicates.as_deref())? {
            Some(duplicates) => duplicates,
            None if self.keep_duplicates => Duplicates::Keep,
            None => Duplicates::default(),
        };
        let builder = builder
            .format(named::<BuiltinFormat>(self.format.as_deref())?.unwrap_or_default())
            .overflow(named::<Overflow>(self.overflow.as_deref())?.unwrap_or_default())
            .duplicates(duplicates)
            .order(named::<Order>(self.order.as_deref())?.unwrap_or_default())
            .min_score(self.min_score)
            .max_blocks(self.max_blocks)
            .min_truncated_tokens(self.min_truncated_tokens)
            .hide_metadata_keys(&self.hide_metadata_keys)
            // An empty header is no header, as the command's is.
            .header(self.header.clone().unwrap_or_default())
            .max_per_source(self.max_per_source)
            .max_head_tokens(self.max_head_tokens)
            .dialect(named::<Dialect>(self.dialect.as_deref())?);
        Ok(match &self.seal_key {
            Some(key) => builder.seal_key(key),
            None => builder,
        })
    }

    /// The context's options for a whole prompt, as the command's `prompt` takes them: all
    /// but the budget and the tokenizer, which the window and the chat template decide.
    pub(crate) fn context_options(&self) -> Result<ContextBuilder, Failure> {
        self.check_choices()?;
        self.layout(ContextBuilder::new(0))
    }

    /// The encoding `encoding` or `model` names, if either does: for the `openai` template.
    pub(crate) fn named_encoding(&self) -> Result<Option<Encoding>, Failure> {
        match &self.model {
            Some(model) => Encoding::for_model(model)
                .map(Some)
                .map_err(|err| Failure::library(&err)),
            None => named::<Encoding>(self.encoding.as_deref()),
        }
    }

    /// The first option given that sets what a whole prompt's window and template decide,
    /// and what to give instead, as the command's `prompt` refuses its flags.
    pub(crate) fn not_for_a_whole_prompt(&self) -> Option<(&'static str, &'static str)> {
        [
            (
                self.budget.is_some(),
                "budget",
                "the window sets the context's budget: give window",
            ),
            (
                self.reserve_output.is_some(),
                "reserveOutput",
                "give reserve",
            ),
            (
                self.prompt_tokens.is_some(),
                "promptTokens",
                "the whole prompt is counted: give window",
            ),
            (
                self.engine.is_some(),
                "engine",
                "the chat template's tokenizer counts",
            ),
        ]
        .into_iter()
        .find_map(|(given, name, why)| given.then_some((name, why)))
    }

    /// Whether `dialect` was given.
    pub(crate) fn names_a_dialect(&self) -> bool {
        self.dialect.is_some()
    }

    /// The bytes the cache of token counts may hold, if one was asked for.
    pub(crate) fn cache_bytes(&self) -> Option<usize> {
        self.cache_bytes
    }
}

/// `hideMetadataKeys`: an array of strings.
fn keys(given: Given) -> Result<Vec<String>, Failure> {
    let problem = |what: String| refused(format!("hideMetadataKeys: {what}"));
    match given {
        Given::Nothing => Ok(Vec::new()),
        Given::List(items) => items
            .into_iter()
            .enumerate()
            .map(|(at, item)| match item {
                Given::Text(key) => Ok(key),
                other => Err(problem(format!(
                    "[{at}]: expected a string, got {}",
                    other.described()
                ))),
            })
            .collect(),
        other => Err(problem(format!(
            "expected an array of strings, got {}",
            other.described()
        ))),
    }
}

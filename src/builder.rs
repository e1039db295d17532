//! The configuration: every choice of an assembly, set once and validated by
//! [`ContextBuilder::build`].

use std::fmt;
use std::sync::Arc;

use crate::assembler::Assembler;
use crate::cache::TokenCache;
use crate::error::Error;
use crate::format::{Format, PlainFormat};
use crate::options::{Duplicates, Overflow};
use crate::tokenizer::{Encoding, TokenCounter};

/// Content tokens a cut block needs room for, unless the budget is smaller. Less than a
/// sentence or two tells the model little and costs a head and frame.
pub const DEFAULT_MIN_TRUNCATED_TOKENS: usize = 32;

/// The configuration of an [`Assembler`]: set what differs from the defaults, then
/// [`build`](Self::build) it once and share the assembler.
///
/// Every setter states its default. The builder itself does no work and cannot fail;
/// [`build`](Self::build) checks the whole configuration once, so assembling never fails.
///
/// ```
/// use mentor_context::{ContextBuilder, Encoding, MentorRagResult, Overflow, XmlFormat};
///
/// let assembler = ContextBuilder::new(1500)
///     .encoding(Encoding::Cl100kBase)
///     .format(XmlFormat)
///     .overflow(Overflow::Skip)
///     .min_score(0.2)
///     .max_blocks(8)
///     .hide_metadata_key("chunk_id")
///     .header("Answer from these documents and cite them as [n].")
///     .build()?;
///
/// let results = [MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9)
///     .with_source_url("https://x.example/p")
///     .with_title("Prices")];
/// let context = assembler.assemble(&results);
/// assert!(context.text.contains("<document index=\"1\">"));
/// assert!(context.token_count <= 1500);
/// # Ok::<(), mentor_context::Error>(())
/// ```
#[derive(Clone)]
#[must_use = "a builder does nothing until it is built into an Assembler"]
pub struct ContextBuilder {
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
}

impl ContextBuilder {
    /// A configuration for `budget` tokens, with every other setting at its default.
    pub fn new(budget: usize) -> ContextBuilder {
        ContextBuilder {
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
        }
    }

    /// Sets the budget: the most tokens the whole text may take, header and layout included.
    pub fn budget(mut self, budget: usize) -> Self {
        self.budget = budget;
        self
    }

    /// Counts with one of OpenAI's encodings. Default: [`Encoding::O200kBase`].
    pub fn encoding(self, encoding: Encoding) -> Self {
        self.tokenizer(encoding)
    }

    /// Counts with any [`TokenCounter`]. Default: [`Encoding::O200kBase`].
    pub fn tokenizer(mut self, tokenizer: impl TokenCounter + 'static) -> Self {
        self.tokenizer = Arc::new(tokenizer);
        self
    }

    /// Writes blocks in `format`. Default: [`PlainFormat`].
    pub fn format(mut self, format: impl Format + 'static) -> Self {
        self.format = Arc::new(format);
        self
    }

    /// Sets what happens to the first block that does not fit. Default: [`Overflow::Truncate`].
    pub fn overflow(mut self, overflow: Overflow) -> Self {
        self.overflow = overflow;
        self
    }

    /// Sets what happens to results with the same source URL and content. Default:
    /// [`Duplicates::Drop`].
    pub fn duplicates(mut self, duplicates: Duplicates) -> Self {
        self.duplicates = duplicates;
        self
    }

    /// Leaves out results scored below `min` (a NaN score is below any minimum); `None`
    /// keeps every score. Default: `None`. A NaN minimum fails [`build`](Self::build).
    pub fn min_score(mut self, min: impl Into<Option<f32>>) -> Self {
        self.min_score = min.into();
        self
    }

    /// Puts at most `max` blocks in the text; `None` sets no limit. Default: `None`.
    pub fn max_blocks(mut self, max: impl Into<Option<usize>>) -> Self {
        self.max_blocks = max.into();
        self
    }

    /// With [`Overflow::Truncate`], cuts a block only if at least `min` tokens of room are
    /// left for its content after its head and frame; otherwise it is left out. The room is
    /// what is checked: the kept content can come out a few tokens smaller once the cut moves
    /// back to a word end. Default (`None`): [`DEFAULT_MIN_TRUNCATED_TOKENS`], or the budget
    /// if that is smaller. Setting it above the budget fails [`build`](Self::build).
    pub fn min_truncated_tokens(mut self, min: impl Into<Option<usize>>) -> Self {
        self.min_truncated_tokens = min.into();
        self
    }

    /// Keeps metadata `key` on the citation chips but out of the prompt. Default: every key
    /// is shown.
    pub fn hide_metadata_key(mut self, key: impl Into<String>) -> Self {
        self.hidden_keys.push(key.into());
        self
    }

    /// [`hide_metadata_key`](Self::hide_metadata_key) for each of `keys`.
    pub fn hide_metadata_keys(mut self, keys: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.hidden_keys.extend(keys.into_iter().map(Into::into));
        self
    }

    /// Puts `header` before the blocks, counted in the budget. Trailing whitespace is dropped
    /// and a newline added; an empty header adds nothing. Default: empty.
    pub fn header(mut self, header: impl Into<String>) -> Self {
        self.header = header.into();
        self
    }

    /// Remembers token counts in `cache`, so documents seen before are not tokenized again;
    /// `None` remembers nothing. Clones of a [`TokenCache`] share it, so one cache can serve
    /// several assemblers. Default: `None`.
    pub fn cache(mut self, cache: impl Into<Option<TokenCache>>) -> Self {
        self.cache = cache.into();
        self
    }

    /// Checks the configuration, does the one-off work (building the encoding's tables,
    /// counting the header and the layout), and returns the assembler.
    ///
    /// # Errors
    ///
    /// - [`Error::HeaderOverBudget`] when the header alone is over the budget;
    /// - [`Error::MinTruncatedOverBudget`] when `min_truncated_tokens` is over the budget;
    /// - [`Error::NanMinScore`] when the minimum score is NaN.
    pub fn build(&self) -> Result<Assembler, Error> {
        Assembler::new(self.clone())
    }
}

impl fmt::Debug for ContextBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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
            .finish()
    }
}

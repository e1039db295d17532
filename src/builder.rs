//! The configuration: every choice of an assembly, set once and validated by
//! [`ContextBuilder::build`].

use std::fmt;
use std::sync::Arc;

use crate::assembler::{Assembler, Choices, Config};
use crate::budget::ModelWindow;
use crate::context::AssembledContext;
use crate::dialects::Dialect;
use crate::error::Error;
use crate::format::BuiltinFormat;
use crate::format::Format;
use crate::options::{Duplicates, Order, Overflow};
use crate::seal::SealKey;
use crate::tokenizer::{Encoding, TokenCache, TokenCounter};

/// The configuration of an [`Assembler`]: set what differs from the defaults, then
/// [`build`](Self::build) it once and share the assembler.
///
/// Every setter states its default. The builder itself does no work and cannot fail;
/// [`build`](Self::build) checks the whole configuration once, so assembling never fails.
///
/// ```
/// use mentor_context::{ContextBuilder, Encoding, MentorRagResult, Overflow};
/// use mentor_context::format::XmlFormat;
///
/// let assembler = ContextBuilder::new(1500)
///     .encoding(Encoding::Cl100kBase)
///     .format(XmlFormat)
///     .overflow(Overflow::Skip)
///     .min_score(0.2)
///     .max_blocks(8)
///     .hide_metadata_key("chunk_id")
///     .header("Answer from these documents and cite them as [n].")
///    .build()?;
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
    choices: Choices,
}

impl ContextBuilder {
    /// A configuration for `budget` tokens, with every other setting at its default.
    pub fn new(budget: usize) -> ContextBuilder {
        ContextBuilder {
            choices: Choices::new(budget),
        }
    }

    /// A configuration whose budget is what `model`'s context window leaves once
    /// `reserve_output` tokens are kept for the answer and `prompt_tokens` are taken by the
    /// rest of the prompt, counted with the model's encoding. The report states the
    /// [`headroom`](crate::AssembledContext::headroom) left in the window.
    ///
    /// ```
    /// use mentor_context::ContextBuilder;
    ///
    /// let assembler = ContextBuilder::for_model("gpt-4", 1000, 192)?.build()?;
    /// assert_eq!(assembler.budget(), 8192 - 1000 - 192);
    /// assert_eq!(assembler.tokenizer_name(), "cl100k_base");
    /// # Ok::<(), mentor_context::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// - [`Error::UnknownModel`] when the model's encoding or window is not known;
    /// - [`Error::WindowTooSmall`] when the reserve and the prompt fill the window.
    pub fn for_model(
        model: &str,
        reserve_output: usize,
        prompt_tokens: usize,
    ) -> Result<ContextBuilder, Error> {
        let encoding = Encoding::for_model(model)?;
        Ok(ContextBuilder::new(0)
            .encoding(encoding)
            .window(ModelWindow::new(model, reserve_output, prompt_tokens)?))
    }

    /// Takes the budget from `window` and reports the headroom left in it. Default: none
    /// (the budget is given).
    pub fn window(mut self, window: impl Into<Option<ModelWindow>>) -> Self {
        self.choices.window = window.into();
        if let Some(window) = &self.choices.window {
            self.choices.budget = window.budget();
        }
        self
    }

    /// Arranges the chosen blocks in the text: by score, as given, or best at the edges.
    /// Which results are chosen does not change. Default: [`Order::Score`].
    pub fn order(mut self, order: Order) -> Self {
        self.choices.order = order;
        self
    }

    /// Puts at most `max` blocks from any one source URL in the text, so that results from
    /// other sources, though ranked lower, fill the room; `None` sets no limit. Results
    /// without a source URL are not counted against each other. Default: `None`.
    pub fn max_per_source(mut self, max: impl Into<Option<usize>>) -> Self {
        self.choices.max_per_source = max.into();
        self
    }

    /// Keeps each block's head (marker, title, metadata) within `max` tokens by shortening
    /// the title and metadata values at a grapheme boundary, marked with `…`; the chip says
    /// so and keeps the full values. `None` leaves heads whole. Default: `None`.
    pub fn max_head_tokens(mut self, max: impl Into<Option<usize>>) -> Self {
        self.choices.max_head_tokens = max.into();
        self
    }

    /// Sets the budget: the most tokens the whole text may take, header and layout included.
    /// A [`window`](Self::window) set before is dropped: the budget no longer derives from it.
    pub fn budget(mut self, budget: usize) -> Self {
        self.choices.budget = budget;
        self.choices.window = None;
        self
    }

    /// Counts with one of OpenAI's encodings. Default: [`Encoding::O200kBase`].
    pub fn encoding(self, encoding: Encoding) -> Self {
        self.tokenizer(encoding)
    }

    /// Counts with any [`TokenCounter`]. Default: [`Encoding::O200kBase`].
    pub fn tokenizer(mut self, tokenizer: impl TokenCounter + 'static) -> Self {
        self.choices.tokenizer = Arc::new(tokenizer);
        self
    }

    /// Counts with a tokenizer already shared (a tokenizer file's, loaded by settings).
    pub(crate) fn tokenizer_shared(mut self, tokenizer: Arc<dyn TokenCounter>) -> Self {
        self.choices.tokenizer = tokenizer;
        self
    }

    /// Writes blocks in `format`. Default: [`PlainFormat`](crate::format::PlainFormat).
    pub fn format(mut self, format: impl Format + 'static) -> Self {
        self.choices.format = Arc::new(format);
        self
    }

    /// Sets what happens to the first block that does not fit. Default: [`Overflow::Truncate`].
    pub fn overflow(mut self, overflow: Overflow) -> Self {
        self.choices.overflow = overflow;
        self
    }

    /// Sets which results count as duplicates of a better-ranked one. Default:
    /// [`Duplicates::UrlAndContent`].
    pub fn duplicates(mut self, duplicates: Duplicates) -> Self {
        self.choices.duplicates = duplicates;
        self
    }

    /// Leaves out results scored below `min` (a NaN score is below any minimum); `None`
    /// keeps every score. Default: `None`. A NaN minimum fails [`build`](Self::build).
    pub fn min_score(mut self, min: impl Into<Option<f32>>) -> Self {
        self.choices.min_score = min.into();
        self
    }

    /// Puts at most `max` blocks in the text; `None` sets no limit. Default: `None`.
    pub fn max_blocks(mut self, max: impl Into<Option<usize>>) -> Self {
        self.choices.max_blocks = max.into();
        self
    }

    /// With [`Overflow::Truncate`], cuts a block only if at least `min` tokens of room are
    /// left for its content after its head and frame; otherwise it is left out. A cut block
    /// keeps at least half of that room: the cut moves back to a sentence or word end only
    /// within the last tenth of what it keeps, else it ends at a grapheme. Default (`None`):
    /// [`DEFAULT_MIN_TRUNCATED_TOKENS`](crate::budget::DEFAULT_MIN_TRUNCATED_TOKENS), or the
    /// budget if that is smaller. Setting it above the budget fails [`build`](Self::build).
    pub fn min_truncated_tokens(mut self, min: impl Into<Option<usize>>) -> Self {
        self.choices.min_truncated_tokens = min.into();
        self
    }

    /// Keeps metadata `key` on the citation chips but out of the prompt. Default: every key
    /// is shown.
    pub fn hide_metadata_key(mut self, key: impl Into<String>) -> Self {
        self.choices.hidden_keys.push(key.into());
        self
    }

    /// [`hide_metadata_key`](Self::hide_metadata_key) for each of `keys`.
    pub fn hide_metadata_keys(mut self, keys: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.choices
            .hidden_keys
            .extend(keys.into_iter().map(Into::into));
        self
    }

    /// Puts `header` before the blocks, counted in the budget. Trailing whitespace is dropped
    /// and a newline added; an empty header adds nothing. Default: empty.
    pub fn header(mut self, header: impl Into<String>) -> Self {
        self.choices.header = header.into();
        self
    }

    /// Remembers token counts in `cache`, so documents seen before are not tokenized again;
    /// `None` remembers nothing. Clones of a [`TokenCache`] share it, so one cache can serve
    /// several assemblers. Default: `None`.
    pub fn cache(mut self, cache: impl Into<Option<TokenCache>>) -> Self {
        self.choices.cache = cache.into();
        self
    }

    /// Writes the entries of a model API's own citation dialect instead of text: the report's
    /// [`Assembler::entries`](crate::Assembler::entries) are then the JSON to put in the
    /// request, and the budget counts the text of [`DialectFormat`](crate::dialects::DialectFormat)
    /// (see [`dialects`](crate::dialects)). A [`format`](Self::format) set as well is not
    /// used. Default: none, the text formats.
    pub fn dialect(mut self, dialect: impl Into<Option<Dialect>>) -> Self {
        self.choices.dialect = dialect.into();
        self
    }

    /// Seals every report with an HMAC-SHA256 tag of `key` over the whole report, and
    /// continues in a follow-up turn only reports that carry a matching seal: for reports that
    /// leave the server (a browser session, a client's store) and come back. `key` is at
    /// least 16 bytes; 32 random bytes are best. Default: none, and a follow-up turn then
    /// trusts a report only as far as its text is well-formed (see [`seal`](crate::seal)).
    pub fn seal_key(mut self, key: impl AsRef<[u8]>) -> Self {
        self.choices.seal_key = Some(SealKey::new(key.as_ref()));
        self
    }

    /// Seals with a key already checked for nothing but being one (settings').
    pub(crate) fn seal_key_shared(mut self, key: SealKey) -> Self {
        self.choices.seal_key = Some(key);
        self
    }

    /// Writes what `report` was written in: the [`layout`](AssembledContext::layout) it
    /// records (format, header, hidden metadata keys, head cap), its dialect, and its encoding
    /// when that is a built-in one (a tokenizer of the same name, such as a tokenizer file's,
    /// is kept). Every other choice stays. For a follow-up turn or a reader that should follow
    /// the report instead of repeating its options:
    ///
    /// ```
    /// use mentor_context::{ContextBuilder, MentorRagResult};
    /// use mentor_context::format::XmlFormat;
    ///
    /// let results = [MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9)];
    /// let first = ContextBuilder::new(300).format(XmlFormat).build()?.assemble(&results);
    /// let next = ContextBuilder::new(300).layout_of(&first)?.build()?;
    /// assert!(next.assemble_follow_up(&first, &[])?.text.starts_with("<documents>"));
    /// # Ok::<(), mentor_context::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::PreviousTurnMismatch`] when the report records no layout (it was written
    /// before reports did) or was written in a format that is not built in.
    pub fn layout_of(mut self, report: &AssembledContext<'_>) -> Result<Self, Error> {
        follow_layout(report, &mut self.choices)?;
        Ok(self)
    }

    /// Checks the configuration, does the one-off work (building the encoding's tables,
    /// counting the header and the layout), and returns the assembler.
    ///
    /// # Errors
    ///
    /// - [`Error::HeaderOverBudget`] when the header alone is over the budget;
    /// - [`Error::MinTruncatedOverBudget`] when `min_truncated_tokens` is over the budget;
    /// - [`Error::NanMinScore`] when the minimum score is NaN;
    /// - [`Error::SealKeyTooShort`] when the seal key has fewer than 16 bytes.
    pub fn build(&self) -> Result<Assembler, Error> {
        Assembler::new(Config::new(self.choices.clone())?)
    }
}

/// Sets `choices` to write what a report of `report`'s layout was written in: its layout,
/// its dialect, and its encoding when that is a built-in one.
fn follow_layout(report: &AssembledContext<'_>, choices: &mut Choices) -> Result<(), Error> {
    let Some(layout) = &report.layout else {
        return Err(not_readable(
            "it records no layout (it was written before reports did): build the reader \
             with the options it was assembled with"
                .to_string(),
        ));
    };
    match report.dialect {
        Some(dialect) => choices.dialect = Some(dialect),
        None => {
            let format: BuiltinFormat = layout.format.parse().map_err(|_| {
                not_readable(format!(
                    "it was written in the {} format, which is not built in: read it with \
                     an assembler of that format",
                    layout.format
                ))
            })?;
            choices.dialect = None;
            choices.format = std::sync::Arc::new(format);
        }
    }
    choices.header.clone_from(&layout.header);
    choices.hidden_keys.clone_from(&layout.hidden_keys);
    choices.max_head_tokens = layout.max_head_tokens;
    // A tokenizer of the same name is kept: an engine chosen, a tokenizer file loaded.
    if choices.tokenizer.name() != report.encoding
        && let Ok(encoding) = report.encoding.parse::<Encoding>()
    {
        choices.tokenizer = std::sync::Arc::new(encoding);
    }
    Ok(())
}

fn not_readable(problem: String) -> Error {
    Error::previous_turn(crate::error::PreviousTurnReason::OtherLayout, problem)
}

impl fmt::Debug for ContextBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.choices.fmt(f)
    }
}

#[cfg(test)]
impl ContextBuilder {
    /// The checked configuration, for the assembler's unit tests.
    pub(crate) fn config(&self) -> Config {
        Config::new(self.choices.clone()).expect("a valid configuration")
    }
}

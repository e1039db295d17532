//! The assembler: a validated configuration that turns each request's results into a context.
//!
//! [`Assembler::assemble`] runs one [`Assembly`](placing::Assembly): rank and filter
//! (`selection.rs`), place blocks while they fit (`placing.rs`), cut the first that does not
//! (`cut.rs`), and, for a tokenizer or format whose joins are not exact, recount
//! (`recount.rs`), then arrange the blocks in the configured order (`order.rs`). `parts.rs`
//! finds the pieces of a text again, for the machinery. Heads are
//! written by `head.rs`, kept within `max_head_tokens` by `head_cap.rs`. The configuration
//! is checked once (`config.rs`), and what depends only on it is counted once (`fixed_parts.rs`).

mod config;
mod cut;
mod entries;
mod explain;
mod fixed_parts;
mod follow_up;
mod head;
mod head_cap;
#[cfg(feature = "rayon")]
mod many;
mod order;
#[cfg(feature = "unstable_machinery")]
mod parts;
mod placing;
mod recount;
mod selection;

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::budget::ModelWindow;
use crate::context::AssembledContext;
use crate::dialects::Dialect;
use crate::error::Error;
use crate::format::Format;
use crate::options::{Duplicates, Order, Overflow};
use crate::rag_result::MentorRagResult;
use crate::tokenizer::{TokenCache, TokenCounter};
pub use config::DEFAULT_MIN_TRUNCATED_TOKENS;
pub(crate) use config::{Choices, Config};
pub use explain::{SMALLEST_BUDGET_RESULTS, SmallestBudget};
use fixed_parts::FixedParts;
#[cfg(feature = "unstable_machinery")]
#[cfg_attr(docsrs, doc(cfg(feature = "unstable_machinery")))]
pub use parts::{BlockParts, Part, TextParts};
use placing::Assembly;

/// Turns ranked retrieval results into the context block of a prompt, within a token budget.
///
/// Made by [`ContextBuilder::build`](crate::ContextBuilder::build), which validated the configuration, so assembling
/// cannot fail. It is cheap to clone (the configuration is shared) and `Send + Sync`: build
/// one at start-up and call [`assemble`](Self::assemble) from every request, on any thread.
///
/// ```
/// use mentor_context::{ContextBuilder, MentorRagResult};
///
/// let assembler = ContextBuilder::new(200).build()?;
/// let results = [
///     MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9).with_title("Prices"),
///     MentorRagResult::from_content("Plan A is free.", 0.7).with_title("Plans"),
/// ];
/// let context = assembler.assemble(&results);
/// assert_eq!(context.citations.len(), 2);
/// assert!(context.text.starts_with("[1] Prices\n"));
/// # Ok::<(), mentor_context::Error>(())
/// ```
#[derive(Clone)]
pub struct Assembler {
    inner: Arc<Inner>,
}

struct Inner {
    config: Config,
    frame: FixedParts,
}

/// What an assembly cost, beyond its result: for benchmarks and performance gates
/// (feature `unstable_machinery`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
#[cfg_attr(not(feature = "unstable_machinery"), allow(unreachable_pub))]
pub struct AssemblyStats {
    /// Bytes handed to the tokenizer. A cold assembly tokenizes about the bytes of its text;
    /// a warm one (with a [`TokenCache`]) only around a cut.
    pub bytes_tokenized: usize,
}

impl Assembler {
    pub(crate) fn new(config: Config) -> Result<Assembler, Error> {
        let frame = FixedParts::new(&config)?;
        Ok(Assembler {
            inner: Arc::new(Inner { config, frame }),
        })
    }

    /// The same configuration at another budget: for requests that each bring their own (a
    /// `batch` line's `budget`). A window the budget came from is dropped, as
    /// [`ContextBuilder::budget`](crate::ContextBuilder::budget) drops it.
    ///
    /// ```
    /// use mentor_context::ContextBuilder;
    ///
    /// let assembler = ContextBuilder::new(1000).header("Cite as [n].").build()?;
    /// let small = assembler.with_budget(100)?;
    /// assert_eq!(small.budget(), 100);
    /// assert_eq!(small.header(), assembler.header());
    /// assert!(assembler.with_budget(2).is_err());
    /// # Ok::<(), mentor_context::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`ContextBuilder::build`](crate::ContextBuilder::build): the header or the minimum
    /// cut over the new budget.
    pub fn with_budget(&self, budget: usize) -> Result<Assembler, Error> {
        Assembler::new(self.inner.config.at_budget(budget)?)
    }

    /// Assembles the context for `results`.
    ///
    /// The results are ranked by score, highest first (stable; NaN last), filtered by the
    /// minimum score, duplicates and block limit, and written as blocks until the budget is
    /// full. The text's token count, as the configured tokenizer counts it, is exactly
    /// [`AssembledContext::token_count`] and never more than the budget.
    #[must_use]
    pub fn assemble<'r>(&self, results: &'r [MentorRagResult]) -> AssembledContext<'r> {
        self.run(results).0
    }

    pub(crate) fn run<'r>(
        &self,
        results: &'r [MentorRagResult],
    ) -> (AssembledContext<'r>, AssemblyStats) {
        let Inner { config, frame } = &*self.inner;
        Assembly::new(config, frame).run(results)
    }

    /// The budget: the most tokens the whole text may take.
    #[must_use]
    pub fn budget(&self) -> usize {
        self.inner.config.budget
    }

    /// The tokenizer that counts.
    #[must_use]
    pub fn tokenizer(&self) -> &dyn TokenCounter {
        &*self.inner.config.tokenizer
    }

    /// The tokenizer's name, as reported in [`AssembledContext::encoding`].
    #[must_use]
    pub fn tokenizer_name(&self) -> &str {
        self.inner.config.tokenizer.name()
    }

    /// The format blocks are written in.
    #[must_use]
    pub fn format(&self) -> &dyn Format {
        &*self.inner.config.format
    }

    /// What happens to the first block that does not fit.
    #[must_use]
    pub fn overflow(&self) -> Overflow {
        self.inner.config.overflow
    }

    /// What happens to results with the same source URL and content.
    #[must_use]
    pub fn duplicates(&self) -> Duplicates {
        self.inner.config.duplicates
    }

    /// The minimum score, if any.
    #[must_use]
    pub fn min_score(&self) -> Option<f32> {
        self.inner.config.min_score
    }

    /// The most blocks, if limited.
    #[must_use]
    pub fn max_blocks(&self) -> Option<usize> {
        self.inner.config.max_blocks
    }

    /// The room a cut block needs for its content: as set, or the default worked out for
    /// the budget.
    #[must_use]
    pub fn min_truncated_tokens(&self) -> usize {
        self.inner.config.min_truncated_tokens
    }

    /// The header as it starts the text (with its newline), or empty.
    #[must_use]
    pub fn header(&self) -> &str {
        &self.inner.config.header
    }

    /// The metadata keys kept out of the prompt.
    #[must_use]
    pub fn hidden_metadata_keys(&self) -> &[String] {
        &self.inner.config.hidden_keys
    }

    /// The dialect whose entries this assembler writes, if any.
    #[must_use]
    pub fn dialect(&self) -> Option<Dialect> {
        self.inner.config.dialect
    }

    /// The token-count cache, if any.
    #[must_use]
    pub fn cache(&self) -> Option<&TokenCache> {
        self.inner.config.cache.as_ref()
    }

    /// The order blocks are arranged in.
    #[must_use]
    pub fn order(&self) -> Order {
        self.inner.config.order
    }

    /// The most blocks from one source URL, if limited.
    #[must_use]
    pub fn max_per_source(&self) -> Option<usize> {
        self.inner.config.max_per_source
    }

    /// The most tokens a block's head may take, if capped.
    #[must_use]
    pub fn max_head_tokens(&self) -> Option<usize> {
        self.inner.config.max_head_tokens
    }

    /// The model window the budget came from, if it came from one.
    #[must_use]
    pub fn window(&self) -> Option<&ModelWindow> {
        self.inner.config.window.as_ref()
    }

    /// Whether reports are sealed, and only sealed ones continued. The key is never shown.
    #[must_use]
    pub fn seals(&self) -> bool {
        self.inner.config.seal_key.is_some()
    }

    /// The layout this assembler's reports record: what they are compared with when read
    /// back or continued.
    #[must_use]
    pub fn layout(&self) -> crate::Layout {
        self.inner.config.layout()
    }
}

impl fmt::Debug for Assembler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Assembler")
            .field("config", &self.inner.config)
            .field("frame", &self.inner.frame)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ContextBuilder;

    #[test]
    fn assemblers_are_shareable_across_threads() {
        fn shareable<T: Send + Sync + Clone + fmt::Debug>() {}
        shareable::<Assembler>();
        shareable::<crate::ContextBuilder>();
    }

    #[test]
    fn getters_report_the_configuration() {
        let assembler = ContextBuilder::new(100)
            .header("  Cite as [n].  ")
            .max_blocks(3)
            .min_score(0.25)
            .hide_metadata_keys(["a", "b"])
            .overflow(Overflow::Skip)
            .duplicates(Duplicates::Keep)
            .build()
            .unwrap();
        assert_eq!(assembler.budget(), 100);
        assert_eq!(assembler.header(), "  Cite as [n].\n");
        assert_eq!(assembler.max_blocks(), Some(3));
        assert_eq!(assembler.min_score(), Some(0.25));
        assert_eq!(assembler.hidden_metadata_keys(), ["a", "b"]);
        assert_eq!(assembler.overflow(), Overflow::Skip);
        assert_eq!(assembler.duplicates(), Duplicates::Keep);
        assert_eq!(assembler.tokenizer_name(), "o200k_base");
        assert_eq!(assembler.format().name(), "plain");
        assert_eq!(assembler.min_truncated_tokens(), 32);
        assert!(assembler.cache().is_none());
        let small = ContextBuilder::new(7).build().unwrap();
        assert_eq!(small.min_truncated_tokens(), 7);
        let unset = ContextBuilder::new(100)
            .max_blocks(3)
            .max_blocks(None)
            .build()
            .unwrap();
        assert_eq!(unset.max_blocks(), None);
    }
}

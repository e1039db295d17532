//! Explaining an empty context: how many tokens the smallest block would need.

use super::head::write_head;
use super::selection::ranked;
use super::{Assembler, Inner};
use crate::meter::Meter;
use crate::options::Overflow;
use crate::rag_result::MentorRagResult;

/// The best-ranked results an explanation looks at: enough to name what the budget must be
/// for the results that matter, few enough that explaining costs about as much as assembling
/// once, whatever the length of the input.
pub const SMALLEST_BUDGET_RESULTS: usize = 64;

/// Budgets are searched up to this many times the configured one (at least 4,096 tokens):
/// beyond, the need is reported as "more than" the bound, and the cost of explaining stays
/// within a few assemblies at that size.
const MAX_BUDGETS_SEARCHED: usize = 4;

/// How many tokens the smallest block needs, as [`Assembler::smallest_budget`] found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SmallestBudget {
    /// The least budget at which a block is in the text.
    Exactly(usize),
    /// No budget up to this one puts a block in the text; the search stopped there.
    MoreThan(usize),
}

impl Assembler {
    /// The smallest budget, all other settings kept, at which the text of `results` is not
    /// empty: to explain an empty context ("the smallest block needs 69 tokens"). `None` when
    /// no result could ever be in it (all below the minimum score, or a block limit of 0).
    ///
    /// Beyond 4 budgets (at least 4,096 tokens) it stops looking and says so
    /// ([`SmallestBudget::MoreThan`]). It counts every eligible result up to that bound, then assembles at
    /// a few budgets (doubling steps, then halving): call it when explaining, not on every
    /// request. Of more than [`SMALLEST_BUDGET_RESULTS`] results, only that many best-ranked ones
    /// (copied) are looked at, so the cost does not grow with the input: the answer is then
    /// the smallest budget at which one of them would be in the text.
    ///
    /// ```
    /// use mentor_context::{ContextBuilder, MentorRagResult};
    /// use mentor_context::budget::SmallestBudget;
    ///
    /// let results = [MentorRagResult::from_content("Plan B costs 12 EUR a month.", 0.9)];
    /// let assembler = ContextBuilder::new(5).build()?;
    /// assert!(assembler.assemble(&results).citations.is_empty());
    /// let Some(SmallestBudget::Exactly(need)) = assembler.smallest_budget(&results) else { panic!() };
    /// let roomy = ContextBuilder::new(need).build()?;
    /// assert_eq!(roomy.assemble(&results).citations.len(), 1);
    /// # Ok::<(), mentor_context::Error>(())
    /// ```
    #[must_use]
    pub fn smallest_budget(&self, results: &[MentorRagResult]) -> Option<SmallestBudget> {
        if results.len() > SMALLEST_BUDGET_RESULTS {
            let best: Vec<MentorRagResult> = ranked(results)
                .into_iter()
                .take(SMALLEST_BUDGET_RESULTS)
                .map(|i| results[i].clone())
                .collect();
            return self.smallest_budget(&best);
        }
        let (lower, ceiling) = self.need_at_least(results)?;
        let works = |budget: usize| {
            self.with_budget(budget)
                .is_ok_and(|assembler| !assembler.assemble(results).citations.is_empty())
        };
        // Budgets below `lower` cannot work. Step up from it in doubling steps, then bisect
        // between the last that failed and the first that worked.
        let (mut failed, mut worked, mut step) = (lower.checked_sub(1), lower, 1usize);
        if lower > ceiling {
            return Some(SmallestBudget::MoreThan(ceiling));
        }
        while !works(worked) {
            if worked >= ceiling {
                return Some(SmallestBudget::MoreThan(ceiling));
            }
            failed = Some(worked);
            worked = worked.saturating_add(step).min(ceiling);
            step = step.saturating_mul(2);
        }
        while let Some(fail) = failed
            && worked - fail > 1
        {
            let mid = fail + (worked - fail) / 2;
            if works(mid) {
                worked = mid;
            } else {
                failed = Some(mid);
            }
        }
        Some(SmallestBudget::Exactly(worked))
    }

    /// A budget below which no result can be in the text, and where to stop looking; `None`
    /// if none ever can.
    fn need_at_least(&self, results: &[MentorRagResult]) -> Option<(usize, usize)> {
        let Inner { config, frame } = &*self.inner;
        if config.max_blocks == Some(0) {
            return None;
        }
        let tokenizer = &*config.tokenizer;
        let mut meter = Meter::new(tokenizer, config.cache.as_ref());
        let format = &*config.format;
        let ceiling = config
            .budget
            .max(64)
            .saturating_mul(MAX_BUDGETS_SEARCHED)
            .max(4096);
        let mut best: Option<usize> = None;
        let mut block = String::new();
        for result in results {
            let passes = config.min_score.is_none_or(|min| result.score >= min)
                && (config.max_per_source != Some(0) || result.source_url.is_none());
            if !passes {
                continue;
            }
            let mut need = ceiling.min(best.unwrap_or(usize::MAX));
            if config.overflow == Overflow::Truncate {
                block.clear();
                let _ = write_head(config, result, 1, true, &mut block);
                // A head is counted no further than it could help: it can be megabytes.
                if let Some(head) = meter.measure(&block, need, None) {
                    let cut = head
                        .saturating_add(frame.cut_open_tokens)
                        .saturating_add(frame.cut_close_tokens)
                        .saturating_add(config.min_truncated_tokens.max(1));
                    need = need.min(cut);
                }
            }
            block.clear();
            let _ = write_head(config, result, 1, false, &mut block);
            // No more content than could fit in `need` tokens is rendered.
            let reach = need
                .saturating_add(1)
                .saturating_mul(tokenizer.max_token_bytes());
            let content = &result.content;
            let prefix = &content[..content.floor_char_boundary(reach.min(content.len()))];
            format.content_open(prefix, &mut block);
            format.content(prefix, &mut block);
            format.content_close(prefix, false, &mut block);
            if let Some(whole) = meter.measure(&block, need, None)
                && prefix.len() == content.len()
            {
                need = need.min(whole);
            }
            best = Some(best.map_or(need, |b| b.min(need)));
        }
        best.map(|need| {
            (
                need + frame.header_tokens + frame.open_close_tokens,
                ceiling,
            )
        })
    }
}

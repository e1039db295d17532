//! Which results are candidates for a block, in which order, and why the others are left out.

use std::cmp::Ordering;
use std::collections::HashMap;

use rustc_hash::FxHashMap;

use super::config::Config;
use crate::context::OmitReason;
use crate::hash::{hash_wide, process_seed};
use crate::options::Duplicates;
use crate::rag_result::MentorRagResult;

/// Indices of `results`, best first: by score, descending, stable, NaN last.
///
/// Sorts compact `(key, index)` pairs rather than indices compared through the results: with
/// thousands of results, chasing each score through memory cost more than the sort. The index
/// breaks ties, so an unstable sort of the pairs is stable by score.
pub(super) fn ranked(results: &[MentorRagResult]) -> Vec<usize> {
    let mut keys: Vec<(u32, usize)> = results
        .iter()
        .enumerate()
        .map(|(i, r)| (descending_key(r.score), i))
        .collect();
    keys.sort_unstable();
    keys.into_iter().map(|(_, i)| i).collect()
}

/// A key whose ascending order is descending score, with NaN after every number and -0.0
/// equal to 0.0.
fn descending_key(score: f32) -> u32 {
    if score.is_nan() {
        return u32::MAX;
    }
    let bits = if score == 0.0 { 0 } else { score.to_bits() };
    // Negative floats order backwards by their bits, positive ones forwards: flip so that
    // the integers order as the floats do.
    let ascending = if bits >> 31 == 1 {
        !bits
    } else {
        bits | 1 << 31
    };
    !ascending
}

/// The filters a result passes before it is tried as a block, applied in one order
/// everywhere: the minimum score, duplicates, the limit per source, the block limit.
pub(super) struct Filters<'c, 'r> {
    config: &'c Config,
    /// Results already tried as blocks, by the fingerprint of their source URL and content,
    /// to find duplicates among in expected constant time each. The key is already a hash,
    /// seeded per process, so the map needs no second one resistant to crafted keys.
    tried: FxHashMap<u64, Vec<&'r MentorRagResult>>,
    seed: u64,
    /// Blocks placed per source URL, counted only when there is a limit per source.
    per_source: HashMap<&'r str, usize>,
}

impl<'c, 'r> Filters<'c, 'r> {
    pub(super) fn new(config: &'c Config) -> Self {
        Filters {
            config,
            tried: FxHashMap::default(),
            seed: process_seed(),
            per_source: HashMap::new(),
        }
    }

    /// Notes that `result` went into the text, for the limit per source. A result that was
    /// tried but did not fit takes no room from its source.
    pub(super) fn placed(&mut self, result: &'r MentorRagResult) {
        if self.config.max_per_source.is_some()
            && let Some(url) = result.source_url.as_deref()
        {
            *self.per_source.entry(url).or_default() += 1;
        }
    }

    /// Why `result` is left out before it is tried, with `blocks` blocks already in; `None`
    /// if it is to be tried, and is then remembered as tried.
    pub(super) fn admit(
        &mut self,
        result: &'r MentorRagResult,
        blocks: usize,
    ) -> Option<OmitReason> {
        let mut key = None;
        let reason = self.reason(result, blocks, || {
            let fingerprint = self.key(result);
            key = Some(fingerprint);
            self.seen(fingerprint, result)
        });
        // `key` is set only when duplicates are looked for.
        if reason.is_none()
            && let Some(key) = key
        {
            self.tried.entry(key).or_default().push(result);
        }
        reason
    }

    /// Why `result` is left out once the budget is full: the first filter that applies, else
    /// [`OmitReason::DidNotFit`]. Duplicates are not looked for here: hashing the rest would
    /// cost time in proportion to the input, not the output.
    pub(super) fn reason_after_full(&self, result: &MentorRagResult, blocks: usize) -> OmitReason {
        self.reason(result, blocks, || false)
            .unwrap_or(OmitReason::DidNotFit)
    }

    /// The first filter that leaves `result` out, in their one order; `is_duplicate` is asked
    /// only when duplicates are dropped and the score passes.
    fn reason(
        &self,
        result: &MentorRagResult,
        blocks: usize,
        is_duplicate: impl FnOnce() -> bool,
    ) -> Option<OmitReason> {
        if self.below_min_score(result.score) {
            Some(OmitReason::BelowMinScore)
        } else if self.config.duplicates != Duplicates::Keep && is_duplicate() {
            Some(OmitReason::Duplicate)
        } else if self.source_is_full(result) {
            Some(OmitReason::OverSourceLimit)
        } else if self.config.max_blocks.is_some_and(|max| blocks >= max) {
            Some(OmitReason::OverBlockLimit)
        } else {
            None
        }
    }

    /// Whether `score` is below the minimum; NaN is below any minimum.
    fn below_min_score(&self, score: f32) -> bool {
        self.config.min_score.is_some_and(|min| {
            !matches!(
                score.partial_cmp(&min),
                Some(Ordering::Greater | Ordering::Equal)
            )
        })
    }

    /// Whether the source of `result` already has the most blocks allowed. Results without
    /// a source URL are not counted against each other: nothing says they share a source.
    fn source_is_full(&self, result: &MentorRagResult) -> bool {
        self.config.max_per_source.is_some_and(|max| {
            result
                .source_url
                .as_deref()
                .is_some_and(|url| self.per_source.get(url).copied().unwrap_or(0) >= max)
        })
    }

    /// Whether the duplicates mode compares source URLs as well as content.
    fn same_url_too(&self) -> bool {
        self.config.duplicates == Duplicates::UrlAndContent
    }

    /// Whether a result that counts as the same as `result` (whose fingerprint is `key`) was
    /// already tried.
    fn seen(&self, key: u64, result: &MentorRagResult) -> bool {
        let same_url_too = self.same_url_too();
        self.tried.get(&key).is_some_and(|tried| {
            tried.iter().any(|seen| {
                (!same_url_too || seen.source_url == result.source_url)
                    && seen.content == result.content
            })
        })
    }

    /// The fingerprint duplicates share: content, and the source URL (or its absence) when
    /// the mode compares it.
    fn key(&self, result: &MentorRagResult) -> u64 {
        let content = result.content.as_bytes();
        if !self.same_url_too() {
            return hash_wide(self.seed, &[content]);
        }
        let url = result.source_url.as_deref().map_or(&[][..], str::as_bytes);
        let has_url: &[u8] = if result.source_url.is_some() {
            b"u"
        } else {
            b""
        };
        hash_wide(self.seed, &[has_url, url, content])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ContextBuilder;

    #[test]
    fn descending_keys_order_scores_high_to_low_with_nan_last() {
        let scores = [
            f32::INFINITY,
            1.5,
            f32::MIN_POSITIVE / 4.0,
            0.0,
            -f32::MIN_POSITIVE / 4.0,
            -1.5,
            f32::NEG_INFINITY,
            f32::NAN,
        ];
        for pair in scores.windows(2) {
            assert!(
                descending_key(pair[0]) < descending_key(pair[1]),
                "{} before {}",
                pair[0],
                pair[1]
            );
        }
        assert_eq!(descending_key(-0.0), descending_key(0.0));
        assert_eq!(descending_key(-f32::NAN), descending_key(f32::NAN));
    }

    #[test]
    fn filters_apply_in_order_and_remember_only_what_they_admit() {
        let config = ContextBuilder::new(10)
            .min_score(0.5)
            .max_blocks(1)
            .config();
        let mut filters = Filters::new(&config);
        let low = MentorRagResult::from_content("a", 0.1);
        let good = MentorRagResult::from_content("a", 0.9);
        assert_eq!(filters.admit(&low, 0), Some(OmitReason::BelowMinScore));
        assert_eq!(filters.admit(&good, 0), None);
        assert_eq!(filters.admit(&good, 0), Some(OmitReason::Duplicate));
        assert_eq!(filters.admit(&good, 1), Some(OmitReason::Duplicate));
        let other = MentorRagResult::from_content("b", 0.9);
        assert_eq!(filters.admit(&other, 1), Some(OmitReason::OverBlockLimit));
        assert_eq!(filters.reason_after_full(&good, 0), OmitReason::DidNotFit);
        assert_eq!(
            filters.reason_after_full(&low, 0),
            OmitReason::BelowMinScore
        );
        assert_eq!(
            filters.reason_after_full(&other, 1),
            OmitReason::OverBlockLimit
        );
        // The minimum itself passes.
        let edge = MentorRagResult::from_content("c", 0.5);
        assert_eq!(filters.admit(&edge, 0), None);
    }

    #[test]
    fn content_duplicates_ignore_the_url_and_url_duplicates_do_not() {
        let a = MentorRagResult::from_content("same", 0.9).with_source_url("https://a.example");
        let b = MentorRagResult::from_content("same", 0.8).with_source_url("https://b.example");
        let c = MentorRagResult::from_content("same", 0.7).with_source_url("https://a.example");
        for (mode, b_reason, c_reason) in [
            (Duplicates::UrlAndContent, None, Some(OmitReason::Duplicate)),
            (
                Duplicates::Content,
                Some(OmitReason::Duplicate),
                Some(OmitReason::Duplicate),
            ),
            (Duplicates::Keep, None, None),
        ] {
            let config = ContextBuilder::new(10).duplicates(mode).config();
            let mut filters = Filters::new(&config);
            assert_eq!(filters.admit(&a, 0), None);
            assert_eq!(filters.admit(&b, 1), b_reason, "{mode}");
            assert_eq!(filters.admit(&c, 1), c_reason, "{mode}");
        }
    }

    #[test]
    fn the_limit_per_source_counts_placed_blocks_of_that_source_only() {
        let config = ContextBuilder::new(10).max_per_source(1).config();
        let mut filters = Filters::new(&config);
        let a1 = MentorRagResult::from_content("1", 0.9).with_source_url("https://a.example");
        let a2 = MentorRagResult::from_content("2", 0.8).with_source_url("https://a.example");
        let b = MentorRagResult::from_content("3", 0.7).with_source_url("https://b.example");
        let none = MentorRagResult::from_content("4", 0.6);
        assert_eq!(filters.admit(&a1, 0), None);
        // Tried but not placed (it did not fit): the source still has room.
        assert_eq!(filters.admit(&a2, 0), None);
        filters.placed(&a2);
        let a3 = MentorRagResult::from_content("5", 0.5).with_source_url("https://a.example");
        assert_eq!(filters.admit(&a3, 1), Some(OmitReason::OverSourceLimit));
        assert_eq!(
            filters.reason_after_full(&a3, 1),
            OmitReason::OverSourceLimit
        );
        assert_eq!(filters.admit(&b, 1), None);
        filters.placed(&none);
        filters.placed(&none);
        assert_eq!(filters.admit(&none, 2), None);
    }
}

//! The one-line summary of a batch run: what was asked, what failed, how full the contexts
//! are, what was left out, and how long assembling took.
//!
//! It is kept in fixed-size histograms (`histogram.rs`), not per request, so that a run's
//! memory does not grow with the length of its input.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use mentor_context::{AssembledContext, OmitReason};

use super::histogram::{FILL_STEPS, Histogram, bucket_value, fill_text, time_text, value_bucket};

/// What the summary needs of one context: a few numbers, not the context.
#[derive(Debug, Clone)]
pub(crate) struct Sample {
    token_count: usize,
    budget: usize,
    assemble_ns: u64,
    /// Results left out, per reason (its wire name).
    omitted: Vec<(&'static str, u64)>,
}

impl Sample {
    /// The sample of `context`, assembled in `took`.
    pub(crate) fn new(context: &AssembledContext<'_>, took: Duration) -> Sample {
        let mut omitted: Vec<(&'static str, u64)> = Vec::new();
        for omission in &context.omitted {
            let reason = reason_name(omission.reason);
            match omitted.iter_mut().find(|(r, _)| *r == reason) {
                Some((_, n)) => *n += 1,
                None => omitted.push((reason, 1)),
            }
        }
        Sample {
            token_count: context.token_count,
            budget: context.budget,
            assemble_ns: u64::try_from(took.as_nanos()).unwrap_or(u64::MAX),
            omitted,
        }
    }

    /// The context's tokens.
    pub(super) fn token_count(&self) -> usize {
        self.token_count
    }

    /// The budget it was assembled for.
    pub(super) fn budget(&self) -> usize {
        self.budget
    }

    /// How long assembling took, in nanoseconds.
    pub(super) fn assemble_ns(&self) -> u64 {
        self.assemble_ns
    }

    /// Its fill, in thousandths: an empty budget is as full as it can be.
    pub(super) fn fill(&self) -> usize {
        self.token_count
            .saturating_mul(FILL_STEPS)
            .checked_div(self.budget)
            .unwrap_or(FILL_STEPS)
    }
}

/// A reason's name as the JSON reports spell it.
pub(super) fn reason_name(reason: OmitReason) -> &'static str {
    match reason {
        OmitReason::BelowMinScore => "belowMinScore",
        OmitReason::Duplicate => "duplicate",
        OmitReason::OverBlockLimit => "overBlockLimit",
        OmitReason::DidNotFit => "didNotFit",
        // `OmitReason` is non-exhaustive; a new reason is still counted.
        _ => "other",
    }
}

/// Everything the summary line reports, added up as reports are written.
#[derive(Debug, Clone)]
pub(crate) struct Summary {
    requests: u64,
    failures: u64,
    tokens: u64,
    fill: Histogram,
    assemble_ns: Histogram,
    /// Omitted results per reason, by the reason's wire name.
    omitted: BTreeMap<&'static str, u64>,
}

impl Default for Summary {
    fn default() -> Self {
        Summary {
            requests: 0,
            failures: 0,
            tokens: 0,
            fill: Histogram::of_fills(),
            assemble_ns: Histogram::of_values(),
            omitted: BTreeMap::new(),
        }
    }
}

impl Summary {
    /// Counts a line: a context's sample, or `None` for a line that gave an error.
    pub(crate) fn add(&mut self, sample: Option<&Sample>) {
        self.requests += 1;
        let Some(sample) = sample else {
            self.failures += 1;
            return;
        };
        self.tokens += sample.token_count as u64;
        self.fill.add(sample.fill());
        self.assemble_ns.add(value_bucket(sample.assemble_ns));
        for &(reason, count) in &sample.omitted {
            *self.omitted.entry(reason).or_default() += count;
        }
    }

    /// Lines counted so far.
    pub(crate) fn requests(&self) -> u64 {
        self.requests
    }

    /// Whether any line gave an error.
    pub(crate) fn failed(&self) -> bool {
        self.failures > 0
    }

    /// Lines that gave an error.
    pub(super) fn failures(&self) -> u64 {
        self.failures
    }

    /// Tokens of all the contexts.
    pub(super) fn tokens(&self) -> u64 {
        self.tokens
    }

    /// The fills, in thousandths.
    pub(super) fn fills(&self) -> &Histogram {
        &self.fill
    }

    /// The assemble times, by [`value_bucket`].
    pub(super) fn assemble_times(&self) -> &Histogram {
        &self.assemble_ns
    }

    /// Omitted results per reason, by the reason's wire name.
    pub(super) fn omitted(&self) -> &BTreeMap<&'static str, u64> {
        &self.omitted
    }

    /// The summary line, for a run that took `elapsed`.
    pub(crate) fn line(&self, elapsed: Duration) -> String {
        let mut line = format!(
            "batch: {} requests, {} failed; {} tokens",
            self.requests, self.failures, self.tokens
        );
        if let (Some(median), Some(p10)) = (self.fill.quantile(0.5), self.fill.quantile(0.1)) {
            let _ = write!(
                line,
                "; fill median {}, p10 {}",
                fill_text(median),
                fill_text(p10)
            );
        }
        let omitted: Vec<String> = self
            .omitted
            .iter()
            .map(|(reason, n)| format!("{reason} {n}"))
            .collect();
        let omitted = if omitted.is_empty() {
            "none".to_string()
        } else {
            omitted.join(", ")
        };
        let _ = write!(line, "; omitted: {omitted}");
        if let (Some(median), Some(p99)) = (
            self.assemble_ns.quantile(0.5),
            self.assemble_ns.quantile(0.99),
        ) {
            let _ = write!(
                line,
                "; assemble median {}, p99 {}",
                time_text(bucket_value(median)),
                time_text(bucket_value(p99))
            );
        }
        let seconds = elapsed.as_secs_f64();
        if seconds > 0.0 {
            #[allow(clippy::cast_precision_loss)]
            let rate = self.requests as f64 / seconds;
            let _ = write!(line, "; {rate:.0} requests/s");
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reason_names_are_the_wire_names() {
        for reason in [
            OmitReason::BelowMinScore,
            OmitReason::Duplicate,
            OmitReason::OverBlockLimit,
            OmitReason::DidNotFit,
        ] {
            assert_eq!(
                serde_json::to_value(reason).unwrap(),
                reason_name(reason),
                "{reason}"
            );
        }
    }

    #[test]
    fn the_line_reports_every_figure() {
        let mut summary = Summary::default();
        assert!(!summary.failed());
        summary.add(None);
        summary.add(None);
        assert!(summary.failed());
        let line = summary.line(Duration::from_secs(1));
        assert_eq!(
            line,
            "batch: 2 requests, 2 failed; 0 tokens; omitted: none; 2 requests/s"
        );
    }
}

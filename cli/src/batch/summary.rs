//! The one-line summary of a batch run: what was asked, what failed, how full the contexts
//! are, what was left out, and how long assembling took.
//!
//! It is kept in fixed-size histograms, not per request, so that a run's memory does not grow
//! with the length of its input.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use mentor_context::{AssembledContext, OmitReason};

/// Fill (tokens over budget) is kept to a thousandth.
const FILL_STEPS: usize = 1000;

/// Times are kept to three significant digits: a bucket per value from 100 to 999 at each
/// power of ten, enough for any `u64` of nanoseconds.
const SIGNIFICANT: u64 = 1000;
const DECADES: usize = 20;
const PER_DECADE: usize = 900;

/// Counts of values, to read percentiles from.
#[derive(Debug, Clone)]
struct Histogram {
    counts: Vec<u64>,
    total: u64,
}

impl Histogram {
    fn new(buckets: usize) -> Histogram {
        Histogram {
            counts: vec![0; buckets],
            total: 0,
        }
    }

    fn add(&mut self, bucket: usize) {
        let last = self.counts.len() - 1;
        self.counts[bucket.min(last)] += 1;
        self.total += 1;
    }

    /// The bucket holding the `q`-quantile (nearest rank), if anything was added.
    fn quantile(&self, q: f64) -> Option<usize> {
        if self.total == 0 {
            return None;
        }
        // Nearest rank: the smallest value with at least q of all values at or below it.
        #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
        #[allow(clippy::cast_sign_loss)]
        let rank = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
        let mut seen = 0;
        self.counts.iter().position(|&count| {
            seen += count;
            seen >= rank
        })
    }
}

/// The bucket of a time in nanoseconds, to three significant digits.
fn time_bucket(ns: u64) -> usize {
    if ns < SIGNIFICANT {
        return usize::try_from(ns).unwrap_or(0);
    }
    let (mut mantissa, mut decade) = (ns, 0);
    while mantissa >= SIGNIFICANT {
        mantissa /= 10;
        decade += 1;
    }
    // Values below 1000 take the first 1000 buckets; each decade after adds 900.
    1000 + (decade - 1) * PER_DECADE + usize::try_from(mantissa - 100).unwrap_or(0)
}

/// The smallest time in nanoseconds that falls in `bucket`.
fn bucket_time(bucket: usize) -> u64 {
    if bucket < 1000 {
        return bucket as u64;
    }
    let decade = (bucket - 1000) / PER_DECADE + 1;
    let mantissa = ((bucket - 1000) % PER_DECADE + 100) as u64;
    mantissa * 10u64.pow(u32::try_from(decade).unwrap_or(0))
}

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
}

/// A reason's name as the JSON reports spell it.
fn reason_name(reason: OmitReason) -> &'static str {
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
            fill: Histogram::new(FILL_STEPS + 1),
            assemble_ns: Histogram::new(1000 + DECADES * PER_DECADE),
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
        // An empty budget is as full as it can be.
        let fill = sample
            .token_count
            .saturating_mul(FILL_STEPS)
            .checked_div(sample.budget)
            .unwrap_or(FILL_STEPS);
        self.fill.add(fill);
        self.assemble_ns.add(time_bucket(sample.assemble_ns));
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
                time_text(bucket_time(median)),
                time_text(bucket_time(p99))
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

/// A fill bucket as a decimal fraction: `0.987`.
fn fill_text(bucket: usize) -> String {
    format!("{}.{:03}", bucket / FILL_STEPS, bucket % FILL_STEPS)
}

/// A time in a unit that reads at a glance: `412.0 us`, `1.25 ms`.
fn time_text(ns: u64) -> String {
    #[allow(clippy::cast_precision_loss)]
    let ns_f = ns as f64;
    if ns < 1_000_000 {
        format!("{:.1} us", ns_f / 1e3)
    } else if ns < 1_000_000_000 {
        format!("{:.2} ms", ns_f / 1e6)
    } else {
        format!("{:.2} s", ns_f / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_keep_three_significant_digits() {
        for ns in [
            0,
            7,
            999,
            1000,
            1234,
            56_789,
            412_345,
            987_654_321,
            u64::MAX,
        ] {
            let bucket = time_bucket(ns);
            let low = bucket_time(bucket);
            assert!(low <= ns, "{ns}: {low}");
            // Within 1% below the value.
            assert!(ns - low <= ns / 100, "{ns}: {low}");
        }
        assert!(time_bucket(u64::MAX) < 1000 + DECADES * PER_DECADE);
        assert_eq!(bucket_time(time_bucket(412_345)), 412_000);
    }

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
    fn quantiles_are_nearest_rank() {
        let mut h = Histogram::new(11);
        for v in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] {
            h.add(v);
        }
        assert_eq!(h.quantile(0.5), Some(5));
        assert_eq!(h.quantile(0.1), Some(1));
        assert_eq!(h.quantile(0.99), Some(10));
        assert_eq!(Histogram::new(3).quantile(0.5), None);
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
        assert_eq!(fill_text(987), "0.987");
        assert_eq!(fill_text(1000), "1.000");
        assert_eq!(time_text(412_000), "412.0 us");
        assert_eq!(time_text(1_250_000), "1.25 ms");
    }
}

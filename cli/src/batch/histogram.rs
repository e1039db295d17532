//! Fixed-size histograms: a run's figures are read from counts of values in buckets, so its
//! memory does not grow with the length of its input.
//!
//! Fill (tokens over budget) is kept to a thousandth. Times and token counts are kept to three
//! significant digits: a bucket per value below 1,000, then one per value from 100 to 999 at
//! each power of ten, enough for any `u64`.

/// Fill buckets per unit: fill is kept to a thousandth.
pub(super) const FILL_STEPS: usize = 1000;

const SIGNIFICANT: u64 = 1000;
const DECADES: usize = 20;
const PER_DECADE: usize = 900;

/// How many buckets a histogram of [`value_bucket`]s has.
pub(super) const VALUE_BUCKETS: usize = 1000 + DECADES * PER_DECADE;

/// Counts of values, to read percentiles from.
#[derive(Debug, Clone)]
pub(super) struct Histogram {
    counts: Vec<u64>,
    total: u64,
}

impl Histogram {
    pub(super) fn new(buckets: usize) -> Histogram {
        Histogram {
            counts: vec![0; buckets],
            total: 0,
        }
    }

    /// A histogram of fills, `0..=FILL_STEPS` thousandths.
    pub(super) fn of_fills() -> Histogram {
        Histogram::new(FILL_STEPS + 1)
    }

    /// A histogram of times or counts, by [`value_bucket`].
    pub(super) fn of_values() -> Histogram {
        Histogram::new(VALUE_BUCKETS)
    }

    pub(super) fn add(&mut self, bucket: usize) {
        let last = self.counts.len() - 1;
        self.counts[bucket.min(last)] += 1;
        self.total += 1;
    }

    /// The bucket holding the `q`-quantile (nearest rank), if anything was added.
    pub(super) fn quantile(&self, q: f64) -> Option<usize> {
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

    /// The buckets that hold values, with their counts, in order.
    pub(super) fn filled(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.counts
            .iter()
            .enumerate()
            .filter(|&(_, &count)| count > 0)
            .map(|(bucket, &count)| (bucket, count))
    }
}

/// The bucket of a value (nanoseconds, tokens), to three significant digits.
pub(super) fn value_bucket(value: u64) -> usize {
    if value < SIGNIFICANT {
        return usize::try_from(value).unwrap_or(0);
    }
    let (mut mantissa, mut decade) = (value, 0);
    while mantissa >= SIGNIFICANT {
        mantissa /= 10;
        decade += 1;
    }
    // Values below 1000 take the first 1000 buckets; each decade after adds 900.
    1000 + (decade - 1) * PER_DECADE + usize::try_from(mantissa - 100).unwrap_or(0)
}

/// The smallest value that falls in `bucket`.
pub(super) fn bucket_value(bucket: usize) -> u64 {
    if bucket < 1000 {
        return bucket as u64;
    }
    let decade = (bucket - 1000) / PER_DECADE + 1;
    let mantissa = ((bucket - 1000) % PER_DECADE + 100) as u64;
    mantissa.saturating_mul(10u64.saturating_pow(u32::try_from(decade).unwrap_or(u32::MAX)))
}

/// The smallest value that falls in the bucket after `bucket`: where `bucket` ends.
pub(super) fn bucket_end(bucket: usize) -> u64 {
    if bucket + 1 >= VALUE_BUCKETS {
        return u64::MAX;
    }
    bucket_value(bucket + 1)
}

/// A fill bucket as a decimal fraction: `0.987`.
pub(super) fn fill_text(bucket: usize) -> String {
    format!("{}.{:03}", bucket / FILL_STEPS, bucket % FILL_STEPS)
}

/// A time in a unit that reads at a glance: `412.0 us`, `1.25 ms`.
pub(super) fn time_text(ns: u64) -> String {
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
    fn values_keep_three_significant_digits() {
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
            let bucket = value_bucket(ns);
            let low = bucket_value(bucket);
            assert!(low <= ns, "{ns}: {low}");
            // Within 1% below the value.
            assert!(ns - low <= ns / 100, "{ns}: {low}");
            assert!(
                bucket_end(bucket) > ns || bucket_end(bucket) == u64::MAX,
                "{ns}"
            );
        }
        assert!(value_bucket(u64::MAX) < VALUE_BUCKETS);
        assert_eq!(bucket_value(value_bucket(412_345)), 412_000);
        assert_eq!(bucket_end(value_bucket(412_345)), 413_000);
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
        assert_eq!(h.filled().count(), 10);
    }

    #[test]
    fn figures_read_at_a_glance() {
        assert_eq!(fill_text(987), "0.987");
        assert_eq!(fill_text(1000), "1.000");
        assert_eq!(time_text(412_000), "412.0 us");
        assert_eq!(time_text(1_250_000), "1.25 ms");
    }
}

//! `GET /metrics`: requests by endpoint and status, and a histogram of their latency, in
//! Prometheus's text format. Kept by hand: two maps under one lock, which a request touches
//! once.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;

/// The upper bounds of the latency histogram's buckets, in seconds.
const BOUNDS: [f64; 14] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

#[derive(Default)]
struct Histogram {
    /// Requests at or below each bound (not cumulative here; summed when written).
    buckets: [u64; BOUNDS.len()],
    sum: f64,
    count: u64,
}

/// The counts since the service started.
#[derive(Default)]
pub(crate) struct Metrics {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    requests: BTreeMap<(&'static str, u16), u64>,
    latency: BTreeMap<&'static str, Histogram>,
}

impl Metrics {
    /// Counts a request to `endpoint` answered `status` after `seconds`.
    pub(crate) fn record(&self, endpoint: &'static str, status: u16, seconds: f64) {
        // A panic elsewhere while holding the lock cannot leave the counts half-written.
        let mut inner = self
            .inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *inner.requests.entry((endpoint, status)).or_default() += 1;
        let histogram = inner.latency.entry(endpoint).or_default();
        if let Some(bucket) = BOUNDS.iter().position(|&bound| seconds <= bound) {
            histogram.buckets[bucket] += 1;
        }
        histogram.sum += seconds;
        histogram.count += 1;
    }

    /// The counts in Prometheus's text exposition format.
    pub(crate) fn render(&self) -> String {
        let inner = self
            .inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut out = String::new();
        out.push_str(
            "# HELP mentor_context_requests_total Requests answered, by endpoint and status.\n\
             # TYPE mentor_context_requests_total counter\n",
        );
        for ((endpoint, status), count) in &inner.requests {
            let _ = writeln!(
                out,
                "mentor_context_requests_total{{endpoint=\"{endpoint}\",status=\"{status}\"}} {count}"
            );
        }
        out.push_str(
            "# HELP mentor_context_request_duration_seconds Time to answer a request.\n\
             # TYPE mentor_context_request_duration_seconds histogram\n",
        );
        for (endpoint, histogram) in &inner.latency {
            let mut below = 0;
            for (bound, count) in BOUNDS.iter().zip(histogram.buckets) {
                below += count;
                let _ = writeln!(
                    out,
                    "mentor_context_request_duration_seconds_bucket{{endpoint=\"{endpoint}\",le=\"{bound}\"}} {below}"
                );
            }
            let _ = writeln!(
                out,
                "mentor_context_request_duration_seconds_bucket{{endpoint=\"{endpoint}\",le=\"+Inf\"}} {}\n\
                 mentor_context_request_duration_seconds_sum{{endpoint=\"{endpoint}\"}} {}\n\
                 mentor_context_request_duration_seconds_count{{endpoint=\"{endpoint}\"}} {}",
                histogram.count, histogram.sum, histogram.count
            );
        }
        out
    }
}

/// Appends a gauge `name` of `value`, with its help line, to `out`.
pub(crate) fn gauge(out: &mut String, name: &str, help: &str, value: usize) {
    let _ = writeln!(
        out,
        "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {value}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_cumulative_and_the_count_is_every_request() {
        let metrics = Metrics::default();
        metrics.record("assemble", 200, 0.0004);
        metrics.record("assemble", 200, 0.003);
        metrics.record("assemble", 400, 20.0);
        let text = metrics.render();
        assert!(
            text.contains(
                "mentor_context_requests_total{endpoint=\"assemble\",status=\"200\"} 2\n"
            )
        );
        assert!(
            text.contains(
                "mentor_context_requests_total{endpoint=\"assemble\",status=\"400\"} 1\n"
            )
        );
        assert!(
            text.contains("_bucket{endpoint=\"assemble\",le=\"0.0005\"} 1\n"),
            "{text}"
        );
        assert!(
            text.contains("_bucket{endpoint=\"assemble\",le=\"0.005\"} 2\n"),
            "{text}"
        );
        assert!(
            text.contains("_bucket{endpoint=\"assemble\",le=\"10\"} 2\n"),
            "{text}"
        );
        assert!(
            text.contains("_bucket{endpoint=\"assemble\",le=\"+Inf\"} 3\n"),
            "{text}"
        );
        assert!(text.contains("_count{endpoint=\"assemble\"} 3"), "{text}");
    }
}

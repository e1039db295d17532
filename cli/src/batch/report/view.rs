//! What the `batch --report` page shows, from the summary and the report, and its charts.
//!
//! Figures the browser tests compute again from the JSON Lines output carry `data-json`
//! ("batch:" and a name); figures that depend on timing are marked volatile (`<!--v-->`), for
//! the snapshot tests to leave out.

use serde::Serialize;

use super::{FAILED_KEPT, Failed, Row, RunReport};
use crate::batch::histogram::{
    FILL_STEPS, Histogram, bucket_end, bucket_value, fill_text, time_text,
};
use crate::batch::summary::Summary;
use crate::html::chart::{Bin, histogram};
use crate::html::text::Text;
use crate::html::{self};
use crate::output::Failure;

/// The page's template.
const PAGE: &str = include_str!("page.html");

/// Bars per chart.
const BARS: usize = 20;

#[derive(Serialize)]
struct Page<'a> {
    input: Text<'a>,
    jobs: usize,
    settings: Vec<(&'a str, Text<'a>)>,
    finished: bool,
    elapsed: String,
    rate: Option<String>,
    summary_line: String,
    requests: u64,
    failed: u64,
    tokens: u64,
    fill_median: Option<String>,
    fill_p10: Option<String>,
    omitted: Vec<Reason>,
    times: Vec<(&'static str, String)>,
    charts: Vec<Chart>,
    slowest: Vec<Line<'a>>,
    least_filled: Vec<Line<'a>>,
    failures: Vec<FailedLine<'a>>,
    failures_more: u64,
}

#[derive(Serialize)]
struct Reason {
    reason: &'static str,
    count: u64,
}

/// A chart, with its bars as a table for a reader without images.
#[derive(Serialize)]
struct Chart {
    title: &'static str,
    svg: String,
    /// Whether it depends on timing.
    volatile: bool,
    bars: Vec<(String, String, u64)>,
}

#[derive(Serialize)]
struct Line<'a> {
    line: usize,
    id: Option<Text<'a>>,
    tokens: usize,
    budget: usize,
    fill: String,
    time: String,
}

#[derive(Serialize)]
struct FailedLine<'a> {
    line: usize,
    id: Option<Text<'a>>,
    error: Text<'a>,
}

/// The page of `report`, with `summary`'s figures; `finished` is the run's time once it ended.
pub(super) fn render(
    report: &RunReport,
    summary: &Summary,
    finished: Option<std::time::Duration>,
) -> Result<String, Failure> {
    let elapsed = finished.unwrap_or_else(|| report.started.elapsed());
    let fills = summary.fills();
    let times = summary.assemble_times();
    let quantile = |q: f64| times.quantile(q).map(|b| time_text(bucket_value(b)));
    let rate = (elapsed.as_secs_f64() > 0.0).then(|| {
        #[allow(clippy::cast_precision_loss)]
        let rate = summary.requests() as f64 / elapsed.as_secs_f64();
        format!("{rate:.0}")
    });
    let charts = vec![
        chart(
            "Fill: tokens over budget, per request",
            "fill",
            &fill_bins(fills),
            &|x| format!("{x:.2}"),
            false,
        )?,
        chart(
            "Tokens per request",
            "tokens",
            &linear_bins(&report.tokens),
            &|x| format!("{x:.0}"),
            false,
        )?,
        chart(
            "Assemble time per request (log scale)",
            "assemble time",
            &log_bins(times),
            &|x| time_text(10f64.powf(x).round() as u64),
            true,
        )?,
    ];
    let page = Page {
        input: Text::field(&report.about.input),
        jobs: report.about.jobs,
        settings: report
            .about
            .settings
            .iter()
            .map(|(name, value)| (name.as_str(), Text::field(value)))
            .collect(),
        finished: finished.is_some(),
        elapsed: time_text(u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX)),
        rate,
        summary_line: summary.line(elapsed),
        requests: summary.requests(),
        failed: summary.failures(),
        tokens: summary.tokens(),
        fill_median: fills.quantile(0.5).map(fill_text),
        fill_p10: fills.quantile(0.1).map(fill_text),
        omitted: summary
            .omitted()
            .iter()
            .map(|(&reason, &count)| Reason { reason, count })
            .collect(),
        times: [
            ("median", quantile(0.5)),
            ("p90", quantile(0.9)),
            ("p99", quantile(0.99)),
            ("p99.9", quantile(0.999)),
            ("max", quantile(1.0)),
        ]
        .into_iter()
        .filter_map(|(name, value)| Some((name, value?)))
        .collect(),
        charts,
        slowest: report
            .slowest
            .entries()
            .iter()
            .map(|(_, r)| line(r))
            .collect(),
        least_filled: report
            .least_filled
            .entries()
            .iter()
            .map(|(_, r)| line(r))
            .collect(),
        failures: report.failed.iter().map(failed).collect(),
        failures_more: summary
            .failures()
            .saturating_sub(report.failed.len() as u64),
    };
    debug_assert!(report.failed.len() <= FAILED_KEPT);
    html::render("batch-report.html", PAGE, &page)
}

fn line(row: &Row) -> Line<'_> {
    let fill = row
        .tokens
        .saturating_mul(FILL_STEPS)
        .checked_div(row.budget)
        .unwrap_or(FILL_STEPS);
    Line {
        line: row.line,
        id: row.id.as_ref().map(|id| Text::prefix(&id.start, id.bytes)),
        tokens: row.tokens,
        budget: row.budget,
        fill: fill_text(fill),
        time: time_text(row.assemble_ns),
    }
}

fn failed(failed: &Failed) -> FailedLine<'_> {
    FailedLine {
        line: failed.line,
        id: failed
            .id
            .as_ref()
            .map(|id| Text::prefix(&id.start, id.bytes)),
        error: Text::prefix(&failed.error.start, failed.error.bytes),
    }
}

fn chart(
    title: &'static str,
    x_label: &str,
    bins: &[Bin],
    x_text: &dyn Fn(f64) -> String,
    volatile: bool,
) -> Result<Chart, Failure> {
    let svg = histogram(bins, x_label, x_text)
        .map_err(|err| Failure::write_failed(format!("internal error: a chart: {err}")))?;
    Ok(Chart {
        title,
        svg,
        volatile,
        bars: bins
            .iter()
            .map(|bin| (x_text(bin.low), x_text(bin.high), bin.count))
            .collect(),
    })
}

/// Fills in [`BARS`] bars from 0 to 1; a full context is in the last.
fn fill_bins(fills: &Histogram) -> Vec<Bin> {
    let mut bins = even_bins(0.0, 1.0);
    for (bucket, count) in fills.filled() {
        bins[(bucket * BARS / FILL_STEPS).min(BARS - 1)].count += count;
    }
    bins
}

/// Values (kept to three significant digits) in [`BARS`] even bars from 0 to past the largest.
fn linear_bins(values: &Histogram) -> Vec<Bin> {
    let Some(last) = values.filled().last().map(|(bucket, _)| bucket) else {
        return Vec::new();
    };
    #[allow(clippy::cast_precision_loss)]
    let high = (bucket_end(last) as f64).max(1.0);
    let mut bins = even_bins(0.0, high);
    for (bucket, count) in values.filled() {
        #[allow(clippy::cast_precision_loss)]
        let at = bucket_value(bucket) as f64 / high;
        bins[bin_of(at)].count += count;
    }
    bins
}

/// Times in [`BARS`] bars even in their logarithm, from the fastest to the slowest.
fn log_bins(times: &Histogram) -> Vec<Bin> {
    let mut filled = times.filled().peekable();
    let Some(&(first, _)) = filled.peek() else {
        return Vec::new();
    };
    let last = times.filled().last().map_or(first, |(bucket, _)| bucket);
    #[allow(clippy::cast_precision_loss)]
    let log = |ns: u64| (ns.max(1) as f64).log10();
    let (low, high) = (log(bucket_value(first)), log(bucket_end(last)));
    let high = if high > low { high } else { low + 1.0 };
    let mut bins = even_bins(low, high);
    for (bucket, count) in filled {
        bins[bin_of((log(bucket_value(bucket)) - low) / (high - low))].count += count;
    }
    bins
}

fn even_bins(low: f64, high: f64) -> Vec<Bin> {
    #[allow(clippy::cast_precision_loss)]
    let width = (high - low) / BARS as f64;
    (0..BARS)
        .map(|i| {
            #[allow(clippy::cast_precision_loss)]
            let i = i as f64;
            Bin {
                low: low + i * width,
                high: low + (i + 1.0) * width,
                count: 0,
            }
        })
        .collect()
}

/// The bar of a value at `at` of the way from the first bar's start to the last's end.
fn bin_of(at: f64) -> usize {
    #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
    #[allow(clippy::cast_sign_loss)]
    let bar = (at * BARS as f64).floor().max(0.0) as usize;
    bar.min(BARS - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::histogram::value_bucket;

    #[test]
    fn every_value_lands_in_a_bar_and_none_is_lost() {
        let mut fills = Histogram::of_fills();
        for fill in [0, 1, 499, 500, 999, 1000] {
            fills.add(fill);
        }
        let bins = fill_bins(&fills);
        assert_eq!(bins.len(), BARS);
        assert_eq!(bins.iter().map(|b| b.count).sum::<u64>(), 6);
        assert_eq!(bins[0].count, 2);
        assert_eq!(bins[BARS - 1].count, 2);
        let mut values = Histogram::of_values();
        for v in [0, 17, 999, 4_000, 123_456, 9_999_999] {
            values.add(value_bucket(v));
        }
        for bins in [linear_bins(&values), log_bins(&values)] {
            assert_eq!(bins.iter().map(|b| b.count).sum::<u64>(), 6);
        }
        assert!(linear_bins(&Histogram::of_values()).is_empty());
        assert!(log_bins(&Histogram::of_values()).is_empty());
    }
}

//! `batch --report PAGE`: one self-contained HTML page of a run, written as the run streams.
//!
//! The page is written once before the first line is read (so a path that cannot be written
//! fails the run before it starts), again every [`REFRESH`] while lines are written, and at
//! the end. Its figures come from the summary's histograms and from what this keeps as lines
//! go by: a histogram of tokens, the ten slowest and the ten least-filled lines
//! ([`top::Least`]) and the first [`FAILED_KEPT`] failed lines. So its memory is fixed,
//! whatever the length of the input. [`view`] turns all that into the page.

mod top;
mod view;

use std::cmp::{Ordering, Reverse};
use std::time::{Duration, Instant};

use super::histogram::{Histogram, value_bucket};
use super::summary::Summary;
use super::worker::{Cut, Done};
use crate::html::PageFile;
use crate::output::Failure;
use top::Least;

/// How often the page is written again while the run goes on.
const REFRESH: Duration = Duration::from_secs(2);

/// How many lines the page names as slowest, and as least filled.
const NAMED: usize = 10;

/// How many failed lines the page lists with their errors; the rest are counted.
pub(super) const FAILED_KEPT: usize = 100;

/// A line the page names.
#[derive(Debug, Clone)]
struct Row {
    line: usize,
    id: Option<Cut>,
    tokens: usize,
    budget: usize,
    assemble_ns: u64,
}

/// A failed line, with its error.
#[derive(Debug, Clone)]
struct Failed {
    line: usize,
    id: Option<Cut>,
    error: Cut,
}

/// A fill as the exact ratio of tokens to budget, ordered without rounding: an empty budget
/// is full, as the summary counts it.
#[derive(Debug, Clone, Copy)]
struct Fill {
    tokens: u128,
    budget: u128,
}

impl Fill {
    fn new(tokens: usize, budget: usize) -> Fill {
        if budget == 0 {
            return Fill {
                tokens: 1,
                budget: 1,
            };
        }
        Fill {
            tokens: tokens as u128,
            budget: budget as u128,
        }
    }
}

impl Ord for Fill {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.tokens * other.budget).cmp(&(other.tokens * self.budget))
    }
}

impl PartialOrd for Fill {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Fill {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Fill {}

/// What the page of a run shows beyond the summary, and where it goes.
pub(crate) struct RunReport {
    page: PageFile,
    about: About,
    started: Instant,
    next_refresh: Instant,
    tokens: Histogram,
    slowest: Least<Reverse<u64>, Row, NAMED>,
    least_filled: Least<Fill, Row, NAMED>,
    failed: Vec<Failed>,
}

/// What the run was: shown at the top of the page.
pub(crate) struct About {
    pub(crate) input: String,
    pub(crate) jobs: usize,
    pub(crate) settings: Vec<(String, String)>,
}

impl RunReport {
    /// Writes the first page, before any line is read.
    ///
    /// # Errors
    ///
    /// A write failure naming the page.
    pub(crate) fn start(page: PageFile, about: About) -> Result<RunReport, Failure> {
        let now = Instant::now();
        let report = RunReport {
            page,
            about,
            started: now,
            next_refresh: now + REFRESH,
            tokens: Histogram::of_values(),
            slowest: Least::new(),
            least_filled: Least::new(),
            failed: Vec::new(),
        };
        report.write(&Summary::default(), None)?;
        Ok(report)
    }

    /// Counts a line as it is written.
    pub(crate) fn add(&mut self, done: &Done) {
        let Some(kept) = &done.kept else { return };
        let Some(sample) = &done.sample else {
            if self.failed.len() < FAILED_KEPT {
                self.failed.push(Failed {
                    line: kept.line,
                    id: kept.id.clone(),
                    error: kept.error.clone().unwrap_or_else(|| Cut::of("failed")),
                });
            }
            return;
        };
        self.tokens.add(value_bucket(sample.token_count() as u64));
        let row = || Row {
            line: kept.line,
            id: kept.id.clone(),
            tokens: sample.token_count(),
            budget: sample.budget(),
            assemble_ns: sample.assemble_ns(),
        };
        let slow = Reverse(sample.assemble_ns());
        if self.slowest.takes(&slow) {
            self.slowest.offer(slow, row());
        }
        let fill = Fill::new(sample.token_count(), sample.budget());
        if self.least_filled.takes(&fill) {
            self.least_filled.offer(fill, row());
        }
    }

    /// Writes the page again if it is due: called with the summary after lines are written.
    pub(crate) fn refresh(&mut self, summary: &Summary) {
        let now = Instant::now();
        if now < self.next_refresh {
            return;
        }
        self.next_refresh = now + REFRESH;
        // The run goes on whatever: the reports matter more than their page, which the end
        // writes again, and fails the run then if it still cannot.
        let _ = self.write(summary, None);
    }

    /// Writes the last page, of a run that took `elapsed`.
    ///
    /// # Errors
    ///
    /// A write failure naming the page.
    pub(crate) fn finish(self, summary: &Summary, elapsed: Duration) -> Result<(), Failure> {
        self.write(summary, Some(elapsed))
    }

    fn write(&self, summary: &Summary, finished: Option<Duration>) -> Result<(), Failure> {
        let html = view::render(self, summary, finished)?;
        self.page.write(&html)
    }
}

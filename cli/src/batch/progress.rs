//! The progress bar of a batch run: on standard error, and only when that is a terminal, so
//! that a script capturing standard error gets the summary line alone.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How often the bar is redrawn at most.
const REFRESH_PER_SECOND: u8 = 4;

/// Lines done, their rate, and (for a file, whose size is known) the share of its bytes read
/// and the time left.
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
    start: Instant,
}

impl Progress {
    /// A bar for an input of `size` bytes (`None`: unknown, as for standard input), shown
    /// only if standard error is a terminal.
    pub(crate) fn new(size: Option<u64>) -> Progress {
        let start = Instant::now();
        if !std::io::stderr().is_terminal() {
            return Progress { bar: None, start };
        }
        let target = ProgressDrawTarget::stderr_with_hz(REFRESH_PER_SECOND);
        let bar = match size {
            Some(bytes) => ProgressBar::with_draw_target(Some(bytes), target).with_style(
                ProgressStyle::with_template(
                    "{bar:30} {percent:>3}% {msg} {elapsed_precise} ETA {eta_precise}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            ),
            None => ProgressBar::with_draw_target(None, target).with_style(
                ProgressStyle::with_template("{spinner} {msg} {elapsed_precise}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            ),
        };
        Progress {
            bar: Some(bar),
            start,
        }
    }

    /// Another line written, which accounted for `bytes` of input; `lines` written in all.
    pub(crate) fn advance(&self, bytes: u64, lines: u64) {
        let Some(bar) = &self.bar else { return };
        bar.inc(bytes);
        let seconds = self
            .start
            .elapsed()
            .max(Duration::from_millis(1))
            .as_secs_f64();
        #[allow(clippy::cast_precision_loss)]
        let rate = lines as f64 / seconds;
        bar.set_message(format!("{lines} lines, {rate:.0}/s"));
    }

    /// Takes the bar off the screen, before the summary line is written.
    pub(crate) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

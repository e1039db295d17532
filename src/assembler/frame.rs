//! The parts of every context that depend only on the configuration, counted once.

use crate::builder::ContextBuilder;
use crate::error::Error;
use crate::meter::Meter;

/// The fixed parts of every context: validated and counted when the assembler is built.
#[derive(Debug, Clone)]
pub(super) struct Frame {
    /// The header with its newline, or empty.
    pub(super) header: String,
    pub(super) header_tokens: usize,
    /// What the format writes before the first block and after the last.
    pub(super) open: String,
    pub(super) close: String,
    /// Tokens of the opening plus the closing: paid once when at least one block is in.
    pub(super) open_close_tokens: usize,
    /// Tokens of a cut body's frame around its content (fence or tags, truncation mark),
    /// before and after. Estimates for aiming a cut (a longer fence costs a token more); the
    /// cut itself is counted exactly.
    pub(super) cut_open_tokens: usize,
    pub(super) cut_close_tokens: usize,
    /// The least room a cut block needs for its content.
    pub(super) min_truncated_tokens: usize,
}

impl Frame {
    /// Checks `config` and counts its fixed parts.
    pub(super) fn new(config: &ContextBuilder) -> Result<Frame, Error> {
        if config.min_score.is_some_and(f32::is_nan) {
            return Err(Error::NanMinScore);
        }
        let budget = config.budget;
        let min_truncated_tokens = match config.min_truncated_tokens {
            Some(min) if min > budget => {
                return Err(Error::MinTruncatedOverBudget {
                    min_tokens: min,
                    budget,
                });
            }
            Some(min) => min,
            None => crate::builder::DEFAULT_MIN_TRUNCATED_TOKENS.min(budget),
        };
        let header = match config.header.trim_end() {
            "" => String::new(),
            h => format!("{h}\n"),
        };
        // Counted like everything else: in bounded calls, and no further than the budget.
        let mut meter = Meter::new(&*config.tokenizer, None);
        let header_tokens = meter
            .measure(&header, budget, None)
            .ok_or(Error::HeaderOverBudget { budget })?;
        let format = &*config.format;
        let mut count = |write: &dyn Fn(&mut String)| {
            let mut text = String::new();
            write(&mut text);
            // The format's own strings: a stretch too long to count safely cannot fit.
            meter.count(&text).unwrap_or(usize::MAX)
        };
        let open_close_tokens =
            count(&|out| format.open(out)).saturating_add(count(&|out| format.close(out)));
        let cut_open_tokens = count(&|out| format.content_open("", out));
        let cut_close_tokens = count(&|out| format.content_close("", true, out));
        let (mut open, mut close) = (String::new(), String::new());
        format.open(&mut open);
        format.close(&mut close);
        Ok(Frame {
            header,
            header_tokens,
            open,
            close,
            open_close_tokens,
            cut_open_tokens,
            cut_close_tokens,
            min_truncated_tokens,
        })
    }
}

//! The parts of every context that depend only on the configuration, counted once.

use super::config::Config;
use crate::error::Error;
use crate::meter::Meter;

/// The fixed parts of every context: validated and counted when the assembler is built.
#[derive(Debug, Clone)]
pub(super) struct FixedParts {
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
}

impl FixedParts {
    /// Counts the fixed parts of `config`.
    ///
    /// # Errors
    ///
    /// [`Error::HeaderOverBudget`] when the header alone is over the budget.
    pub(super) fn new(config: &Config) -> Result<FixedParts, Error> {
        let budget = config.budget;
        let header = &config.header;
        // Counted like everything else: in bounded calls, and no further than the budget.
        let mut meter = Meter::new(&*config.tokenizer, None);
        let header_tokens = meter
            .measure(header, budget, None)
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
        Ok(FixedParts {
            header_tokens,
            open,
            close,
            open_close_tokens,
            cut_open_tokens,
            cut_close_tokens,
        })
    }
}

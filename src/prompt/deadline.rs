//! [`Deadline`]: when fitting a whole prompt gives up, at an instant or when cancelled from
//! another thread, checked between the fitting's renders and counts; and
//! [`PromptAssembler::assemble_until`], the fitting that takes one.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::count::Work;
use super::{Message, Prompt, PromptAssembler};
use crate::MentorRagResult;
use crate::error::Error;

/// When [`PromptAssembler::assemble_until`](super::PromptAssembler::assemble_until) stops:
/// at an instant, or once [`cancel`](Self::cancel)led, whichever comes first.
///
/// A fitting renders the template and counts stretches of text a few dozen times; the
/// deadline is checked before each render and each count, so the work ends within one render
/// (bounded by the template's fuel) or one count (bounded by the tokenizer's call size) of
/// it, with [`Error::DeadlinePassed`] and no prompt. A service that answers "too late" can so
/// free the thread at the same time, instead of letting the work run on.
///
/// Clones share the cancellation: [`cancel`](Self::cancel) one, and every clone has passed.
///
/// ```
/// use std::time::Duration;
/// use mentor_context::prompt::Deadline;
///
/// let deadline = Deadline::after(Duration::from_secs(10));
/// let worker = deadline.clone();
/// assert!(!worker.has_passed());
/// deadline.cancel();
/// assert!(worker.has_passed());
/// ```
#[derive(Clone, Debug, Default)]
#[must_use]
pub struct Deadline {
    at: Option<Instant>,
    cancelled: Arc<AtomicBool>,
}

impl Deadline {
    /// No instant: the work stops only when cancelled.
    pub fn never() -> Deadline {
        Deadline::default()
    }

    /// At `instant` (or when cancelled before it).
    pub fn at(instant: Instant) -> Deadline {
        Deadline {
            at: Some(instant),
            cancelled: Arc::default(),
        }
    }

    /// `duration` from now (or when cancelled before); a duration too long for the clock is
    /// [`never`](Self::never).
    pub fn after(duration: Duration) -> Deadline {
        Instant::now()
            .checked_add(duration)
            .map_or_else(Deadline::never, Deadline::at)
    }

    /// The instant, if there is one.
    #[must_use]
    pub fn instant(&self) -> Option<Instant> {
        self.at
    }

    /// Passes the deadline now, for this value and every clone of it.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Release);
    }

    /// Whether [`cancel`](Self::cancel) was called on this value or a clone.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Acquire)
    }

    /// Whether the work should stop: cancelled, or the instant reached.
    #[must_use]
    pub fn has_passed(&self) -> bool {
        self.is_cancelled() || self.at.is_some_and(|at| Instant::now() >= at)
    }

    /// [`Error::DeadlinePassed`] once the deadline has passed.
    pub(crate) fn check(&self) -> Result<(), Error> {
        if self.has_passed() {
            Err(Error::DeadlinePassed)
        } else {
            Ok(())
        }
    }
}

impl PromptAssembler {
    /// [`assemble`](Self::assemble), stopping at `deadline`: it is checked before each render
    /// of the template and each count, so once it has passed (or is cancelled from another
    /// thread) the work ends within one render or count, without a prompt.
    ///
    /// # Errors
    ///
    /// [`Error::DeadlinePassed`] when the deadline passes before the prompt is fitted; else
    /// those of [`assemble`](Self::assemble).
    pub fn assemble_until<'r>(
        &self,
        conversation: &[Message],
        results: &'r [MentorRagResult],
        deadline: &Deadline,
    ) -> Result<Prompt<'r>, Error> {
        self.run(conversation, results, &mut Work::default(), deadline)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An instant reached has passed; one far off has not, until cancelled, and then for
    /// every clone; a deadline keeps the instant it was given.
    #[test]
    fn a_deadline_passes_at_its_instant_or_once_cancelled() {
        let now = Instant::now();
        let reached = Deadline::at(now);
        assert_eq!(reached.instant(), Some(now));
        assert!(reached.has_passed() && !reached.is_cancelled());
        assert!(matches!(reached.check(), Err(Error::DeadlinePassed)));

        let far = Deadline::after(Duration::from_secs(3600));
        assert!(far.instant().is_some_and(|at| at > now));
        let clone = far.clone();
        assert!(!clone.has_passed() && !clone.is_cancelled() && clone.check().is_ok());
        far.cancel();
        assert!(clone.has_passed() && clone.is_cancelled());
        assert!(matches!(clone.check(), Err(Error::DeadlinePassed)));
    }

    /// A duration past the clock's end is no instant at all: only a cancel passes it.
    #[test]
    fn a_duration_too_long_for_the_clock_is_never() {
        let never = Deadline::after(Duration::MAX);
        assert_eq!(never.instant(), None);
        assert!(!never.has_passed());
        never.cancel();
        assert!(never.has_passed());
    }
}

//! [`ErrorKind`]: what kind of problem an [`Error`](super::Error) is, as a value to match on
//! and a stable code that every front end uses as it is.

use std::fmt;

/// The kind of an [`Error`](super::Error), from [`Error::kind`](super::Error::kind).
///
/// Match on it to decide what to do; the message is for people. Each kind has a stable
/// [`code`](Self::code) that the command prints, the Python exception and the Node.js error
/// carry, and the HTTP service returns: a new version may add kinds, never rename one. The
/// last few are the front ends' own (an argument of the wrong type, a file that cannot be
/// read): the library returns none of them, and lists them so that there is one set of codes.
///
/// ```
/// use mentor_context::{ContextBuilder, ErrorKind};
///
/// let err = ContextBuilder::new(5).header("A header far longer than five tokens.").build();
/// let err = err.unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::HeaderOverBudget);
/// assert_eq!(err.kind().code(), "HEADER_OVER_BUDGET");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A name that is no encoding (or is a model's).
    UnknownEncoding,
    /// An engine that does not ship the encoding.
    EngineLacksEncoding,
    /// A tokenizer file that cannot be read or is not a tokenizer of its kind.
    TokenizerFile,
    /// A model whose encoding or window is unknown.
    UnknownModel,
    /// A name that names nothing of its kind: a format, an overflow policy, a dialect, ...
    UnknownName,
    /// The header alone takes more than the budget.
    HeaderOverBudget,
    /// The minimum cut is larger than the budget.
    MinTruncatedOverBudget,
    /// The window leaves no room: the reserve and the rest of the prompt fill it.
    WindowTooSmall,
    /// A model API's response that cannot be read against the report.
    InvalidResponse,
    /// A seal key shorter than 16 bytes.
    SealKeyTooShort,
    /// A NaN minimum score.
    NanMinScore,
    /// Input that is not the JSON it should be.
    InvalidJson,
    /// A previous turn's report that this assembler will not continue; its
    /// [`PreviousTurnReason`](crate::PreviousTurnReason) says why.
    PreviousTurnMismatch,
    /// The earlier turns' blocks alone take more than the budget.
    EarlierBlocksOverBudget,
    /// A chat template that does not compile, raises, or runs out of fuel: its
    /// [`TemplateError`](crate::TemplateError) says which, by its own
    /// [`TemplateErrorKind`](crate::TemplateErrorKind).
    ChatTemplate,
    /// A conversation that cannot be fitted as given.
    InvalidConversation,
    /// A date that is not a calendar day written `YYYY-MM-DD`.
    InvalidDate,
    /// A setting whose value cannot work, alone or with another.
    InvalidSetting,
    /// A setting that does not exist.
    UnknownSetting,
    /// A dialect's call (entries, a response) on an assembler that writes none.
    NoDialect,
    /// A whole prompt's fitting stopped at its deadline, without a prompt.
    DeadlinePassed,
    /// A front end's own: an argument of the wrong type or shape (a binding's call), or a
    /// command line clap refuses.
    InvalidArgument,
    /// A front end's own: an input that cannot be read (a file that is missing, empty or not
    /// UTF-8).
    InvalidInput,
    /// A front end's own: a result the wire rules refuse, named by its index.
    InvalidResult,
    /// A front end's own: a report (a previous turn's, or one an answer is read against)
    /// that cannot be read.
    InvalidReport,
    /// A front end's own: a stream used after it finished.
    StreamFinished,
    /// A front end's own: worker threads the system would not start.
    ThreadsNotStarted,
    /// A front end's own: the output could not be written.
    WriteFailed,
}

impl ErrorKind {
    /// Every kind, in a fixed order: the library's, then the front ends' own.
    /// A slice, not an array: a new value does not change this constant's type.
    pub const ALL: &[ErrorKind] = &[
        ErrorKind::UnknownEncoding,
        ErrorKind::EngineLacksEncoding,
        ErrorKind::TokenizerFile,
        ErrorKind::UnknownModel,
        ErrorKind::UnknownName,
        ErrorKind::HeaderOverBudget,
        ErrorKind::MinTruncatedOverBudget,
        ErrorKind::WindowTooSmall,
        ErrorKind::InvalidResponse,
        ErrorKind::SealKeyTooShort,
        ErrorKind::NanMinScore,
        ErrorKind::InvalidJson,
        ErrorKind::PreviousTurnMismatch,
        ErrorKind::EarlierBlocksOverBudget,
        ErrorKind::ChatTemplate,
        ErrorKind::InvalidConversation,
        ErrorKind::InvalidDate,
        ErrorKind::InvalidSetting,
        ErrorKind::UnknownSetting,
        ErrorKind::NoDialect,
        ErrorKind::DeadlinePassed,
        ErrorKind::InvalidArgument,
        ErrorKind::InvalidInput,
        ErrorKind::InvalidResult,
        ErrorKind::InvalidReport,
        ErrorKind::StreamFinished,
        ErrorKind::ThreadsNotStarted,
        ErrorKind::WriteFailed,
    ];

    /// The kind's stable code, in upper snake case: `"HEADER_OVER_BUDGET"`.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            ErrorKind::UnknownEncoding => "UNKNOWN_ENCODING",
            ErrorKind::EngineLacksEncoding => "ENGINE_LACKS_ENCODING",
            ErrorKind::TokenizerFile => "TOKENIZER_FILE",
            ErrorKind::UnknownModel => "UNKNOWN_MODEL",
            ErrorKind::UnknownName => "UNKNOWN_NAME",
            ErrorKind::HeaderOverBudget => "HEADER_OVER_BUDGET",
            ErrorKind::MinTruncatedOverBudget => "MIN_TRUNCATED_OVER_BUDGET",
            ErrorKind::WindowTooSmall => "WINDOW_TOO_SMALL",
            ErrorKind::InvalidResponse => "INVALID_RESPONSE",
            ErrorKind::SealKeyTooShort => "SEAL_KEY_TOO_SHORT",
            ErrorKind::NanMinScore => "NAN_MIN_SCORE",
            ErrorKind::InvalidJson => "INVALID_JSON",
            ErrorKind::PreviousTurnMismatch => "PREVIOUS_TURN_MISMATCH",
            ErrorKind::EarlierBlocksOverBudget => "EARLIER_BLOCKS_OVER_BUDGET",
            ErrorKind::ChatTemplate => "CHAT_TEMPLATE",
            ErrorKind::InvalidConversation => "INVALID_CONVERSATION",
            ErrorKind::InvalidDate => "INVALID_DATE",
            ErrorKind::InvalidSetting => "INVALID_SETTING",
            ErrorKind::UnknownSetting => "UNKNOWN_SETTING",
            ErrorKind::NoDialect => "NO_DIALECT",
            ErrorKind::DeadlinePassed => "DEADLINE_PASSED",
            ErrorKind::InvalidArgument => "INVALID_ARGUMENT",
            ErrorKind::InvalidInput => "INVALID_INPUT",
            ErrorKind::InvalidResult => "INVALID_RESULT",
            ErrorKind::InvalidReport => "INVALID_REPORT",
            ErrorKind::StreamFinished => "STREAM_FINISHED",
            ErrorKind::ThreadsNotStarted => "THREADS_NOT_STARTED",
            ErrorKind::WriteFailed => "WRITE_FAILED",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_distinct_upper_snake_case() {
        let mut codes: Vec<&str> = ErrorKind::ALL.iter().map(|kind| kind.code()).collect();
        assert!(
            codes
                .iter()
                .all(|code| code.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'))
        );
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), ErrorKind::ALL.len());
    }
}

//! Errors: an `Error` whose message is the library's one line, and whose `code` names the
//! kind.

use napi_derive::napi;

use crate::raw::{self, Env};

/// The `code` of every error this package throws: the kind of problem. The message says
/// the rest in the library's words (the command prints the same line).
#[napi(string_enum = "UPPER_SNAKE")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// An encoding name the library does not know (a model's name among them).
    UnknownEncoding,
    /// An engine that does not ship the encoding.
    EngineLacksEncoding,
    /// A model whose encoding or window is unknown.
    UnknownModel,
    /// A format, overflow policy, order or duplicates mode the library does not know.
    UnknownName,
    /// The header alone takes more tokens than the budget.
    HeaderOverBudget,
    /// `minTruncatedTokens` is larger than the budget.
    MinTruncatedOverBudget,
    /// The answer's reserve and the rest of the prompt fill the model's window (for a whole
    /// prompt: the system message, the question and the template's framing alone do).
    WindowTooSmall,
    /// A seal key shorter than 16 bytes.
    SealKeyTooShort,
    /// `minScore` is NaN.
    NanMinScore,
    /// JSON text that is not what it should be (a stored report given as a string).
    InvalidJson,
    /// A follow-up turn's previous report was not written by an assembler like this one,
    /// or was edited.
    PreviousTurnMismatch,
    /// A follow-up turn's earlier blocks alone take more tokens than the budget.
    EarlierBlocksOverBudget,
    /// Another error of the library (one this version does not name).
    LibraryError,
    /// An option of the wrong type, a negative count, an unknown option, or options that
    /// conflict.
    InvalidOption,
    /// A result the wire rules refuse (the message names it by its index), or results that
    /// are not an array.
    InvalidResult,
    /// A report (a previous turn's, or the one answers are read against) that cannot be
    /// read.
    InvalidReport,
    /// Another argument of the wrong type: an answer or a chunk that is not a string,
    /// requests that are not an array.
    InvalidArgument,
    /// The system refused a worker thread.
    ThreadsNotStarted,
    /// `push` or `finish` on a stream that has finished.
    StreamFinished,
    /// A model API's response that cannot be read against the report: not JSON, not of the
    /// dialect's shape, cut off before its last event; or a report or assembler without a
    /// dialect where one is needed (the library's `Error::Response`).
    InvalidResponse,
    /// A conversation that cannot be fitted: not an array of messages, empty, not ending
    /// with the user's question, a message that is not an object with a string `role`.
    InvalidConversation,
    /// A chat template that cannot be read or compiled, or that raises, loops or writes too
    /// much when rendered.
    ChatTemplate,
    /// A tokenizer file (a `tokenizer.json`, a Tekken file) that cannot be read or is not one.
    TokenizerFile,
}

impl ErrorCode {
    /// The code as JavaScript sees it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ErrorCode::UnknownEncoding => "UNKNOWN_ENCODING",
            ErrorCode::EngineLacksEncoding => "ENGINE_LACKS_ENCODING",
            ErrorCode::UnknownModel => "UNKNOWN_MODEL",
            ErrorCode::UnknownName => "UNKNOWN_NAME",
            ErrorCode::HeaderOverBudget => "HEADER_OVER_BUDGET",
            ErrorCode::MinTruncatedOverBudget => "MIN_TRUNCATED_OVER_BUDGET",
            ErrorCode::WindowTooSmall => "WINDOW_TOO_SMALL",
            ErrorCode::SealKeyTooShort => "SEAL_KEY_TOO_SHORT",
            ErrorCode::NanMinScore => "NAN_MIN_SCORE",
            ErrorCode::InvalidJson => "INVALID_JSON",
            ErrorCode::PreviousTurnMismatch => "PREVIOUS_TURN_MISMATCH",
            ErrorCode::EarlierBlocksOverBudget => "EARLIER_BLOCKS_OVER_BUDGET",
            ErrorCode::LibraryError => "LIBRARY_ERROR",
            ErrorCode::InvalidOption => "INVALID_OPTION",
            ErrorCode::InvalidResult => "INVALID_RESULT",
            ErrorCode::InvalidReport => "INVALID_REPORT",
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::ThreadsNotStarted => "THREADS_NOT_STARTED",
            ErrorCode::StreamFinished => "STREAM_FINISHED",
            ErrorCode::InvalidResponse => "INVALID_RESPONSE",
            ErrorCode::InvalidConversation => "INVALID_CONVERSATION",
            ErrorCode::ChatTemplate => "CHAT_TEMPLATE",
            ErrorCode::TokenizerFile => "TOKENIZER_FILE",
        }
    }

    /// The kind of a library error.
    pub(crate) fn of(err: &mentor_context::Error) -> ErrorCode {
        use mentor_context::Error;
        match err {
            Error::UnknownEncoding { .. } | Error::ModelNamedAsEncoding { .. } => {
                ErrorCode::UnknownEncoding
            }
            Error::EngineLacksEncoding { .. } => ErrorCode::EngineLacksEncoding,
            Error::UnknownModel { .. } => ErrorCode::UnknownModel,
            Error::UnknownName { .. } => ErrorCode::UnknownName,
            Error::HeaderOverBudget { .. } => ErrorCode::HeaderOverBudget,
            Error::MinTruncatedOverBudget { .. } => ErrorCode::MinTruncatedOverBudget,
            Error::WindowTooSmall { .. } | Error::PromptTooLarge { .. } => {
                ErrorCode::WindowTooSmall
            }
            Error::SealKeyTooShort { .. } => ErrorCode::SealKeyTooShort,
            Error::NanMinScore => ErrorCode::NanMinScore,
            Error::Json { .. } => ErrorCode::InvalidJson,
            Error::PreviousTurnMismatch { .. } => ErrorCode::PreviousTurnMismatch,
            Error::EarlierBlocksOverBudget { .. } => ErrorCode::EarlierBlocksOverBudget,
            Error::Response { .. } => ErrorCode::InvalidResponse,
            Error::Conversation { .. } => ErrorCode::InvalidConversation,
            Error::ChatTemplate { .. } => ErrorCode::ChatTemplate,
            Error::TokenizerFile { .. } => ErrorCode::TokenizerFile,
            Error::PromptSetting { .. } | Error::InvalidDate { .. } => ErrorCode::InvalidOption,
            // `Error` is non-exhaustive.
            _ => ErrorCode::LibraryError,
        }
    }
}

/// A problem to throw: its kind and its one-line message. Plain data, so it can be made on a
/// worker thread and thrown (or a promise rejected) on the JavaScript thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub(crate) code: ErrorCode,
    pub(crate) message: String,
}

impl Failure {
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
        }
    }

    /// A library error, with the library's message.
    pub(crate) fn library(err: &mentor_context::Error) -> Failure {
        Failure::new(ErrorCode::of(err), err.to_string())
    }

    /// The same problem, said of `what` (`results[3]`, `previous`, `requests[2]`).
    #[must_use]
    pub(crate) fn at(self, what: &str) -> Failure {
        Failure {
            message: format!("{what}: {}", self.message),
            ..self
        }
    }

    /// The JavaScript `Error` to throw, carried in a napi-rs error that throws it as it is.
    pub(crate) fn into_napi(self, env: Env) -> napi::Error {
        match raw::error(env, self.code.as_str(), &self.message) {
            // SAFETY: a value of this handle scope, made just now.
            Ok(error) => {
                napi::Error::from(unsafe { napi::Unknown::from_raw_unchecked(env, error) })
            }
            Err(err) => err,
        }
    }
}

/// A [`Failure`], thrown on the JavaScript thread.
pub(crate) trait OrThrow<T> {
    /// The value, or the failure as the error to throw in `env`.
    fn or_throw(self, env: Env) -> napi::Result<T>;
}

impl<T> OrThrow<T> for Result<T, Failure> {
    fn or_throw(self, env: Env) -> napi::Result<T> {
        self.map_err(|failure| failure.into_napi(env))
    }
}

//! Errors: an `Error` whose message is the library's one line, and whose `code` names the
//! kind.

use napi_derive::napi;

use mentor_context::ErrorKind;

use crate::raw::{self, Env};

/// The `code` of every error this package throws: the library's `ErrorKind`, by its stable
/// code (the command prints the same in `error[CODE]`, Python's `MentorContextError.code`
/// holds it). The message says the rest in the library's words.
#[napi(string_enum = "UPPER_SNAKE")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// An encoding name the library does not know (a model's name among them).
    UnknownEncoding,
    /// An engine that does not ship the encoding.
    EngineLacksEncoding,
    /// A tokenizer file (a `tokenizer.json`, a Tekken file) that cannot be read or is not one.
    TokenizerFile,
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
    /// A model API's response that cannot be read against the report: not JSON, not of the
    /// dialect's shape, cut off before its last event.
    InvalidResponse,
    /// A seal key shorter than 16 bytes.
    SealKeyTooShort,
    /// `minScore` is NaN.
    NanMinScore,
    /// JSON text that is not what it should be (a stored report given as a string).
    InvalidJson,
    /// A follow-up turn's previous report was not written by an assembler like this one,
    /// or was edited: `reason` says which.
    PreviousTurnMismatch,
    /// A follow-up turn's earlier blocks alone take more tokens than the budget.
    EarlierBlocksOverBudget,
    /// A chat template that cannot be read or compiled, or that raises, loops or writes too
    /// much when rendered.
    ChatTemplate,
    /// A conversation that cannot be fitted: not an array of messages, empty, not ending
    /// with the user's question, a message that is not an object with a string `role`.
    InvalidConversation,
    /// A date that is not a calendar day written `YYYY-MM-DD`.
    InvalidDate,
    /// A setting whose value cannot work, alone or with another.
    InvalidSetting,
    /// A setting that does not exist (the message names the closest).
    UnknownSetting,
    /// `entries` or a response on an assembler that writes no dialect.
    NoDialect,
    /// A whole prompt's fitting stopped at its deadline, without a prompt.
    DeadlinePassed,
    /// Another argument of the wrong type: an answer or a chunk that is not a string,
    /// requests that are not an array, an option of a call (`threads`, `renumber`).
    InvalidArgument,
    /// An input that cannot be read (the command's).
    InvalidInput,
    /// A result the wire rules refuse (the message names it by its index), or results that
    /// are not an array.
    InvalidResult,
    /// A report (a previous turn's, or the one answers are read against) that cannot be
    /// read.
    InvalidReport,
    /// `push` or `finish` on a stream that has finished.
    StreamFinished,
    /// The system refused a worker thread.
    ThreadsNotStarted,
    /// The output could not be written (the command's).
    WriteFailed,
    /// An error of a later library than this package knows.
    LibraryError,
}

impl ErrorCode {
    /// Every code, in the library's order, then `LIBRARY_ERROR`.
    pub(crate) const ALL: [ErrorCode; 29] = [
        ErrorCode::UnknownEncoding,
        ErrorCode::EngineLacksEncoding,
        ErrorCode::TokenizerFile,
        ErrorCode::UnknownModel,
        ErrorCode::UnknownName,
        ErrorCode::HeaderOverBudget,
        ErrorCode::MinTruncatedOverBudget,
        ErrorCode::WindowTooSmall,
        ErrorCode::InvalidResponse,
        ErrorCode::SealKeyTooShort,
        ErrorCode::NanMinScore,
        ErrorCode::InvalidJson,
        ErrorCode::PreviousTurnMismatch,
        ErrorCode::EarlierBlocksOverBudget,
        ErrorCode::ChatTemplate,
        ErrorCode::InvalidConversation,
        ErrorCode::InvalidDate,
        ErrorCode::InvalidSetting,
        ErrorCode::UnknownSetting,
        ErrorCode::NoDialect,
        ErrorCode::DeadlinePassed,
        ErrorCode::InvalidArgument,
        ErrorCode::InvalidInput,
        ErrorCode::InvalidResult,
        ErrorCode::InvalidReport,
        ErrorCode::StreamFinished,
        ErrorCode::ThreadsNotStarted,
        ErrorCode::WriteFailed,
        ErrorCode::LibraryError,
    ];

    /// The code as JavaScript sees it: the library's for its kinds.
    pub(crate) fn as_str(self) -> &'static str {
        match ErrorCode::ALL
            .iter()
            .zip(ErrorKind::ALL)
            .find(|(code, _)| **code == self)
        {
            Some((_, kind)) => kind.code(),
            None => "LIBRARY_ERROR",
        }
    }

    /// The code of a library error's kind.
    pub(crate) fn of(err: &mentor_context::Error) -> ErrorCode {
        ErrorCode::of_kind(err.kind())
    }

    /// The code of `kind`.
    pub(crate) fn of_kind(kind: ErrorKind) -> ErrorCode {
        ErrorKind::ALL
            .iter()
            .position(|known| *known == kind)
            .map_or(ErrorCode::LibraryError, |at| ErrorCode::ALL[at])
    }
}

/// What a `CHAT_TEMPLATE` error is, in its `templateKind`: the library's `TemplateErrorKind`,
/// by its stable code (the HTTP service's `templateKind`, Python's `template_kind`).
#[napi(string_enum = "UPPER_SNAKE")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TemplateErrorKind {
    /// The template does not compile (a syntax error, a construct not supported).
    Syntax,
    /// What was given is not a template: a file that cannot be read or is not UTF-8, a
    /// config without a usable `chat_template`, a source over a megabyte.
    NotATemplate,
    /// A template the library will not write with its tokenizer (a Tekken file of another
    /// version, or without a token its format writes).
    Unsupported,
    /// The template raised on this conversation (its `raise_exception`, or any error in it).
    Raised,
    /// The render ran out of fuel: more work than its input allows.
    OutOfFuel,
    /// A value or calls nested deeper than the render allows.
    TooDeep,
    /// The render wrote more than its input's size and a margin.
    OutputTooLarge,
    /// The template left out the context where it was placed.
    ContextNotWritten,
    /// The engine could not run the template.
    EngineFailed,
}

#[cfg(test)]
impl TemplateErrorKind {
    /// Every kind, in the library's order.
    const ALL: [TemplateErrorKind; 9] = [
        TemplateErrorKind::Syntax,
        TemplateErrorKind::NotATemplate,
        TemplateErrorKind::Unsupported,
        TemplateErrorKind::Raised,
        TemplateErrorKind::OutOfFuel,
        TemplateErrorKind::TooDeep,
        TemplateErrorKind::OutputTooLarge,
        TemplateErrorKind::ContextNotWritten,
        TemplateErrorKind::EngineFailed,
    ];
}

/// A problem to throw: its kind and its one-line message. Plain data, so it can be made on a
/// worker thread and thrown (or a promise rejected) on the JavaScript thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub(crate) code: ErrorCode,
    pub(crate) message: String,
    /// Why a previous report was refused, for `error.reason` (and `error.block`).
    pub(crate) reason: Option<mentor_context::PreviousTurnReason>,
    /// What a chat template's error is, for `error.templateKind`.
    pub(crate) template_kind: Option<mentor_context::TemplateErrorKind>,
}

impl Failure {
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
            reason: None,
            template_kind: None,
        }
    }

    /// A library error, with the library's message (and the reason a previous report was
    /// refused).
    pub(crate) fn library(err: &mentor_context::Error) -> Failure {
        Failure {
            reason: err.previous_turn_reason(),
            template_kind: err
                .template_error()
                .map(mentor_context::TemplateError::kind),
            ..Failure::new(ErrorCode::of(err), err.to_string())
        }
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
        let error = raw::error(env, self.code.as_str(), &self.message).and_then(|error| {
            if let Some(reason) = self.reason {
                let code = raw::string(env, reason.code())?;
                raw::set_named(env, error, c"reason", code)?;
                if let Some(block) = reason.block() {
                    #[allow(clippy::cast_precision_loss)]
                    let block = raw::number_value(env, block as f64)?;
                    raw::set_named(env, error, c"block", block)?;
                }
            }
            if let Some(kind) = self.template_kind {
                let code = raw::string(env, kind.code())?;
                raw::set_named(env, error, c"templateKind", code)?;
            }
            Ok(error)
        });
        match error {
            Ok(error) => {
                // SAFETY: `error` was made just now by `env`, in the handle scope of this call.
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

/// A library error is thrown as [`Failure::library`] makes it.
impl<T> OrThrow<T> for Result<T, mentor_context::Error> {
    fn or_throw(self, env: Env) -> napi::Result<T> {
        self.map_err(|err| Failure::library(&err).into_napi(env))
    }
}

/// So that `?` on a library call, in code that fails with a [`Failure`], makes it as
/// [`Failure::library`] does.
impl From<mentor_context::Error> for Failure {
    fn from(err: mentor_context::Error) -> Failure {
        Failure::library(&err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_codes_are_the_library_s_in_its_order() {
        assert_eq!(ErrorCode::ALL.len(), ErrorKind::ALL.len() + 1);
        for (code, kind) in ErrorCode::ALL.iter().zip(ErrorKind::ALL.iter().copied()) {
            assert_eq!(code.as_str(), kind.code());
            assert_eq!(ErrorCode::of_kind(kind), *code);
            // napi-rs writes the enum's variant in upper snake case: the same text.
            let variant = format!("{code:?}");
            let mut snake = String::new();
            for (at, c) in variant.char_indices() {
                if c.is_ascii_uppercase() && at > 0 {
                    snake.push('_');
                }
                snake.push(c.to_ascii_uppercase());
            }
            assert_eq!(snake, kind.code());
        }
        assert_eq!(ErrorCode::LibraryError.as_str(), "LIBRARY_ERROR");
    }

    #[test]
    fn the_template_kinds_are_the_library_s_in_its_order() {
        let library = mentor_context::TemplateErrorKind::ALL;
        assert_eq!(TemplateErrorKind::ALL.len(), library.len());
        for (ours, kind) in TemplateErrorKind::ALL.iter().zip(library) {
            // napi-rs writes the enum's variant in upper snake case: the library's code.
            let variant = format!("{ours:?}");
            let mut snake = String::new();
            for (at, c) in variant.char_indices() {
                if c.is_ascii_uppercase() && at > 0 {
                    snake.push('_');
                }
                snake.push(c.to_ascii_uppercase());
            }
            assert_eq!(snake, kind.code());
        }
    }
}

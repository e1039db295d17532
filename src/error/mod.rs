//! Errors: what went wrong, and where. [`Error`] says it in words and in fields;
//! [`ErrorKind`] (`kind.rs`) is the kind to match on, with a stable code; a refused previous
//! report says why in a [`PreviousTurnReason`] (`previous.rs`); a chat template's error is a
//! [`TemplateError`] of a [`TemplateErrorKind`] (`template.rs`).

mod kind;
mod previous;
mod template;

use std::sync::Arc;

pub use kind::ErrorKind;
pub use previous::PreviousTurnReason;
pub use template::{TemplateError, TemplateErrorKind};

/// Everything that can go wrong when configuring an assembler or reading results.
///
/// Assembling a context never fails: any text, score or size is handled. Errors come from
/// configuration that can never produce a valid context (a header that alone is over the
/// budget), from names that mean nothing (an unknown encoding), from input that is not valid
/// (a list of results, a conversation, tool definitions, a tokenizer file, a report), from a
/// whole prompt that cannot fit its window or whose chat template raises or passes one of its
/// bounds, and from a deadline that has passed.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An encoding name other than `o200k_base`, `cl100k_base`, `p50k_base` or `r50k_base`.
    #[error("unknown encoding `{name}` (expected o200k_base, cl100k_base, p50k_base or r50k_base)")]
    UnknownEncoding {
        /// The name given.
        name: String,
    },
    /// An OpenAI model's name given where an encoding's is expected: the model option takes
    /// it.
    #[error(
        "`{name}` is a model, not an encoding: name it as the model, or give its encoding, {encoding}"
    )]
    ModelNamedAsEncoding {
        /// The name given.
        name: String,
        /// The model's encoding, such as `"o200k_base"`.
        encoding: &'static str,
    },
    /// An engine asked to count an encoding it does not ship.
    #[error("the {engine} engine has no {encoding} (choose the tiktoken engine)")]
    EngineLacksEncoding {
        /// The engine's name, such as `"bpe-openai"`.
        engine: &'static str,
        /// The encoding's name, such as `"p50k_base"`.
        encoding: &'static str,
    },

    /// A tokenizer file (a Hugging Face `tokenizer.json`, a Tekken file) that cannot be read
    /// or is not a tokenizer of its kind.
    #[error("tokenizer file {file}: {problem}")]
    TokenizerFile {
        /// The file's path, or `(given as bytes)` when its contents were handed over.
        file: String,
        /// What is wrong with it.
        problem: String,
        /// The error reading it, when it could not be read: shared, so that `Error` stays
        /// `Clone` (`source()` gives the `Arc<io::Error>`).
        #[source]
        source: Option<Arc<std::io::Error>>,
    },

    /// A model name whose encoding, or whose context window, is unknown.
    #[error("unknown model `{model}`: no known encoding or window (name an encoding instead)")]
    UnknownModel {
        /// The name given.
        model: String,
    },
    /// A name that names nothing of its kind: a format, an overflow policy, a duplicates
    /// mode.
    #[error("unknown {kind} `{name}` (expected {expected})")]
    UnknownName {
        /// What was being named, such as `"format"`.
        kind: &'static str,
        /// The name given.
        name: String,
        /// The names that are known, as words.
        expected: &'static str,
    },
    /// The header alone takes more tokens than the budget. (It is counted no further than
    /// the budget, so its full count is not known.)
    #[error("the header takes more tokens than the budget of {budget}")]
    HeaderOverBudget {
        /// The budget.
        budget: usize,
    },
    /// The minimum size of a truncated block is larger than the budget, so the setting can
    /// never be met.
    #[error(
        "the minimum truncated block of {min_tokens} tokens is larger than the budget of {budget}"
    )]
    MinTruncatedOverBudget {
        /// The configured minimum.
        min_tokens: usize,
        /// The budget.
        budget: usize,
    },
    /// The answer's reserve and the rest of the prompt take a model's whole context window.
    #[error(
        "model `{model}` has a window of {context_window} tokens: reserving {reserve_output} for \
         the answer and {prompt_tokens} for the rest of the prompt leaves no room for the context"
    )]
    WindowTooSmall {
        /// The model.
        model: String,
        /// Its context window.
        context_window: usize,
        /// Tokens reserved for the answer.
        reserve_output: usize,
        /// Tokens of the rest of the prompt.
        prompt_tokens: usize,
    },
    /// A model API's response (or a stream of its events) that cannot be read against a
    /// report: not JSON, cut off before its end, a citation with negative or reversed
    /// indices, or a dialect the report was not assembled for. The problem names the place.
    #[error("the response cannot be read: {problem}")]
    Response {
        /// What is wrong, and where.
        problem: String,
    },
    /// The key to seal reports with is shorter than
    /// [`MIN_KEY_BYTES`](crate::seal::MIN_KEY_BYTES): it could be guessed.
    #[error("the seal key is {bytes} bytes; it needs at least 16 (32 random bytes are best)")]
    SealKeyTooShort {
        /// The key's length in bytes.
        bytes: usize,
    },
    /// The minimum score is NaN, which no score passes or fails meaningfully.
    #[error("the minimum score is NaN")]
    NanMinScore,
    /// The input is not a JSON array of results.
    #[error("line {line}, column {column}: {message}")]
    Json {
        /// 1-based line of the problem.
        line: usize,
        /// 1-based column of the problem.
        column: usize,
        /// What is wrong there.
        message: String,
        /// The parser's own error.
        #[source]
        source: Arc<serde_json::Error>,
    },
    /// A follow-up turn: the previous turn's report cannot be continued by this assembler
    /// (another encoding, another format or header, chips not numbered 1..n, a block edited).
    #[error("the previous report does not fit this assembler: {problem}")]
    PreviousTurnMismatch {
        /// Why, as a value: tampering or a configuration change.
        reason: PreviousTurnReason,
        /// What does not match, in words.
        problem: String,
    },
    /// A follow-up turn: the earlier turns' blocks alone take more tokens than the budget, so
    /// they cannot all be kept with their numbers. Start a new context instead (or raise the
    /// budget); dropping some would leave the earlier answers' markers pointing at nothing.
    #[error("the earlier turns' blocks take {tokens} tokens, more than the budget of {budget}")]
    EarlierBlocksOverBudget {
        /// Tokens the previous text takes.
        tokens: usize,
        /// The budget.
        budget: usize,
    },
    /// A chat template that cannot be used: it does not compile, it raised an exception, it
    /// ran out of fuel or wrote too much, or its file is not a template. The message names the
    /// file and line where known; the [`TemplateError`] says which of these it is
    /// ([`TemplateError::kind`]), on which line, and holds minijinja's error as its `source()`.
    #[error(transparent)]
    ChatTemplate(TemplateError),
    /// A conversation that cannot be fitted as given: empty, not ending with the user's
    /// question, a role that is not a name, or a message the template's kind cannot write.
    #[error("conversation: {problem}")]
    Conversation {
        /// What is wrong, naming the message.
        problem: String,
    },
    /// The system message, the question, the template's framing and the answer's reserve
    /// alone take more than the window: nothing can be dropped or cut to fit them.
    #[error(
        "the system message, the question and the chat template take {needed} tokens, and with \
         the answer's reserve of {reserve} that is more than the window of {window}"
    )]
    PromptTooLarge {
        /// Tokens of the smallest prompt: no history, no context.
        needed: usize,
        /// The answer's reserve.
        reserve: usize,
        /// The model's window.
        window: usize,
    },
    /// A date that is not a day of the calendar written `YYYY-MM-DD` (years 1 to 9999).
    #[error("invalid date `{date}` (expected YYYY-MM-DD)")]
    InvalidDate {
        /// The date as given.
        date: String,
    },
    /// A whole-prompt setting that cannot work (a reserve that takes the whole window, a
    /// placement the template does not read, a dialect).
    #[error("{problem}")]
    PromptSetting {
        /// The setting at fault, by its name in [`Settings`](crate::Settings): `"reserve"`,
        /// `"trim_step"`, `"context_in"`, ...
        setting: &'static str,
        /// What is wrong, in words.
        problem: String,
    },
    /// A call that needs a dialect (a model API's entries, reading its response) on an
    /// assembler that writes none.
    #[error(
        "this assembler writes no dialect: build it with one (anthropic, anthropic-documents, \
         bedrock, cohere or mistral) to write a model API's entries or read its response"
    )]
    NoDialect,
    /// A whole prompt's fitting stopped at its
    /// [`Deadline`](crate::prompt::Deadline) (its instant reached, or cancelled), between
    /// two renders or counts: no prompt was made.
    #[error(
        "the deadline passed before the prompt was fitted (its time ran out, or it was \
         cancelled): no prompt was made"
    )]
    DeadlinePassed,
    /// A setting that does not exist, named as the caller spelled it, with the closest known
    /// one where one is close.
    #[error("unknown setting `{setting}`{}", suggestion.as_ref().map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default())]
    UnknownSetting {
        /// The setting as given.
        setting: String,
        /// The closest known setting, spelled as the caller spells settings.
        suggestion: Option<String>,
    },
    /// A setting whose value cannot work, alone or with another, named as the caller spelled
    /// it (`--max-blocks`, `max_blocks`, `maxBlocks`). With a `source`, the problem is that
    /// error's, and [`kind`](Error::kind) is its kind.
    #[error("{setting}: {problem}")]
    Setting {
        /// The setting, as the caller spells it.
        setting: String,
        /// What is wrong, in words.
        problem: String,
        /// The error the setting caused, when it is one of another kind
        /// ([`Error::HeaderOverBudget`] for `header`, say).
        #[source]
        source: Option<Box<Error>>,
    },
}

impl Error {
    /// The kind of problem, to match on; its [`code`](ErrorKind::code) is what every front
    /// end reports. An [`Error::Setting`] caused by another error is of that error's kind.
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::UnknownEncoding { .. } | Error::ModelNamedAsEncoding { .. } => {
                ErrorKind::UnknownEncoding
            }
            Error::EngineLacksEncoding { .. } => ErrorKind::EngineLacksEncoding,
            Error::TokenizerFile { .. } => ErrorKind::TokenizerFile,
            Error::UnknownModel { .. } => ErrorKind::UnknownModel,
            Error::UnknownName { .. } => ErrorKind::UnknownName,
            Error::HeaderOverBudget { .. } => ErrorKind::HeaderOverBudget,
            Error::MinTruncatedOverBudget { .. } => ErrorKind::MinTruncatedOverBudget,
            Error::WindowTooSmall { .. } | Error::PromptTooLarge { .. } => {
                ErrorKind::WindowTooSmall
            }
            Error::Response { .. } => ErrorKind::InvalidResponse,
            Error::SealKeyTooShort { .. } => ErrorKind::SealKeyTooShort,
            Error::NanMinScore => ErrorKind::NanMinScore,
            Error::Json { .. } => ErrorKind::InvalidJson,
            Error::PreviousTurnMismatch { .. } => ErrorKind::PreviousTurnMismatch,
            Error::EarlierBlocksOverBudget { .. } => ErrorKind::EarlierBlocksOverBudget,
            Error::ChatTemplate(_) => ErrorKind::ChatTemplate,
            Error::Conversation { .. } => ErrorKind::InvalidConversation,
            Error::InvalidDate { .. } => ErrorKind::InvalidDate,
            Error::PromptSetting { .. } => ErrorKind::InvalidSetting,
            Error::NoDialect => ErrorKind::NoDialect,
            Error::DeadlinePassed => ErrorKind::DeadlinePassed,
            Error::UnknownSetting { .. } => ErrorKind::UnknownSetting,
            Error::Setting { source, .. } => source
                .as_deref()
                .map_or(ErrorKind::InvalidSetting, Error::kind),
        }
    }

    /// Why a previous turn's report was refused, for an [`Error::PreviousTurnMismatch`]
    /// (or a setting's error caused by one).
    #[must_use]
    pub fn previous_turn_reason(&self) -> Option<PreviousTurnReason> {
        match self {
            Error::PreviousTurnMismatch { reason, .. } => Some(*reason),
            Error::Setting {
                source: Some(source),
                ..
            } => source.previous_turn_reason(),
            _ => None,
        }
    }

    /// The chat template's error, for an [`Error::ChatTemplate`] (or a setting's error caused
    /// by one): its [`kind`](TemplateError::kind) and [`line`](TemplateError::line).
    #[must_use]
    pub fn template_error(&self) -> Option<&TemplateError> {
        match self {
            Error::ChatTemplate(err) => Some(err),
            Error::Setting {
                source: Some(source),
                ..
            } => source.template_error(),
            _ => None,
        }
    }

    /// A chat template's error of `kind`, said as `problem`.
    pub(crate) fn template(kind: TemplateErrorKind, problem: impl Into<String>) -> Error {
        Error::ChatTemplate(TemplateError::new(kind, problem))
    }

    /// The setting a configuration error is about, by its name in
    /// [`Settings`](crate::Settings) (`"header"` for [`Error::HeaderOverBudget`]), where one
    /// setting is.
    #[must_use]
    pub fn setting_at_fault(&self) -> Option<&'static str> {
        match self {
            Error::HeaderOverBudget { .. } => Some("header"),
            Error::MinTruncatedOverBudget { .. } => Some("min_truncated_tokens"),
            Error::SealKeyTooShort { .. } => Some("seal_key"),
            Error::NanMinScore => Some("min_score"),
            Error::PromptSetting { setting, .. } => Some(setting),
            Error::ChatTemplate(_) => Some("chat_template"),
            Error::TokenizerFile { .. } => Some("tokenizer_file"),
            Error::PromptTooLarge { .. } => Some("window"),
            _ => None,
        }
    }

    /// A problem with a tokenizer file's contents, before its path is known.
    pub(crate) fn tokenizer_data(problem: String) -> Error {
        Error::TokenizerFile {
            file: "(given as bytes)".to_string(),
            problem,
            source: None,
        }
    }

    /// A tokenizer file that cannot be read.
    pub(crate) fn tokenizer_file(path: &std::path::Path, err: std::io::Error) -> Error {
        Error::TokenizerFile {
            file: path.display().to_string(),
            problem: crate::read_file::describe(&err),
            source: Some(Arc::new(err)),
        }
    }

    /// The same error, naming the file `path` it came from.
    #[must_use]
    pub(crate) fn in_file(self, path: &std::path::Path) -> Error {
        match self {
            Error::TokenizerFile {
                problem, source, ..
            } => Error::TokenizerFile {
                file: path.display().to_string(),
                problem,
                source,
            },
            other => other,
        }
    }

    /// A previous report refused for `reason`, said as `problem`.
    pub(crate) fn previous_turn(reason: PreviousTurnReason, problem: impl Into<String>) -> Error {
        Error::PreviousTurnMismatch {
            reason,
            problem: problem.into(),
        }
    }

    pub(crate) fn unknown_name(kind: &'static str, name: &str, expected: &'static str) -> Error {
        Error::UnknownName {
            kind,
            name: name.to_string(),
            expected,
        }
    }
}

impl From<serde_json::Error> for Error {
    fn from(err: serde_json::Error) -> Error {
        // serde_json appends " at line L column C" to its message; the position has fields
        // of its own here, so keep only the description.
        let message = err.to_string();
        let message = match message.rfind(" at line ") {
            Some(at) => message[..at].to_string(),
            None => message,
        };
        // serde_json says column 0 for a problem found before the first character of a line
        // (the end of input, say); the first column is 1 here, as the docs promise.
        Error::Json {
            line: err.line().max(1),
            column: err.column().max(1),
            message,
            source: Arc::new(err),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_errors_carry_position_without_repeating_it() {
        let err: Error = serde_json::from_str::<Vec<u8>>("[1,\n 2,")
            .unwrap_err()
            .into();
        let Error::Json {
            line,
            column,
            message,
            ..
        } = &err
        else {
            panic!("{err:?}")
        };
        assert_eq!((*line, *column), (2, 3));
        assert!(!message.contains("line"), "{message}");
        assert_eq!(err.to_string(), format!("line 2, column 3: {message}"));
        let source = std::error::Error::source(&err).expect("the parser's error is kept");
        assert!(source.to_string().contains("line 2 column 3"), "{source}");
    }

    #[test]
    fn messages_name_the_problem() {
        let err = Error::HeaderOverBudget { budget: 10 };
        assert_eq!(
            err.to_string(),
            "the header takes more tokens than the budget of 10"
        );
    }
}

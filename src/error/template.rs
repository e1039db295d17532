//! [`TemplateError`]: why a chat template could not be used or rendered, as a
//! [`TemplateErrorKind`] to match on, the line and the template's name where known, and
//! minijinja's own error as its `source()`. minijinja's `Error` (`kind()`, `line()`,
//! `source()`) is the model.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// What kind of problem a [`TemplateError`] is, from [`TemplateError::kind`].
///
/// Two families: the template cannot be used at all (it does not compile, it is not a
/// template, this library cannot write or count it safely), found when it is built; and the
/// template failed on one conversation (it raised, or met one of the render's bounds), found
/// when a prompt is rendered. Each kind has a stable [`code`](Self::code), what the HTTP
/// service and the bindings report beside the error's own `CHAT_TEMPLATE`: a new version may
/// add kinds, never rename one.
///
/// ```
/// use mentor_context::TemplateErrorKind;
///
/// assert_eq!(TemplateErrorKind::OutOfFuel.code(), "OUT_OF_FUEL");
/// assert!(TemplateErrorKind::OutOfFuel.is_bound());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[non_exhaustive]
pub enum TemplateErrorKind {
    /// The source does not compile: a syntax error, or a construct the engine does not
    /// support (a chain of comparisons holding `in`).
    Syntax,
    /// What was given is not a template: a file that cannot be read or is not UTF-8, a
    /// `tokenizer_config.json` without a usable `chat_template`, a source over a megabyte.
    NotATemplate,
    /// A template this library will not write with its tokenizer: a Tekken file of a version
    /// it does not write or lacking a special token the format needs, a normalizer that
    /// removes the zero-width space that neutralizes control tokens.
    Unsupported,
    /// The template raised on this conversation: its `raise_exception`, or any other error
    /// while rendering it (an unknown filter's call, a missing key, `'abc'.index('x')`).
    Raised,
    /// The render ran out of fuel: it did more work than its input allows (a bound).
    OutOfFuel,
    /// A value or a call nested deeper than the render allows (256 levels of a value,
    /// 200 of calls): a bound.
    TooDeep,
    /// The render wrote more than its input's size and a margin: a bound.
    OutputTooLarge,
    /// The template did not write the context where it was placed (in a part of the system
    /// message the template leaves out), so the context would be lost.
    ContextNotWritten,
    /// The engine could not run the template: no thread to run it on, no memory for its
    /// control tokens' automaton, or it failed inside.
    EngineFailed,
}

impl TemplateErrorKind {
    /// Every kind, in the order they are declared here.
    pub const ALL: &'static [TemplateErrorKind] = &[
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

    /// The kind's stable code, in upper snake case: `"OUT_OF_FUEL"` (as serde writes it).
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            TemplateErrorKind::Syntax => "SYNTAX",
            TemplateErrorKind::NotATemplate => "NOT_A_TEMPLATE",
            TemplateErrorKind::Unsupported => "UNSUPPORTED",
            TemplateErrorKind::Raised => "RAISED",
            TemplateErrorKind::OutOfFuel => "OUT_OF_FUEL",
            TemplateErrorKind::TooDeep => "TOO_DEEP",
            TemplateErrorKind::OutputTooLarge => "OUTPUT_TOO_LARGE",
            TemplateErrorKind::ContextNotWritten => "CONTEXT_NOT_WRITTEN",
            TemplateErrorKind::EngineFailed => "ENGINE_FAILED",
        }
    }

    /// Whether the kind is one of the render's bounds (fuel, depth, output), which a
    /// template meets on a conversation rather than raising on it.
    #[must_use]
    pub const fn is_bound(self) -> bool {
        matches!(
            self,
            TemplateErrorKind::OutOfFuel
                | TemplateErrorKind::TooDeep
                | TemplateErrorKind::OutputTooLarge
        )
    }
}

impl fmt::Display for TemplateErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// A chat template that cannot be used, or that failed on a conversation: the payload of
/// [`Error::ChatTemplate`](super::Error::ChatTemplate).
///
/// Its message is one line, `chat template: ...`, naming the file and the line where known;
/// [`kind`](Self::kind) says what happened, [`line`](Self::line) where, and `source()` is
/// minijinja's error when the engine made one (downcast it to `minijinja::Error` for its
/// span).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TemplateError {
    kind: TemplateErrorKind,
    problem: String,
    line: Option<usize>,
    name: Option<String>,
    /// Whether the message begins with `name` (a file's path does; a template's name is not
    /// written, so that messages stay as they were).
    shows_name: bool,
    source: Option<Arc<minijinja::Error>>,
}

impl TemplateError {
    /// A problem of `kind`, in words.
    pub(crate) fn new(kind: TemplateErrorKind, problem: impl Into<String>) -> TemplateError {
        TemplateError {
            kind,
            problem: problem.into(),
            line: None,
            name: None,
            shows_name: false,
            source: None,
        }
    }

    /// A problem of `kind` said as `problem`, that minijinja's `err` caused: its line is
    /// the error's.
    pub(crate) fn engine(
        kind: TemplateErrorKind,
        problem: impl Into<String>,
        err: minijinja::Error,
    ) -> TemplateError {
        TemplateError {
            line: err.line(),
            source: Some(Arc::new(err)),
            ..TemplateError::new(kind, problem)
        }
    }

    /// The same error, of the template named `name` (not written in the message).
    #[must_use]
    pub(crate) fn named(self, name: &str) -> TemplateError {
        if self.name.is_some() {
            return self;
        }
        TemplateError {
            name: Some(name.to_string()),
            ..self
        }
    }

    /// The same error, of the file `path`: its message begins with the path.
    #[must_use]
    #[cfg_attr(not(feature = "huggingface"), allow(dead_code))]
    pub(crate) fn in_file(self, path: &std::path::Path) -> TemplateError {
        TemplateError {
            name: Some(path.display().to_string()),
            shows_name: true,
            ..self
        }
    }

    /// What kind of problem it is.
    #[must_use]
    pub fn kind(&self) -> TemplateErrorKind {
        self.kind
    }

    /// The 1-based line of the template the problem is on, where the engine knows it: not
    /// for [`OutputTooLarge`](TemplateErrorKind::OutputTooLarge) (minijinja reports a failed
    /// write once the render has unwound), nor for the kinds about a whole file or tokenizer.
    #[must_use]
    pub fn line(&self) -> Option<usize> {
        self.line
    }

    /// The template's name: the path of the file it was read from, or the
    /// [`ChatTemplate`](crate::prompt::ChatTemplate)'s name (`jinja/...`, `mistral/...`)
    /// when it failed on a conversation; `None` when it was not yet built from anything
    /// named.
    #[must_use]
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// What is wrong, in words, without the file's name (with the line, as `(line 3)`).
    #[must_use]
    pub fn problem(&self) -> &str {
        &self.problem
    }
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("chat template: ")?;
        if let (true, Some(name)) = (self.shows_name, &self.name) {
            write!(f, "{name}: ")?;
        }
        f.write_str(&self.problem)
    }
}

impl std::error::Error for TemplateError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|err| err as &(dyn std::error::Error + 'static))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_distinct_upper_snake_case_and_serde_s() {
        let mut codes: Vec<&str> = TemplateErrorKind::ALL.iter().map(|k| k.code()).collect();
        for kind in TemplateErrorKind::ALL {
            assert_eq!(
                serde_json::to_string(kind).unwrap(),
                format!("\"{}\"", kind.code())
            );
            let back: TemplateErrorKind =
                serde_json::from_str(&format!("\"{}\"", kind.code())).unwrap();
            assert_eq!(back, *kind);
        }
        assert!(
            codes
                .iter()
                .all(|code| code.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'))
        );
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), TemplateErrorKind::ALL.len());
    }

    #[test]
    fn the_message_names_a_file_but_not_a_template() {
        let err = TemplateError::new(TemplateErrorKind::Raised, "boom (line 2)");
        assert_eq!(err.to_string(), "chat template: boom (line 2)");
        let named = err.clone().named("jinja/x");
        assert_eq!(named.to_string(), "chat template: boom (line 2)");
        assert_eq!(named.name(), Some("jinja/x"));
        let in_file = err.in_file(std::path::Path::new("t.jinja"));
        assert_eq!(in_file.to_string(), "chat template: t.jinja: boom (line 2)");
        assert_eq!(in_file.name(), Some("t.jinja"));
    }
}

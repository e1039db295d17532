//! Reading the results: from a file or standard input, checked for UTF-8 and emptiness
//! before the library parses them, with every problem reported at its line and column.

use std::io::{self, IsTerminal};
use std::path::{Path, PathBuf};

use mentor_context::machinery::{describe_io_error, read_capped, read_file};
use mentor_context::wire::{UnknownProperties, parse_request};
use mentor_context::{AssembledContext, Error, MentorRagResult};

use crate::output::{Failure, escape_os, warning_line};

/// What to say when the results are read from a terminal.
pub(crate) const STDIN_HINT: &str = "no FILE given: reading JSON results from standard input \
                                     (pipe a file in, or type them and end with Ctrl-D)";

/// The most bytes an input (results, a report, an answer, a conversation; a file or standard
/// input) is read for, and one line of `batch` input: far more than any request (50,000
/// results of 5 KB are 250 MB), so that only a mistaken path such as `/dev/zero` meets it.
pub(crate) const MAX_INPUT_BYTES: u64 = 1 << 30;

/// What the refusal of a larger input calls it.
pub(crate) const INPUT: &str = "an input";

/// Where the results come from, and the name that messages give it.
pub(crate) enum Input {
    /// Standard input: no FILE, or `-`.
    Stdin,
    /// A file, by the path given on the command line.
    File(PathBuf),
}

impl Input {
    /// The input a FILE argument names; `-` and no FILE both mean standard input, as is usual
    /// for filters.
    pub(crate) fn new(file: Option<&Path>) -> Input {
        match file {
            Some(path) if path != Path::new("-") => Input::File(path.to_path_buf()),
            _ => Input::Stdin,
        }
    }

    /// The name messages start with: the path as given, or `<stdin>`.
    pub(crate) fn name(&self) -> String {
        match self {
            Input::Stdin => "<stdin>".to_string(),
            Input::File(path) => escape_os(path.as_os_str()),
        }
    }

    /// All the bytes, read before any parsing so that a parse error can point into them: at
    /// most [`MAX_INPUT_BYTES`], and from a file only when it is a regular one.
    fn read(&self) -> io::Result<Vec<u8>> {
        match self {
            Input::Stdin => {
                // Waiting silently on a terminal looks like a hang.
                if io::stdin().is_terminal() {
                    warning_line(STDIN_HINT);
                }
                read_capped(io::stdin().lock(), MAX_INPUT_BYTES, INPUT)
            }
            Input::File(path) => read_file(path, MAX_INPUT_BYTES, INPUT),
        }
    }

    /// A bad-input failure about this input.
    pub(crate) fn fail(&self, problem: impl std::fmt::Display) -> Failure {
        Failure::bad_input(format!("{}: {problem}", self.name()))
    }

    /// A library error in this input, with its code.
    pub(crate) fn fail_with(&self, err: &mentor_context::Error) -> Failure {
        Failure::library(err).at(&self.name())
    }

    /// Reads and parses the results, reporting the first problem with its position. Each
    /// distinct unknown property gets one warning line on standard error, or, when `strict`,
    /// fails the input at its first occurrence.
    pub(crate) fn load(&self, strict: bool) -> Result<Vec<MentorRagResult>, Failure> {
        let text = self.text()?;
        // serde_json's "EOF while parsing a value at line 1 column 0" is no help to someone
        // who piped in nothing.
        if text.trim().is_empty() {
            return Err(self.fail("empty input; expected a JSON array of results"));
        }
        let unknown = if strict {
            UnknownProperties::Reject
        } else {
            UnknownProperties::Report
        };
        let parsed = parse_request(&text, unknown).map_err(|err| self.fail_with(&err))?;
        for property in &parsed.unknown_properties {
            warning_line(&format!(
                "{}: {property}, ignored in {} of {} results (--strict makes this an error)",
                self.name(),
                property.count,
                parsed.results.len()
            ));
        }
        Ok(parsed.results)
    }

    /// Reads the whole input as text, without a byte order mark.
    pub(crate) fn text(&self) -> Result<String, Failure> {
        let bytes = self
            .read()
            .map_err(|err| self.fail(format_args!("cannot read: {}", io_problem(&err))))?;
        // UTF-16 of ASCII text is valid UTF-8 with a zero byte after each character: without
        // this, the JSON parser would report the first of those zeros.
        if let Some(encoding) = other_unicode(&bytes) {
            return Err(self.fail(not_utf8(encoding)));
        }
        // The library parses text, not bytes; a file that is not UTF-8 gets the position
        // and value of its first bad byte rather than a bare "invalid UTF-8".
        let mut text = String::from_utf8(bytes).map_err(|err| {
            let bytes = err.as_bytes();
            let at = err.utf8_error().valid_up_to();
            let (line, column) = line_and_column(bytes, at);
            self.fail(format_args!(
                "line {line}, column {column}: invalid UTF-8 (byte 0x{:02x})",
                bytes[at]
            ))
        })?;
        // Some Windows tools start UTF-8 files with a byte order mark; it is not text.
        if text.starts_with('\u{feff}') {
            text.drain(..'\u{feff}'.len_utf8());
        }
        Ok(text)
    }

    /// Reads and parses a report of `assemble --json` (one JSON object).
    pub(crate) fn load_report(&self) -> Result<AssembledContext<'static>, Failure> {
        let text = self.text()?;
        if text.trim().is_empty() {
            return Err(self.fail("empty input; expected an `assemble --json` report"));
        }
        // A struct reads from a JSON array too, field by field, which makes serde's message
        // for a results file given as the report a puzzle.
        if text.trim_start().starts_with('[') {
            return Err(
                self.fail("a JSON array; expected an `assemble --json` report (a JSON object)")
            );
        }
        serde_json::from_str(&text).map_err(|err| self.fail_with(&Error::from(err)))
    }

    /// Whether this is standard input.
    pub(crate) fn is_stdin(&self) -> bool {
        matches!(self, Input::Stdin)
    }
}

/// The Unicode encoding other than UTF-8 that `bytes` start in, if they do: told by a byte
/// order mark or, since JSON text starts with an ASCII character, by the zero bytes that
/// UTF-16 and UTF-32 put beside it (no UTF-8 JSON holds a zero byte).
pub(crate) fn other_unicode(bytes: &[u8]) -> Option<&'static str> {
    match *bytes {
        [0xff, 0xfe, 0, 0, ..] => Some("UTF-32 (little-endian)"),
        [0, 0, 0xfe, 0xff, ..] => Some("UTF-32 (big-endian)"),
        [0xff, 0xfe, ..] => Some("UTF-16 (little-endian)"),
        [0xfe, 0xff, ..] => Some("UTF-16 (big-endian)"),
        [a, 0, 0, 0, ..] if a != 0 => Some("UTF-32 (little-endian)"),
        [0, 0, 0, a, ..] if a != 0 => Some("UTF-32 (big-endian)"),
        [a, 0, ..] if a != 0 => Some("UTF-16 (little-endian)"),
        [0, a, ..] if a != 0 => Some("UTF-16 (big-endian)"),
        _ => None,
    }
}

/// What to say of input in `encoding`, one of [`other_unicode`]'s.
pub(crate) fn not_utf8(encoding: &str) -> String {
    format!("encoded in {encoding}, not UTF-8; save it as UTF-8")
}

/// The 1-based line and column of byte `at`. Columns count bytes, as serde_json's do, so
/// every position this program reports means the same.
fn line_and_column(bytes: &[u8], at: usize) -> (usize, usize) {
    let before = &bytes[..at];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    (line, at - line_start + 1)
}

/// A lowercase description of a read error, without the "(os error 2)" noise: the library's
/// words, so that every file the command reads is refused alike.
pub(crate) fn io_problem(err: &io::Error) -> String {
    describe_io_error(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based_and_count_bytes() {
        assert_eq!(line_and_column(b"abc", 0), (1, 1));
        assert_eq!(line_and_column(b"abc", 2), (1, 3));
        assert_eq!(line_and_column(b"a\nbc", 2), (2, 1));
        assert_eq!(line_and_column("\né\nxy".as_bytes(), 5), (3, 2));
    }

    #[test]
    fn utf16_and_utf32_are_told_from_utf8() {
        let encoded = |text: &str, little: bool, wide: bool| -> Vec<u8> {
            let mut bytes = Vec::new();
            for c in text.chars() {
                let c = c as u32;
                let unit = if wide {
                    c.to_be_bytes().to_vec()
                } else {
                    (c as u16).to_be_bytes().to_vec()
                };
                bytes.extend(if little {
                    unit.into_iter().rev().collect()
                } else {
                    unit
                });
            }
            bytes
        };
        for (little, wide, name) in [
            (true, false, "UTF-16 (little-endian)"),
            (false, false, "UTF-16 (big-endian)"),
            (true, true, "UTF-32 (little-endian)"),
            (false, true, "UTF-32 (big-endian)"),
        ] {
            // With a byte order mark, and without one.
            for text in ["\u{feff}[{}]", "[{}]", "\n ["] {
                assert_eq!(
                    other_unicode(&encoded(text, little, wide)),
                    Some(name),
                    "{text:?}"
                );
            }
        }
        for utf8 in ["[]", "\u{feff}[]", "é", "[", "", " ", "\u{1}"] {
            assert_eq!(other_unicode(utf8.as_bytes()), None, "{utf8:?}");
        }
        // Zero bytes alone are no character of any encoding: the JSON parser names them.
        for zeros in [&[0, 0][..], &[0, 0, 0, 0]] {
            assert_eq!(other_unicode(zeros), None, "{zeros:?}");
        }
    }

    #[test]
    fn dash_and_no_file_are_standard_input() {
        assert!(matches!(Input::new(None), Input::Stdin));
        assert!(matches!(Input::new(Some(Path::new("-"))), Input::Stdin));
        assert_eq!(Input::new(Some(Path::new("a.json"))).name(), "a.json");
    }
}

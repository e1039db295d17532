//! What the command writes: the output on standard output, or one line on standard error
//! and an exit code.
//!
//! Scripts parse both streams, so every message goes through [`error_line`]: one line,
//! prefixed with the program's name, whatever a file name or parser message contains.

use std::io::{self, Write};
use std::process::ExitCode;

use serde::Serialize;

/// The exit code for bad input of any kind: a bad file, option or configuration.
pub(crate) const EXIT_BAD_INPUT: u8 = 2;

/// The exit code when the output could not be written (standard output closed, disk full).
/// Not the input's fault, so not [`EXIT_BAD_INPUT`].
pub(crate) const EXIT_WRITE_FAILED: u8 = 1;

/// Why the program stops without output: one line for standard error, with the error's
/// stable code, and an exit code.
#[derive(Debug)]
pub(crate) struct Failure {
    exit: u8,
    code: &'static str,
    message: String,
}

/// The code of bad input that is no library error: a file that cannot be read, an empty
/// input, a flag the command refuses.
pub(crate) const INVALID_INPUT: &str = mentor_context::ErrorKind::InvalidInput.code();

impl Failure {
    /// A failure that is the input's fault: exit code [`EXIT_BAD_INPUT`], code
    /// [`INVALID_INPUT`].
    pub(crate) fn bad_input(message: String) -> Failure {
        Failure {
            exit: EXIT_BAD_INPUT,
            code: INVALID_INPUT,
            message,
        }
    }

    /// A library error: exit code [`EXIT_BAD_INPUT`], the error's own code and message.
    pub(crate) fn library(err: &mentor_context::Error) -> Failure {
        Failure {
            exit: EXIT_BAD_INPUT,
            code: err.kind().code(),
            message: err.to_string(),
        }
    }

    /// A failure to write the output: exit code [`EXIT_WRITE_FAILED`].
    pub(crate) fn write_failed(message: String) -> Failure {
        Failure {
            exit: EXIT_WRITE_FAILED,
            code: mentor_context::ErrorKind::WriteFailed.code(),
            message,
        }
    }

    /// The same failure with `code`.
    #[must_use]
    pub(crate) fn with_code(self, code: &'static str) -> Failure {
        Failure { code, ..self }
    }

    /// The same failure, said of `what` (a file, a flag).
    #[must_use]
    pub(crate) fn at(self, what: &str) -> Failure {
        Failure {
            message: format!("{what}: {}", self.message),
            ..self
        }
    }

    /// Writes the message as one line on standard error, with its code, and returns the
    /// exit code.
    pub(crate) fn report(&self) -> ExitCode {
        error_line(&format!("error[{}]: {}", self.code, self.message));
        ExitCode::from(self.exit)
    }
}

/// Writes `message` on standard error as one line, after the program's name.
pub(crate) fn error_line(message: &str) {
    // Ignore a failure to write to standard error: there is nowhere left to say so.
    let _ = writeln!(io::stderr(), "mentor-context: {}", one_line(message));
}

/// Writes `message` on standard error as one warning line: the output is still written.
pub(crate) fn warning_line(message: &str) {
    error_line(&format!("warning: {message}"));
}

/// `text` with every line break and other control character turned into a space, so that a
/// message stays one line whatever a file name or parser message contains.
pub(crate) fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if breaks_line(c) { ' ' } else { c })
        .collect()
}

/// Characters that end or reorder a line for some reader: control characters, the Unicode
/// line and paragraph separators (which readers that honour Unicode line breaks break at),
/// and bidirectional controls.
pub(crate) fn breaks_line(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        )
}

/// `name` (a file name, say) with each character that [`breaks_line`] escaped as `\u{..}`,
/// so a message naming it stays one line and still says which file it was.
pub(crate) fn escape_name(name: &str) -> String {
    let mut escaped = String::with_capacity(name.len());
    for c in name.chars() {
        if breaks_line(c) {
            escaped.extend(c.escape_unicode());
        } else {
            escaped.push(c);
        }
    }
    escaped
}

/// `name` (a file name, an argument) as [`escape_name`] writes it, with each byte that is not
/// part of UTF-8 written as `\xNN`: a Unix file name need not be UTF-8.
pub(crate) fn escape_os(name: &std::ffi::OsStr) -> String {
    let mut escaped = String::new();
    for chunk in name.as_encoded_bytes().utf8_chunks() {
        escaped.push_str(&escape_name(chunk.valid()));
        for byte in chunk.invalid() {
            escaped.push_str(&format!("\\x{byte:02X}"));
        }
    }
    escaped
}

/// The one-line message of a clap error: its lines up to the usage, which say what is wrong
/// (with any list of possible values or a tip), joined.
pub(crate) fn clap_message(err: &clap::Error) -> String {
    let rendered = err.render().to_string();
    let mut message = String::new();
    let lines = rendered.lines().map(str::trim);
    for line in lines.take_while(|line| !line.starts_with("Usage:")) {
        if line.is_empty() || line.starts_with("For more information") {
            continue;
        }
        if !message.is_empty() {
            // "...were not provided:" runs on into its list; other lines are separate points.
            message.push_str(if message.ends_with(':') { " " } else { "; " });
        }
        message.push_str(line);
    }
    match message.strip_prefix("error: ") {
        Some(rest) => rest.to_string(),
        None => message,
    }
}

/// `value` as one line of JSON.
pub(crate) fn json_line(value: &impl Serialize) -> Result<String, Failure> {
    match serde_json::to_string(value) {
        Ok(mut json) => {
            json.push('\n');
            Ok(json)
        }
        // Not the input's fault: the reports serialize from plain fields.
        Err(err) => Err(Failure::write_failed(format!("cannot write JSON: {err}"))),
    }
}

/// Writes the whole output at once. The output is built in full first, so a failure never
/// leaves part of it behind for a script to mistake for the whole.
pub(crate) fn write_stdout(output: &str) -> Result<(), Failure> {
    let mut stdout = io::stdout().lock();
    stdout
        .write_all(output.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|err| Failure::write_failed(format!("<stdout>: cannot write: {err}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_become_spaces() {
        assert_eq!(one_line("a\nb\r\tc"), "a b  c");
        assert_eq!(one_line("a\u{2028}b\u{2029}c"), "a b c");
        assert_eq!(
            escape_name("in\u{2028}put\n.json"),
            "in\\u{2028}put\\u{a}.json"
        );
        assert_eq!(escape_name("plain.json"), "plain.json");
    }
}

//! Reading a batch: physical lines from a file or standard input, one request per non-blank
//! line, read as they are needed so that memory holds only the lines in flight.

use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use mentor_context::MentorRagResult;
use mentor_context::machinery::open_regular;
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use crate::input::{Input, MAX_INPUT_BYTES, io_problem, not_utf8, other_unicode};
use crate::output::Failure;

/// One non-blank line of the input, not yet parsed.
pub(crate) struct Line {
    /// The physical line number, from 1, counting blank lines too.
    pub(crate) number: usize,
    /// The bytes, without the line break: UTF-8 is checked with the JSON, per line, so a bad
    /// byte costs its line, not the run.
    pub(crate) bytes: Vec<u8>,
}

/// The non-blank lines of an input, in order.
pub(crate) struct Lines {
    reader: Box<dyn BufRead + Send>,
    /// The input's name for messages.
    name: String,
    /// Physical lines read so far.
    number: usize,
    /// The most bytes a line is read for, its line break aside.
    max_line: u64,
}

impl Lines {
    /// Opens `file` (standard input for `None` or `-`), with its size when it has one.
    pub(crate) fn open(file: Option<&Path>) -> Result<(Lines, Option<u64>), Failure> {
        let input = Input::new(file);
        let name = input.name();
        let (reader, size): (Box<dyn Read + Send>, _) = match &input {
            Input::Stdin => (Box::new(io::stdin()), None),
            Input::File(path) => {
                // A regular file only: a FIFO would block before the run starts, a device
                // such as /dev/zero would never end. Standard input streams from anything.
                let (file, size) = open_regular(path).map_err(|err| {
                    Failure::bad_input(format!("{name}: cannot read: {}", io_problem(&err)))
                })?;
                (Box::new(file), Some(size))
            }
        };
        let mut lines = Lines::new(reader, name);
        // No line of a UTF-16 file would read: one line says why, before the run, rather
        // than one error per line. (A read error here is met again by the first line.)
        // Standard input is not looked at here: that would wait for it before the `--report`
        // page is first written; its first line is checked instead.
        if !input.is_stdin()
            && let Ok(start) = lines.reader.fill_buf()
            && let Some(encoding) = other_unicode(start)
        {
            return Err(input.fail(not_utf8(encoding)));
        }
        Ok((lines, size))
    }

    /// The lines of `reader`, called `name` in messages.
    pub(crate) fn new(reader: Box<dyn Read + Send>, name: String) -> Lines {
        Lines {
            reader: Box::new(BufReader::with_capacity(1 << 16, reader)),
            name,
            number: 0,
            max_line: MAX_INPUT_BYTES,
        }
    }

    /// The next non-blank line, `None` at the end of the input.
    ///
    /// # Errors
    ///
    /// A bad-input failure when the input cannot be read on.
    pub(crate) fn next_line(&mut self) -> Result<Option<Line>, Failure> {
        let mut bytes = Vec::new();
        Ok(self
            .next_line_into(&mut bytes)?
            .map(|(number, _)| Line { number, bytes }))
    }

    /// Reads the next non-blank line into `bytes`, replacing what it held, and gives its
    /// number and the input bytes it accounts for (for the progress bar): its own, its line
    /// break's and those of the blank lines before it. `None` at the end of the input. A job
    /// reads every line into the same buffer, so it allocates only when a line is longer than
    /// any before.
    ///
    /// # Errors
    ///
    /// A bad-input failure when the input cannot be read on.
    pub(crate) fn next_line_into(
        &mut self,
        bytes: &mut Vec<u8>,
    ) -> Result<Option<(usize, u64)>, Failure> {
        let mut consumed = 0;
        loop {
            bytes.clear();
            // A line longer than any request (standard input from /dev/zero has no line
            // break) is not read on; one byte more than a line may hold tells it apart.
            let limit = self.max_line.saturating_add(2);
            let read = (&mut self.reader).take(limit).read_until(b'\n', bytes);
            let read = read.map_err(|err| {
                Failure::bad_input(format!(
                    "{}: line {}: cannot read: {}",
                    self.name,
                    self.number + 1,
                    io_problem(&err)
                ))
            })?;
            if read == 0 {
                return Ok(None);
            }
            self.number += 1;
            consumed += read as u64;
            if bytes.last() == Some(&b'\n') {
                bytes.pop();
                if bytes.last() == Some(&b'\r') {
                    bytes.pop();
                }
            }
            if bytes.len() as u64 > self.max_line {
                return Err(Failure::bad_input(format!(
                    "{}: line {}: longer than {} bytes, the most read for one request",
                    self.name, self.number, self.max_line
                )));
            }
            // Some Windows tools start UTF-8 files with a byte order mark; it is not JSON.
            if self.number == 1 && bytes.starts_with(b"\xef\xbb\xbf") {
                bytes.drain(..3);
            }
            // Standard input's encoding, which `open` leaves to its first line.
            if self.number == 1
                && let Some(encoding) = other_unicode(bytes)
            {
                return Err(Failure::bad_input(format!(
                    "{}: {}",
                    self.name,
                    not_utf8(encoding)
                )));
            }
            if !bytes.iter().all(u8::is_ascii_whitespace) {
                return Ok(Some((self.number, consumed)));
            }
        }
    }
}

/// A request read from one line.
#[derive(Debug)]
pub(crate) struct Request {
    /// The `id` the line gave, if any, echoed in its report.
    pub(crate) id: Option<Box<RawValue>>,
    pub(crate) results: Vec<MentorRagResult>,
    /// The budget for this request, if the line sets one.
    pub(crate) budget: Option<usize>,
}

/// Why a line gives no request: its `id` if one could be read, and one line saying what is
/// wrong.
#[derive(Debug)]
pub(crate) struct BadLine {
    pub(crate) id: Option<Box<RawValue>>,
    pub(crate) problem: String,
}

/// The object form of a line. Unknown keys are an error: a misspelt `"budget"` would
/// otherwise be silently ignored.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RequestObject {
    #[serde(default, deserialize_with = "present")]
    id: Option<Box<RawValue>>,
    results: Vec<MentorRagResult>,
    #[serde(default)]
    budget: Option<usize>,
}

/// Only the `id` of an object, to name a line that is bad for another reason.
#[derive(Deserialize)]
struct IdOnly {
    #[serde(default, deserialize_with = "present")]
    id: Option<Box<RawValue>>,
}

/// `Some` for any value given, `null` included: an id is echoed exactly as given, its keys
/// in their order and `null` as `null`.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Box<RawValue>>, D::Error> {
    Box::<RawValue>::deserialize(deserializer).map(Some)
}

/// Parses one line: a JSON array of results, or an object with `results` and optionally `id`
/// and `budget`.
pub(crate) fn parse_request(bytes: &[u8]) -> Result<Request, BadLine> {
    let text = std::str::from_utf8(bytes).map_err(|err| {
        let at = err.valid_up_to();
        BadLine {
            id: None,
            problem: format!(
                "column {}: invalid UTF-8 (byte 0x{:02x})",
                at + 1,
                bytes[at]
            ),
        }
    })?;
    let first = text.trim_start().chars().next();
    if first == Some('[') {
        let results = serde_json::from_str(text).map_err(|err| BadLine {
            id: None,
            problem: json_problem(err),
        })?;
        return Ok(Request {
            id: None,
            results,
            budget: None,
        });
    }
    if first != Some('{') {
        let problem = "expected a JSON array of results or an object with \"results\"";
        return Err(BadLine {
            id: None,
            problem: problem.to_string(),
        });
    }
    match serde_json::from_str::<RequestObject>(text) {
        Ok(object) => Ok(Request {
            id: object.id,
            results: object.results,
            budget: object.budget,
        }),
        Err(err) => Err(BadLine {
            // Read again for its id alone: the line is reported under the id it gave.
            id: serde_json::from_str::<IdOnly>(text)
                .ok()
                .and_then(|only| only.id),
            problem: json_problem(err),
        }),
    }
}

/// A parser error as "column C: problem"; the line is reported beside it.
fn json_problem(err: serde_json::Error) -> String {
    match mentor_context::Error::from(err) {
        mentor_context::Error::Json {
            column, message, ..
        } => format!("column {column}: {message}"),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::Lines;

    #[test]
    fn lines_keep_their_physical_numbers_and_account_for_every_byte() {
        let input = "\u{feff}[1]\r\n\n  \n{\"results\":[]}\n\t\n[3]";
        let mut lines = Lines::new(Box::new(std::io::Cursor::new(input)), "input".into());
        let mut bytes = Vec::new();
        let mut seen = Vec::new();
        let mut consumed = 0;
        while let Some((number, line_bytes)) = lines.next_line_into(&mut bytes).unwrap() {
            seen.push((number, String::from_utf8(bytes.clone()).unwrap()));
            consumed += line_bytes;
        }
        // The byte order mark and the line breaks are not part of a line; blank lines are
        // skipped but counted.
        let expected = [(1, "[1]"), (4, "{\"results\":[]}"), (6, "[3]")];
        let expected: Vec<(usize, String)> =
            expected.iter().map(|&(n, l)| (n, l.to_string())).collect();
        assert_eq!(seen, expected);
        assert_eq!(consumed, input.len() as u64);
    }

    #[test]
    fn a_line_is_read_up_to_its_cap_and_no_further() {
        let lines = |input: &'static [u8]| {
            let mut lines = Lines::new(Box::new(input), "input".into());
            lines.max_line = 4;
            lines
        };
        // Four bytes and a CR LF are a line of four.
        let mut at_cap = lines(b"[12]\r\n[1]");
        assert_eq!(at_cap.next_line().unwrap().unwrap().bytes, b"[12]");
        assert_eq!(at_cap.next_line().unwrap().unwrap().bytes, b"[1]");
        for over in [&b"[123]\n[1]"[..], b"[123]"] {
            let err = lines(over).next_line().err().unwrap();
            let said = format!("{err:?}");
            assert!(
                said.contains("input: line 1: longer than 4 bytes, the most read for one request"),
                "{said}"
            );
        }
        // An endless line is read no further than the cap, a line break and one buffer.
        let read = Arc::new(AtomicU64::new(0));
        let endless = Counted(std::io::repeat(b'x'), Arc::clone(&read));
        let mut lines = Lines::new(Box::new(endless), "input".into());
        lines.max_line = 4;
        assert!(lines.next_line().is_err());
        assert!(read.load(Ordering::SeqCst) <= 6 + (1 << 16));
    }

    /// A reader that counts the bytes read from it.
    struct Counted<R>(R, Arc<AtomicU64>);

    impl<R: Read> Read for Counted<R> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.0.read(buf)?;
            self.1.fetch_add(n as u64, Ordering::SeqCst);
            Ok(n)
        }
    }
}

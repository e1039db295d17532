//! The jobs' sharing of the input and the output: the window, and how a run ends when the
//! output or the input fails, or a job panics.

use std::io::{self, Read, Write};

use mentor_context::{Assembler, ContextBuilder};
use serde_json::Value;

use super::{Ending, Finished, run};
use crate::batch::progress::Progress;
use crate::batch::read::Lines;

fn assembler() -> Assembler {
    ContextBuilder::new(60).build().unwrap()
}

/// A request line with `id` and one result of `content`, at `budget` if given.
fn line(id: usize, content: &str, budget: Option<usize>) -> String {
    let budget = budget.map_or(String::new(), |b| format!(",\"budget\":{b}"));
    format!("{{\"id\":{id},\"results\":[{{\"content\":\"{content}\",\"score\":0.5}}]{budget}}}\n")
}

/// `count` short request lines, with ids from `first`.
fn short_lines(first: usize, count: usize) -> String {
    (first..first + count)
        .map(|id| line(id, &format!("Document {id} says hello."), None))
        .collect()
}

fn run_on(
    input: impl Read + Send + 'static,
    jobs: usize,
    out: &mut (dyn Write + Send),
) -> Finished {
    let lines = Lines::new(Box::new(input), "input".to_string());
    run(lines, jobs, &assembler(), out, &Progress::new(None), None)
}

/// The ids of the reports written, in order.
fn ids(out: &[u8]) -> Vec<u64> {
    out.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            serde_json::from_slice::<Value>(l).unwrap()["id"]
                .as_u64()
                .unwrap()
        })
        .collect()
}

#[test]
fn a_slow_line_holds_up_the_reading_not_the_memory() {
    // The first line takes far longer than the rest, so without the window the other jobs
    // would read every later line while it is assembled. Its 2.3 MB take far longer than the
    // other jobs need to read up to the window's end, so the window is reached, not passed.
    let slow = line(
        0,
        &"Plan B costs 12 EUR a month. ".repeat(80_000),
        Some(1_000_000),
    );
    let input = slow + &short_lines(1, 300);
    for jobs in [2, 3] {
        let mut out = Vec::new();
        let finished = run_on(io::Cursor::new(input.clone()), jobs, &mut out);
        assert!(matches!(finished.ending, Ending::Complete));
        let window = jobs as u64 * super::LINES_PER_JOB;
        assert_eq!(
            finished.most_in_flight, window,
            "lines in flight with {jobs} jobs"
        );
        assert_eq!(ids(&out), (0..=300).collect::<Vec<u64>>());
        assert_eq!(finished.summary.requests(), 301);
    }
}

#[test]
fn one_job_reads_a_line_only_when_the_one_before_is_written() {
    let mut out = Vec::new();
    let finished = run_on(io::Cursor::new(short_lines(0, 20)), 1, &mut out);
    assert_eq!(finished.most_in_flight, 1);
    assert_eq!(ids(&out), (0..20).collect::<Vec<u64>>());
}

/// Accepts `room` bytes, then fails every write.
struct FullDisk {
    room: usize,
}

impl Write for FullDisk {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.len() > self.room {
            return Err(io::Error::other("no space left"));
        }
        self.room -= buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_failed_write_stops_every_job_and_ends_the_run() {
    let input = short_lines(0, 400);
    let report = {
        let mut out = Vec::new();
        run_on(
            io::Cursor::new(line(0, "Document 0 says hello.", None)),
            1,
            &mut out,
        );
        out.len()
    };
    for jobs in [1, 2, 4] {
        let mut out = FullDisk { room: report * 5 };
        let finished = run_on(io::Cursor::new(input.clone()), jobs, &mut out);
        let Ending::OutputFailed(failure) = finished.ending else {
            panic!("the run did not end with the output's failure");
        };
        assert!(
            format!("{failure:?}").contains("no space left"),
            "{failure:?}"
        );
        // Only the lines written are counted, and far fewer lines than the input's were read.
        assert!(
            finished.summary.requests() <= 5,
            "{}",
            finished.summary.requests()
        );
        assert!(finished.most_in_flight <= jobs as u64 * super::LINES_PER_JOB);
    }
}

/// Gives `text`, then fails.
struct BrokenPipe {
    text: io::Cursor<Vec<u8>>,
}

impl Read for BrokenPipe {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.text.read(buf)? {
            0 => Err(io::Error::other("connection reset")),
            n => Ok(n),
        }
    }
}

#[test]
fn an_input_that_fails_keeps_the_lines_before_it() {
    for jobs in [1, 3] {
        let text = short_lines(0, 10).into_bytes();
        let input = BrokenPipe {
            text: io::Cursor::new(text),
        };
        let mut out = Vec::new();
        let finished = run_on(input, jobs, &mut out);
        let Ending::InputFailed(failure) = finished.ending else {
            panic!("the run did not end with the input's failure");
        };
        let message = format!("{failure:?}");
        assert!(
            message.contains("line 11") && message.contains("connection reset"),
            "{message}"
        );
        assert_eq!(ids(&out), (0..10).collect::<Vec<u64>>());
    }
}

/// Panics at its `n`th write.
struct PanicsAt {
    n: usize,
}

impl Write for PanicsAt {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.n -= 1;
        assert!(self.n > 0, "the writer gives up");
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_job_that_panics_ends_the_run_instead_of_leaving_the_others_waiting() {
    // A slow line keeps the window full, so the other jobs are waiting for room when the
    // writer panics.
    let input = line(
        0,
        &"Plan B costs 12 EUR a month. ".repeat(20_000),
        Some(100_000),
    ) + &short_lines(1, 100);
    let ended = std::panic::catch_unwind(|| {
        let mut out = PanicsAt { n: 2 };
        run_on(io::Cursor::new(input), 3, &mut out)
    });
    assert!(ended.is_err(), "the panic is passed on");
}

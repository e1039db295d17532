//! The `mentor-context` binary, run as a real process: what it prints on success, and, for
//! every kind of bad input, exit code 2 with nothing on standard output and exactly one line
//! on standard error naming the input, the position and the problem.

// The tests, by what they check; the helpers below are theirs. A test crate's root looks for
// modules next to it, where Cargo would take them for test crates of their own.
#[path = "cli/answer_pages.rs"]
mod answer_pages;
#[path = "cli/bad_input.rs"]
mod bad_input;
#[path = "cli/batch.rs"]
mod batch;
#[path = "cli/bench.rs"]
mod bench;
#[path = "cli/citations.rs"]
mod citations;
#[path = "cli/documented.rs"]
mod documented;
#[path = "cli/dotnet.rs"]
mod dotnet;
#[path = "cli/hostile.rs"]
mod hostile;
#[path = "cli/html.rs"]
mod html;
#[path = "cli/inspect_prompt.rs"]
mod inspect_prompt;
#[path = "cli/pages.rs"]
mod pages;
#[path = "cli/prompt.rs"]
mod prompt;
#[path = "cli/prompt_tools.rs"]
mod prompt_tools;
#[path = "cli/report.rs"]
mod report;
#[path = "cli/report_layout.rs"]
mod report_layout;
#[path = "cli/selection.rs"]
mod selection;
#[path = "cli/serve/mod.rs"]
mod serve;
#[path = "cli/settings.rs"]
mod settings;
#[path = "cli/success.rs"]
mod success;
#[path = "cli/tokenizer_file.rs"]
mod tokenizer_file;
#[path = "cli/tool_results.rs"]
mod tool_results;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use mentor_context::Encoding;
use mentor_context::tokenizer::TokenCounter;
use serde_json::Value;

// The fixtures are the library's, at the root of the workspace.
const PRICING: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/pricing.json");

/// The keys of an `assemble --json` report, sorted: the serialized `AssembledContext`.
// Written out rather than taken from the library's tests/common (its `REPORT_KEYS`): that
// module needs the library's dev-dependencies, and this is the command's contract, which
// should not change just because a shared helper did.
const REPORT_KEYS: [&str; 7] = [
    "budget",
    "citations",
    "context",
    "encoding",
    "layout",
    "omitted",
    "tokenCount",
];

/// The keys of a `bench --json` report, sorted.
const BENCH_KEYS: [&str; 7] = [
    "bytesTokenized",
    "floorNs",
    "iterations",
    "maxNs",
    "medianNs",
    "minNs",
    "tokenCount",
];

/// What a run of the binary left behind.
#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs the binary with `args` and `stdin` as its standard input.
fn run_with_stdin<A: AsRef<std::ffi::OsStr>>(args: &[A], stdin: &[u8]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mentor-context"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    // Write from another thread: a large input could fill the pipe while the child is
    // already failing, and a failing child may close its end early.
    let mut pipe = child.stdin.take().expect("stdin is piped");
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let output = child.wait_with_output().expect("the binary runs");
    writer.join().expect("the writer thread ends");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

/// Runs the binary with `args` and an empty standard input.
fn run(args: &[&str]) -> Run {
    run_with_stdin(args, b"")
}

/// [`run`] with arguments that need not be UTF-8.
fn run_os(args: &[&std::ffi::OsStr]) -> Run {
    run_with_stdin(args, b"")
}

impl Run {
    /// The standard output of a successful run.
    #[track_caller]
    fn ok(self) -> String {
        assert_eq!(self.code, Some(0), "{self:#?}");
        assert_eq!(self.stderr, "", "{self:#?}");
        self.stdout
    }

    /// The standard output of a successful run, as JSON.
    #[track_caller]
    fn json(self) -> Value {
        let stdout = self.ok();
        assert!(stdout.ends_with('\n'), "ends with a newline: {stdout:?}");
        assert_eq!(stdout.matches('\n').count(), 1, "one line: {stdout:?}");
        serde_json::from_str(&stdout).expect("stdout is JSON")
    }

    /// Checks the bad-input contract, and that the one line contains every phrase.
    #[track_caller]
    fn bad(&self, phrases: &[&str]) {
        assert_eq!(self.code, Some(2), "{self:#?}");
        assert_eq!(self.stdout, "", "nothing on stdout: {self:#?}");
        assert!(self.stderr.ends_with('\n'), "{self:#?}");
        assert_eq!(self.stderr.lines().count(), 1, "one line: {self:#?}");
        // The program's name, then the error's stable code.
        let code = self
            .stderr
            .strip_prefix("mentor-context: error[")
            .and_then(|rest| rest.split_once("]: "))
            .map(|(code, _)| code);
        assert!(
            code.is_some_and(|code| !code.is_empty()
                && code.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')),
            "{self:#?}"
        );
        for phrase in phrases {
            assert!(
                self.stderr.contains(phrase),
                "{phrase:?} in {:?}",
                self.stderr
            );
        }
    }
}

/// A file in the temporary directory, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, contents: &[u8]) -> TempFile {
        // Tests run in parallel threads of one process, and several test processes may run.
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let unique = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "mentor-context-cli-{}-{unique}-{name}",
            std::process::id()
        ));
        std::fs::write(&path, contents).expect("the temporary file is written");
        TempFile(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().expect("temporary paths are UTF-8")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn recount(encoding: Encoding, text: &str) -> usize {
    encoding.count(text)
}

/// Checks what every `--json` report must satisfy, and returns its context.
#[track_caller]
fn check_report(report: &Value, encoding: Encoding, budget: u64) -> String {
    assert_eq!(keys(report), REPORT_KEYS);
    let context = report["context"].as_str().expect("context is a string");
    let token_count = report["tokenCount"]
        .as_u64()
        .expect("tokenCount is a number");
    assert_eq!(token_count, recount(encoding, context) as u64);
    assert!(token_count <= budget, "{token_count} > {budget}");
    assert_eq!(report["budget"], budget);
    assert_eq!(report["encoding"], encoding.as_str());
    for (n, citation) in report["citations"]
        .as_array()
        .expect("an array")
        .iter()
        .enumerate()
    {
        assert_eq!(citation["index"], n + 1, "citations are numbered 1..n");
    }
    context.to_string()
}

/// The keys of a JSON object, sorted (serde_json's `Value` sorts them).
fn keys(object: &Value) -> Vec<&str> {
    let object = object.as_object().expect("an object");
    object.keys().map(String::as_str).collect()
}

fn citations(report: &Value) -> &Vec<Value> {
    report["citations"]
        .as_array()
        .expect("citations is an array")
}

fn omitted(report: &Value) -> &Vec<Value> {
    report["omitted"].as_array().expect("omitted is an array")
}

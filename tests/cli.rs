//! The `mentor-context` binary, run as a real process: what it prints on success, and, for
//! every kind of bad input, exit code 2 with nothing on standard output and exactly one line
//! on standard error naming the input, the position and the problem.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

mod common;

use common::REPORT_KEYS;
use mentor_context::{Encoding, TokenCounter};
use serde_json::Value;

const PRICING: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/pricing.json");

/// The keys of a `bench --json` report, sorted.
const BENCH_KEYS: [&str; 5] = ["iterations", "maxNs", "medianNs", "minNs", "tokenCount"];

/// What a run of the binary left behind.
#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs the binary with `args` and `stdin` as its standard input.
fn run_with_stdin(args: &[&str], stdin: &[u8]) -> Run {
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
        assert!(self.stderr.starts_with("mentor-context: "), "{self:#?}");
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

// --- Success -------------------------------------------------------------------------------

#[test]
fn assembles_plain_text_with_a_marker_per_citation() {
    let text = run(&["assemble", PRICING]).ok();
    assert!(text.starts_with("[1] "), "{text}");
    assert!(text.contains("```\n"), "{text}");
    assert!(
        recount(Encoding::O200kBase, &text) <= 4000,
        "the default budget"
    );

    // The plain output is exactly the report's context: nothing added.
    let report = run(&["assemble", "--json", PRICING]).json();
    assert_eq!(check_report(&report, Encoding::O200kBase, 4000), text);
    assert!(!citations(&report).is_empty());
    // A block's head line is `[n] title`, or just `[n]` when it has no title.
    for citation in citations(&report) {
        let marker = format!("[{}]", citation["index"]);
        let head = |line: &str| line == marker || line.starts_with(&format!("{marker} "));
        assert!(text.lines().any(head), "{marker} in {text}");
    }
}

#[test]
fn assembles_xml() {
    let text = run(&["assemble", "--format", "xml", PRICING]).ok();
    assert!(
        text.starts_with("<documents>\n<document index=\"1\">\n"),
        "{text}"
    );
    assert!(text.ends_with("</documents>\n"), "{text}");

    let report = run(&["assemble", "--format", "xml", "--json", PRICING]).json();
    assert_eq!(check_report(&report, Encoding::O200kBase, 4000), text);
    for citation in citations(&report) {
        let marker = format!("<document index=\"{}\"", citation["index"]);
        assert!(text.contains(&marker), "{marker} in {text}");
    }
}

#[test]
fn reads_standard_input_when_the_file_is_dash_or_absent() {
    let from_file = run(&["assemble", PRICING]).ok();
    let input = std::fs::read(PRICING).expect("the fixture is readable");
    assert_eq!(run_with_stdin(&["assemble"], &input).ok(), from_file);
    assert_eq!(run_with_stdin(&["assemble", "-"], &input).ok(), from_file);
}

#[test]
fn counts_with_the_chosen_encoding_or_model() {
    for args in [["--encoding", "cl100k_base"], ["--model", "gpt-4"]] {
        let report = run(&["assemble", "--json", args[0], args[1], PRICING]).json();
        check_report(&report, Encoding::Cl100kBase, 4000);
    }
    let report = run(&["assemble", "--json", "--model", "gpt-4o", PRICING]).json();
    check_report(&report, Encoding::O200kBase, 4000);
}

#[test]
fn respects_every_budget() {
    for format in ["plain", "xml"] {
        for overflow in ["truncate", "stop", "skip"] {
            for budget in [0u64, 60, 150] {
                let budget_arg = budget.to_string();
                let args = [
                    "assemble",
                    "--json",
                    "--format",
                    format,
                    "--overflow",
                    overflow,
                    "--budget",
                    &budget_arg,
                    PRICING,
                ];
                let report = run(&args).json();
                check_report(&report, Encoding::O200kBase, budget);
                let n = citations(&report).len() + omitted(&report).len();
                assert_eq!(n, 9, "every result is cited or omitted: {args:?}");
            }
        }
    }
}

#[test]
fn truncates_the_block_that_does_not_fit() {
    let report = run(&["assemble", "--json", "--budget", "150", PRICING]).json();
    let context = check_report(&report, Encoding::O200kBase, 150);
    let last = citations(&report).last().expect("some block fits");
    assert_eq!(last["truncated"], true, "{context}");
    assert!(context.contains("(truncated)"), "{context}");
}

#[test]
fn applies_the_selection_policies() {
    let report = run(&["assemble", "--json", "--max-blocks", "2", PRICING]).json();
    assert_eq!(citations(&report).len(), 2);
    assert!(
        omitted(&report)
            .iter()
            .any(|o| o["reason"] == "overBlockLimit")
    );

    let report = run(&["assemble", "--json", "--min-score", "0.8", PRICING]).json();
    assert!(!citations(&report).is_empty());
    for citation in citations(&report) {
        assert!(citation["score"].as_f64().unwrap() >= 0.8, "{citation}");
    }
    assert!(
        omitted(&report)
            .iter()
            .any(|o| o["reason"] == "belowMinScore")
    );

    // A negative minimum is a number, not an option.
    let report = run(&["assemble", "--json", "--min-score", "-1", PRICING]).json();
    assert_eq!(citations(&report).len(), 9);
}

#[test]
fn drops_duplicates_unless_asked_to_keep_them() {
    let twice = br#"[{"content":"Same.","sourceUrl":"https://a.example","score":0.9},
                     {"content":"Same.","sourceUrl":"https://a.example","score":0.8}]"#;
    let report = run_with_stdin(&["assemble", "--json"], twice).json();
    assert_eq!(citations(&report).len(), 1);
    assert_eq!(omitted(&report)[0]["reason"], "duplicate");

    let report = run_with_stdin(&["assemble", "--json", "--keep-duplicates"], twice).json();
    assert_eq!(citations(&report).len(), 2);
}

#[test]
fn hides_metadata_keys_from_the_prompt_only() {
    let args = [
        "assemble",
        "--json",
        "--hide-metadata-key",
        "chunk_id",
        "--hide-metadata-key",
        "currency",
        PRICING,
    ];
    let report = run(&args).json();
    let context = check_report(&report, Encoding::O200kBase, 4000);
    assert!(!context.contains("chunk_id"), "{context}");
    assert!(!context.contains("currency:"), "{context}");
    assert!(context.contains("valid from: "), "{context}");
    assert!(
        citations(&report)
            .iter()
            .any(|c| c["metadata"]["chunk_id"].is_string())
    );
}

#[test]
fn puts_the_header_first_within_the_budget() {
    let header = "Answer from these documents and cite them as [n].";
    let report = run(&[
        "assemble", "--json", "--header", header, "--budget", "100", PRICING,
    ])
    .json();
    let context = check_report(&report, Encoding::O200kBase, 100);
    assert!(context.starts_with(&format!("{header}\n")), "{context}");

    let report = run(&["assemble", "--json", "--min-truncated-tokens", "0", PRICING]).json();
    check_report(&report, Encoding::O200kBase, 4000);
}

#[test]
fn an_empty_array_gives_an_empty_context() {
    assert_eq!(run_with_stdin(&["assemble"], b"[]").ok(), "");
}

#[test]
fn bench_reports_min_median_max() {
    let report = run(&["bench", "--json", "--iterations", "5", PRICING]).json();
    assert_eq!(keys(&report), BENCH_KEYS);
    assert_eq!(report["iterations"], 5);
    let ns = |key: &str| report[key].as_u64().expect("a whole number of nanoseconds");
    assert!(
        ns("minNs") <= ns("medianNs") && ns("medianNs") <= ns("maxNs"),
        "{report}"
    );
    let assembled = run(&["assemble", "--json", PRICING]).json();
    assert_eq!(report["tokenCount"], assembled["tokenCount"]);

    let text = run(&["bench", "--iterations", "3", "--format", "xml", PRICING]).ok();
    for word in ["iterations: 3", "min:", "median:", "max:", " ns"] {
        assert!(text.contains(word), "{word:?} in {text}");
    }
}

#[test]
fn bench_cache_times_the_warm_path_of_the_same_assembly() {
    let args = ["--budget", "300", "--iterations", "5", PRICING];
    let cold = run(&[&["bench", "--json"][..], &args].concat()).json();
    let warm = run(&[&["bench", "--json", "--cache"][..], &args].concat()).json();
    assert_eq!(keys(&warm), BENCH_KEYS);
    assert_eq!(warm["tokenCount"], cold["tokenCount"]);
    assert!(run(&["bench", "--help"]).ok().contains("--cache"));
}

#[test]
fn help_and_version_exit_zero() {
    let help = run(&["assemble", "--help"]).ok();
    for option in [
        "--budget",
        "--encoding",
        "--model",
        "--format",
        "--overflow",
        "--min-score",
        "--max-blocks",
        "--keep-duplicates",
        "--hide-metadata-key",
        "--header",
        "--min-truncated-tokens",
        "--json",
        "[default: 4000]",
    ] {
        assert!(help.contains(option), "{option} in {help}");
    }
    let help = run(&["bench", "--help"]).ok();
    assert!(help.contains("--iterations"), "{help}");
    assert!(run(&["--help"]).ok().contains("assemble"));
    assert!(run(&["--version"]).ok().starts_with("mentor-context "));
}

// --- Bad input: the file -------------------------------------------------------------------

/// Runs `assemble` on a temporary file holding `contents` and checks the one-line error names
/// the file and has every phrase.
#[track_caller]
fn bad_file(contents: &[u8], phrases: &[&str]) {
    let file = TempFile::new("bad.json", contents);
    let run = run(&["assemble", file.path()]);
    run.bad(phrases);
    assert!(run.stderr.contains(file.path()), "names the file: {run:#?}");
}

#[test]
fn a_missing_file() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/no-such-file.json");
    let path = path.to_str().unwrap();
    run(&["assemble", path]).bad(&[path, "cannot read", "no such file"]);
    run(&["bench", path]).bad(&[path, "no such file"]);
}

#[test]
fn a_directory() {
    let dir = env!("CARGO_MANIFEST_DIR");
    run(&["assemble", dir]).bad(&[dir, "cannot read", "is a directory"]);
}

#[test]
fn empty_input() {
    bad_file(b"", &["empty input"]);
    bad_file(b"  \n\t\r\n", &["empty input"]);
    run(&["assemble"]).bad(&["<stdin>: empty input"]);
    run_with_stdin(&["assemble", "-"], b"\n\n").bad(&["<stdin>: empty input"]);
}

#[test]
fn invalid_json() {
    bad_file(
        b"[\n  {\"content\": \"x\", \"score\": 1,}\n]",
        &["line 2, column 31", "trailing comma"],
    );
    bad_file(
        b"[\n  {\"content\": \"x\",\n",
        &["line 3", "EOF while parsing"],
    );
    run_with_stdin(&["assemble"], b"not json").bad(&["<stdin>: line 1, column 2", "expected"]);
}

#[test]
fn invalid_utf8() {
    // The first bad byte is the 19th of line 2: `  {"content": "caf` takes 18.
    bad_file(
        b"[\n  {\"content\": \"caf\xe9\", \"score\": 1}\n]",
        &["line 2, column 19", "invalid UTF-8", "0xe9"],
    );
    run_with_stdin(&["assemble"], b"\xff").bad(&["<stdin>: line 1, column 1", "invalid UTF-8"]);
}

#[test]
fn not_an_array() {
    bad_file(
        br#"{"content": "x", "score": 1}"#,
        &["line 1", "expected a sequence"],
    );
}

#[test]
fn a_record_without_content() {
    bad_file(
        b"[\n  {\"content\": \"x\", \"score\": 1},\n  {\"title\": \"T\", \"score\": 0.5}\n]",
        &["line 3, column 30", "missing field `content`"],
    );
    bad_file(
        b"[{\"content\": \"x\"}]",
        &["line 1", "missing field `score`"],
    );
}

#[test]
fn a_field_of_the_wrong_type() {
    bad_file(
        b"[\n  {\"content\": \"x\", \"title\": 5, \"score\": 1}\n]",
        &[
            "line 2, column 29",
            "invalid type: integer `5`, expected a string",
        ],
    );
    bad_file(
        b"[\n  {\"content\": \"x\", \"score\": \"high\"}\n]",
        &["line 2", "invalid type: string \"high\""],
    );
}

#[test]
fn a_score_that_is_not_finite() {
    bad_file(
        b"[\n  {\"content\": \"x\", \"score\": 1e39}\n]",
        &["line 2, column 32", "score 1e39 is not a finite"],
    );
    bad_file(
        b"[\n  {\"content\": \"x\", \"score\": NaN}\n]",
        &["line 2", "expected value"],
    );
}

#[test]
fn metadata_values_that_are_not_strings() {
    bad_file(
        b"[\n  {\"content\": \"x\", \"score\": 1, \"metadata\": {\"version\": 3}}\n]",
        &[
            "line 2, column 56",
            "invalid type: integer `3`, expected a string",
        ],
    );
}

#[test]
fn bench_reports_bad_files_the_same_way() {
    let file = TempFile::new("bench-bad.json", b"[{\"score\": 1}]");
    run(&["bench", "--iterations", "5", file.path()]).bad(&[
        file.path(),
        "line 1",
        "missing field `content`",
    ]);
}

// --- Bad input: the options ----------------------------------------------------------------

#[test]
fn a_negative_budget() {
    run(&["assemble", "--budget", "-5", PRICING]).bad(&["--budget", "'-5'", "negative"]);
    run(&["assemble", "--budget=-5", PRICING]).bad(&["--budget", "negative"]);
    run(&["bench", "--budget", "-5", PRICING]).bad(&["--budget", "negative"]);
    run(&["assemble", "--budget", "lots", PRICING]).bad(&["--budget", "whole number"]);
}

#[test]
fn unknown_encoding_model_or_format() {
    run(&["assemble", "--encoding", "o300k", PRICING])
        .bad(&["--encoding", "unknown encoding `o300k`"]);
    run(&["assemble", "--model", "gpt-99", PRICING]).bad(&["--model", "unknown model `gpt-99`"]);
    run(&["assemble", "--format", "html", PRICING]).bad(&["--format", "unknown format `html`"]);
    run(&["assemble", "--overflow", "wrap", PRICING]).bad(&["--overflow", "'wrap'", "truncate"]);
}

#[test]
fn encoding_and_model_together() {
    run(&[
        "assemble",
        "--encoding",
        "cl100k_base",
        "--model",
        "gpt-4",
        PRICING,
    ])
    .bad(&["--encoding", "--model", "cannot be used with"]);
}

#[test]
fn configuration_errors() {
    run(&[
        "assemble",
        "--budget",
        "3",
        "--header",
        "A header of more than three tokens.",
        PRICING,
    ])
    .bad(&["--header", "more than the budget of 3"]);
    run(&[
        "assemble",
        "--budget",
        "10",
        "--min-truncated-tokens",
        "11",
        PRICING,
    ])
    .bad(&["--min-truncated-tokens", "larger than the budget of 10"]);
    run(&["assemble", "--min-score", "NaN", PRICING]).bad(&["--min-score", "NaN"]);
    run(&["bench", "--iterations", "0", PRICING]).bad(&["--iterations", "at least 1"]);
}

#[test]
fn usage_errors_are_one_line_too() {
    run(&["assemble", "--no-such-option", PRICING]).bad(&["--no-such-option"]);
    run(&[]).bad(&["subcommand"]);
    run(&["bench"]).bad(&["required arguments were not provided: <FILE>"]);
    run(&["assemble", PRICING, PRICING]).bad(&["unexpected argument"]);
}

#[cfg(target_os = "linux")]
#[test]
fn a_failed_write_is_one_line_and_exit_code_1() {
    let full = std::fs::File::create("/dev/full").expect("/dev/full opens");
    let output = Command::new(env!("CARGO_BIN_EXE_mentor-context"))
        .args(["assemble", PRICING])
        .stdout(full)
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("<stdout>: cannot write"), "{stderr}");
}

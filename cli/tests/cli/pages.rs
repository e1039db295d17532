//! `inspect`: the page is written, self-contained, with everything from the input escaped and
//! only http(s) links; its size stays bounded; bad input is one line and exit 2; the HTML is
//! kept stable by a snapshot with the version left out.

use std::path::Path;
use std::process::Command;

use super::html::{check_self_contained, decode};
use super::{Run, TempFile, run, run_with_stdin};

/// The repository's root: pages name their input as given, so tests run from here with
/// relative paths, and the snapshots do not depend on where the checkout is.
pub(crate) const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// The results that try to inject markup and scripts, shared with the browser tests.
pub(crate) const PAYLOADS: &str = "cli/tests/browser/payloads.json";
const PAYLOADS_ANSWER: &str = "cli/tests/browser/payloads-answer.txt";

/// Runs the binary in [`ROOT`] with `args`.
pub(crate) fn run_in_root(args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_mentor-context"))
        .args(args)
        .current_dir(ROOT)
        .output()
        .expect("the binary runs");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

/// The page `inspect` writes with `args` (run in [`ROOT`]), checked to be self-contained.
#[track_caller]
pub(crate) fn inspect(args: &[&str]) -> String {
    let page = TempFile::new("page.html", b"");
    let mut all = vec!["inspect", "--output", page.path()];
    all.extend_from_slice(args);
    let out = run_in_root(&all).ok();
    assert_eq!(out, "", "nothing on standard output without --json");
    let html = std::fs::read_to_string(&page.0).expect("the page is written");
    check_self_contained(&html);
    html
}

/// The `assemble --json` report of the pricing fixture at a budget of 400: what a page of
/// it at that budget must show.
fn assembled_at_400() -> serde_json::Value {
    run_in_root(&[
        "assemble",
        "--json",
        "--budget",
        "400",
        "fixtures/pricing.json",
    ])
    .json()
}

#[test]
fn a_page_shows_the_budget_the_blocks_and_what_was_left_out() {
    let html = decode(&inspect(&["--budget", "400", "fixtures/pricing.json"]));
    let report = assembled_at_400();
    let count = |needle: &str| html.matches(needle).count();
    assert_eq!(
        count("<article class=\"block\""),
        super::citations(&report).len()
    );
    assert_eq!(
        count("/reason\" data-value="),
        super::omitted(&report).len(),
        "a row per omitted result"
    );
    assert!(html.contains(&format!(
        "<b data-json=\"report:/tokenCount\">{}</b>",
        report["tokenCount"]
    )));
    for share in ["header", "layout", "heads", "metadata", "content", "free"] {
        assert!(html.contains(&format!("data-share=\"{share}\"")), "{share}");
    }
    // A result that did not fit says at which budget it would have.
    assert!(html.contains("data-need="), "a smallest budget is shown");
}

#[test]
fn everything_from_the_input_is_escaped_and_links_are_http_only() {
    let html = inspect(&["--budget", "200", "--answer", PAYLOADS_ANSWER, PAYLOADS]);
    // The payloads are there, as text.
    for text in [
        "&lt;script&gt;alert(1)&lt;&#x2f;script&gt;",
        "&lt;img src=x onerror=alert(3)&gt;",
        "&lt;svg onload=alert(8)&gt;",
        "&lt;&#x2f;pre&gt;&lt;script&gt;alert(1)",
        "&lt;&#x2f;style&gt;&lt;script&gt;alert(6)",
        "&lt;iframe src=javascript:alert(11)&gt;",
        "&lt;script&gt;alert(14)&lt;&#x2f;script&gt;",
    ] {
        assert!(html.contains(text), "{text} shown as text");
    }
    // The javascript: URLs are shown, never linked; the https one is.
    assert!(html.contains("javascript:alert(1)"));
    assert!(
        html.contains(
            "<a href=\"https:&#x2f;&#x2f;example.com&#x2f;prices?a=1&amp;b=&quot;2&quot;\""
        )
    );
    // The answer's markers link to their blocks; [9] points at none.
    assert!(html.contains("<a class=\"cite\" href=\"#block-1\""));
    assert!(
        html.contains("<mark class=\"unknown\" title=\"points at no block\"><bdi>[9]</bdi></mark>")
    );
}

#[test]
fn the_hostile_heads_fixture_shows_its_hidden_characters() {
    let html = inspect(&["--budget", "2000", "fixtures/hostile-heads.json"]);
    // The right-to-left override of a title is shown as its code point, not applied.
    assert!(html.contains("data-cp=\"202E\""));
    assert!(!html.contains('\u{202E}'));
}

#[test]
fn a_page_of_50_results_of_2_kib_stays_under_300_kb() {
    let html = inspect(&["fixtures/bench-english.json"]);
    assert!(html.len() < 300_000, "{} bytes", html.len());
}

#[test]
fn a_16_mib_title_is_shown_cut_with_its_length() {
    let title = "T".repeat(16 << 20);
    let results = format!(
        r#"[{{"content":"Plan B costs 12 EUR.","title":"{title}","score":0.9}},{{"content":"Plan A is free.","title":"Plans","score":0.5}}]"#
    );
    let file = TempFile::new("huge-title.json", results.as_bytes());
    let page = TempFile::new("huge-title.html", b"");
    let out = run(&["inspect", "--output", page.path(), file.path()]).ok();
    assert_eq!(out, "");
    let html = std::fs::read_to_string(&page.0).unwrap();
    assert!(html.len() < 100_000, "{} bytes", html.len());
    assert!(html.contains(&format!("cut here: {} bytes in all", 16 << 20)));
}

#[test]
fn json_prints_the_report_the_page_shows() {
    let page = TempFile::new("json.html", b"");
    let report = run_in_root(&[
        "inspect",
        "--json",
        "--budget",
        "400",
        "--output",
        page.path(),
        "fixtures/pricing.json",
    ])
    .json();
    let assembled = assembled_at_400();
    assert_eq!(report, assembled);
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    run(&["inspect", "fixtures/pricing.json"]).bad(&["--output"]);
    let page = TempFile::new("bad.html", b"");
    run_with_stdin(&["inspect", "--output", page.path()], b"[{\"content\": 1}]")
        .bad(&["<stdin>", "line 1"]);
    run_with_stdin(
        &["inspect", "--output", page.path(), "--answer", "-"],
        b"[]",
    )
    .bad(&["--answer", "standard input"]);
    run(&[
        "inspect",
        "--output",
        page.path(),
        "--answer",
        "/no/such/answer",
        super::PRICING,
    ])
    .bad(&["/no/such/answer", "no such file"]);
    // A dialect's response is not a text answer: refused, not shown unlinked.
    run(&[
        "inspect",
        "--output",
        page.path(),
        "--dialect",
        "anthropic",
        "--answer",
        "fixtures/responses/anthropic.json",
        super::PRICING,
    ])
    .bad(&["--answer", "cite --dialect"]);
    // Nothing was written over the page for a bad input.
    assert_eq!(std::fs::read(&page.0).unwrap(), b"");
}

#[test]
fn a_page_that_cannot_be_written_is_one_line_and_exit_1() {
    let run = run(&[
        "inspect",
        "--output",
        "/no/such/dir/page.html",
        super::PRICING,
    ]);
    assert_eq!(run.code, Some(1), "{run:#?}");
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr.lines().count(), 1);
    assert!(
        run.stderr.contains("/no/such/dir/page.html: cannot write"),
        "{}",
        run.stderr
    );
    assert!(!Path::new("/no/such/dir").exists());
}

/// The style sheet, left out of snapshots: they keep the HTML, and `style.css` is a file.
pub(crate) const STYLE_FILTER: (&str, &str) =
    (r"(?s)<style>.*?</style>", "<style>[style.css]</style>");

/// The version in a page, left out of snapshots so that a release does not change them.
pub(crate) const VERSION_FILTER: (&str, &str) = (
    r#"(mentor-context(?: inspect| batch)?) \d+\.\d+\.\d+(?:-[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?"#,
    "$1 [version]",
);

#[test]
fn the_page_is_stable() {
    let answer = TempFile::new(
        "answer.txt",
        "Team costs 15 EUR a seat [1]; storage is extra [3, 4]; [9] is no block.\n".as_bytes(),
    );
    let html = inspect(&[
        "--budget",
        "400",
        "--answer",
        answer.path(),
        "fixtures/pricing.json",
    ]);
    insta::with_settings!({filters => vec![VERSION_FILTER, STYLE_FILTER]}, {
        insta::assert_snapshot!("inspect_pricing", html);
    });
}

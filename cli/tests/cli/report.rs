//! `batch --report`: the page of a run shows the summary's figures and the failed lines, with
//! everything from the input escaped; it is written before the first line is read and again
//! as the run goes; it does not grow with the input; the HTML is kept stable by a snapshot with
//! timings left out.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use super::TempFile;
use super::html::{check_self_contained, decode};
use super::pages::{STYLE_FILTER, VERSION_FILTER, run_in_root};

/// Runs `batch` on `file` (relative to the root) with `args` and `--report`; the page and the
/// output lines.
fn batch_report(args: &[&str], file: &str) -> (String, Vec<Value>, Option<i32>) {
    let page = TempFile::new("run.html", b"");
    let mut all = vec!["batch", "--report", page.path()];
    all.extend_from_slice(args);
    all.push(file);
    let run = run_in_root(&all);
    assert_eq!(run.stderr.lines().count(), 1, "the summary line: {run:#?}");
    let lines = run
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let html = std::fs::read_to_string(&page.0).expect("the page is written");
    check_self_contained(&html);
    (html, lines, run.code)
}

/// The number a page shows for the figure `name`.
fn figure(html: &str, name: &str) -> Option<String> {
    let html = decode(html);
    let start = format!("data-json=\"batch:{name}\">");
    let at = html.find(&start)? + start.len();
    Some(html[at..].split('<').next()?.to_string())
}

#[test]
fn the_page_shows_the_runs_figures_and_its_failed_lines() {
    let (html, lines, code) =
        batch_report(&["--budget", "400", "--jobs", "2"], "fixtures/batch.jsonl");
    assert_eq!(code, Some(2), "the fixture has a bad line");
    let failed: Vec<&Value> = lines.iter().filter(|l| l.get("error").is_some()).collect();
    let tokens: u64 = lines.iter().filter_map(|l| l["tokenCount"].as_u64()).sum();
    assert_eq!(figure(&html, "requests"), Some(lines.len().to_string()));
    assert_eq!(figure(&html, "failed"), Some(failed.len().to_string()));
    assert_eq!(figure(&html, "tokens"), Some(tokens.to_string()));
    let did_not_fit = lines
        .iter()
        .flat_map(|l| l["omitted"].as_array().into_iter().flatten())
        .filter(|o| o["reason"] == "didNotFit")
        .count();
    assert_eq!(
        figure(&html, "omitted/didNotFit"),
        Some(did_not_fit.to_string())
    );
    assert_eq!(
        figure(&html, "failed/0/line"),
        Some(failed[0]["line"].to_string())
    );
    assert!(html.contains("<h1>Batch run</h1>"), "finished");
    assert_eq!(html.matches("<svg").count(), 3, "three charts");
}

#[test]
fn ids_errors_and_titles_from_the_input_are_escaped() {
    let (html, _, code) = batch_report(
        &["--budget", "60"],
        "cli/tests/browser/payloads-batch.jsonl",
    );
    assert_eq!(code, Some(2));
    for text in [
        "&lt;script&gt;alert(16)&lt;&#x2f;script&gt;",
        "&lt;img src=x onerror=alert(19)&gt;",
        "&lt;&#x2f;td&gt;&lt;script&gt;alert(21)",
        "&lt;script&gt;alert(20)&lt;&#x2f;script&gt;",
    ] {
        assert!(html.contains(text), "{text}");
    }
}

#[test]
fn the_page_is_written_before_the_first_line_and_again_as_the_run_goes() {
    let page = TempFile::new("streaming.html", b"");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mentor-context"))
        .args(["batch", "--jobs", "1", "--report", page.path(), "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let read = || std::fs::read_to_string(&page.0).unwrap_or_default();
    // Polls, at most 400 times 50 ms apart: a bound that only catches a page never written.
    let wait_for = |want: &str| {
        let mut polls = 0;
        while !read().contains(want) {
            polls += 1;
            assert!(polls <= 400, "no {want} in {}", read());
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    wait_for("<h1>Batch run (running)</h1>");
    assert_eq!(figure(&read(), "requests").as_deref(), Some("0"));
    let mut stdin = child.stdin.take().unwrap();
    let line = b"[{\"content\":\"Plan B costs 12 EUR.\",\"score\":0.9}]\n";
    stdin.write_all(line).unwrap();
    stdin.flush().unwrap();
    // The next line written after the refresh interval writes the page again, mid-run.
    std::thread::sleep(Duration::from_millis(2200));
    stdin.write_all(line).unwrap();
    stdin.flush().unwrap();
    wait_for("data-json=\"batch:requests\">2<");
    assert!(read().contains("(running)"));
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let html = read();
    assert!(html.contains("<h1>Batch run</h1>"));
    assert_eq!(figure(&html, "requests").as_deref(), Some("2"));
}

#[test]
fn the_page_does_not_grow_with_the_input() {
    let line = |n: usize| {
        if n.is_multiple_of(3) {
            format!("{{\"id\":{n},\"results\":[{{\"score\":1}}]}}\n")
        } else {
            format!(
                "{{\"id\":{n},\"results\":[{{\"content\":\"Document {n} says hello.\",\"score\":0.5}}]}}\n"
            )
        }
    };
    let mut sizes = Vec::new();
    for count in [450, 3000] {
        let text: String = (0..count).map(line).collect();
        let file = TempFile::new("many.jsonl", text.as_bytes());
        let (html, lines, _) = batch_report(&["--budget", "50"], file.path());
        assert_eq!(lines.len(), count);
        let html = decode(&html);
        assert!(html.contains("data-json=\"batch:failed/99/line\""));
        assert!(
            !html.contains("data-json=\"batch:failed/100/line\""),
            "100 lines listed"
        );
        assert!(html.contains(&format!("and {} more failed lines", count / 3 - 100)));
        // Timings (the time chart above all) vary from run to run, whatever the input.
        let steady: usize = html
            .split("<!--v-->")
            .map(|part| {
                part.split_once("<!--/v-->")
                    .map_or(part, |(_, after)| after)
                    .len()
            })
            .sum();
        sizes.push(steady);
    }
    // Only the numbers' widths differ (3,000 against 450 requests).
    assert!(sizes[1].abs_diff(sizes[0]) < 1_000, "{sizes:?}");
}

#[test]
fn a_report_that_cannot_be_written_fails_the_run_before_it_starts() {
    let run = run_in_root(&[
        "batch",
        "--report",
        "/no/such/dir/run.html",
        "fixtures/batch.jsonl",
    ]);
    assert_eq!(run.code, Some(1), "{run:#?}");
    assert_eq!(run.stdout, "", "no line was written");
    assert_eq!(run.stderr.lines().count(), 1);
    assert!(run.stderr.contains("/no/such/dir/run.html: cannot write"));
}

#[test]
fn the_page_is_stable() {
    let (html, _, _) = batch_report(&["--budget", "400", "--jobs", "1"], "fixtures/batch.jsonl");
    insta::with_settings!({filters => vec![
        VERSION_FILTER,
        STYLE_FILTER,
        (r"(?s)<!--v-->.*?<!--/v-->", "<!--v-->[timing]<!--/v-->"),
    ]}, {
        insta::assert_snapshot!("batch_report", html);
    });
}

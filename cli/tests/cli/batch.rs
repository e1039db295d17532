//! `batch`: one report line per non-blank input line, in input order, whatever the number of
//! jobs; bad lines give error lines and the run goes on.

use serde_json::Value;

use super::{Encoding, Run, TempFile, check_report, run, run_with_stdin};

/// The example batch shipped in `fixtures/` (the README's).
const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/batch.jsonl");

/// Good lines, bad lines, a blank line and ids of several JSON types. Physical lines:
/// 1 array, 2 blank, 3 object with a string id, 4 broken JSON, 5 no `content`, 6 a NaN-like
/// score string .NET would not write, 7 an object id with its own budget, 8 whitespace only,
/// 9 a number id with an unknown key, 10 a null id, 11 an array id and CRLF ending, 12 not
/// UTF-8.
fn mixed_batch() -> Vec<u8> {
    let good = r#"[{"content":"Plan B costs 12 EUR a month.","title":"Prices","score":0.9},{"content":"Plan A is free.","score":0.5}]"#;
    let mut text = String::new();
    text.push_str(good);
    text.push_str("\n\n");
    text.push_str(&format!("{{\"id\":\"req-3\",\"results\":{good}}}\n"));
    text.push_str("[{\"content\": \"unterminated\n");
    text.push_str("{\"id\":5,\"results\":[{\"title\":\"No content\",\"score\":0.5}]}\n");
    text.push_str("{\"id\":6.5,\"results\":[{\"content\":\"x\",\"score\":\"nan\"}]}\n");
    text.push_str(&format!(
        "{{\"id\":{{\"user\":\"u\",\"turn\":2}},\"results\":{good},\"budget\":12}}\n"
    ));
    text.push_str("   \t\n");
    text.push_str(&format!("{{\"id\":9,\"results\":{good},\"budjet\":5}}\n"));
    text.push_str(&format!("{{\"id\":null,\"results\":{good}}}\n"));
    text.push_str(&format!("{{\"id\":[1,true],\"results\":{good}}}\r\n"));
    let mut bytes = text.into_bytes();
    bytes.extend_from_slice(b"[{\"content\":\"\xff\",\"score\":1}]\n");
    bytes
}

/// The output lines of a run, parsed.
fn lines(run: &Run) -> Vec<Value> {
    assert!(run.stdout.ends_with('\n'), "{run:#?}");
    run.stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("every line is JSON"))
        .collect()
}

/// The one summary line on standard error.
#[track_caller]
fn summary(run: &Run) -> &str {
    assert_eq!(run.stderr.lines().count(), 1, "{run:#?}");
    let line = run.stderr.trim_end();
    assert!(line.starts_with("mentor-context: batch: "), "{line}");
    line
}

#[test]
fn every_line_gets_its_report_in_order_with_its_id() {
    let file = TempFile::new("mixed.jsonl", &mixed_batch());
    let run = run(&["batch", "--budget", "100", "--jobs", "3", file.path()]);
    assert_eq!(run.code, Some(2), "some lines failed: {run:#?}");
    let reports = lines(&run);
    let numbers: Vec<u64> = reports
        .iter()
        .map(|r| r["line"].as_u64().unwrap())
        .collect();
    assert_eq!(
        numbers,
        [1, 3, 4, 5, 6, 7, 9, 10, 11, 12],
        "blank lines skipped, counted"
    );
    let ids: Vec<Option<&Value>> = reports.iter().map(|r| r.get("id")).collect();
    let expected: Vec<Option<Value>> = [
        None,
        Some(r#""req-3""#),
        None,
        Some("5"),
        Some("6.5"),
        Some(r#"{"user":"u","turn":2}"#),
        Some("9"),
        Some("null"),
        Some("[1,true]"),
        None,
    ]
    .iter()
    .map(|id| id.map(|id| serde_json::from_str(id).unwrap()))
    .collect();
    assert_eq!(ids, expected.iter().map(Option::as_ref).collect::<Vec<_>>());
    // The id is echoed as given: its keys in their order.
    assert!(
        run.stdout.contains(r#""id":{"user":"u","turn":2}"#),
        "{}",
        run.stdout
    );

    let errors: Vec<(u64, &str)> = reports
        .iter()
        .filter_map(|r| Some((r["line"].as_u64()?, r.get("error")?.as_str()?)))
        .collect();
    let problems = [
        (4, "EOF while parsing a string"),
        (5, "missing field `content`"),
        (6, "expected a finite number"),
        (9, "unknown field `budjet`"),
        (12, "invalid UTF-8"),
    ];
    assert_eq!(errors.len(), problems.len(), "{errors:?}");
    for ((line, error), (want_line, phrase)) in errors.iter().zip(problems) {
        assert_eq!(*line, want_line);
        assert!(
            error.contains(phrase),
            "line {line}: {error:?} lacks {phrase:?}"
        );
        assert!(error.starts_with("column "), "{error}");
    }
    for report in reports.iter().filter(|r| r.get("error").is_some()) {
        let mut keys: Vec<&str> = report
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.retain(|k| *k != "id");
        assert_eq!(keys, ["error", "line"], "{report}");
    }

    // Every good line: the assemble --json report, exact, within its budget.
    for report in reports.iter().filter(|r| r.get("error").is_none()) {
        let budget = if report["line"] == 7 { 12 } else { 100 };
        let mut bare = report.clone();
        bare.as_object_mut().unwrap().remove("line");
        bare.as_object_mut().unwrap().remove("id");
        check_report(&bare, Encoding::O200kBase, budget);
    }
    let line = summary(&run);
    for phrase in [
        "10 requests, 5 failed",
        " tokens",
        "fill median",
        "p10",
        "omitted:",
        "assemble median",
        "p99",
        "requests/s",
    ] {
        assert!(line.contains(phrase), "{phrase:?} in {line}");
    }
}

#[test]
fn the_output_is_the_same_byte_for_byte_whatever_the_jobs() {
    // Many lines of different sizes, so that jobs finish out of order.
    let mut batch = mixed_batch();
    for i in 0..60 {
        let content = "Plan B costs 12 EUR a month. ".repeat(1 + (i * 37) % 90);
        batch.extend_from_slice(
            format!(
                "{{\"id\":{i},\"results\":[{{\"content\":\"{content}\",\"score\":0.5}},{{\"content\":\"Short.\",\"score\":0.9}}],\"budget\":{}}}\n",
                20 + (i * 53) % 400
            )
            .as_bytes(),
        );
    }
    let file = TempFile::new("order.jsonl", &batch);
    let one = run(&["batch", "--jobs", "1", file.path()]);
    let four = run(&["batch", "--jobs", "4", file.path()]);
    assert_eq!(one.code, Some(2));
    assert_eq!(four.code, Some(2));
    assert_eq!(one.stdout, four.stdout);
    assert_eq!(lines(&one).len(), 70);
    // Standard input gives the same.
    let piped = run_with_stdin(&["batch", "--jobs", "2", "-"], &batch);
    assert_eq!(piped.stdout, one.stdout);
}

#[test]
fn both_engines_give_the_same_batch_output() {
    let file = TempFile::new("engines.jsonl", &mixed_batch());
    for encoding in ["o200k_base", "cl100k_base"] {
        let args = [
            "batch",
            "--encoding",
            encoding,
            "--budget",
            "60",
            file.path(),
        ];
        let default = run(&args);
        let reference = run(&[&args[..], &["--engine", "tiktoken"]].concat());
        let fast = run(&[&args[..], &["--engine", "bpe-openai"]].concat());
        assert_eq!(default.code, Some(2));
        assert_eq!(default.stdout, reference.stdout, "{encoding}");
        assert_eq!(default.stdout, fast.stdout, "{encoding}");
    }
    // The example file too, at a budget that cuts blocks.
    let default = run(&["batch", "--budget", "150", EXAMPLE]);
    let reference = run(&["batch", "--budget", "150", "--engine", "tiktoken", EXAMPLE]);
    assert_eq!(default.stdout, reference.stdout);
}

#[test]
fn a_batch_of_good_lines_exits_0_and_can_write_to_a_file() {
    let good = "[{\"content\":\"Plan A is free.\",\"score\":0.5}]\n".repeat(5);
    let file = TempFile::new("good.jsonl", good.as_bytes());
    let out = TempFile::new("good-out.jsonl", b"");
    let run = run(&["batch", "--output", out.path(), file.path()]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert_eq!(run.stdout, "");
    assert!(summary(&run).contains("5 requests, 0 failed"));
    let written = std::fs::read_to_string(&out.0).unwrap();
    assert_eq!(written.lines().count(), 5);
    assert!(written.starts_with("{\"line\":1,\"context\":"), "{written}");
}

#[test]
fn the_example_file_runs_and_exits_0_only_with_exit_zero() {
    let failed = run(&["batch", "--budget", "400", EXAMPLE]);
    assert_eq!(
        failed.code,
        Some(2),
        "its last line lacks content: {failed:#?}"
    );
    let reports = lines(&failed);
    assert_eq!(reports.len(), 4);
    assert_eq!(reports[1]["id"], "support-1");
    assert_eq!(reports[2]["budget"], 120);
    assert!(
        reports[3]["error"]
            .as_str()
            .unwrap()
            .contains("missing field `content`")
    );
    // The same lines and the same count of failures, for a script under `set -e`.
    let zero = run(&["batch", "--budget", "400", "--exit-zero", EXAMPLE]);
    assert_eq!(
        (zero.code, &zero.stdout),
        (Some(0), &failed.stdout),
        "{zero:#?}"
    );
    assert!(
        summary(&zero).contains("4 requests, 1 failed;"),
        "{zero:#?}"
    );
}

#[test]
fn an_unwritable_output_exits_1() {
    let file = TempFile::new("unwritable.jsonl", b"[]\n");
    let dir = std::env::temp_dir();
    let run = run(&["batch", "--output", dir.to_str().unwrap(), file.path()]);
    assert_eq!(run.code, Some(1), "{run:#?}");
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr.lines().count(), 1, "{run:#?}");
    assert!(run.stderr.contains("cannot write"), "{run:#?}");
}

#[test]
fn bad_input_files_and_options_exit_2_with_one_line() {
    run(&["batch", "no-such-file.jsonl"]).bad(&["no-such-file.jsonl", "no such file"]);
    run(&["batch", "--jobs", "0"]).bad(&["--jobs", "at least 1"]);
    run(&["batch", "--exit-zero", "no-such-file.jsonl"]).bad(&["no such file"]);
    run(&["batch", "--encoding", "p50k_base", "--engine", "bpe-openai"]).bad(&[
        "--engine",
        "bpe-openai",
        "p50k_base",
    ]);
    run(&["batch", "--engine", "fast"]).bad(&["--engine", "unknown engine `fast`"]);
}

#[test]
fn a_bad_line_budget_is_that_line_s_error() {
    let batch = concat!(
        "{\"id\":1,\"results\":[],\"budget\":-1}\n",
        "{\"id\":2,\"results\":[],\"budget\":3}\n",
        "{\"id\":3,\"results\":[],\"budget\":100}\n",
    );
    let file = TempFile::new("budgets.jsonl", batch.as_bytes());
    let run = run(&[
        "batch",
        "--header",
        "A header of several tokens here.",
        file.path(),
    ]);
    assert_eq!(run.code, Some(2));
    let reports = lines(&run);
    assert!(
        reports[0]["error"].as_str().unwrap().contains("-1"),
        "{}",
        reports[0]
    );
    assert!(
        reports[1]["error"]
            .as_str()
            .unwrap()
            .contains("budget 3: the header takes"),
        "{}",
        reports[1]
    );
    assert_eq!(reports[2]["budget"], 100);
}

/// `batch --jobs {jobs}` over `file` as the user `nobody`, allowed `tasks` processes and
/// threads in all (`RLIMIT_NPROC`, as `ulimit -u` sets, which the kernel enforces only for
/// users other than root): a system that refuses threads, as a container's `pids.max` does.
/// `None` when this process is not root and so cannot run as another user.
#[cfg(target_os = "linux")]
fn batch_as_nobody(tasks: u32, jobs: usize, file: &TempFile) -> Option<std::process::Output> {
    use std::os::unix::fs::PermissionsExt;
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc is mounted");
    let root = status
        .lines()
        .any(|line| line.starts_with("Uid:") && line.split_whitespace().nth(1) == Some("0"));
    if !root {
        return None;
    }
    // A copy of the command where `nobody` may run it: the build folder may be private.
    let bin = TempFile::new(
        "mentor-context",
        &std::fs::read(env!("CARGO_BIN_EXE_mentor-context")).unwrap(),
    );
    std::fs::set_permissions(&bin.0, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&file.0, std::fs::Permissions::from_mode(0o644)).unwrap();
    let output = std::process::Command::new("prlimit")
        .arg(format!("--nproc={tasks}:{tasks}"))
        .args([
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--",
        ])
        .arg(bin.path())
        .args(["batch", "--jobs", &jobs.to_string(), file.path()])
        .output()
        .expect("prlimit and setpriv (util-linux) run");
    Some(output)
}

#[test]
#[cfg(target_os = "linux")]
fn jobs_that_cannot_start_are_one_error_line_and_nothing_read() {
    let file = TempFile::new("nostart.jsonl", b"[{\"content\":\"a\",\"score\":1}]\n");
    // Four tasks: the command's own thread and three more; the fifth job is refused.
    let Some(refused) = batch_as_nobody(4, 8, &file) else {
        eprintln!("skipped: running as another user needs root");
        return;
    };
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(refused.stdout.is_empty(), "nothing is read or written");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let (_, after) = stderr
        .split_once("--jobs 8: cannot start 8 threads (started ")
        .unwrap_or_else(|| panic!("{stderr}"));
    let started: usize = after.split(')').next().unwrap().parse().expect("a count");
    assert!((1..8).contains(&started), "{stderr}");
    assert!(
        after.contains("Resource temporarily unavailable"),
        "{stderr}"
    );
    // Within the limit the same user runs the line.
    let ran = batch_as_nobody(4, 3, &file).expect("still root");
    assert_eq!(ran.status.code(), Some(0), "{ran:?}");
    assert_eq!(String::from_utf8_lossy(&ran.stdout).lines().count(), 1);
}

//! Inputs that crashed or stalled the command once (issue 9), kept as regression tests: each
//! runs the real binary and must exit 0 with an exact report, or 2 with one line.

use mentor_context::Encoding;
use serde_json::json;

use super::{TempFile, check_report, omitted, run};

/// A megabyte run of whitespace in a head field crashed tiktoken-rs (exit 101, a regex
/// backtrack limit) when the head of a block that did not fit was counted in one call.
#[test]
fn megabyte_whitespace_in_any_head_field_never_crashes() {
    let run_of = |c: char| format!("a{}b", c.to_string().repeat(1_000_000));
    let cases = [
        (
            "title",
            json!([{"content": "Short body.", "title": run_of(' '), "score": 1}]),
        ),
        (
            "url",
            json!([{"content": "Short body.", "sourceUrl": run_of(' '), "score": 1}]),
        ),
        (
            "key",
            json!([{"content": "Short body.", "metadata": {run_of(' '): "v"}, "score": 1}]),
        ),
        (
            "value",
            json!([{"content": "Short body.", "metadata": {"k": run_of('\u{3000}')}, "score": 1}]),
        ),
        (
            "nbsp title",
            json!([{"content": "Short body.", "title": run_of('\u{a0}'), "score": 1}]),
        ),
    ];
    for (name, request) in cases {
        let file = TempFile::new("head.json", request.to_string().as_bytes());
        // Left out where it cannot fit: a small budget, or tiktoken-rs, which cannot take
        // a stretch of more than 64 KiB without a split point; in whole with the default
        // engine and a budget that holds it.
        for (encoding, budget, engine, fits) in [
            (Encoding::Cl100kBase, "100", "bpe-openai", false),
            (Encoding::O200kBase, "4294967296", "tiktoken", false),
            (Encoding::O200kBase, "4294967296", "bpe-openai", true),
        ] {
            let report = run(&[
                "assemble",
                "--json",
                "--budget",
                budget,
                "--encoding",
                encoding.as_str(),
                "--engine",
                engine,
                file.path(),
            ])
            .json();
            check_report(&report, encoding, budget.parse().unwrap());
            let left_out = omitted(&report);
            assert_eq!(
                left_out.len(),
                usize::from(!fits),
                "{name} {engine} {budget}"
            );
            if !fits {
                assert_eq!(left_out[0]["reason"], "didNotFit", "{name}");
            }
        }
    }
}

/// `--budget` and `--min-truncated-tokens` at usize::MAX: the minimum-truncation sum wrapped
/// and a block with no split point for 70 KB was cut instead of left out.
#[test]
fn sums_at_the_limits_do_not_wrap() {
    let request = json!([{"content": "中文字符".repeat(6000), "score": 1}]);
    let file = TempFile::new("cjk.json", request.to_string().as_bytes());
    let max = usize::MAX.to_string();
    let report = run(&[
        "assemble",
        "--json",
        "--budget",
        &max,
        "--min-truncated-tokens",
        &max,
        "--engine",
        "tiktoken",
        file.path(),
    ])
    .json();
    check_report(&report, Encoding::O200kBase, u64::MAX);
    assert_eq!(omitted(&report)[0]["reason"], "didNotFit");
}

#[test]
fn bench_iterations_are_bounded_with_a_clear_error() {
    for iterations in ["18446744073709551615", "100000000000", "1000001"] {
        run(&["bench", "--iterations", iterations, super::PRICING])
            .bad(&["--iterations", "too many; at most 1000000"]);
    }
}

/// `batch --jobs` at 2^63 crashed (capacity overflow) and at 2^32 aborted (allocation).
#[test]
fn batch_jobs_are_bounded_with_a_clear_error() {
    for jobs in [
        "9223372036854775807",
        "18446744073709551615",
        "4294967296",
        "100000",
    ] {
        run(&["batch", "--jobs", jobs, super::PRICING]).bad(&[
            "--jobs",
            "too many; at most ",
            " here (8 per core)",
        ]);
    }
}

#[test]
fn negative_scores_work_in_the_space_separated_form() {
    for min in ["-inf", "-1e-3", "-0.5"] {
        let report = run(&["assemble", "--json", "--min-score", min, super::PRICING]).json();
        check_report(&report, Encoding::O200kBase, 4000);
    }
}

/// A file name with a Unicode line separator or a newline stays on the error's one line,
/// escaped so the name can still be recognised.
#[test]
fn file_names_that_break_lines_are_escaped() {
    for (name, escaped) in [
        ("in\u{2028}put.json", "in\\u{2028}put.json"),
        ("in\nput.json", "in\\u{a}put.json"),
        ("in\u{202e}put.json", "in\\u{202e}put.json"),
    ] {
        let file = TempFile::new(name, b"not json");
        let run = run(&["assemble", file.path()]);
        run.bad(&[escaped, "line 1, column 2"]);
        assert!(!run.stderr.contains('\u{2028}'), "{:?}", run.stderr);
    }
}

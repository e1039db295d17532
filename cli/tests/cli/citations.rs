//! `cite REPORT ANSWER` and `assemble --previous REPORT`: what they print, and bad input.

use super::*;

fn conversation(n: usize) -> String {
    format!(
        "{}/../fixtures/conversation/turn-{n}.json",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// The `assemble --json` report of turn 1 at `budget`, in a temporary file.
fn first_report(budget: &str) -> (String, TempFile) {
    let report = run(&["assemble", "--json", "--budget", budget, &conversation(1)]).ok();
    let file = TempFile::new("report.json", report.as_bytes());
    (report, file)
}

#[test]
fn cite_lists_cited_chips_and_unknown_markers() {
    let (_, report) = first_report("2000");
    let text = "Starter costs 9 EUR [1], up from 8 EUR [3][1]; see `x[2]` and [7].";
    let answer = TempFile::new("answer.txt", text.as_bytes());
    let cited = run(&["cite", report.path(), answer.path()]).json();
    assert_eq!(keys(&cited), ["cited", "unknown"]);
    assert_eq!(
        cited["cited"],
        serde_json::json!([
            {"index": 1, "inputIndex": 0, "count": 2},
            {"index": 3, "inputIndex": 2, "count": 1},
        ])
    );
    assert_eq!(
        cited["unknown"],
        serde_json::json!([{"marker": "[7]", "at": text.find("[7]").unwrap()}])
    );

    // Renumbered, with the answer from standard input.
    let renumbered =
        run_with_stdin(&["cite", "--renumber", report.path(), "-"], text.as_bytes()).json();
    assert_eq!(keys(&renumbered), ["answer", "cited", "unknown"]);
    assert_eq!(
        renumbered["answer"],
        "Starter costs 9 EUR [1], up from 8 EUR [2][1]; see `x[2]` and [7]."
    );
    assert_eq!(renumbered["cited"][1]["newIndex"], 2);
    assert_eq!(renumbered["cited"][1]["index"], 3);

    // The report from standard input, an empty answer.
    let report_bytes = std::fs::read(report.path()).unwrap();
    let empty = TempFile::new("empty.txt", b"");
    let none = run_with_stdin(&["cite", "-", empty.path()], &report_bytes).json();
    assert_eq!(none, serde_json::json!({"cited": [], "unknown": []}));
}

#[test]
fn cite_refuses_bad_input_in_one_line() {
    let (_, report) = first_report("2000");
    let answer = TempFile::new("answer.txt", b"[1]");
    run(&["cite", "-", "-"]).bad(&["cannot both be standard input"]);
    run(&["cite", report.path()]).bad(&["ANSWER"]);
    run(&["cite", PRICING, answer.path()]).bad(&["pricing.json", "a JSON array"]);
    let broken = TempFile::new("broken.json", b"{\"context\": ");
    run(&["cite", broken.path(), answer.path()]).bad(&[broken.path(), "line 1"]);
    let not_a_report = TempFile::new("object.json", b"{\"context\": \"x\"}");
    run(&["cite", not_a_report.path(), answer.path()]).bad(&["missing field"]);
    let latin1 = TempFile::new("latin1.txt", b"caf\xe9 [1]");
    run(&["cite", report.path(), latin1.path()]).bad(&[latin1.path(), "invalid UTF-8"]);
    run(&["cite", report.path(), "/no/such/answer.txt"]).bad(&["no such file"]);
}

#[test]
fn assemble_previous_keeps_the_earlier_text_and_numbers() {
    let (first, first_file) = first_report("2000");
    let first: Value = serde_json::from_str(&first).unwrap();
    let second = run(&[
        "assemble",
        "--json",
        "--budget",
        "2000",
        "--previous",
        first_file.path(),
        &conversation(2),
    ])
    .json();
    let text = check_report(&second, Encoding::O200kBase, 2000);
    assert!(text.starts_with(first["context"].as_str().unwrap()));
    let earlier = citations(&first).len();
    assert_eq!(citations(&second)[..earlier], citations(&first)[..]);
    assert!(citations(&second).len() > earlier);
    assert!(
        omitted(&second)
            .iter()
            .any(|o| o["reason"] == "alreadyInContext")
    );

    // A third turn from the second report, read from standard input.
    let second_bytes = serde_json::to_vec(&second).unwrap();
    let third = run_with_stdin(
        &[
            "assemble",
            "--json",
            "--budget",
            "2000",
            "--previous",
            "-",
            &conversation(3),
        ],
        &second_bytes,
    )
    .json();
    let third_text = check_report(&third, Encoding::O200kBase, 2000);
    assert!(third_text.starts_with(&text));
    assert_eq!(
        citations(&third)[..citations(&second).len()],
        citations(&second)[..]
    );
}

#[test]
fn assemble_previous_refuses_what_cannot_continue() {
    let (_, report) = first_report("2000");
    let turn2 = conversation(2);
    run(&[
        "assemble",
        "--budget",
        "50",
        "--previous",
        report.path(),
        &turn2,
    ])
    .bad(&[report.path(), "earlier turns' blocks take", "budget of 50"]);
    run(&[
        "assemble",
        "--format",
        "xml",
        "--previous",
        report.path(),
        &turn2,
    ])
    .bad(&[report.path(), "does not fit this assembler"]);
    run(&["assemble", "--previous", "-"]).bad(&["cannot both be standard input"]);
    run(&["assemble", "--previous", PRICING, &turn2]).bad(&["a JSON array"]);
}

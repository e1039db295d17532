//! `bench --batch`: the requests of a `batch` file timed in turn, each under its own budget,
//! on the example file that has only good lines (`fixtures/batch-good.jsonl`).

use super::{TempFile, run, run_with_stdin};

/// The example batch with only good lines, which `cli/README.md` times.
const GOOD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/batch-good.jsonl");

/// `bench --batch` times the requests of a batch file in turn, each under the budget its line
/// sets: the last timed request's count shows which request and which budget were timed.
#[test]
fn bench_batch_times_each_request_under_its_own_budget() {
    let good = r#"[{"content":"Plan B costs 12 EUR a month. Plan C costs 30 EUR a month, with support.","title":"Prices","score":0.9},{"content":"Plan A is free.","score":0.5}]"#;
    let batch = format!(
        "{{\"id\":1,\"results\":{good}}}\n\n{{\"id\":2,\"results\":{good},\"budget\":12}}\n{{\"broken\n"
    );
    let file = TempFile::new("bench.jsonl", batch.as_bytes());
    let assembled = |budget: &str| {
        run_with_stdin(
            &["assemble", "--json", "--budget", budget, "-"],
            good.as_bytes(),
        )
        .json()["tokenCount"]
            .clone()
    };
    let (full, small) = (assembled("1000"), assembled("12"));
    assert_ne!(full, small, "the two budgets give different counts");
    let bench = |iterations: &str| {
        let args = [
            "bench",
            "--json",
            "--budget",
            "1000",
            "--batch",
            "--requests",
            "2",
            "--iterations",
            iterations,
            file.path(),
        ];
        run(&args).json()
    };
    // Two requests are held (the broken third line is never read): the 2nd assembly is the
    // second request, at its budget of 12; the 3rd is the first again.
    let second = bench("2");
    assert_eq!(second["iterations"], 2);
    assert_eq!(second["tokenCount"], small);
    assert_eq!(bench("3")["tokenCount"], full);
    // By default each request held is timed once; one request without --batch, 200 times.
    let each = run(&["bench", "--json", "--batch", "--requests", "2", file.path()]).json();
    assert_eq!(each["iterations"], 2);
    let one = run_with_stdin(&["bench", "--json", "-"], good.as_bytes()).json();
    assert_eq!(one["iterations"], 200);
    // Reading on, the broken line stops the bench, named; so does a file with no request.
    let args = ["bench", "--batch", "--requests", "3", file.path()];
    run(&args).bad(&["line 4:", "bench.jsonl"]);
    let empty = TempFile::new("empty.jsonl", b"\n  \n");
    run(&["bench", "--batch", empty.path()]).bad(&["no requests to time"]);
    run(&["bench", "--requests", "2", file.path()]).bad(&["--batch"]);
}

#[test]
fn bench_batch_runs_on_the_good_example_file() {
    let report = run(&["bench", "--json", "--batch", "--iterations", "3", GOOD]).json();
    assert_eq!(report["iterations"], 3);
    assert!(report["tokenCount"].as_u64().unwrap() > 0, "{report}");
}

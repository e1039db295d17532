//! What the command prints when all is well: `assemble`, `bench`, `--help` and `--version`.

use super::*;

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
fn an_empty_array_gives_an_empty_context_and_says_so() {
    let run = run_with_stdin(&["assemble"], b"[]");
    assert_eq!((run.code, run.stdout.as_str()), (Some(0), ""), "{run:#?}");
    assert_eq!(
        run.stderr,
        "mentor-context: warning: the context is empty: the input holds no results\n"
    );
    // The report says it all: nothing on standard error.
    let report = run_with_stdin(&["assemble", "--json"], b"[]").json();
    assert!(citations(&report).is_empty());
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
    // Real clock readings: assembling or encoding kilobytes of text takes microseconds, so
    // a figure of 100 ns or less means the clock was not read.
    assert!(ns("minNs") > 100 && ns("floorNs") > 100, "{report}");
    let assembled = run(&["assemble", "--json", PRICING]).json();
    assert_eq!(report["tokenCount"], assembled["tokenCount"]);

    let text = run(&["bench", "--iterations", "3", "--format", "xml", PRICING]).ok();
    for word in [
        "iterations: 3",
        "tokenized:",
        " bytes",
        "min:",
        "median:",
        "max:",
        "floor:",
        " ns",
    ] {
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

/// Equal token counts (above) hold whether or not `--cache` does anything; the bytes handed
/// to the tokenizer tell. The warm-up assemblies fill the cache, so a timed assembly must
/// count strictly less than a cold one, or `--cache` is a no-op.
#[test]
fn bench_cache_tokenizes_less_than_a_cold_assembly() {
    let bytes = |cache: &[&str]| {
        let args = [&["bench", "--json", "--iterations", "3"], cache, &[PRICING]].concat();
        let report = run(&args).json();
        report["bytesTokenized"]
            .as_u64()
            .expect("bytesTokenized is a whole number")
    };
    let cold = bytes(&[]);
    let warm = bytes(&["--cache"]);
    assert!(cold > 0, "a cold assembly tokenizes something");
    assert!(
        warm < cold,
        "--cache tokenized {warm} bytes, no fewer than {cold} without"
    );
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

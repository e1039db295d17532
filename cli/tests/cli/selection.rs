//! The selection options: `--order`, `--max-per-source`, `--duplicates`, `--max-head-tokens`,
//! the budget from a model's window, and the notes and hints of the command.

use super::*;

const SUPPORT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/support.json");
const DUPLICATES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/duplicates.json");

/// The chips' (title, score) pairs, in text order.
fn chosen(report: &Value) -> Vec<(String, f64)> {
    citations(report)
        .iter()
        .map(|c| {
            (
                c["title"].as_str().unwrap_or("-").to_string(),
                c["score"].as_f64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn orders_arrange_the_same_blocks_numbered_in_text_order() {
    let by = |order: &str| {
        let report = run(&[
            "assemble", "--json", "--budget", "1500", "--order", order, SUPPORT,
        ])
        .json();
        let text = check_report(&report, Encoding::O200kBase, 1500);
        // Chip n is the n-th head of the text.
        let mut at = 0;
        for chip in citations(&report) {
            let head = format!("[{}] {}\n", chip["index"], chip["title"].as_str().unwrap());
            let found = text[at..]
                .find(&head)
                .unwrap_or_else(|| panic!("{head} in {text}"));
            at += found + head.len();
        }
        chosen(&report)
    };
    let score = by("score");
    assert!(score.len() >= 4, "{score:?}");
    let scores: Vec<f64> = score.iter().map(|c| c.1).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");

    // Edges: ranks 1, 3, 5, ... then ..., 4, 2.
    let edges = by("EDGES");
    let n = score.len();
    let mut expected: Vec<_> = score.iter().step_by(2).cloned().collect();
    expected.extend(score.iter().skip(1).step_by(2).rev().cloned());
    assert_eq!(edges, expected);
    assert_eq!(edges[n - 1], score[1], "the second best closes the text");

    // As given: the chosen blocks in input order.
    let as_given = by("as-given");
    let input: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(SUPPORT).unwrap()).unwrap();
    let position = |title: &str| {
        input
            .iter()
            .position(|r| r["title"].as_str() == Some(title))
            .unwrap()
    };
    let positions: Vec<usize> = as_given.iter().map(|c| position(&c.0)).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
    let mut sorted = as_given.clone();
    sorted.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut by_score = score.clone();
    by_score.sort_by(|a, b| b.1.total_cmp(&a.1));
    assert_eq!(sorted, by_score, "the same blocks are chosen");

    run(&["assemble", "--order", "random", SUPPORT]).bad(&["random", "score, as-given, edges"]);
}

#[test]
fn max_per_source_lets_other_sources_fill_the_room() {
    let chunks = br#"[
        {"content":"Chunk one.","sourceUrl":"https://a.example/doc","title":"A","score":0.9},
        {"content":"Chunk two.","sourceUrl":"https://a.example/doc","title":"A","score":0.8},
        {"content":"Chunk three.","sourceUrl":"https://a.example/doc","title":"A","score":0.7},
        {"content":"Other.","sourceUrl":"https://b.example/doc","title":"B","score":0.1}
    ]"#;
    let report = run_with_stdin(&["assemble", "--json", "--max-blocks", "2"], chunks).json();
    let titles: Vec<_> = chosen(&report).into_iter().map(|c| c.0).collect();
    assert_eq!(titles, ["A", "A"]);
    let report = run_with_stdin(
        &[
            "assemble",
            "--json",
            "--max-blocks",
            "2",
            "--max-per-source",
            "1",
        ],
        chunks,
    )
    .json();
    let titles: Vec<_> = chosen(&report).into_iter().map(|c| c.0).collect();
    assert_eq!(titles, ["A", "B"]);
    let reasons: Vec<_> = omitted(&report)
        .iter()
        .map(|o| o["reason"].clone())
        .collect();
    assert_eq!(reasons, ["overSourceLimit", "overSourceLimit"]);
}

#[test]
fn content_duplicates_are_dropped_whatever_their_url() {
    // The issue's measurement: at 300 tokens the same chunk appears under two URLs.
    let report = run(&["assemble", "--json", "--budget", "300", DUPLICATES]).json();
    let contents = |report: &Value| {
        let text = report["context"].as_str().unwrap().to_string();
        common_blocks(&text)
    };
    let blocks = contents(&report);
    assert_eq!(blocks.len(), 2);
    assert_eq!(blocks[0], blocks[1], "the same content twice: {blocks:?}");

    let report = run(&[
        "assemble",
        "--json",
        "--budget",
        "300",
        "--duplicates",
        "content",
        DUPLICATES,
    ])
    .json();
    let blocks = contents(&report);
    assert_eq!(blocks.len(), 2);
    assert_ne!(blocks[0], blocks[1], "another result fills the room");
    assert!(omitted(&report).iter().any(|o| o["reason"] == "duplicate"));

    // `--keep-duplicates` is `--duplicates keep`; the two together are a usage error.
    let keep = run(&["assemble", "--json", "--duplicates", "keep", DUPLICATES]).json();
    let alias = run(&["assemble", "--json", "--keep-duplicates", DUPLICATES]).json();
    assert_eq!(keep, alias);
    run(&[
        "assemble",
        "--keep-duplicates",
        "--duplicates",
        "content",
        DUPLICATES,
    ])
    .bad(&["cannot be used with"]);
}

/// The contents of the fenced blocks of a plain-format text.
fn common_blocks(text: &str) -> Vec<String> {
    text.split("```\n")
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn a_head_cap_keeps_a_top_result_with_a_long_value() {
    let long = format!(
        r#"[{{"content":"Plan B costs 12 EUR.","title":"Prices","score":0.9,
             "metadata":{{"summary":"{}"}}}}]"#,
        "very long summary ".repeat(200)
    );
    let report = run_with_stdin(&["assemble", "--json", "--budget", "60"], long.as_bytes()).json();
    assert!(citations(&report).is_empty());
    assert_eq!(omitted(&report)[0]["reason"], "didNotFit");

    let report = run_with_stdin(
        &[
            "assemble",
            "--json",
            "--budget",
            "60",
            "--max-head-tokens",
            "20",
        ],
        long.as_bytes(),
    )
    .json();
    let text = check_report(&report, Encoding::O200kBase, 60);
    assert!(
        text.starts_with("[1] Prices\nsummary: very long summary"),
        "{text}"
    );
    assert!(
        text.contains("…\n```\nPlan B costs 12 EUR.\n```\n"),
        "{text}"
    );
    let chip = &citations(&report)[0];
    assert_eq!(chip["headShortened"], true);
    let summary = chip["metadata"]["summary"].as_str().unwrap();
    assert_eq!(summary.len(), 18 * 200, "the chip keeps the whole value");
}

#[test]
fn the_budget_can_come_from_a_models_window() {
    let report = run(&[
        "assemble",
        "--json",
        "--model",
        "gpt-4o",
        "--reserve-output",
        "1000",
        "--prompt-tokens",
        "350",
        PRICING,
    ])
    .json();
    let budget = 128_000 - 1000 - 350;
    assert_eq!(report["budget"], budget);
    let tokens = report["tokenCount"].as_u64().unwrap();
    assert_eq!(report["headroom"], budget - tokens);
    assert_eq!(report["window"]["contextWindow"], 128_000);
    assert_eq!(report["window"]["model"], "gpt-4o");
    // Without the window's options the report is as before.
    let plain = run(&["assemble", "--json", "--model", "gpt-4o", PRICING]).json();
    assert_eq!(keys(&plain), REPORT_KEYS);

    run(&["assemble", "--reserve-output", "10", PRICING]).bad(&["--model"]);
    run(&[
        "assemble",
        "--model",
        "gpt-4",
        "--prompt-tokens",
        "5",
        "--budget",
        "9",
        PRICING,
    ])
    .bad(&["cannot be used with"]);
    run(&[
        "assemble",
        "--model",
        "gpt-4",
        "--reserve-output",
        "8000",
        "--prompt-tokens",
        "192",
        PRICING,
    ])
    .bad(&[
        "--model: model `gpt-4` has a window of 8192 tokens",
        "leaves no room",
    ]);
}

#[test]
fn an_empty_context_says_what_the_smallest_block_needs() {
    let run_at = |budget: &str| run(&["assemble", "--budget", budget, PRICING]);
    let empty = run_at("68");
    assert_eq!(
        (empty.code, empty.stdout.as_str()),
        (Some(0), ""),
        "{empty:#?}"
    );
    assert_eq!(
        empty.stderr,
        "mentor-context: warning: the context is empty: 9 results, none fits in the budget of \
         68 tokens (the smallest block needs 70)\n"
    );
    // 70 is the least that works.
    assert_eq!(run_at("69").stdout, "");
    assert!(!run_at("70").ok().is_empty());

    let filtered = run(&["assemble", "--min-score", "2", PRICING]);
    assert!(
        filtered
            .stderr
            .contains("9 results, all left out by --min-score"),
        "{filtered:#?}"
    );
}

/// With many results, the explanation looks at the 64 best-ranked only, so that explaining
/// costs what assembling does, not time in proportion to the input; it says so.
#[test]
fn an_empty_context_of_many_results_is_explained_from_the_best_ranked() {
    // 100 results: the 64 best need a long block; a short one ranks last.
    let mut request: Vec<serde_json::Value> = (0..99)
        .map(|i| {
            serde_json::json!({"content": "word ".repeat(50), "title": format!("Doc {i}"), "score": 1})
        })
        .collect();
    request.push(serde_json::json!({"content": "Short.", "score": 0}));
    let file = super::TempFile::new(
        "many.json",
        serde_json::to_string(&request).unwrap().as_bytes(),
    );
    let empty = run(&[
        "assemble",
        "--budget",
        "10",
        "--overflow",
        "stop",
        file.path(),
    ]);
    assert_eq!(empty.stdout, "", "{empty:#?}");
    let need: usize = empty
        .stderr
        .strip_prefix(
            "mentor-context: warning: the context is empty: 100 results, none fits in the \
             budget of 10 tokens (the smallest of the 64 best-ranked blocks needs ",
        )
        .and_then(|rest| rest.strip_suffix(")\n"))
        .and_then(|need| need.parse().ok())
        .unwrap_or_else(|| panic!("{empty:#?}"));
    // The need of the long blocks, not of the short last one.
    assert!(need > 50, "{need}");
}

#[test]
fn misnamed_budget_options_get_a_hint() {
    run(&["assemble", "--tokens", "500", PRICING])
        .bad(&["unexpected argument `--tokens` (did you mean `--budget`?)"]);
    run(&["assemble", "--max-tokens=500", PRICING])
        .bad(&["unexpected argument `--max-tokens` (did you mean `--budget`?)"]);
}

#[test]
fn a_terminal_on_standard_input_gets_a_hint() {
    // A terminal needs a pseudo-terminal: util-linux's `script` makes one. Without it (not
    // Linux), there is no terminal to test with.
    let Ok(script) = Command::new("script").arg("--version").output() else {
        eprintln!("no `script` command: skipped");
        return;
    };
    assert!(script.status.success());
    let binary = env!("CARGO_BIN_EXE_mentor-context");
    let output = Command::new("script")
        .args(["-qec", &format!("'{binary}' assemble"), "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .expect("script runs");
    let shown = String::from_utf8_lossy(&output.stdout);
    assert!(
        shown.contains(
            "mentor-context: warning: no FILE given: reading JSON results from standard input"
        ),
        "{shown}"
    );
    // Piped input is not a terminal: no hint (the other tests' `ok()` checks stderr is empty).
    let piped = run_with_stdin(&["assemble"], b"[]");
    assert!(!piped.stderr.contains("no FILE given"), "{piped:#?}");
}

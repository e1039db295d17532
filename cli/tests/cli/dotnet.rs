//! Payloads as .NET services write them (`fixtures/dotnet/`): read as System.Text.Json's web
//! defaults read them, unknown properties warned about (or refused with `--strict`), and
//! shapes that are not an array of results named in plain words.

use super::*;

/// A fixture of `fixtures/dotnet/`.
fn dotnet(name: &str) -> String {
    format!("{}/../fixtures/dotnet/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The report for a file the command reads without a word on standard error.
#[track_caller]
fn report(name: &str) -> Value {
    run(&["assemble", "--json", &dotnet(name)]).json()
}

#[test]
fn pascal_case_reads_like_camel_case() {
    let pascal = report("pascal-case.json");
    let text = check_report(&pascal, Encoding::O200kBase, 4000);
    assert!(
        text.starts_with("[1] Subscription plans and prices\nvalid from: 2026-01-01\n"),
        "{text}"
    );
    let chip = &citations(&pascal)[0];
    assert_eq!(
        chip["sourceUrl"],
        "https://docs.quillstack.example/billing/prices"
    );
    assert_eq!(citations(&pascal).len(), 2);
}

#[test]
fn property_names_in_any_case_are_read() {
    let report = report("mixed-case.json");
    let chips = citations(&report);
    assert_eq!(chips[0]["title"], "Subscription plans and prices");
    // No title: the URL, read from `sourceURL`, is the display title.
    assert_eq!(
        chips[1]["title"],
        "https://docs.quillstack.example/billing/invoices"
    );
}

#[test]
fn unknown_properties_are_warned_about_once_per_name() {
    let run = run(&["assemble", &dotnet("unknown-properties.json")]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(run.stdout.starts_with("[1] Subscription plans"), "{run:#?}");
    let warnings: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(warnings.len(), 2, "one line per distinct name: {run:#?}");
    assert!(
        warnings[0].starts_with("mentor-context: warning: ")
            && warnings[0].contains("unknown property `source_url` (did you mean `sourceUrl`?)")
            && warnings[0].contains("ignored in 2 of 2 results"),
        "{warnings:?}"
    );
    assert!(
        warnings[1].contains("unknown property `embedding` (known: content, sourceUrl"),
        "{warnings:?}"
    );
}

#[test]
fn strict_makes_unknown_properties_errors() {
    run(&["assemble", "--strict", &dotnet("unknown-properties.json")]).bad(&[
        "unknown-properties.json: line 4, column",
        "unknown property `source_url` (did you mean `sourceUrl`?)",
    ]);
    // A clean file passes --strict without a word.
    let report = run(&[
        "assemble",
        "--strict",
        "--json",
        &dotnet("pascal-case.json"),
    ])
    .json();
    assert_eq!(citations(&report).len(), 2);
}

#[test]
fn null_metadata_values_stay_on_the_chip_and_out_of_the_prompt() {
    let report = report("null-metadata.json");
    let text = check_report(&report, Encoding::O200kBase, 4000);
    assert!(
        text.starts_with(
            "[1] Subscription plans and prices\nvalid from: 2026-01-01\ncurrency: EUR\n```"
        ),
        "{text}"
    );
    let metadata = &citations(&report)[0]["metadata"];
    assert!(metadata["valid until"].is_null(), "{metadata}");
    assert_eq!(
        keys(metadata),
        ["currency", "valid from", "valid until"],
        "the key is kept"
    );
}

#[test]
fn scores_given_as_strings_are_numbers() {
    let report = report("string-scores.json");
    let chips = citations(&report);
    // Ranked by the numbers: the second result first.
    assert_eq!(chips[0]["title"], "Subscription plans and prices");
    assert!((chips[0]["score"].as_f64().unwrap() - 0.91).abs() < 1e-6);
}

/// System.Text.Json with `AllowNamedFloatingPointLiterals` writes a score that is not finite
/// as a string; each is ranked by its value, and JSON, which has no such number, gets `null`.
#[test]
fn named_floating_point_scores_are_read_and_ranked() {
    let report = report("named-scores.json");
    check_report(&report, Encoding::O200kBase, 4000);
    let titles: Vec<&str> = citations(&report)
        .iter()
        .map(|chip| chip["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "Pinned notice",
            "Invoices",
            "Support",
            "Subscription plans and prices"
        ]
    );
    let scores: Vec<&Value> = citations(&report)
        .iter()
        .map(|chip| &chip["score"])
        .collect();
    assert!(
        scores[0].is_null() && scores[2].is_null() && scores[3].is_null(),
        "{scores:?}"
    );
    assert!((scores[1].as_f64().unwrap() - 0.74).abs() < 1e-6);
}

#[test]
fn shapes_that_are_not_an_array_are_named() {
    run(&["assemble", &dotnet("single-object.json")]).bad(&[
        "single-object.json: line 1, column 1",
        "expected a JSON array of results, found an object, a single result: wrap it in [ ]",
    ]);
    run(&["assemble", &dotnet("wrapped.json")]).bad(&[
        "line 1, column 1",
        "found an object holding an array in `results`; pass the array itself",
    ]);
    run(&["assemble", &dotnet("lines.jsonl")]).bad(&[
        "line 1, column 1",
        "found one JSON object per line (JSON Lines)",
    ]);
}

#[test]
fn the_written_wire_form_stays_camel_case() {
    let report = report("pascal-case.json");
    let chip = &citations(&report)[0];
    assert_eq!(
        keys(chip),
        [
            "fingerprint",
            "headShortened",
            "index",
            "inputIndex",
            "keptBytes",
            "keptUtf16",
            "metadata",
            "score",
            "sourceUrl",
            "title",
            "tokenCount",
            "truncated"
        ]
    );
}

//! A report records the layout it was written in: `cite`, `assemble --previous` and
//! `inspect --previous` read it without the options repeated, and say in one line which given
//! option disagrees with it.

use super::*;

const ANSWER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/quoted-answer.txt");
const SUPPORT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/support.json");

/// The layout the reports here are written in, other than the default.
const XML_LAYOUT: [&str; 4] = ["--format", "xml", "--hide-metadata-keys", "chunk_id"];

/// Runs `command`, the options of [`XML_LAYOUT`], then `rest`.
fn in_xml_layout(command: &[&str], rest: &[&str]) -> Run {
    run(&[command, &XML_LAYOUT, rest].concat())
}

/// `pricing` as `assemble --json` reports it in [`XML_LAYOUT`].
fn xml_report() -> TempFile {
    let report = in_xml_layout(&["assemble", "--json"], &[PRICING]).ok();
    TempFile::new("xml-report.json", report.as_bytes())
}

/// What every front end reports for this report and answer (the library's, Python's and
/// Node's tests expect the same).
fn expected() -> Value {
    serde_json::json!({
        "cited": [
            {"index": 1, "inputIndex": 0, "count": 2, "quotes": [
                {"text": "Team: 15 EUR, unlimited seats", "verified": true},
                {"text": "Team: 12 EUR", "verified": false}]},
            {"index": 4, "inputIndex": 3, "count": 1, "quotes": [
                {"text": "Extra storage: 4 EUR per 100 GB.", "verified": true}]}],
        "unknown": [],
        "unverified": 1
    })
}

/// What `expected` lists of `cite`'s resolution: each chip's number and input index, its
/// count and its quotes; the markers that cite nothing; the quotes not verified.
fn summary(resolution: &Value) -> Value {
    let cited: Vec<Value> = resolution["cited"]
        .as_array()
        .expect("cited is an array")
        .iter()
        .map(|chip| {
            serde_json::json!({
                "index": chip["citation"]["index"],
                "inputIndex": chip["citation"]["inputIndex"],
                "count": chip["count"],
                "quotes": chip["quotes"],
            })
        })
        .collect();
    serde_json::json!({
        "cited": cited,
        "unknown": resolution["unknown"],
        "unverified": resolution["unverified"],
    })
}

/// Item 4 of issue 32: the quotes are checked from the report alone.
#[test]
fn cite_checks_quotes_from_the_report_alone() {
    let report = xml_report();
    assert_eq!(
        summary(&run(&["cite", report.path(), ANSWER]).json()),
        expected()
    );
}

/// Item 5 of issue 32, with the issue's two cases: `--hide-metadata-keys` differing turned
/// every quote unverified, `--format` left out gave a false all-clear. Now the report's
/// layout is read, and a given option that disagrees is said in one line.
#[test]
fn cite_with_other_options_warns_and_reads_the_report_s_layout() {
    let report = xml_report();
    for (options, said) in [
        (
            &["--hide-metadata-keys", "currency"][..],
            "--hide-metadata-keys currency (the report's: chunk_id)",
        ),
        (
            &["--format", "plain"][..],
            "--format plain (the report's: xml)",
        ),
        (
            &["--encoding", "cl100k_base", "--max-head-tokens", "60"][..],
            "--encoding cl100k_base (the report's: o200k_base); --max-head-tokens 60 \
             (the report's: none)",
        ),
    ] {
        let mut args = vec!["cite"];
        args.extend(options);
        args.extend([report.path(), ANSWER]);
        let run = run(&args);
        assert_eq!(run.code, Some(0), "{run:#?}");
        assert_eq!(run.stderr.lines().count(), 1, "{run:#?}");
        assert!(
            run.stderr.starts_with("mentor-context: warning: ")
                && run.stderr.contains(
                    "options that differ from the layout the report was written in are not used"
                )
                && run.stderr.contains(said),
            "{run:#?}"
        );
        let printed: Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(summary(&printed), expected(), "{options:?}");
    }
    // The same values given again are no disagreement.
    let same = in_xml_layout(&["cite"], &[report.path(), ANSWER]);
    assert_eq!(summary(&same.json()), expected());
}

/// A report whose text does not read back has its quotes listed, not verified, with a
/// warning: never the false all-clear of no quotes at all.
#[test]
fn cite_on_an_edited_report_reports_its_quotes_not_verified() {
    let report = xml_report();
    let text = std::fs::read_to_string(&report.0).unwrap();
    let edited = TempFile::new("edited.json", text.replace("15 EUR", "16 EUR").as_bytes());
    let run = run(&["cite", edited.path(), ANSWER]);
    assert_eq!(run.code, Some(0), "{run:#?}");
    assert!(run.stderr.contains("reported not verified"), "{run:#?}");
    let printed: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(printed["unverified"], 3);
    assert_eq!(printed["cited"][0]["quotes"][0]["verified"], false);
}

/// A report of an older version records no layout: read with the options given, as before,
/// and, when they do not fit, its quotes are reported not verified rather than left out.
#[test]
fn a_report_without_a_layout_is_read_with_the_options_given() {
    let report = xml_report();
    let mut old: Value =
        serde_json::from_str(&std::fs::read_to_string(&report.0).unwrap()).unwrap();
    old.as_object_mut().unwrap().remove("layout");
    let old = TempFile::new("old.json", old.to_string().as_bytes());
    let given = in_xml_layout(&["cite"], &[old.path(), ANSWER]);
    assert_eq!(summary(&given.json()), expected());
    let bare = run(&["cite", old.path(), ANSWER]);
    assert!(bare.stderr.contains("reported not verified"), "{bare:#?}");
    let printed: Value = serde_json::from_str(&bare.stdout).unwrap();
    assert_eq!(printed["unverified"], 3);
}

/// `assemble --previous` and `inspect --previous` continue in the report's layout; a given
/// option that disagrees is said in one line.
#[test]
fn a_follow_up_turn_is_written_in_the_report_s_layout() {
    let report = xml_report();
    let next = run(&["assemble", "--json", "--previous", report.path(), SUPPORT]).json();
    assert!(next["context"].as_str().unwrap().starts_with("<documents>"));
    assert_eq!(
        next["layout"]["hiddenKeys"],
        serde_json::json!(["chunk_id"])
    );
    let told = run(&[
        "assemble",
        "--previous",
        report.path(),
        "--format",
        "plain",
        SUPPORT,
    ]);
    assert_eq!(told.code, Some(0), "{told:#?}");
    assert_eq!(told.stderr.lines().count(), 1, "{told:#?}");
    assert!(
        told.stderr.contains("--format plain (the report's: xml)"),
        "{told:#?}"
    );
    assert!(told.stdout.starts_with("<documents>"), "{told:#?}");
    let page = TempFile::new("page.html", b"");
    let inspected = run(&[
        "inspect",
        "--json",
        "--previous",
        report.path(),
        "--output",
        page.path(),
        SUPPORT,
    ])
    .json();
    assert_eq!(inspected["layout"]["format"], "xml");
}

/// A report counted by a tokenizer file is cited without the file: without a head cap, the
/// report alone reads back, as Python's and Node's resolvers read it.
#[test]
fn a_tokenizer_file_s_report_is_cited_without_the_file() {
    let file = super::tokenizer_file::tekken_file(&[]);
    let tokenizer = [
        "assemble",
        "--json",
        "--budget",
        "20000",
        "--tokenizer-file",
        file.path(),
    ];
    let report = in_xml_layout(&tokenizer, &[PRICING]).ok();
    assert!(report.contains(r#""encoding":"tekken-v3@"#), "{report}");
    let report = TempFile::new("tekken-report.json", report.as_bytes());
    assert_eq!(
        summary(&run(&["cite", report.path(), ANSWER]).json()),
        expected()
    );
}

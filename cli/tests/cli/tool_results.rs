//! Retrieval as a tool result, read back by `cite --dialect`: the citations a provider gives
//! the documents of a tool message.

use super::citations::fixture_response;
use super::*;

/// `cite --dialect cohere` reads the sources Cohere gives a tool message's documents
/// (`{"type": "tool", "id": "CALL_ID:N"}`, N from 0) as the documents' own ids.
#[test]
fn cite_reads_cohere_citations_of_a_tool_result() {
    let args = ["--budget", "600", "--dialect", "cohere"];
    let report = run(&[&["assemble", "--json"][..], &args, &[PRICING]].concat()).ok();
    let report = TempFile::new("cohere-report.json", report.as_bytes());
    let events = std::fs::read_to_string(fixture_response("cohere", "jsonl")).unwrap();
    let mut tool = events.clone();
    for n in 1..=9 {
        tool = tool.replace(
            &format!(r#""type": "document", "id": "{n}""#),
            &format!(r#""type": "tool", "id": "get_information_x1:{}""#, n - 1),
        );
    }
    assert!(tool.contains(r#""id": "get_information_x1:0""#));
    assert!(!tool.contains(r#""type": "document", "id""#));
    let tool = TempFile::new("cohere-tool.jsonl", tool.as_bytes());
    let ours = run(&[
        &["cite"][..],
        &args,
        &[report.path(), &fixture_response("cohere", "jsonl")],
    ]
    .concat())
    .json();
    let theirs = run(&[&["cite"][..], &args, &[report.path(), tool.path()]].concat()).json();
    assert!(!ours["cited"].as_array().unwrap().is_empty());
    assert_eq!(theirs["cited"], ours["cited"]);
    assert_eq!(theirs["unknown"][0]["at"], ours["unknown"][0]["at"]);
    assert_eq!(
        theirs["unknown"][0]["marker"],
        r#"tool id "get_information_x1:8""#
    );
}

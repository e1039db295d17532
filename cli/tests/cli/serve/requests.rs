//! What a client can ask of a profile: a smaller budget than its own (never a larger one), a
//! dialect profile's entries beside its report; and errors that never say a word twice.

use super::*;

const PROFILES: &[u8] = b"[profiles.default]\nbudget = 600\n\n\
[profiles.claude]\nbudget = 600\ndialect = \"anthropic\"\n\n\
[profiles.chat]\nwindow = 4096\nchat_template = \"harmony\"\ndate = \"2026-12-04\"\n";

fn pricing_results() -> String {
    std::fs::read_to_string(fixture("pricing.json")).unwrap()
}

#[test]
fn a_request_may_ask_for_a_smaller_budget_never_a_larger_one() {
    let service = Service::configured(PROFILES);
    let url = service.url("/v1/default/assemble");
    let results = pricing_results();
    for budget in ["300", "600"] {
        let asked = post(
            &url,
            &format!(r#"{{"results": {results}, "budget": {budget}}}"#),
        );
        let command = run(&[
            "assemble",
            "--json",
            "--budget",
            budget,
            &fixture("pricing.json"),
        ]);
        assert_eq!(
            (asked.status, asked.body),
            (200, command.stdout),
            "{budget}"
        );
    }
    let larger = post(&url, &format!(r#"{{"results": {results}, "budget": 601}}"#))
        .problem(400, "INVALID_ARGUMENT");
    assert_eq!(
        larger["detail"],
        "budget: 601 is over profile `default`'s budget of 600: a request may ask for a smaller \
         one, never a larger one"
    );
    let not_a_number = post(&url, &format!(r#"{{"results": {results}, "budget": "x"}}"#))
        .problem(400, "INVALID_JSON");
    assert!(
        not_a_number["detail"]
            .as_str()
            .unwrap()
            .starts_with("budget: "),
        "{not_a_number}"
    );
    assert_eq!(service.stop(), Some(0));
}

#[test]
fn a_dialect_profile_answers_with_the_entries_beside_the_report() {
    let service = Service::configured(PROFILES);
    let answer = post(
        &service.url("/v1/claude/assemble"),
        &format!(r#"{{"results": {}}}"#, pricing_results()),
    );
    assert_eq!(answer.status, 200, "{answer:#?}");
    let args = ["--budget", "600", "--dialect", "anthropic"];
    let report = run(&[
        &["assemble", "--json"][..],
        &args,
        &[&fixture("pricing.json")],
    ]
    .concat());
    let entries = run(&[&["assemble"][..], &args, &[&fixture("pricing.json")]].concat());
    // The report's bytes, then the entries `assemble --dialect` writes.
    let report_keys = report.stdout.trim_end().strip_suffix('}').unwrap();
    assert!(
        answer
            .body
            .starts_with(&format!("{report_keys},\"entries\":[")),
        "{answer:#?}"
    );
    let answered: Value = serde_json::from_str(&answer.body).unwrap();
    let written: Value = serde_json::from_str(&entries.stdout).unwrap();
    assert_eq!(answered["entries"], written);
    assert!(written.as_array().is_some_and(|e| e.len() >= 3));
    // Still a report: `/cite` reads the provider's response against the whole answer.
    let response = std::fs::read_to_string(fixture("responses/anthropic.json")).unwrap();
    let cited = post(
        &service.url("/v1/claude/cite"),
        &format!(
            r#"{{"report": {}, "response": {response}}}"#,
            answer.body.trim_end()
        ),
    );
    assert_eq!(cited.status, 200, "{cited:#?}");
    // A profile without a dialect answers with the report alone.
    let plain = post(&service.url("/v1/default/assemble"), &pricing_results());
    assert!(!plain.body.contains("\"entries\""));
    assert_eq!(service.stop(), Some(0));
}

/// The first word said twice in a row in `detail` (`conversation: conversation: ...`), if any:
/// words are runs of letters, compared in any letter case.
fn repeated_word(detail: &str) -> Option<String> {
    let words: Vec<String> = detail
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    words
        .windows(2)
        .find(|pair| pair[0] == pair[1])
        .map(|pair| pair[0].clone())
}

#[test]
fn a_repeated_word_is_found() {
    assert_eq!(
        repeated_word("conversation: Conversation: message 2"),
        Some("conversation".to_string())
    );
    assert_eq!(repeated_word("results: line 1, column 1: x"), None);
}

/// Every refusal of a request's body, at every endpoint: each detail says no word twice.
#[test]
fn no_error_says_a_word_twice() {
    let service = Service::configured(PROFILES);
    let results = pricing_results();
    let report = run(&[
        "assemble",
        "--json",
        "--budget",
        "600",
        &fixture("pricing.json"),
    ])
    .stdout;
    let report = report.trim_end();
    let assemble = service.url("/v1/default/assemble");
    let cite = service.url("/v1/default/cite");
    let prompt = service.url("/v1/chat/prompt");
    let on_chat = service.url("/v1/chat/assemble");
    let on_default = service.url("/v1/default/prompt");
    let requests: Vec<(&String, String)> = vec![
        (
            &assemble,
            "[{\"content\": \"x\", \"score\": 1,}]".to_string(),
        ),
        (&assemble, "{\"results\": [{\"score\": 1}]}".to_string()),
        (&assemble, "{\"result\": []}".to_string()),
        (&assemble, "{\"results\": [], \"results\": []}".to_string()),
        (
            &assemble,
            format!(r#"{{"results": {results}, "budget": 9999}}"#),
        ),
        (
            &assemble,
            format!(r#"{{"results": {results}, "budget": -1}}"#),
        ),
        (
            &assemble,
            format!(r#"{{"results": {results}, "previous": {report}}}"#),
        ),
        (&assemble, "42".to_string()),
        (&on_chat, "[]".to_string()),
        (&cite, "{}".to_string()),
        (&cite, format!(r#"{{"report": {report}}}"#)),
        (&cite, format!(r#"{{"report": {report}, "answer": 1}}"#)),
        (
            &cite,
            format!(r#"{{"report": {report}, "response": {{}}}}"#),
        ),
        (
            &cite,
            r#"{"report": {"context": "x"}, "answer": "[1]"}"#.to_string(),
        ),
        (
            &cite,
            format!(r#"{{"report": {report}, "answer": "x", "renumber": 1}}"#),
        ),
        (&prompt, "{}".to_string()),
        (
            &prompt,
            r#"{"conversation": [], "results": []}"#.to_string(),
        ),
        (
            &prompt,
            r#"{"conversation": [{"role": "assistant", "content": "x"}], "results": []}"#
                .to_string(),
        ),
        (
            &prompt,
            r#"{"conversation": [{"role": "user"}], "results": []}"#.to_string(),
        ),
        (
            &prompt,
            r#"{"conversation": [{"role": "user", "content": "x"}], "results": [{}]}"#.to_string(),
        ),
        (&on_default, "{}".to_string()),
    ];
    let mut said_twice = Vec::new();
    for (url, body) in &requests {
        let answer = post(url, body);
        assert!(answer.status >= 400, "{url} {body}: {answer:#?}");
        let problem: Value = serde_json::from_str(&answer.body).expect("a problem document");
        let detail = problem["detail"].as_str().unwrap_or_default();
        if let Some(word) = repeated_word(detail) {
            said_twice.push(format!("{url} {body}: `{word}` twice in {detail:?}"));
        }
    }
    assert!(said_twice.is_empty(), "{}", said_twice.join("\n"));
    assert_eq!(service.stop(), Some(0));
}

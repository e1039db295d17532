//! `inspect`: the page is written, self-contained, with everything from the input escaped and
//! only http(s) links; its size stays bounded; bad input is one line and exit 2; the HTML is
//! kept stable by a snapshot with the version left out.

use std::path::Path;
use std::process::Command;

use super::{Run, TempFile, run, run_with_stdin};

/// The repository's root: pages name their input as given, so tests run from here with
/// relative paths, and the snapshots do not depend on where the checkout is.
pub(crate) const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// The results that try to inject markup and scripts, shared with the browser tests.
pub(crate) const PAYLOADS: &str = "cli/tests/browser/payloads.json";
const PAYLOADS_ANSWER: &str = "cli/tests/browser/payloads-answer.txt";

/// Runs the binary in [`ROOT`] with `args`.
pub(crate) fn run_in_root(args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_mentor-context"))
        .args(args)
        .current_dir(ROOT)
        .output()
        .expect("the binary runs");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

/// The page `inspect` writes with `args` (run in [`ROOT`]), checked to be self-contained.
#[track_caller]
pub(crate) fn inspect(args: &[&str]) -> String {
    let page = TempFile::new("page.html", b"");
    let mut all = vec!["inspect", "--output", page.path()];
    all.extend_from_slice(args);
    let out = run_in_root(&all).ok();
    assert_eq!(out, "", "nothing on standard output without --json");
    let html = std::fs::read_to_string(&page.0).expect("the page is written");
    check_self_contained(&html);
    html
}

/// What every page must be: one document that loads nothing and runs nothing, whose only
/// links are to its own sections or to http(s) URLs. Read tag by tag: text from the input
/// can only be text if its `<` was escaped, so any markup it smuggled in shows up here.
#[track_caller]
pub(crate) fn check_self_contained(html: &str) {
    assert!(html.starts_with("<!doctype html>"), "{}", &html[..80]);
    let lower = html.to_ascii_lowercase();
    for outside in ["@import", "url("] {
        assert!(!lower.contains(outside), "{outside} in the page");
    }
    for (name, attributes) in tags(html) {
        assert!(
            ![
                "script",
                "iframe",
                "img",
                "object",
                "embed",
                "link",
                "frame",
                "base",
                "form",
                "meta http-equiv"
            ]
            .contains(&name.as_str()),
            "a <{name}> tag"
        );
        for (attribute, value) in attributes {
            assert!(!attribute.starts_with("on"), "<{name} {attribute}=...>");
            if ["href", "src", "xlink:href", "action", "formaction"].contains(&attribute.as_str()) {
                let value = value.to_ascii_lowercase();
                assert!(
                    value.starts_with('#')
                        || value.starts_with("http://")
                        || value.starts_with("https://"),
                    "<{name} {attribute}={value:?}>"
                );
            }
            if name == "meta" {
                assert_ne!(attribute, "http-equiv", "a <meta http-equiv>");
            }
        }
    }
}

/// The start tags of `html`: each tag's name and its attributes, values with their
/// character references decoded, all names in lower case. Comments, the doctype and the
/// style sheet are skipped.
pub(crate) fn tags(html: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut tags = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find('<') {
        rest = &rest[at..];
        if let Some(comment) = rest.strip_prefix("<!--") {
            rest = comment.split_once("-->").map_or("", |(_, after)| after);
            continue;
        }
        if rest.starts_with("<!") || rest.starts_with("</") {
            rest = rest.split_once('>').map_or("", |(_, after)| after);
            continue;
        }
        let (tag, after) = rest[1..].split_once('>').expect("every tag closes");
        rest = after;
        let mut chars = tag.trim_end_matches('/').char_indices().peekable();
        let mut name = String::new();
        while let Some(&(_, c)) = chars.peek().filter(|(_, c)| !c.is_whitespace()) {
            name.push(c.to_ascii_lowercase());
            chars.next();
        }
        let mut attributes = Vec::new();
        let tag: Vec<char> = tag.chars().collect();
        let mut i = name.chars().count();
        while i < tag.len() {
            while i < tag.len() && (tag[i].is_whitespace() || tag[i] == '/') {
                i += 1;
            }
            let start = i;
            while i < tag.len() && !tag[i].is_whitespace() && tag[i] != '=' && tag[i] != '/' {
                i += 1;
            }
            let attribute: String = tag[start..i]
                .iter()
                .collect::<String>()
                .to_ascii_lowercase();
            let mut value = String::new();
            if i < tag.len() && tag[i] == '=' {
                i += 1;
                let quote = tag.get(i).copied().filter(|q| *q == '"' || *q == '\'');
                if quote.is_some() {
                    i += 1;
                }
                while i < tag.len()
                    && Some(tag[i]) != quote
                    && (quote.is_some() || !tag[i].is_whitespace())
                {
                    value.push(tag[i]);
                    i += 1;
                }
                i += 1;
            }
            if !attribute.is_empty() {
                attributes.push((attribute, decode(&value)));
            }
        }
        if name == "style" {
            rest = rest.split_once("</style>").map_or("", |(_, after)| after);
        }
        tags.push((name, attributes));
    }
    tags
}

/// `text` with its character references decoded (the named ones minijinja writes, and
/// numeric ones).
pub(crate) fn decode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let Some(end) = rest.find(';') else { break };
        let entity = &rest[1..end];
        let decoded = match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => entity
                .strip_prefix("#x")
                .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                .or_else(|| entity.strip_prefix('#').and_then(|dec| dec.parse().ok()))
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn a_page_shows_the_budget_the_blocks_and_what_was_left_out() {
    let html = decode(&inspect(&["--budget", "400", "fixtures/pricing.json"]));
    let report = run_in_root(&[
        "assemble",
        "--json",
        "--budget",
        "400",
        "fixtures/pricing.json",
    ])
    .json();
    let count = |needle: &str| html.matches(needle).count();
    assert_eq!(
        count("<article class=\"block\""),
        super::citations(&report).len()
    );
    assert_eq!(
        count("/reason\" data-value="),
        super::omitted(&report).len(),
        "a row per omitted result"
    );
    assert!(html.contains(&format!(
        "<b data-json=\"report:/tokenCount\">{}</b>",
        report["tokenCount"]
    )));
    for share in ["header", "layout", "heads", "metadata", "content", "free"] {
        assert!(html.contains(&format!("data-share=\"{share}\"")), "{share}");
    }
    // A result that did not fit says at which budget it would have.
    assert!(html.contains("data-need="), "a smallest budget is shown");
}

#[test]
fn everything_from_the_input_is_escaped_and_links_are_http_only() {
    let html = inspect(&["--budget", "200", "--answer", PAYLOADS_ANSWER, PAYLOADS]);
    // The payloads are there, as text.
    for text in [
        "&lt;script&gt;alert(1)&lt;&#x2f;script&gt;",
        "&lt;img src=x onerror=alert(3)&gt;",
        "&lt;svg onload=alert(8)&gt;",
        "&lt;&#x2f;pre&gt;&lt;script&gt;alert(1)",
        "&lt;&#x2f;style&gt;&lt;script&gt;alert(6)",
        "&lt;iframe src=javascript:alert(11)&gt;",
        "&lt;script&gt;alert(14)&lt;&#x2f;script&gt;",
    ] {
        assert!(html.contains(text), "{text} shown as text");
    }
    // The javascript: URLs are shown, never linked; the https one is.
    assert!(html.contains("javascript:alert(1)"));
    assert!(
        html.contains(
            "<a href=\"https:&#x2f;&#x2f;example.com&#x2f;prices?a=1&amp;b=&quot;2&quot;\""
        )
    );
    // The answer's markers link to their blocks; [9] points at none.
    assert!(html.contains("<a class=\"cite\" href=\"#block-1\""));
    assert!(
        html.contains("<mark class=\"unknown\" title=\"points at no block\"><bdi>[9]</bdi></mark>")
    );
}

#[test]
fn the_hostile_heads_fixture_shows_its_hidden_characters() {
    let html = inspect(&["--budget", "2000", "fixtures/hostile-heads.json"]);
    // The right-to-left override of a title is shown as its code point, not applied.
    assert!(html.contains("data-cp=\"202E\""));
    assert!(!html.contains('\u{202E}'));
}

#[test]
fn a_page_of_50_results_of_2_kib_stays_under_300_kb() {
    let html = inspect(&["fixtures/bench-english.json"]);
    assert!(html.len() < 300_000, "{} bytes", html.len());
}

#[test]
fn a_16_mib_title_is_shown_cut_with_its_length() {
    let title = "T".repeat(16 << 20);
    let results = format!(
        r#"[{{"content":"Plan B costs 12 EUR.","title":"{title}","score":0.9}},{{"content":"Plan A is free.","title":"Plans","score":0.5}}]"#
    );
    let file = TempFile::new("huge-title.json", results.as_bytes());
    let page = TempFile::new("huge-title.html", b"");
    let out = run(&["inspect", "--output", page.path(), file.path()]).ok();
    assert_eq!(out, "");
    let html = std::fs::read_to_string(&page.0).unwrap();
    assert!(html.len() < 100_000, "{} bytes", html.len());
    assert!(html.contains(&format!("cut here: {} bytes in all", 16 << 20)));
}

#[test]
fn json_prints_the_report_the_page_shows() {
    let page = TempFile::new("json.html", b"");
    let report = run_in_root(&[
        "inspect",
        "--json",
        "--budget",
        "400",
        "--output",
        page.path(),
        "fixtures/pricing.json",
    ])
    .json();
    let assembled = run_in_root(&[
        "assemble",
        "--json",
        "--budget",
        "400",
        "fixtures/pricing.json",
    ])
    .json();
    assert_eq!(report, assembled);
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    run(&["inspect", "fixtures/pricing.json"]).bad(&["--output"]);
    let page = TempFile::new("bad.html", b"");
    run_with_stdin(&["inspect", "--output", page.path()], b"[{\"content\": 1}]")
        .bad(&["<stdin>", "line 1"]);
    run_with_stdin(
        &["inspect", "--output", page.path(), "--answer", "-"],
        b"[]",
    )
    .bad(&["--answer", "standard input"]);
    run(&[
        "inspect",
        "--output",
        page.path(),
        "--answer",
        "/no/such/answer",
        super::PRICING,
    ])
    .bad(&["/no/such/answer", "no such file"]);
    // Nothing was written over the page for a bad input.
    assert_eq!(std::fs::read(&page.0).unwrap(), b"");
}

#[test]
fn a_page_that_cannot_be_written_is_one_line_and_exit_1() {
    let run = run(&[
        "inspect",
        "--output",
        "/no/such/dir/page.html",
        super::PRICING,
    ]);
    assert_eq!(run.code, Some(1), "{run:#?}");
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr.lines().count(), 1);
    assert!(
        run.stderr.contains("/no/such/dir/page.html: cannot write"),
        "{}",
        run.stderr
    );
    assert!(!Path::new("/no/such/dir").exists());
}

/// The style sheet, left out of snapshots: they keep the HTML, and `style.css` is a file.
pub(crate) const STYLE_FILTER: (&str, &str) =
    (r"(?s)<style>.*?</style>", "<style>[style.css]</style>");

/// The version in a page, left out of snapshots so that a release does not change them.
pub(crate) const VERSION_FILTER: (&str, &str) = (
    r#"(mentor-context(?: inspect| batch)?) \d+\.\d+\.\d+(?:-[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?"#,
    "$1 [version]",
);

#[test]
fn the_page_is_stable() {
    let answer = TempFile::new(
        "answer.txt",
        "Team costs 15 EUR a seat [1]; storage is extra [3, 4]; [9] is no block.\n".as_bytes(),
    );
    let html = inspect(&[
        "--budget",
        "400",
        "--answer",
        answer.path(),
        "fixtures/pricing.json",
    ]);
    insta::with_settings!({filters => vec![VERSION_FILTER, STYLE_FILTER]}, {
        insta::assert_snapshot!("inspect_pricing", html);
    });
}

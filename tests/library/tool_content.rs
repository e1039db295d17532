//! The tool contents the bindings are checked against. Python's `cohere_tool_content` and
//! Node's `cohereToolContent` return values, not text, and no command prints them: they are
//! compared with `fixtures/tool_content/cohere-multilingual-300.json`, which is what Rust's
//! `cohere_tool_content` writes for `fixtures/multilingual.json` at a budget of 300 (CJK text,
//! emoji sequences, quotes, metadata and a cut entry). Mistral's they compare with
//! `assemble --dialect mistral` itself.

use mentor_context::ContextBuilder;
use mentor_context::dialects::{Dialect, cohere_tool_content};

use crate::common;

/// The fixture's path, from the repository's root.
const FIXTURE: &str = "tool_content/cohere-multilingual-300.json";

#[test]
fn the_cohere_tool_content_fixture_is_what_rust_writes() {
    let assembler = ContextBuilder::new(300)
        .dialect(Dialect::Cohere)
        .build()
        .unwrap();
    let entries = assembler
        .entries(&assembler.assemble(&common::fixture("multilingual")))
        .unwrap();
    let written = serde_json::to_string(&cohere_tool_content(&entries)).unwrap() + "\n";
    // The fixture holds what the bindings must get right: a cut entry, and text that is not
    // ASCII (each binding writes its own JSON of the values and compares the bytes).
    assert!(written.contains(r#""truncated":"true""#), "{written}");
    assert!(!written.is_ascii());
    let fixture = std::fs::read_to_string(common::fixtures_dir().join(FIXTURE)).unwrap();
    assert!(
        written == fixture,
        "fixtures/{FIXTURE} is not what cohere_tool_content writes now; write it again:\n{written}"
    );
}

//! The dialects' responses as the response tests read them: the fixture responses in
//! `fixtures/responses/`, resolved against the pricing report they answer, with the contents
//! and the entries sent. One place for it, so that `dialects`, `dialect_attacks`,
//! `response_edges` and `bedrock_mistral` read a response the same way.

use crate::common;

use mentor_context::citations::{Resolution, Resolver};
use mentor_context::dialects::Dialect;
use mentor_context::{Assembler, ContextBuilder, Error, MentorRagResult};

/// The assembler the fixture responses answer: a budget of 600 in `dialect`.
pub(crate) fn assembler(dialect: Dialect) -> Assembler {
    ContextBuilder::new(600).dialect(dialect).build().unwrap()
}

/// The fixture response of `dialect`, of `kind`: `json` (the whole message), `jsonl` (its
/// stream's events) or `sse` (the server-sent events).
pub(crate) fn response(dialect: Dialect, kind: &str) -> String {
    let path = common::fixtures_dir().join(format!("responses/{dialect}.{kind}"));
    std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// `text` resolved against `results` in `dialect`, with the report's contents and, when
/// `entries`, the entries sent (without them quotes cannot be checked against what was sent).
pub(crate) fn resolve_as(
    dialect: Dialect,
    results: &[MentorRagResult],
    text: &str,
    entries: bool,
) -> Result<Resolution, Error> {
    let assembler = assembler(dialect);
    let context = assembler.assemble(results);
    let sent = assembler.entries(&context).unwrap();
    let contents = assembler.contents(&context).unwrap();
    let resolver = Resolver::for_context(&context).contents(&contents);
    match entries {
        true => resolver.entries(&sent).response(text),
        false => resolver.response(text),
    }
}

/// `text` resolved against the pricing fixture in `dialect`, with its entries and contents.
pub(crate) fn resolve(dialect: Dialect, text: &str) -> Result<Resolution, Error> {
    resolve_as(dialect, &common::fixture("pricing"), text, true)
}

/// What `text` is refused for: the problem of the [`Error::Response`] it must be.
#[track_caller]
pub(crate) fn problem(dialect: Dialect, text: &str) -> String {
    match resolve(dialect, text) {
        Err(Error::Response { problem }) => problem,
        other => panic!("not refused: {other:?}"),
    }
}

/// Asserts that `resolution` reports `marker` among the citations that point at nothing.
#[track_caller]
pub(crate) fn assert_unknown(resolution: &Resolution, marker: &str) {
    assert!(
        resolution.unknown.iter().any(|u| u.marker == marker),
        "{marker:?} in {:?}",
        resolution.unknown
    );
}

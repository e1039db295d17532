//! What the `inspect` page shows, gathered from the report, the text's pieces and the input,
//! each string from the input as a [`Text`] (escaped by the template, cut to a size) and each
//! link checked ([`href`]).
//!
//! Values the browser tests compare with the JSON report carry their place in it (a JSON
//! pointer); the template writes it as `data-json`.

use mentor_context::machinery::text_parts;
use mentor_context::{AssembledContext, Citation, Omission};
use serde::Serialize;

use super::answer::{Answer, answer};
use super::budget::{Bar, bar, percent};
use super::need::{Need, needs};
use crate::assemble::Request;
use crate::html::link::href;
use crate::html::text::Text;

/// A chip shows at most this many metadata entries; the rest are counted.
const METADATA_SHOWN: usize = 50;

/// A page lists at most this many omitted results (best-ranked first); the rest are counted
/// by reason. 50,000 results must not make a page of megabytes.
pub(super) const OMITTED_SHOWN: usize = 500;

/// The names of the inputs, as messages give them.
pub(super) struct Names {
    pub(super) input: String,
    pub(super) previous: Option<String>,
}

#[derive(Debug, Serialize)]
pub(super) struct Page<'a> {
    input: Text<'a>,
    previous: Option<Text<'a>>,
    budget: usize,
    token_count: usize,
    encoding: Text<'a>,
    fill: String,
    headroom: Option<usize>,
    sealed: bool,
    bar: Option<Bar>,
    /// The text's pieces outside the blocks; or, if it could not be split, all of it.
    header: Option<Text<'a>>,
    open: Option<Text<'a>>,
    close: Option<Text<'a>>,
    whole: Option<Text<'a>>,
    blocks: Vec<Block<'a>>,
    earlier_blocks: usize,
    omitted: Vec<Omitted<'a>>,
    omitted_total: usize,
    reasons: Vec<Reason>,
    answer: Option<Answer<'a>>,
    settings: Vec<(&'a str, Text<'a>)>,
    /// With a whole prompt: where its window went.
    pub(super) window: Option<super::window::Window<'a>>,
}

/// One block: its chip, its cost and its text.
#[derive(Debug, Serialize)]
struct Block<'a> {
    /// Its place in the report's `citations`.
    i: usize,
    index: usize,
    #[serde(flatten)]
    source: Source<'a>,
    metadata: Vec<Entry<'a>>,
    metadata_more: usize,
    input_index: usize,
    tokens: usize,
    truncated: bool,
    head_shortened: bool,
    kept_bytes: Option<usize>,
    /// The whole content's length, when the input holds it (not for an earlier turn's block).
    content_bytes: Option<usize>,
    kept_percent: Option<String>,
    /// Placed by an earlier turn.
    earlier: bool,
    head_tokens: Option<usize>,
    metadata_tokens: Option<usize>,
    content_tokens: Option<usize>,
    head: Option<Text<'a>>,
    body: Option<Text<'a>>,
}

/// Where a block or a result left out came from, as the page shows it: title, URL, link and
/// score, the same for both.
#[derive(Debug, Serialize)]
struct Source<'a> {
    title: Option<Text<'a>>,
    url: Option<Text<'a>>,
    href: Option<&'a str>,
    score: String,
}

impl<'a> Source<'a> {
    fn new(title: Option<&'a str>, url: Option<&'a str>, value: f32) -> Source<'a> {
        Source {
            title: title.map(Text::field),
            // A chip titled by its URL does not show it twice.
            url: url.filter(|url| title != Some(url)).map(Text::field),
            href: url.and_then(href),
            score: score(value),
        }
    }
}

#[derive(Debug, Serialize)]
struct Entry<'a> {
    key: Text<'a>,
    value: Option<Text<'a>>,
    /// Where the value is in the report.
    pointer: String,
}

#[derive(Debug, Serialize)]
struct Omitted<'a> {
    i: usize,
    #[serde(flatten)]
    source: Source<'a>,
    reason: String,
    reason_text: String,
    input_index: usize,
    need: Option<String>,
    alone: Option<String>,
}

#[derive(Debug, Serialize)]
struct Reason {
    reason: String,
    reason_text: String,
    count: usize,
}

/// The page of `context`, assembled from `request`.
pub(super) fn page<'a>(
    request: &'a Request,
    context: &'a AssembledContext<'a>,
    answer_text: Option<&'a str>,
    settings: &'a [(String, String)],
    names: &'a Names,
) -> Page<'a> {
    let text = context.text.as_str();
    let parts = text_parts(&request.assembler, context);
    let earlier_blocks = request.earlier_blocks();
    // The blocks' contents, for checking the answer's quotes; a context just assembled with
    // these options reads back, and if it did not, no quote is checked (as `cite` does).
    let contents = answer_text.and_then(|_| request.assembler.contents(context).ok());
    let piece =
        |range: std::ops::Range<usize>| (!range.is_empty()).then(|| Text::sent(&text[range]));
    let blocks = context
        .citations
        .iter()
        .enumerate()
        .map(|(i, citation)| {
            let earlier = i < earlier_blocks;
            let content = (!earlier).then(|| request.results[citation.input_index].content.len());
            let block_parts = parts.as_ref().map(|p| &p.blocks[i]);
            let mut block = block(i, citation, content, earlier);
            if let Some(b) = block_parts {
                block.head_tokens = Some(b.head.tokens - b.metadata_tokens);
                block.metadata_tokens = Some(b.metadata_tokens);
                block.content_tokens = Some(b.content.tokens);
                block.head = Some(Text::sent(&text[b.head.range.clone()]));
                block.body = Some(Text::sent(&text[b.body.range.clone()]));
            }
            block
        })
        .collect();
    let mut needs = needs(request, context);
    let omitted = context
        .omitted
        .iter()
        .take(OMITTED_SHOWN)
        .enumerate()
        .map(|(i, omission)| {
            let found = needs.remove(&omission.input_index);
            omitted(i, omission, found)
        })
        .collect();
    Page {
        input: Text::field(&names.input),
        previous: names.previous.as_deref().map(Text::field),
        budget: context.budget,
        token_count: context.token_count,
        encoding: Text::field(&context.encoding),
        fill: percent(context.token_count, context.budget, 1),
        headroom: context.headroom,
        sealed: context.seal.is_some(),
        bar: parts.as_ref().map(|p| bar(context, p)),
        header: parts.as_ref().and_then(|p| piece(p.header.range.clone())),
        open: parts.as_ref().and_then(|p| piece(p.open.range.clone())),
        close: parts.as_ref().and_then(|p| piece(p.close.range.clone())),
        whole: parts.is_none().then(|| Text::sent(text)),
        blocks,
        earlier_blocks,
        omitted,
        omitted_total: context.omitted.len(),
        reasons: reasons(&context.omitted),
        answer: answer_text.map(|a| answer(context, contents.as_deref(), a)),
        settings: settings
            .iter()
            .map(|(name, value)| (name.as_str(), Text::field(value)))
            .collect(),
        window: None,
    }
}

fn block(i: usize, citation: &Citation, content: Option<usize>, earlier: bool) -> Block<'_> {
    let entries = citation.metadata.iter().flatten();
    let metadata = entries
        .clone()
        .take(METADATA_SHOWN)
        .map(|(key, value)| Entry {
            key: Text::field(key),
            value: value.as_deref().map(Text::field),
            pointer: format!("/citations/{i}/metadata/{}", pointer_token(key)),
        })
        .collect();
    let kept_percent = match (citation.kept_bytes, content) {
        (Some(kept), Some(whole)) => Some(percent(kept, whole, 1)),
        _ => None,
    };
    Block {
        i,
        index: citation.index,
        source: Source::new(
            citation.title.as_deref(),
            citation.source_url.as_deref(),
            citation.score,
        ),
        metadata,
        metadata_more: entries.count().saturating_sub(METADATA_SHOWN),
        input_index: citation.input_index,
        tokens: citation.token_count,
        truncated: citation.truncated,
        head_shortened: citation.head_shortened,
        kept_bytes: citation.kept_bytes,
        content_bytes: content,
        kept_percent,
        earlier,
        head_tokens: None,
        metadata_tokens: None,
        content_tokens: None,
        head: None,
        body: None,
    }
}

fn omitted<'a>(i: usize, omission: &'a Omission<'a>, need: Option<(Need, String)>) -> Omitted<'a> {
    let (need, alone) = match need {
        Some((need, alone)) => (Some(need.text()), Some(alone)),
        None => (None, None),
    };
    Omitted {
        i,
        source: Source::new(
            omission.title.as_deref(),
            omission.source_url.as_deref(),
            omission.score,
        ),
        reason: wire_name(omission.reason),
        reason_text: omission.reason.to_string(),
        input_index: omission.input_index,
        need,
        alone,
    }
}

/// The omitted results counted by reason, in order of first appearance.
fn reasons(omitted: &[Omission<'_>]) -> Vec<Reason> {
    let mut reasons: Vec<Reason> = Vec::new();
    for omission in omitted {
        let name = wire_name(omission.reason);
        match reasons.iter_mut().find(|r| r.reason == name) {
            Some(reason) => reason.count += 1,
            None => reasons.push(Reason {
                reason: name,
                reason_text: omission.reason.to_string(),
                count: 1,
            }),
        }
    }
    reasons
}

/// A reason's name as the JSON report spells it.
fn wire_name(reason: mentor_context::OmitReason) -> String {
    serde_json::to_value(reason)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| reason.to_string())
}

/// A score as the report writes it, with `NaN` for the `null` JSON gives a NaN.
fn score(score: f32) -> String {
    if score.is_nan() {
        "NaN".to_string()
    } else {
        score.to_string()
    }
}

/// `key` as one token of a JSON pointer (RFC 6901): `~` as `~0`, `/` as `~1`.
fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_and_scores_are_written_as_the_report_reads() {
        assert_eq!(pointer_token("a/b~c"), "a~1b~0c");
        assert_eq!(score(0.91), "0.91");
        assert_eq!(score(f32::NAN), "NaN");
        assert_eq!(
            wire_name(mentor_context::OmitReason::DidNotFit),
            "didNotFit"
        );
    }
}

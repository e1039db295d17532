//! The answer as a chat UI would show it: every marker that cites a block linked to that
//! block's chip, every marker that points at no block flagged, and every quote the answer
//! attributes to a block flagged when that block's content does not hold it. The markers and
//! the quote checks are the library's ([`Resolver`], given the contents as `cite` gives
//! them), so the page reads the answer exactly as `cite` does.

use std::collections::BTreeMap;

use mentor_context::AssembledContext;
use mentor_context::citations::Resolver;
use serde::Serialize;

use crate::html::text::Text;

/// How much of an answer a page shows: a longer one is cut, with its length said.
pub(super) const ANSWER_BYTES: usize = 256 * 1024;

/// The most markers of the answer a page links: each is a link of some fifty bytes, so an
/// answer of nothing but `[1]` would make a page twenty times its shown part. The shown
/// answer ends after the last one, and says so.
const MARKERS_SHOWN: usize = 2000;

/// The most unknown markers, and quotes, a page lists, with a count of the rest: the answer
/// is cut, and the lists are cut as well, so a page's size follows neither the answer's
/// length nor its number of markers.
const LISTED: usize = 100;

/// The answer, in pieces, and what it cites.
#[derive(Debug, Serialize)]
pub(super) struct Answer<'a> {
    pieces: Vec<Piece<'a>>,
    /// Whether only the start of the answer is shown.
    cut: bool,
    bytes: usize,
    /// The cited blocks, in order of first citation, as `cite` lists them.
    cited: Vec<Cited<'a>>,
    /// The markers that point at no block, in answer order, as `cite` lists them: the first
    /// [`LISTED`].
    unknown: Vec<Unknown<'a>>,
    /// How many more there are.
    more_unknown: usize,
    /// How many quotes were not found in the content of the block they cite.
    unverified: usize,
}

/// Plain text, or a marker with the blocks it cites.
#[derive(Debug, Serialize)]
struct Piece<'a> {
    text: Text<'a>,
    /// The numbers of the blocks the marker cites; empty for plain text.
    cites: Vec<usize>,
    /// Whether this is a marker that cites a number no block has (it may cite others too).
    unknown: bool,
    marker: bool,
}

#[derive(Debug, Serialize)]
struct Cited<'a> {
    index: usize,
    input_index: usize,
    count: usize,
    /// The quotes attributed to the block, in answer order, as `cite` lists them: of the
    /// answer's quotes, the first [`LISTED`].
    quotes: Vec<Quote<'a>>,
    /// How many more the block has.
    more_quotes: usize,
}

#[derive(Debug, Serialize)]
struct Quote<'a> {
    text: Text<'a>,
    verified: bool,
}

#[derive(Debug, Serialize)]
struct Unknown<'a> {
    marker: Text<'a>,
    at: usize,
}

/// The answer `answer` to `context`, whose blocks' contents are `contents` (without them, no
/// quote is checked).
pub(super) fn answer<'a>(
    context: &AssembledContext<'_>,
    contents: Option<&[String]>,
    answer: &'a str,
) -> Answer<'a> {
    let resolver = Resolver::for_context(context);
    let resolution = match contents {
        Some(contents) => resolver.contents(contents).resolve(answer),
        None => resolver.resolve(answer),
    };
    let window = answer.floor_char_boundary(ANSWER_BYTES.min(answer.len()));
    // Each marker in the window by where it starts: where it ends, the blocks it cites, and
    // whether it cites an unknown number. Spans and unknown markers are in answer order.
    let mut markers: BTreeMap<usize, (usize, Vec<usize>, bool)> = BTreeMap::new();
    for cited in &resolution.cited {
        for span in cited.spans.iter().take_while(|span| span.end <= window) {
            let marker = markers
                .entry(span.start)
                .or_insert((span.end, Vec::new(), false));
            marker.1.push(cited.citation.index);
        }
    }
    for unknown in &resolution.unknown {
        let end = unknown.at + unknown.marker.len();
        if end > window {
            break;
        }
        markers
            .entry(unknown.at)
            .or_insert((end, Vec::new(), false))
            .2 = true;
    }
    let mut shown = window;
    let mut pieces = Vec::new();
    let mut at = 0;
    for (n, (&start, (end, cites, unknown))) in markers.iter_mut().enumerate() {
        if n == MARKERS_SHOWN {
            shown = at;
            break;
        }
        if at < start {
            pieces.push(plain(&answer[at..start]));
        }
        cites.sort_unstable();
        pieces.push(Piece {
            text: Text::field(&answer[start..*end]),
            cites: std::mem::take(cites),
            unknown: *unknown,
            marker: true,
        });
        at = *end;
    }
    if at < shown {
        pieces.push(plain(&answer[at..shown]));
    }
    let mut quotes_left = LISTED;
    let cited = resolution
        .cited
        .iter()
        .map(|c| {
            let listed = c.quotes.len().min(quotes_left);
            quotes_left -= listed;
            Cited {
                index: c.citation.index,
                input_index: c.citation.input_index,
                count: c.count,
                quotes: quotes_in_answer(answer, c, listed),
                more_quotes: c.quotes.len() - listed,
            }
        })
        .collect();
    let unknown = resolution
        .unknown
        .iter()
        .take(LISTED)
        .map(|u| Unknown {
            marker: Text::field(&answer[u.at..u.at + u.marker.len()]),
            at: u.at,
        })
        .collect();
    Answer {
        pieces,
        cut: shown < answer.len(),
        bytes: answer.len(),
        cited,
        unknown,
        more_unknown: resolution.unknown.len().saturating_sub(LISTED),
        unverified: resolution.unverified,
    }
}

/// How far before its marker a `[n]` quote can start: the library looks no further back.
const QUOTE_WINDOW: usize = 4096;

/// The first `listed` of `cited`'s quotes as the stretches of `answer` they were read from
/// (a borrowed stretch is what a page field is made of). Each quote stands just before one of the chip's markers, in
/// answer order, so one walk over the markers finds them, looking at most
/// [`QUOTE_WINDOW`] bytes back from each: the cost follows the markers, not answer × quotes.
fn quotes_in_answer<'a>(
    answer: &'a str,
    cited: &mentor_context::citations::Cited,
    listed: usize,
) -> Vec<Quote<'a>> {
    let mut spans = cited.spans.iter();
    cited
        .quotes
        .iter()
        .take(listed)
        .map(|quote| {
            let text = spans
                .by_ref()
                .find_map(|span| {
                    let from = answer.floor_char_boundary(span.start.saturating_sub(QUOTE_WINDOW));
                    let window = &answer[from..span.start];
                    let at = window.rfind(quote.text.as_str())?;
                    Some(&window[at..at + quote.text.len()])
                })
                .unwrap_or_default();
            Quote {
                text: Text::field(text),
                verified: quote.verified,
            }
        })
        .collect()
}

fn plain(text: &str) -> Piece<'_> {
    Piece {
        text: Text::long(text, text.len()),
        cites: Vec::new(),
        unknown: false,
        marker: false,
    }
}

#[cfg(test)]
mod tests {
    use mentor_context::{ContextBuilder, MentorRagResult};

    use super::*;

    /// `text` as the page shows an answer to a report of two blocks, read with its contents.
    fn on_two_plans(text: &str) -> Answer<'_> {
        let results = [
            MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9).with_title("Prices"),
            MentorRagResult::from_content("Plan A is free.", 0.8).with_title("Plans"),
        ];
        let assembler = ContextBuilder::new(300).build().unwrap();
        let context = assembler.assemble(&results);
        let contents = assembler.contents(&context).unwrap();
        answer(&context, Some(&contents), text)
    }

    #[test]
    fn markers_are_pieces_of_their_own_with_the_blocks_they_cite() {
        let text = "Free [2]; 12 EUR [1, 2]. Also [9] and [2, 7].";
        let answer = on_two_plans(text);
        let markers: Vec<(String, &[usize], bool)> = answer
            .pieces
            .iter()
            .filter(|p| p.marker)
            .map(|p| (p.text.rebuilt(), p.cites.as_slice(), p.unknown))
            .collect();
        assert_eq!(
            markers,
            [
                ("[2]".to_string(), &[2][..], false),
                ("[1, 2]".to_string(), &[1, 2][..], false),
                ("[9]".to_string(), &[][..], true),
                ("[2, 7]".to_string(), &[2][..], true),
            ]
        );
        let whole: String = answer.pieces.iter().map(|p| p.text.rebuilt()).collect();
        assert_eq!(whole, text);
        assert_eq!(answer.cited.len(), 2);
        assert_eq!(answer.unknown.len(), 2);
    }

    #[test]
    fn quotes_are_flagged_when_the_block_does_not_hold_them() {
        let text = r#"It says "Plan A is free" [2] and "Plan B is free" [1]."#;
        let answer = on_two_plans(text);
        let quotes: Vec<(usize, String, bool)> = answer
            .cited
            .iter()
            .flat_map(|c| {
                c.quotes
                    .iter()
                    .map(|q| (c.index, q.text.rebuilt(), q.verified))
            })
            .collect();
        assert_eq!(
            quotes,
            [
                (2, "Plan A is free".to_string(), true),
                (1, "Plan B is free".to_string(), false),
            ]
        );
        assert_eq!(answer.unverified, 1);
    }
}

//! Which tokens of a rendered conversation belong to which message: what each history turn
//! costs, to decide which turns fit. The decision only needs to be close; the prompt finally
//! chosen is counted exactly.
//!
//! A message's share is the stretch from the end of the previous message's content to the end
//! of its own: its own framing before its content (a role header), its content, and the
//! closing framing of the message before it. Contents are found in order in the prompt text
//! (as the template wrote them, or stripped, since templates often `trim` them). Where a
//! content is not found, the template rewrote it, and the caller measures each turn by
//! rendering without it instead.

use super::count::Counting;
use super::template::Rendered;
use crate::error::Error;

/// Each message's tokens in `rendered`, given each message's string content; `None` where a
/// content is not in the text as written or stripped.
///
/// # Errors
///
/// What counting a stretch can refuse.
pub(crate) fn message_costs(
    rendered: &Rendered,
    contents: &[Option<&str>],
    counting: &mut Counting<'_>,
) -> Result<Option<Vec<usize>>, Error> {
    if let Some(per_message) = &rendered.per_message {
        let mut costs = Vec::with_capacity(per_message.len());
        for (pieces, own) in per_message {
            let mut cost = *own;
            for piece in &rendered.pieces[pieces.clone()] {
                cost += counting.text(rendered.piece(piece))?;
            }
            costs.push(cost);
        }
        // The reply's priming belongs to no message: give it to the last (the question).
        let priming = rendered.fixed_tokens - per_message.iter().map(|(_, own)| own).sum::<usize>();
        if let Some(last) = costs.last_mut() {
            *last += priming;
        }
        return Ok(Some(costs));
    }
    let Some(text) = rendered.text.as_deref() else {
        return Ok(None);
    };
    // The end of each message's content: the boundaries of the shares.
    let mut ends = Vec::with_capacity(contents.len());
    let mut cursor = 0;
    for content in contents {
        let end = match *content {
            None | Some("") => cursor,
            Some(content) => {
                let stripped = content.trim_matches(|c: char| {
                    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
                });
                let found = text[cursor..]
                    .find(content)
                    .map(|at| cursor + at + content.len())
                    .or_else(|| {
                        (!stripped.is_empty())
                            .then(|| {
                                text[cursor..]
                                    .find(stripped)
                                    .map(|at| cursor + at + stripped.len())
                            })
                            .flatten()
                    });
                match found {
                    Some(end) => end,
                    None => return Ok(None),
                }
            }
        };
        ends.push(end);
        cursor = end;
    }
    if let Some(last) = ends.last_mut() {
        *last = text.len();
    }
    // Walk the pieces and control tokens in order, cutting pieces at the boundaries. Both
    // come in text order and the ends are sorted, so one cursor over the ends serves them all:
    // the walk is linear in the messages, pieces and control tokens together.
    let mut costs = vec![0usize; contents.len()];
    let last = contents.len().saturating_sub(1);
    // The message that owns byte `at`: the first whose end is past it.
    let owner = |cursor: &mut usize, at: usize| {
        while *cursor < ends.len() && ends[*cursor] <= at {
            *cursor += 1;
        }
        (*cursor).min(last)
    };
    let mut cursor = 0;
    for control in &rendered.controls {
        let at = owner(&mut cursor, control.start);
        if let Some(cost) = costs.get_mut(at) {
            *cost += 1;
        }
    }
    let mut cursor = 0;
    for piece in &rendered.pieces {
        let super::template::Piece::Span(range) = piece else {
            continue;
        };
        let mut start = range.start;
        loop {
            let at = owner(&mut cursor, start);
            let end = ends.get(cursor).copied().filter(|&end| end < range.end);
            let Some(end) = end else {
                costs[at] += counting.text(&text[start..range.end])?;
                break;
            };
            costs[at] += counting.text(&text[start..end])?;
            start = end;
        }
    }
    Ok(Some(costs))
}

//! Which tokens of a rendered conversation belong to which message: what each history turn
//! costs, to decide which turns fit. The decision only needs to be close; the prompt finally
//! chosen is counted exactly.
//!
//! A message's share is the stretch from the end of the previous message's content to the end
//! of its own: its own framing before its content (a role header), its content, and the
//! closing framing of the message before it. Contents are found in order in the prompt text
//! (as the template wrote them, stripped, since templates often `trim` them, or as a JSON
//! string, since Meta's Llama 3.1 template writes a tool result with `tojson`). Where a
//! content is not found, the template rewrote it, and the caller estimates each message's
//! share instead.

use super::count::Counting;
use super::history;
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
                    })
                    .or_else(|| {
                        // `json.dumps` without `ensure_ascii` escapes what serde_json does.
                        let quoted = serde_json::to_string(content).ok()?;
                        text[cursor..]
                            .find(&quoted)
                            .map(|at| cursor + at + quoted.len())
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

/// [`message_costs`], and where a content is not found, again with the messages a template
/// may write another way passed by: tool results (Mistral's v3 writes them inside JSON), then
/// instructions too (v3 writes them with the last user message). Such a message's tokens go
/// to the next message found: still its turn's where the assistant answers the result, and
/// the question for v3's instructions.
///
/// # Errors
///
/// What counting a stretch can refuse.
pub(crate) fn message_costs_passing_by(
    rendered: &Rendered,
    contents: &mut [Option<&str>],
    roles: &[&str],
    counting: &mut Counting<'_>,
) -> Result<Option<Vec<usize>>, Error> {
    let mut costs = message_costs(rendered, contents, counting)?;
    for passed_by in [history::is_tool_result, history::is_instruction] {
        if costs.is_some() {
            break;
        }
        for (content, role) in contents.iter_mut().zip(roles) {
            if passed_by(role) {
                *content = None;
            }
        }
        costs = message_costs(rendered, contents, counting)?;
    }
    Ok(costs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prompt::template::Piece;
    use crate::tokenizer::TokenCounter;

    /// One token per byte: every share is its stretch's length.
    struct Bytes;

    impl TokenCounter for Bytes {
        fn name(&self) -> &str {
            "bytes"
        }
        fn token_lengths(&self, text: &str, lengths: &mut Vec<u32>) {
            lengths.extend(std::iter::repeat_n(1, text.len()));
        }
    }

    fn costs(rendered: &Rendered, contents: &[Option<&str>]) -> Option<Vec<usize>> {
        message_costs(rendered, contents, &mut Counting::new(&Bytes, None)).unwrap()
    }

    /// A prompt of three control tokens (`<c>`, one token each) and four messages: the first
    /// content as written, the second only stripped (a template that trims), the third none.
    /// Each message owns from the end of the content before it to the end of its own, control
    /// tokens included (one standing right at a content's end is the next message's), and the
    /// last owns the rest.
    #[test]
    fn each_message_owns_the_stretch_up_to_the_end_of_its_content() {
        let text = "<c>u: hello<c>a:  world \n<c>q";
        let rendered = Rendered {
            text: Some(text.to_string()),
            pieces: vec![Piece::Span(3..11), Piece::Span(14..25), Piece::Span(28..29)],
            fixed_tokens: 3,
            controls: vec![0..3, 11..14, 25..28],
            per_message: None,
        };
        let contents = [Some("hello"), Some("\n world\u{1f}"), None, Some("q")];
        // `<c>u: hello` | `<c>a:  world` | nothing | ` \n<c>q`.
        assert_eq!(costs(&rendered, &contents), Some(vec![9, 10, 0, 4]));
        let total: usize = costs(&rendered, &contents).unwrap().iter().sum();
        assert_eq!(total, 3 + text.len() - 9);
        // A content written as a JSON string (`tojson`) ends where its closing quote does.
        let quoted = "<c>u: \"a\\nb\"<c>q";
        let rendered_quoted = Rendered {
            text: Some(quoted.to_string()),
            pieces: vec![Piece::Span(3..12), Piece::Span(15..16)],
            fixed_tokens: 2,
            controls: vec![0..3, 12..15],
            per_message: None,
        };
        assert_eq!(
            costs(&rendered_quoted, &[Some("a\nb"), Some("q")]),
            Some(vec![1 + 9, 1 + 1])
        );
        // A content the template rewrote: no shares.
        assert_eq!(costs(&rendered, &[Some("absent"), Some("q")]), None);
        let without_text = Rendered {
            text: None,
            ..rendered
        };
        assert_eq!(costs(&without_text, &contents), None);
    }

    /// OpenAI's rule has no text: each message costs its pieces and its own fixed tokens, and
    /// the reply's priming (the fixed tokens no message owns) goes to the last.
    #[test]
    fn without_text_each_message_costs_its_pieces_and_the_last_the_priming() {
        let rendered = Rendered {
            text: None,
            pieces: vec![
                Piece::Owned("abcd".into()),
                Piece::Owned("xy".into()),
                Piece::Owned("z".into()),
            ],
            fixed_tokens: 3 + 4 + 2,
            controls: Vec::new(),
            per_message: Some(vec![(0..2, 3), (2..3, 4)]),
        };
        assert_eq!(
            costs(&rendered, &[None, None]),
            Some(vec![3 + 6, 4 + 1 + 2])
        );
    }
}

//! Which tokens of a rendered conversation belong to which message: what each history turn
//! costs, to decide which turns fit. The decision only needs to be close; the prompt finally
//! chosen is counted exactly.
//!
//! A message's share is the stretch from the end of the previous message's content to the end
//! of its own: its own framing before its content (a role header), its content, and the
//! closing framing of the message before it. A message without text (an assistant's tool
//! call) ends where its calls' names and arguments do, when the template writes them before
//! the next content as given (or as compact JSON); otherwise its share is empty and its
//! tokens are the next message's. Contents are found in order in the prompt text
//! (as the template wrote them, stripped, since templates often `trim` them, or as a JSON
//! string, since Meta's Llama 3.1 template writes a tool result with `tojson`). Where a
//! content is not found, the template rewrote it, and the caller estimates each message's
//! share instead.

use std::ops::Range;

use super::count::Counting;
use super::history;
use super::template::Rendered;
use crate::error::Error;

/// Each message's tokens in `rendered`, given each message's string content and its tool
/// calls' names and arguments (`calls`, empty for a message that calls none); `None` where a
/// content is not in the text as written or stripped.
///
/// # Errors
///
/// What counting a stretch can refuse.
pub(crate) fn message_costs(
    rendered: &Rendered,
    contents: &[Option<&str>],
    calls: &[Vec<String>],
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
    // The end of each message's share: where its content ends; for a message without text,
    // where its tool calls' names and arguments end (before the next content), so that a
    // call is charged to its own message, not to its result.
    let mut ends = Vec::with_capacity(contents.len());
    let mut cursor = 0;
    // The first of the messages without text since the last content found.
    let mut waiting = 0;
    for content in contents {
        match *content {
            None | Some("") => ends.push(cursor),
            Some(content) => {
                let Some((start, end)) = find_content(text, cursor, content) else {
                    return Ok(None);
                };
                let marks = calls.get(waiting..).unwrap_or_default();
                calls_end(text, cursor..start, &mut ends[waiting..], marks);
                ends.push(end);
                cursor = end;
                waiting = ends.len();
            }
        }
    }
    let marks = calls.get(waiting..).unwrap_or_default();
    calls_end(text, cursor..text.len(), &mut ends[waiting..], marks);
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
    calls: &[Vec<String>],
    roles: &[&str],
    counting: &mut Counting<'_>,
) -> Result<Option<Vec<usize>>, Error> {
    let mut costs = message_costs(rendered, contents, calls, counting)?;
    for passed_by in [history::is_tool_result, history::is_instruction] {
        if costs.is_some() {
            break;
        }
        for (content, role) in contents.iter_mut().zip(roles) {
            if passed_by(role) {
                *content = None;
            }
        }
        costs = message_costs(rendered, contents, calls, counting)?;
    }
    Ok(costs)
}

/// Where `content` is in `text` from `cursor` on, as written, stripped (templates often
/// `trim` contents), or as a JSON string (`tojson`): its start and end.
fn find_content(text: &str, cursor: usize, content: &str) -> Option<(usize, usize)> {
    let stripped =
        content.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c));
    let at = |needle: &str| {
        text[cursor..]
            .find(needle)
            .map(|at| (cursor + at, cursor + at + needle.len()))
    };
    at(content)
        .or_else(|| (!stripped.is_empty()).then(|| at(stripped)).flatten())
        .or_else(|| {
            // `json.dumps` without `ensure_ascii` escapes what serde_json does.
            at(&serde_json::to_string(content).ok()?)
        })
}

/// The ends of the shares of messages without text (`ends`, each starting at `stretch`'s
/// start) that lie in `stretch`: each past its calls' marks (`marks`: each call's name, then
/// its arguments) found there in turn; a message without calls ends where the one before it
/// did, so the ends stay in order and within the stretch. A kind of mark not found once is
/// not looked for again in the stretch (a template writes every call alike), so each
/// stretch is read a bounded number of times: the search stays linear.
fn calls_end(text: &str, stretch: Range<usize>, ends: &mut [usize], marks: &[Vec<String>]) {
    let mut from = stretch.start;
    // Names (even marks) and arguments (odd marks): whether that kind is still looked for.
    let mut looked_for = [true, true];
    for (index, end) in ends.iter_mut().enumerate() {
        let own = marks.get(index).map(Vec::as_slice).unwrap_or_default();
        for (at, mark) in own.iter().enumerate() {
            if mark.is_empty() || !looked_for[at % 2] {
                continue;
            }
            match text[from..stretch.end].find(mark.as_str()) {
                Some(found) => from += found + mark.len(),
                None => looked_for[at % 2] = false,
            }
        }
        *end = from;
    }
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
        with_calls(rendered, contents, &[])
    }

    fn with_calls(
        rendered: &Rendered,
        contents: &[Option<&str>],
        calls: &[Vec<String>],
    ) -> Option<Vec<usize>> {
        message_costs(rendered, contents, calls, &mut Counting::new(&Bytes, None)).unwrap()
    }

    /// A text of spans only (no control token), one token per byte.
    fn spans(text: &str) -> Rendered {
        Rendered {
            text: Some(text.to_string()),
            pieces: vec![Piece::Span(0..text.len())],
            fixed_tokens: 0,
            controls: Vec::new(),
            per_message: None,
        }
    }

    /// A message without text that calls a tool owns the stretch up to the end of its call's
    /// name and arguments, not its result: one meaning of a share, whether the message has
    /// text or calls. Where its marks are not written, its share stays empty (the next
    /// message's), as a message without text or calls.
    #[test]
    fn a_call_without_text_owns_the_stretch_up_to_its_arguments() {
        let text = "u:hi|a:f({\"x\":1})|t:42|q";
        let contents = [Some("hi"), Some(""), Some("42"), Some("q")];
        let call = |name: &str, arguments: &str| vec![name.to_string(), arguments.to_string()];
        let calls = [vec![], call("f", r#"{"x":1}"#), vec![], vec![]];
        // `u:hi` | `|a:f({"x":1}` | `)|t:42` | `|q`.
        assert_eq!(
            with_calls(&spans(text), &contents, &calls),
            Some(vec![4, 12, 6, 2])
        );
        // Without the marks, the call's framing and arguments are its result's.
        assert_eq!(costs(&spans(text), &contents), Some(vec![4, 0, 18, 2]));
        // Arguments written another way: the call ends after its name.
        let calls = [vec![], call("f", r#"{"x": 1}"#), vec![], vec![]];
        assert_eq!(
            with_calls(&spans(text), &contents, &calls),
            Some(vec![4, 4, 14, 2])
        );
        // A name that only the result holds is not the call's: the search ends at the result.
        let calls = [vec![], call("42", ""), vec![], vec![]];
        assert_eq!(
            with_calls(&spans(text), &contents, &calls),
            Some(vec![4, 0, 18, 2])
        );
    }

    /// Once a name is not found in a stretch, no later call's name is looked for there (a
    /// template writes every call alike): each stretch is searched a bounded number of times,
    /// so many calls whose names a template leaves out cost a linear search, not a quadratic
    /// one. Those calls' shares stay empty, as a message's without text or calls does.
    #[test]
    fn a_mark_not_found_is_not_looked_for_again_in_its_stretch() {
        let text = "u:hi|a:g|b:f|t:42|q";
        let contents = [Some("hi"), None, None, Some("42"), Some("q")];
        let name = |name: &str| vec![name.to_string(), String::new()];
        let calls = [vec![], name("x"), name("f"), vec![], vec![]];
        assert_eq!(
            with_calls(&spans(text), &contents, &calls),
            Some(vec![4, 0, 0, 13, 2])
        );
        // Found names are each looked for from where the last ended.
        let calls = [vec![], name("g"), name("f"), vec![], vec![]];
        assert_eq!(
            with_calls(&spans(text), &contents, &calls),
            Some(vec![4, 4, 4, 5, 2])
        );
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

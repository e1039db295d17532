//! What a template rendered: the prompt text cut at its control tokens into the pieces that
//! are counted.

use std::ops::Range;

use super::ControlTokens;

/// What a template rendered, ready to count.
#[derive(Debug)]
pub(crate) struct Rendered {
    /// The prompt text, where the template makes one.
    pub(crate) text: Option<String>,
    /// The ordinary text to count: ranges of `text`, or (for OpenAI's rule) the messages'
    /// strings.
    pub(crate) pieces: Vec<Piece>,
    /// Tokens outside the pieces: control tokens, OpenAI's tokens per message.
    pub(crate) fixed_tokens: usize,
    /// Where the control tokens are in `text`.
    pub(crate) controls: Vec<Range<usize>>,
    /// For OpenAI's rule, which has no text: each message's pieces and its own fixed tokens.
    pub(crate) per_message: Option<Vec<(Range<usize>, usize)>>,
}

/// One stretch of ordinary text.
#[derive(Debug, Clone)]
pub(crate) enum Piece {
    /// A range of [`Rendered::text`].
    Span(Range<usize>),
    /// A string of its own.
    Owned(String),
}

impl Rendered {
    /// The piece's text.
    pub(crate) fn piece<'a>(&'a self, piece: &'a Piece) -> &'a str {
        match piece {
            Piece::Span(range) => self.text.as_deref().map_or("", |t| &t[range.clone()]),
            Piece::Owned(text) => text,
        }
    }

    /// A prompt text split at its control tokens: the stretches between them are the pieces.
    pub(super) fn split(text: String, control: &ControlTokens) -> Rendered {
        let mut pieces = Vec::new();
        let mut controls = Vec::new();
        let mut last = 0;
        for token in control.find(&text) {
            if token.start > last {
                pieces.push(Piece::Span(last..token.start));
            }
            last = token.end;
            controls.push(token);
        }
        if last < text.len() {
            pieces.push(Piece::Span(last..text.len()));
        }
        Rendered {
            text: Some(text),
            pieces,
            fixed_tokens: controls.len(),
            controls,
            per_message: None,
        }
    }
}

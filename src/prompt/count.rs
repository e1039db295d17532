//! Counting a rendered prompt exactly, without counting anything twice.
//!
//! A prompt is counted as its tokenizer would count it with control tokens parsed: each
//! control token is one token, and the stretches between them are tokenized alone (a
//! tokenizer splits its input at added tokens before anything else). Each stretch is counted
//! once per call (and once for good with a [`TokenCache`]), so the history of a conversation
//! costs nothing the second time. The stretch that holds the context is not counted again:
//! the assembler counted the context, and only the few characters around its two edges are
//! tokenized, where the edges are not exact split points.

use std::collections::HashMap;

use super::deadline::Deadline;
use super::template::Rendered;
use crate::error::Error;
use crate::tokenizer::{TokenCache, TokenCounter};

/// How far into the context an exact split point is looked for, at each edge.
const EDGE_SEARCH_BYTES: usize = 1024;

/// The work one whole prompt took, machine-free: what the cost tests and benches read.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Work {
    /// Bytes handed to the tokenizer.
    pub(crate) bytes_tokenized: usize,
    /// Renders of the chat template.
    pub(crate) renders: usize,
}

/// Counts for one fitting: a memo of the stretches counted, and the cache across requests.
pub(crate) struct Counting<'a> {
    counter: &'a dyn TokenCounter,
    cache: Option<&'a TokenCache>,
    memo: HashMap<Box<str>, usize>,
    /// Checked before each count, and by [`check`](Self::check) before each render.
    deadline: Option<&'a Deadline>,
    /// Bytes handed to the tokenizer: what the cost tests and benches read.
    pub(crate) bytes_tokenized: usize,
    /// Rendered prompts counted: each render is counted once.
    pub(crate) renders: usize,
}

impl<'a> Counting<'a> {
    pub(crate) fn new(
        counter: &'a dyn TokenCounter,
        cache: Option<&'a TokenCache>,
    ) -> Counting<'a> {
        Counting {
            counter,
            cache,
            memo: HashMap::new(),
            deadline: None,
            bytes_tokenized: 0,
            renders: 0,
        }
    }

    /// The same counting, stopping with [`Error::DeadlinePassed`] once `deadline` has passed.
    pub(crate) fn until(self, deadline: &'a Deadline) -> Counting<'a> {
        Counting {
            deadline: Some(deadline),
            ..self
        }
    }

    /// [`Error::DeadlinePassed`] once the deadline has passed: called before each render, and
    /// by each count.
    pub(crate) fn check(&self) -> Result<(), Error> {
        self.deadline.map_or(Ok(()), Deadline::check)
    }

    /// The count of `text` as ordinary text.
    ///
    /// # Errors
    ///
    /// [`Error::Conversation`] when `text` is longer than the tokenizer takes in one call
    /// and has no exact split point to count it in parts; [`Error::DeadlinePassed`] once the
    /// deadline has passed.
    pub(crate) fn text(&mut self, text: &str) -> Result<usize, Error> {
        self.check()?;
        if text.is_empty() {
            return Ok(0);
        }
        if let Some(&count) = self.memo.get(text) {
            return Ok(count);
        }
        let name = self.counter.name();
        if let Some(count) = self
            .cache
            .and_then(|c| c.get(name, text))
            .and_then(|e| e.total)
        {
            self.memo.insert(text.into(), count);
            return Ok(count);
        }
        let count = self.count_fresh(text)?;
        if let Some(cache) = self.cache {
            cache.put(name, text, Some(count), &[]);
        }
        self.memo.insert(text.into(), count);
        Ok(count)
    }

    /// Counts `text` with the tokenizer, in calls of at most its `max_call_bytes`, cut at
    /// exact split points.
    fn count_fresh(&mut self, text: &str) -> Result<usize, Error> {
        let max = self.counter.max_call_bytes().max(64);
        let mut total = 0;
        let mut start = 0;
        while text.len() - start > max {
            self.check()?;
            let limit = text.floor_char_boundary(start + max);
            let at = text[start..limit]
                .char_indices()
                .rev()
                .map(|(i, _)| start + i)
                .take_while(|&at| at > start)
                .find(|&at| self.counter.splits_exactly(text, at))
                .ok_or_else(|| Error::Conversation {
                    problem: format!(
                        "a stretch of the prompt is longer than {} tokenizes in one call ({max} bytes) and has no exact split point",
                        self.counter.name()
                    ),
                })?;
            total += self.counter.count(&text[start..at]);
            self.bytes_tokenized += at - start;
            start = at;
        }
        total += self.counter.count(&text[start..]);
        self.bytes_tokenized += text.len() - start;
        Ok(total)
    }

    /// The count of a rendered prompt: its control tokens and each stretch between them.
    pub(crate) fn rendered(&mut self, rendered: &Rendered) -> Result<usize, Error> {
        self.renders += 1;
        let mut total = rendered.fixed_tokens;
        for piece in &rendered.pieces {
            total += self.text(rendered.piece(piece))?;
        }
        Ok(total)
    }

    /// The count of a rendered prompt that holds `context` (of `context_tokens` tokens, as the
    /// assembler counted it) inside one stretch: that stretch is counted around the context,
    /// not through it. Where the context is not found, whole.
    pub(crate) fn rendered_with_context(
        &mut self,
        rendered: &Rendered,
        context: &str,
        context_tokens: usize,
    ) -> Result<usize, Error> {
        if context.is_empty() {
            return self.rendered(rendered);
        }
        self.renders += 1;
        let mut total = rendered.fixed_tokens;
        let mut found = false;
        for piece in &rendered.pieces {
            let text = rendered.piece(piece);
            match (!found).then(|| find_context(text, context)).flatten() {
                Some(at) => {
                    found = true;
                    total += self.around(text, at, context, context_tokens)?;
                }
                None => total += self.text(text)?,
            }
        }
        Ok(total)
    }

    /// The count of `stretch`, which holds `context` at byte `at`.
    fn around(
        &mut self,
        stretch: &str,
        at: usize,
        context: &str,
        context_tokens: usize,
    ) -> Result<usize, Error> {
        let end = at + context.len();
        let before = &stretch[..at];
        let after = &stretch[end..];
        let counter = self.counter;
        // The first split point inside the context that is exact both in the context alone and
        // in the stretch; likewise the last.
        let head = if before.is_empty() || counter.splits_exactly(stretch, at) {
            Some(0)
        } else {
            context
                .char_indices()
                .map(|(i, _)| i)
                .skip(1)
                .take_while(|&i| i <= EDGE_SEARCH_BYTES)
                .find(|&i| {
                    counter.splits_exactly(context, i) && counter.splits_exactly(stretch, at + i)
                })
        };
        let tail = if after.is_empty() || counter.splits_exactly(stretch, end) {
            Some(context.len())
        } else {
            context
                .char_indices()
                .map(|(i, _)| i)
                .rev()
                .take_while(|&i| context.len() - i <= EDGE_SEARCH_BYTES)
                .find(|&i| {
                    i > 0
                        && counter.splits_exactly(context, i)
                        && counter.splits_exactly(stretch, at + i)
                })
        };
        match (head, tail) {
            (Some(head), Some(tail)) if head <= tail => {
                // count(stretch) = count(before + context[..head]) + count(context[head..tail])
                //                + count(context[tail..] + after), and the middle is the
                // assembler's count less the two ends, each counted alone.
                let left = if head == 0 {
                    0
                } else {
                    self.text(&context[..head])?
                };
                let right = if tail == context.len() {
                    0
                } else {
                    self.text(&context[tail..])?
                };
                let middle = context_tokens.checked_sub(left + right).ok_or_else(|| {
                    Error::Conversation {
                        problem: "the context's count does not cover its ends".to_string(),
                    }
                })?;
                Ok(
                    self.text(&stretch[..at + head])?
                        + middle
                        + self.text(&stretch[at + tail..])?,
                )
            }
            _ => self.text(stretch),
        }
    }
}

/// How many bytes of the context's start are looked for before the whole is compared.
const PROBE_BYTES: usize = 64;

/// How many places that start like the context are compared before searching for it whole.
const PROBE_CHECKS: usize = 8;

/// Where `needle` first is in `haystack`.
///
/// Any place will do: the stretch is counted around the context there, and whatever else the
/// stretch holds, another copy included, is tokenized. A search for the whole context first
/// prepares it, in time of its length, and that preparing was most of a warm fitting; so a
/// short start of it is looked for and each place it is found compared whole. A context that
/// repeats its own start (a result of one letter a thousand times) would make each comparison
/// long, so after a few misses the whole is searched for once, in time linear in both.
fn find_context(haystack: &str, needle: &str) -> Option<usize> {
    if haystack.len() < needle.len() {
        return None;
    }
    if needle.len() <= PROBE_BYTES {
        return haystack.find(needle);
    }
    let probe = &needle[..needle.floor_char_boundary(PROBE_BYTES)];
    let step = probe.chars().next().map_or(1, char::len_utf8);
    let mut from = 0;
    for _ in 0..PROBE_CHECKS {
        let at = from + haystack[from..].find(probe)?;
        if haystack[at..].starts_with(needle) {
            return Some(at);
        }
        from = at + step;
    }
    haystack[from..].find(needle).map(|at| from + at)
}

#[cfg(test)]
mod tests {
    use super::{PROBE_BYTES, PROBE_CHECKS, find_context};

    #[test]
    fn the_context_is_found_where_it_first_is() {
        assert_eq!(find_context("ab[1] x", "[1] x"), Some(2));
        assert_eq!(find_context("[1] x", "[1] x"), Some(0));
        assert_eq!(find_context("[1] x[1] x", "[1] x"), Some(0));
        assert_eq!(find_context("[1]", "[1] x"), None);
        assert_eq!(find_context("", "x"), None);
    }

    #[test]
    fn a_long_context_is_found_past_places_that_only_start_like_it() {
        let context = format!("{}END", "[1] ".repeat(100));
        let start = &context[..PROBE_BYTES];
        // Fewer false starts than the probe's checks, then more: found the same either way.
        for false_starts in [1, PROBE_CHECKS - 1, PROBE_CHECKS, PROBE_CHECKS * 3] {
            let before = format!("{start}!").repeat(false_starts);
            let haystack = format!("{before}{context} and after");
            assert_eq!(
                find_context(&haystack, &context),
                Some(before.len()),
                "{false_starts}"
            );
            assert_eq!(find_context(&before, &context), None);
        }
        // A context that repeats its start: each place but the right one shares a long prefix.
        let context = "a".repeat(5000);
        let haystack = format!("{}b{context}", "a".repeat(4999));
        assert_eq!(find_context(&haystack, &context), Some(5000));
        assert_eq!(find_context(&"a".repeat(4999), &context), None);
    }
}

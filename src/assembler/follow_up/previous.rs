//! Checking the previous report of a follow-up turn before its text starts the next prompt.
//!
//! An unsealed report is accepted only if its text is exactly what this assembler writes for
//! its citations, with the contents read back from between the heads: each head is written
//! again from its citation, each body is read back with the format's
//! [`read_body`](crate::format::Format::read_body) and written again, and each content must
//! match its citation's fingerprint (a whole block) or kept length (a cut one). So nothing the
//! renderer would have escaped can be in it, and no block can be added, removed or swapped.

use std::collections::{HashMap, HashSet};

use super::mismatch;
use crate::assembler::head::write_head;
use crate::assembler::placing::Assembly;
use crate::context::Citation;
use crate::error::Error;
use crate::format::BlockHead;
use crate::provenance::{Fingerprint, utf16_len};
use crate::record::{MentorRagResult, Metadata};

impl Assembly<'_, '_> {
    /// Checks that `blocks`, the previous text between the opening and the closing, is
    /// exactly the blocks this assembler writes for `citations`.
    pub(super) fn check_blocks(&self, citations: &[Citation], blocks: &str) -> Result<(), Error> {
        let mut at = 0;
        for citation in citations {
            at += self.check_head(citation, &blocks[at..])?;
            at += self.check_body(citation, &blocks[at..])?;
        }
        if at != blocks.len() {
            return Err(mismatch(format!(
                "its text goes on after block {} where no citation accounts for it",
                citations.len()
            )));
        }
        Ok(())
    }

    /// Checks that `rest` starts with the head of `citation`, and returns the head's length.
    fn check_head(&self, citation: &Citation, rest: &str) -> Result<usize, Error> {
        let n = citation.index;
        let result = head_of(citation);
        let mut head = String::new();
        let mut shortened = write_head(self.config, &result, n, citation.truncated, &mut head);
        if !rest.starts_with(&head) {
            let reordered = self.reordered_head(citation, &result, rest, head.lines().count());
            let Some((found, found_shortened)) = reordered else {
                return Err(mismatch(format!(
                    "the head of block {n} is not in its text as this format writes it"
                )));
            };
            (head, shortened) = (found, found_shortened);
        }
        if shortened != citation.head_shortened {
            return Err(mismatch(format!(
                "block {n}: its citation says its head was {}shortened, and it was {}",
                if citation.head_shortened { "" } else { "not " },
                if shortened { "" } else { "not" }
            )));
        }
        Ok(head.len())
    }

    /// The head of `citation` as `rest` starts with it, when `rest` shows the metadata in
    /// another order than the citation holds it: a store that sorts object keys (PostgreSQL
    /// `jsonb`) gives the citation back in key order, and the text keeps the order it was
    /// written in. Each entry is told by the lines a head of that entry alone has and a head
    /// without metadata has not; `None` if that does not tell the order.
    fn reordered_head(
        &self,
        citation: &Citation,
        result: &MentorRagResult,
        rest: &str,
        lines: usize,
    ) -> Option<(String, bool)> {
        let (n, title, truncated) = (citation.index, result.display_title(), citation.truncated);
        let metadata = result.metadata.as_ref()?;
        let hidden = &self.config.hidden_keys;
        let shown: Vec<(&str, &str)> = BlockHead::new(n, title, truncated, Some(metadata), hidden)
            .metadata()
            .collect();
        if shown.len() < 2 {
            return None;
        }
        let format = &*self.config.format;
        let head_lines = |entries: Option<&Metadata>| -> Vec<String> {
            let mut head = String::new();
            format.head(
                &BlockHead::new(n, title, truncated, entries, &[]),
                &mut head,
            );
            head.lines().map(str::to_string).collect()
        };
        let bare: HashSet<String> = head_lines(None).into_iter().collect();
        let own: Vec<HashSet<String>> = shown
            .iter()
            .map(|&(key, value)| {
                let alone = Metadata::from_iter([(key.to_string(), Some(value.to_string()))]);
                let mut lines: HashSet<String> = head_lines(Some(&alone)).into_iter().collect();
                lines.retain(|line| !bare.contains(line));
                lines
            })
            .collect();
        // Lines every entry's head has (a wrapper such as `<metadata>`) tell none apart.
        let common: HashSet<&String> = own[0]
            .iter()
            .filter(|line| own.iter().all(|lines| lines.contains(*line)))
            .collect();
        let mut owner: HashMap<&str, usize> = HashMap::new();
        for (entry, lines) in own.iter().enumerate() {
            let mut distinct = lines
                .iter()
                .filter(|line| !common.contains(line))
                .peekable();
            distinct.peek()?;
            for line in distinct {
                if owner.insert(line, entry).is_some() {
                    return None;
                }
            }
        }
        let mut order = Vec::with_capacity(shown.len());
        for line in rest.lines().take(lines) {
            if let Some(&entry) = owner.get(line)
                && !order.contains(&entry)
            {
                order.push(entry);
            }
        }
        if order.len() != shown.len() {
            return None;
        }
        let reordered = Metadata::from_iter(
            order
                .iter()
                .map(|&entry| (shown[entry].0.to_string(), Some(shown[entry].1.to_string()))),
        );
        let result = MentorRagResult {
            metadata: Some(reordered),
            ..result.clone()
        };
        let mut head = String::new();
        let shortened = write_head(self.config, &result, n, truncated, &mut head);
        rest.starts_with(&head).then_some((head, shortened))
    }

    /// Checks that `rest` starts with a body this format writes, holding the content its
    /// citation describes, and returns the body's length.
    fn check_body(&self, citation: &Citation, rest: &str) -> Result<usize, Error> {
        let n = citation.index;
        let format = &*self.config.format;
        let Some((content, len)) = format.read_body(rest, citation.truncated) else {
            return Err(mismatch(format!(
                "block {n}: its content is not framed as this format frames it"
            )));
        };
        let body = &rest[..len];
        // The written form need not say whether the content ended with a newline.
        let with_newline = format!("{content}\n");
        let mut framed = false;
        let mut written = String::with_capacity(len);
        for candidate in [&*content, &with_newline] {
            written.clear();
            format.content_open(candidate, &mut written);
            format.content(candidate, &mut written);
            format.content_close(candidate, citation.truncated, &mut written);
            if written != body {
                continue;
            }
            framed = true;
            if describes(citation, candidate) {
                return Ok(len);
            }
        }
        Err(mismatch(if framed {
            format!(
                "block {n}: its content is not the one its citation's {} describes",
                if citation.truncated {
                    "kept length"
                } else {
                    "fingerprint"
                }
            )
        } else {
            format!(
                "block {n}: its content is not written as this format writes it (something in \
                 it would have been escaped)"
            )
        }))
    }
}

/// What the head of `citation` was written from: its display title as the title, its source
/// URL and its metadata. (The display title is never blank, so it stands for itself.)
pub(in crate::assembler) fn head_of(citation: &Citation) -> MentorRagResult {
    MentorRagResult {
        content: String::new(),
        source_url: citation.source_url.clone(),
        title: citation.title.clone(),
        score: citation.score,
        metadata: citation.metadata.clone(),
    }
}

/// Whether `content` is what `citation` says its block holds: for a cut block, its kept
/// length in UTF-8 and UTF-16; for a whole one, its fingerprint.
fn describes(citation: &Citation, content: &str) -> bool {
    if citation.truncated {
        citation.kept_bytes == Some(content.len())
            && citation.kept_utf16 == Some(utf16_len(content))
    } else {
        citation.kept_bytes.is_none() && Fingerprint::of(content) == citation.fingerprint
    }
}

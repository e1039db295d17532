//! Checking the previous report of a follow-up turn before its text starts the next prompt.
//!
//! An unsealed report is accepted only if its text is exactly what this assembler writes for
//! its citations, with the contents read back from between the heads: each head is written
//! again from its citation, each body is read back with the format's
//! [`read_body`](crate::format::Format::read_body) and written again, and each content must
//! match its citation's fingerprint (a whole block) or kept length (a cut one). So nothing the
//! renderer would have escaped can be in it, and no block can be added, removed or swapped.
//! Each chip's token count is then counted again from its block (`check_counts` in
//! `mod.rs`). What the text cannot show is carried as given: the `seal` module's table.

use std::collections::{HashMap, HashSet, VecDeque};
use std::ops::Range;

use crate::assembler::head::write_head;
use crate::assembler::placing::Assembly;
use crate::context::{AssembledContext, Citation};
use crate::dialects::Dialect;
use crate::error::{Error, PreviousTurnReason as Reason};
use crate::fingerprint::{Fingerprint, utf16_len};
use crate::format::BlockHead;
use crate::rag_result::{MentorRagResult, Metadata};

/// A previous report, checked.
pub(crate) enum Previous<'t> {
    /// It has no blocks: a new assembly starts as it did.
    Empty,
    /// Its text up to the closing, and each block as read back, if it was.
    Blocks {
        prefix: &'t str,
        read: Vec<ReadBlock>,
    },
}

/// A block of a report, read back from its text.
pub(crate) struct ReadBlock {
    /// The content as the model saw it.
    pub(crate) content: String,
    /// The metadata in the order the head shows it (which a store that sorts keys loses).
    pub(crate) metadata: Option<Metadata>,
    /// Where its head and its body are in the report's text, in bytes: the pieces its
    /// citation's token count counts.
    pub(crate) head: Range<usize>,
    pub(crate) body: Range<usize>,
}

impl Assembly<'_, '_> {
    /// Checks that `previous` was written by an assembler like this one: its encoding,
    /// dialect and recorded layout, its citations numbered 1..n, its seal if this assembler has a key, its header,
    /// opening and closing, and, with `read_back`, each block, whose content it returns.
    pub(crate) fn read_previous<'t>(
        &self,
        previous: &'t AssembledContext<'_>,
        read_back: bool,
    ) -> Result<Previous<'t>, Error> {
        let name = self.config.tokenizer.name();
        if previous.encoding != name {
            return Err(Error::previous_turn(
                Reason::OtherTokenizer,
                format!(
                    "it was counted with {}, this assembler counts with {name}",
                    previous.encoding
                ),
            ));
        }
        if previous.dialect != self.config.dialect {
            let name = |dialect: Option<Dialect>| {
                dialect.map_or("text".to_string(), |d| format!("the {d} dialect"))
            };
            return Err(Error::previous_turn(
                Reason::OtherLayout,
                format!(
                    "it was assembled for {}, this assembler writes {}",
                    name(previous.dialect),
                    name(self.config.dialect)
                ),
            ));
        }
        let earlier = &previous.citations;
        if let Some((n, chip)) = earlier
            .iter()
            .enumerate()
            .find(|(n, chip)| chip.index != n + 1)
        {
            return Err(Error::previous_turn(
                Reason::EditedText,
                format!(
                    "chip {} is numbered {}; chips must be numbered 1..n",
                    n + 1,
                    chip.index
                ),
            ));
        }
        // The layout the report records is compared first, so that the part that differs is
        // named (a report of an older version records none, and is read as before).
        if let Some(problem) = previous
            .layout
            .as_ref()
            .and_then(|layout| layout.difference(&self.config.layout()))
        {
            return Err(Error::previous_turn(Reason::OtherLayout, problem));
        }
        if let Some(key) = &self.config.seal_key {
            let layout = match previous.layout {
                Some(_) => self.config.sealed_layout(),
                None => self.config.unrecorded_layout(),
            };
            key.verify(previous, &layout)
                .map_err(|(reason, problem)| Error::previous_turn(reason, problem))?;
        }
        let old = previous.text.as_str();
        let (header, frame) = (self.config.header.as_str(), self.frame);
        if earlier.is_empty() {
            // No blocks: the text was the header alone (or nothing), which a new assembly
            // starts with anyway.
            if !old.is_empty() && old != header {
                return Err(Error::previous_turn(
                    Reason::EditedText,
                    "it has no blocks, yet its text is not this header".to_string(),
                ));
            }
            return Ok(Previous::Empty);
        }
        let prefix = old.strip_suffix(frame.close.as_str()).ok_or_else(|| {
            Error::previous_turn(
                Reason::EditedText,
                "its text does not end with this format's closing",
            )
        })?;
        if !prefix
            .strip_prefix(header)
            .is_some_and(|rest| rest.starts_with(frame.open.as_str()))
        {
            return Err(Error::previous_turn(
                Reason::EditedText,
                "its text does not start with this header and format's opening",
            ));
        }
        let read = if read_back {
            self.check_blocks(earlier, prefix, header.len() + frame.open.len())?
        } else {
            Vec::new()
        };
        Ok(Previous::Blocks { prefix, read })
    }

    /// Checks that `prefix[start..]`, the previous text between the opening and the closing,
    /// is exactly the blocks this assembler writes for `citations`, and returns each block as
    /// read back.
    fn check_blocks(
        &self,
        citations: &[Citation],
        prefix: &str,
        start: usize,
    ) -> Result<Vec<ReadBlock>, Error> {
        let mut at = start;
        let mut read = Vec::with_capacity(citations.len());
        for citation in citations {
            let (len, metadata) = self.check_head(citation, &prefix[at..])?;
            let head = at..at + len;
            at += len;
            let (len, content) = self.check_body(citation, &prefix[at..])?;
            let body = at..at + len;
            at += len;
            read.push(ReadBlock {
                content,
                metadata,
                head,
                body,
            });
        }
        if at != prefix.len() {
            return Err(Error::previous_turn(
                Reason::EditedText,
                format!(
                    "its text goes on after block {} where no citation accounts for it",
                    citations.len()
                ),
            ));
        }
        Ok(read)
    }

    /// Checks that `rest` starts with the head of `citation`, and returns the head's length
    /// and the metadata in the order the head shows it.
    fn check_head(
        &self,
        citation: &Citation,
        rest: &str,
    ) -> Result<(usize, Option<Metadata>), Error> {
        let n = citation.index;
        let result = head_of(citation);
        let mut head = String::new();
        let mut shortened = write_head(self.config, &result, n, citation.truncated, &mut head);
        let mut metadata = result.metadata.clone();
        if !rest.starts_with(&head) {
            let reordered = self.reordered_head(citation, &result, rest, head.lines().count());
            let Some((found, found_shortened, in_order)) = reordered else {
                return Err(Error::previous_turn(
                    Reason::EditedBlock(n),
                    format!("the head of block {n} is not in its text as this format writes it"),
                ));
            };
            (head, shortened, metadata) = (found, found_shortened, Some(in_order));
        }
        if shortened != citation.head_shortened {
            return Err(Error::previous_turn(
                Reason::EditedBlock(n),
                format!(
                    "block {n}: its citation says its head was {}shortened, and it was {}",
                    if citation.head_shortened { "" } else { "not " },
                    if shortened { "" } else { "not" }
                ),
            ));
        }
        Ok((head.len(), metadata))
    }

    /// The head of `citation` as `rest` starts with it, when `rest` shows the metadata in
    /// another order than the citation holds it: a store that sorts object keys (PostgreSQL
    /// `jsonb`) gives the citation back in key order, and the text keeps the order it was
    /// written in. Returns the head, whether it is shortened, and the metadata in the text's
    /// order; `None` if the text does not tell the order.
    ///
    /// Each entry is told by the lines a head of that entry alone has and a head without
    /// metadata has not, or, where a capped head shortened its value, by that line up to its
    /// first `:` (its key). Entries the text does not show keep their order after the shown
    /// ones; entries that read alike may stand in either order, which writes the same.
    fn reordered_head(
        &self,
        citation: &Citation,
        result: &MentorRagResult,
        rest: &str,
        lines: usize,
    ) -> Option<(String, bool, Metadata)> {
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
                &BlockHead::new(n, title, truncated, entries, &[])
                    .with_source_url(result.source_url.as_deref()),
                &mut head,
            );
            head.lines().map(str::to_string).collect()
        };
        let bare: HashSet<String> = head_lines(None).into_iter().collect();
        let own: Vec<Vec<String>> = shown
            .iter()
            .map(|&(key, value)| {
                let alone = Metadata::from_iter([(key.to_string(), Some(value.to_string()))]);
                let mut lines = head_lines(Some(&alone));
                lines.retain(|line| !bare.contains(line));
                lines
            })
            .collect();
        // Lines every entry's head has (a wrapper such as `<metadata>`) tell none apart.
        let common: HashSet<&String> = own[0]
            .iter()
            .filter(|line| own.iter().all(|lines| lines.contains(*line)))
            .collect();
        let key_of = |line: &str| line.find(':').map(|at| line[..=at].to_string());
        // Entries by their line, and by their key: a queue each, in the citation's order.
        let mut by_line: HashMap<String, VecDeque<usize>> = HashMap::new();
        let mut by_key: HashMap<String, VecDeque<usize>> = HashMap::new();
        for (entry, lines) in own.iter().enumerate() {
            let line = lines.iter().find(|line| !common.contains(line))?;
            by_line.entry(line.clone()).or_default().push_back(entry);
            if let Some(key) = key_of(line) {
                by_key.entry(key).or_default().push_back(entry);
            }
        }
        let mut placed = vec![false; shown.len()];
        let mut order = Vec::with_capacity(shown.len());
        for line in rest.lines().take(lines + 1) {
            let queue = if by_line.contains_key(line) {
                by_line.get_mut(line)
            } else {
                key_of(line).and_then(|key| by_key.get_mut(&key))
            };
            let Some(queue) = queue else {
                continue;
            };
            while let Some(entry) = queue.pop_front() {
                if !placed[entry] {
                    placed[entry] = true;
                    order.push(entry);
                    break;
                }
            }
        }
        order.extend((0..shown.len()).filter(|&entry| !placed[entry]));
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
        let metadata = result.metadata.unwrap_or_default();
        rest.starts_with(&head)
            .then_some((head, shortened, metadata))
    }

    /// Checks that `rest` starts with a body this format writes, holding the content its
    /// citation describes, and returns the body's length and the content.
    fn check_body(&self, citation: &Citation, rest: &str) -> Result<(usize, String), Error> {
        let n = citation.index;
        let format = &*self.config.format;
        let Some((content, len)) = format.read_body(rest, citation.truncated) else {
            return Err(Error::previous_turn(
                Reason::EditedBlock(n),
                format!("block {n}: its content is not framed as this format frames it"),
            ));
        };
        let body = &rest[..len];
        // The written form need not say whether the content ended with a newline. A cut never
        // ends with one (it drops trailing whitespace), so only a whole block may have.
        let with_newline = format!("{content}\n");
        let candidates: &[&str] = if citation.truncated {
            &[&content]
        } else {
            &[&content, &with_newline]
        };
        let mut framed = false;
        let mut written = String::with_capacity(len);
        for &candidate in candidates {
            written.clear();
            format.content_open(candidate, &mut written);
            format.content(candidate, &mut written);
            format.content_close(candidate, citation.truncated, &mut written);
            if written != body {
                continue;
            }
            framed = true;
            if describes(citation, candidate) {
                return Ok((len, candidate.to_string()));
            }
        }
        Err(Error::previous_turn(
            Reason::EditedBlock(n),
            if framed {
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
            },
        ))
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

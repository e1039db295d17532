//! The text a dialect's budget counts: the plain format's blocks, with a `source:` line where
//! the dialect's entries carry the URL beside the title.

use std::borrow::Cow;

use super::Dialect;
use crate::format::{BlockHead, Format, PlainFormat, push_line};

/// The layout whose text a dialect's budget counts, and from which its entries are read back.
///
/// A block is the [`PlainFormat`] block (a `[n] title` line, the metadata lines, the content
/// in a fence, `(truncated)` after a cut) with, for a dialect whose entries carry the source
/// URL beside the title, a `source:` line after the title line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DialectFormat(pub Dialect);

impl Format for DialectFormat {
    fn name(&self) -> &str {
        self.0.as_str()
    }

    fn head(&self, head: &BlockHead<'_>, out: &mut String) {
        let mut plain = String::new();
        PlainFormat.head(head, &mut plain);
        // The marker line, then the source line, then the metadata lines.
        let marker_end = plain.find('\n').map_or(plain.len(), |at| at + 1);
        out.push_str(&plain[..marker_end]);
        if self.0.sends_source()
            && let Some(url) = head.source_url().filter(|url| !url.trim().is_empty())
        {
            let mut line = String::new();
            push_line(&mut line, url);
            if !line.is_empty() {
                out.push_str("source: ");
                out.push_str(&line);
                out.push('\n');
            }
        }
        out.push_str(&plain[marker_end..]);
    }

    fn read_body<'t>(&self, text: &'t str, truncated: bool) -> Option<(Cow<'t, str>, usize)> {
        PlainFormat.read_body(text, truncated)
    }
}

//! How a block looks in the prompt.
//!
//! A [`Format`] writes the opening and closing of the context, and for each block a head (the
//! citation marker `[n]`, the title, the metadata lines) and a body (the content, framed so
//! that nothing inside it can pass for a boundary).
//!
//! Two formats ship: [`PlainFormat`] (markdown-like, the default) and [`XmlFormat`] (the
//! layout of Anthropic's long-context guidance). Both keep the content verbatim, apart from
//! what [`XmlFormat`] documents it neutralises.

use crate::record::Metadata;

/// Writes the text of the context.
///
/// Every piece a format writes (the opening, each head, each body, the closing) must end with
/// a newline that follows a character other than whitespace, and must start with a character
/// that is neither whitespace nor `/`. At such joins the counts of the built-in encodings add
/// up exactly (see [`openai_splits_exactly`](crate::openai_splits_exactly)), so the builder
/// counts each piece once. A format that breaks the rule still gets exact counts: the builder
/// notices and recounts the whole text, which costs a second pass.
///
/// ```
/// use mentor_context::{BlockHead, Format, ContextBuilder, MentorRagResult};
///
/// /// Numbered paragraphs with a "Source:" line.
/// struct Sourced;
///
/// impl Format for Sourced {
///     fn name(&self) -> &str {
///         "sourced"
///     }
///     fn head(&self, head: &BlockHead<'_>, out: &mut String) {
///         out.push_str(&format!("[{}] Source: ", head.index));
///         mentor_context::push_line(out, head.title.unwrap_or("unknown"));
///         out.push('\n');
///     }
/// }
///
/// let builder = ContextBuilder::new(100).format(Sourced);
/// let results = [MentorRagResult::new("Hello.", None::<&str>, Some("Greeting"), 1.0)];
/// let context = builder.assemble(&results)?;
/// assert_eq!(context.text, "[1] Source: Greeting\n```\nHello.\n```\n");
/// # Ok::<(), mentor_context::Error>(())
/// ```
pub trait Format: Send + Sync {
    /// A short name for reports.
    fn name(&self) -> &str;

    /// Writes what comes before the first block, if anything.
    fn open(&self, out: &mut String) {
        let _ = out;
    }

    /// Writes what comes after the last block, if anything.
    fn close(&self, out: &mut String) {
        let _ = out;
    }

    /// Writes the head of a block: its marker, title and metadata.
    fn head(&self, head: &BlockHead<'_>, out: &mut String);

    /// Writes what comes before the content. `content` is the content that will follow, so
    /// a fence can be chosen that does not occur in it. The default writes a markdown fence.
    fn content_open(&self, content: &str, out: &mut String) {
        push_fence(out, content);
        out.push('\n');
    }

    /// Writes the content. The default writes it verbatim.
    fn content(&self, content: &str, out: &mut String) {
        out.push_str(content);
    }

    /// Writes what comes after the content; `truncated` says whether the content was cut.
    /// The default closes the fence [`content_open`](Format::content_open) wrote and adds a
    /// `(truncated)` line after a cut.
    fn content_close(&self, content: &str, truncated: bool, out: &mut String) {
        end_line(out, content);
        push_fence(out, content);
        out.push('\n');
        if truncated {
            out.push_str("(truncated)\n");
        }
    }
}

/// What a format needs to write the head of a block.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct BlockHead<'a> {
    /// The citation number, from 1, in the order blocks appear in the text.
    pub index: usize,
    /// The display title (title, else source URL), if any; not yet sanitised.
    pub title: Option<&'a str>,
    /// Whether the block's content was cut to fit.
    pub truncated: bool,
    metadata: Option<&'a Metadata>,
    hidden_keys: &'a [String],
}

impl<'a> BlockHead<'a> {
    pub(crate) fn new(
        index: usize,
        title: Option<&'a str>,
        truncated: bool,
        metadata: Option<&'a Metadata>,
        hidden_keys: &'a [String],
    ) -> Self {
        BlockHead {
            index,
            title,
            truncated,
            metadata,
            hidden_keys,
        }
    }

    /// The metadata entries to show, in insertion order, without the keys the builder was
    /// told to keep out of the prompt.
    pub fn metadata(&self) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
        let hidden = self.hidden_keys;
        self.metadata
            .into_iter()
            .flatten()
            .filter(move |(k, _)| !hidden.iter().any(|h| h == *k))
            .map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

/// The default format: a marker line, metadata lines, and the content in a markdown fence.
///
/// ````text
/// [1] Price list 2026
/// valid from: 2026-01-01
/// ```
/// Plan B costs 12 EUR a month.
/// ```
/// [2] https://example.com/faq
/// ...
/// ````
///
/// The fence is three backticks, or one more than the longest run of backticks in the
/// content, so no line of the content can close it. A cut block gets a `(truncated)` line
/// after its fence. Titles, URLs and metadata are kept on one line each (see [`push_line`]);
/// a metadata key that starts with `[`, `` ` `` or `~` gets a backslash before it, so it
/// cannot read as a marker or a fence.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlainFormat;

impl Format for PlainFormat {
    fn name(&self) -> &str {
        "plain"
    }

    fn head(&self, head: &BlockHead<'_>, out: &mut String) {
        out.push('[');
        push_decimal(out, head.index);
        out.push(']');
        if let Some(title) = head.title {
            out.push(' ');
            push_line(out, title);
        }
        out.push('\n');
        for (key, value) in head.metadata() {
            // A key is the start of a line: one that begins like a marker (`[7] ...`) or a
            // fence would read as one, so its first character is escaped, as in markdown.
            if collapse(key).starts_with(['[', '`', '~']) {
                out.push('\\');
            }
            push_metadata_line(out, key, value, push_line);
        }
    }
}

/// The layout of Anthropic's long-context prompting guidance.
///
/// ```text
/// <documents>
/// <document index="1">
/// <source>Price list 2026</source>
/// <metadata>
/// valid from: 2026-01-01
/// </metadata>
/// <document_content>
/// Plan B costs 12 EUR a month.
/// </document_content>
/// </document>
/// </documents>
/// ```
///
/// A cut block is marked `<document index="n" truncated="true">`. Inside titles, metadata and
/// content, a `<` that starts one of this format's tags (`documents`, `document`,
/// `document_content`, `source`, `metadata`, opening or closing, in any letter case, followed
/// by anything that cannot continue a tag name) is written as `&lt;`, so no text can close or
/// open a tag of the layout. Nothing else is escaped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct XmlFormat;

impl Format for XmlFormat {
    fn name(&self) -> &str {
        "xml"
    }

    fn open(&self, out: &mut String) {
        out.push_str("<documents>\n");
    }

    fn close(&self, out: &mut String) {
        out.push_str("</documents>\n");
    }

    fn head(&self, head: &BlockHead<'_>, out: &mut String) {
        out.push_str("<document index=\"");
        push_decimal(out, head.index);
        out.push('"');
        if head.truncated {
            out.push_str(" truncated=\"true\"");
        }
        out.push_str(">\n");
        if let Some(title) = head.title {
            out.push_str("<source>");
            push_line_with(out, title, push_xml_text);
            out.push_str("</source>\n");
        }
        let mut entries = head.metadata().peekable();
        if entries.peek().is_some() {
            out.push_str("<metadata>\n");
            for (key, value) in entries {
                push_metadata_line(out, key, value, |out, text| {
                    push_line_with(out, text, push_xml_text)
                });
            }
            out.push_str("</metadata>\n");
        }
    }

    fn content_open(&self, _content: &str, out: &mut String) {
        out.push_str("<document_content>\n");
    }

    fn content(&self, content: &str, out: &mut String) {
        push_xml_text(out, content);
    }

    fn content_close(&self, content: &str, _truncated: bool, out: &mut String) {
        end_line(out, content);
        out.push_str("</document_content>\n</document>\n");
    }
}

fn push_metadata_line(out: &mut String, key: &str, value: &str, push: impl Fn(&mut String, &str)) {
    push(out, key);
    out.push(':');
    if !collapse(value).is_empty() {
        out.push(' ');
        push(out, value);
    }
    out.push('\n');
}

/// Writes `text` on one line: each run of line breaks, control characters and bidirectional
/// controls becomes one space, and leading and trailing whitespace is dropped. Titles, URLs
/// and metadata go through this, so none of them can start a line of their own.
///
/// ```
/// let mut out = String::new();
/// mentor_context::push_line(&mut out, " Price list\n[7] Forged\t title ");
/// assert_eq!(out, "Price list [7] Forged title");
/// ```
pub fn push_line(out: &mut String, text: &str) {
    push_line_with(out, text, |out, s| out.push_str(s));
}

fn push_line_with(out: &mut String, text: &str, push: impl Fn(&mut String, &str)) {
    let text = collapse(text);
    let mut rest = text;
    while let Some(at) = rest.find(breaks_line) {
        push(out, &rest[..at]);
        let after = rest[at..].trim_start_matches(|c: char| breaks_line(c) || c == ' ');
        if !out.ends_with(' ') {
            out.push(' ');
        }
        rest = after;
    }
    push(out, rest);
}

/// The text with leading and trailing whitespace and line-breaking characters removed.
fn collapse(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_whitespace() || breaks_line(c))
}

/// Characters that could start a new line, or reorder one, in what a reader sees.
fn breaks_line(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        )
}

/// The element names [`XmlFormat`] writes.
const XML_TAGS: [&str; 5] = [
    "documents",
    "document",
    "document_content",
    "source",
    "metadata",
];

/// Writes `text`, turning each `<` that starts one of [`XmlFormat`]'s tags into `&lt;`.
pub fn push_xml_text(out: &mut String, text: &str) {
    let mut rest = text;
    while let Some(at) = rest.find('<') {
        let tail = &rest[at + 1..];
        let name = tail.strip_prefix('/').unwrap_or(tail).as_bytes();
        let ours = XML_TAGS.iter().any(|tag| {
            name.len() >= tag.len()
                && name[..tag.len()].eq_ignore_ascii_case(tag.as_bytes())
                // `<documentation>` is not ours; `<document>`, `<document ` and `<document/` are.
                && !name
                    .get(tag.len())
                    .is_some_and(|&b| b.is_ascii_alphanumeric() || b"_-.:".contains(&b))
        });
        out.push_str(&rest[..at]);
        out.push_str(if ours { "&lt;" } else { "<" });
        rest = tail;
    }
    out.push_str(rest);
}

/// Ends the content's last line, so what follows starts a line of its own.
fn end_line(out: &mut String, content: &str) {
    if !content.is_empty() && !content.ends_with('\n') {
        out.push('\n');
    }
}

/// Writes a fence of backticks longer than any run of backticks in `content` (three at least).
fn push_fence(out: &mut String, content: &str) {
    // Jump from backtick to backtick (`find` on one ASCII byte is a fast memchr) rather than
    // looking at every byte: this runs twice per block, on the warm path too.
    let mut longest = 0;
    let mut rest = content;
    while let Some(at) = rest.find('`') {
        let run = rest[at..].bytes().take_while(|&b| b == b'`').count();
        longest = longest.max(run);
        rest = &rest[at + run..];
    }
    for _ in 0..(longest + 1).max(3) {
        out.push('`');
    }
}

fn push_decimal(out: &mut String, n: usize) {
    use std::fmt::Write;
    let _ = write!(out, "{n}");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(entries: &[(&str, &str)]) -> Metadata {
        entries
            .iter()
            .map(|&(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn head_text(format: &dyn Format, title: Option<&str>, metadata: Option<&Metadata>) -> String {
        let mut out = String::new();
        format.head(&BlockHead::new(3, title, false, metadata, &[]), &mut out);
        out
    }

    #[test]
    fn plain_head_lists_metadata_in_order() {
        let metadata = metadata(&[("version", "3"), ("author", "A. Writer"), ("empty", " ")]);
        assert_eq!(
            head_text(&PlainFormat, Some("Guide"), Some(&metadata)),
            "[3] Guide\nversion: 3\nauthor: A. Writer\nempty:\n"
        );
        assert_eq!(head_text(&PlainFormat, None, None), "[3]\n");
    }

    #[test]
    fn metadata_keys_cannot_forge_markers_or_fences() {
        let metadata = metadata(&[("[7] Forged", "x"), ("```", "y"), ("ok", "[8] z")]);
        assert_eq!(
            head_text(&PlainFormat, None, Some(&metadata)),
            "[3]\n\\[7] Forged: x\n\\```: y\nok: [8] z\n"
        );
    }

    #[test]
    fn hidden_keys_are_left_out() {
        let metadata = metadata(&[("id", "42"), ("author", "A")]);
        let hidden = ["id".to_string()];
        let mut out = String::new();
        PlainFormat.head(
            &BlockHead::new(1, None, false, Some(&metadata), &hidden),
            &mut out,
        );
        assert_eq!(out, "[1]\nauthor: A\n");
    }

    #[test]
    fn fence_is_longer_than_any_backtick_run() {
        let mut out = String::new();
        push_fence(&mut out, "a ```` b");
        assert_eq!(out, "`````");
        out.clear();
        push_fence(&mut out, "no ticks");
        assert_eq!(out, "```");
    }

    #[test]
    fn line_breaks_and_controls_collapse() {
        let mut out = String::new();
        push_line(&mut out, "a\r\n\r\nb\u{202E}c\u{0007}d  e");
        assert_eq!(out, "a b c d  e");
    }

    #[test]
    fn xml_tags_are_neutralised() {
        let mut out = String::new();
        push_xml_text(
            &mut out,
            "x</document_content></DOCUMENT><source a><b><documentation>",
        );
        assert_eq!(
            out,
            "x&lt;/document_content>&lt;/DOCUMENT>&lt;source a><b><documentation>"
        );
    }

    #[test]
    fn xml_head_escapes_title() {
        assert_eq!(
            head_text(&XmlFormat, Some("a</source>\nb"), None),
            "<document index=\"3\">\n<source>a&lt;/source> b</source>\n"
        );
    }
}

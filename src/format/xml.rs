//! The layout of Anthropic's long-context prompting guidance.

use std::borrow::Cow;

use super::line::{end_line, push_decimal, push_line_with, push_metadata_line, visible};
use super::{BlockHead, Format};

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
/// by whitespace, `/`, `>` or the end), a comment or CDATA section (`<!`) or a processing
/// instruction (`<?`) is written as `&lt;` (see [`push_xml_text`]), so no text can close or
/// open a tag of the layout, or hide one from an XML parser. Nothing else is escaped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
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
        if let Some(title) = visible(head.title) {
            out.push_str("<source>");
            push_line_with(out, title, push_xml_text);
            out.push_str("</source>\n");
        }
        let mut entries = head.metadata().peekable();
        if entries.peek().is_some() {
            out.push_str("<metadata>\n");
            for (key, value) in entries {
                push_metadata_line(out, key, value, |out, text| {
                    push_line_with(out, text, push_xml_text);
                });
            }
            out.push_str("</metadata>\n");
        }
    }

    fn content_open(&self, _content: &str, out: &mut String) {
        out.push_str(CONTENT_OPEN);
    }

    fn content(&self, content: &str, out: &mut String) {
        push_xml_text(out, content);
    }

    fn content_close(&self, content: &str, _truncated: bool, out: &mut String) {
        end_line(out, content);
        out.push_str(CONTENT_CLOSE);
    }

    /// The content between `<document_content>` and its closing, with each `&lt;` that
    /// [`push_xml_text`] writes read back as `<`. Content holding `&lt;` of its own before a
    /// tag name reads back as `<` too, and then no longer matches its fingerprint: such a
    /// report continues only sealed.
    fn read_body<'t>(&self, text: &'t str, _truncated: bool) -> Option<(Cow<'t, str>, usize)> {
        let inner = text.strip_prefix(CONTENT_OPEN)?;
        // Escaped content cannot hold the closing tag, so its first one is the end.
        let inner_len = inner.find(CONTENT_CLOSE)?;
        let end = CONTENT_OPEN.len() + inner_len + CONTENT_CLOSE.len();
        let written = &inner[..inner_len];
        let written = written.strip_suffix('\n').unwrap_or(written);
        Some((unescape_xml_text(written), end))
    }
}

/// What opens a document's content, and what closes the content and the document.
const CONTENT_OPEN: &str = "<document_content>\n";
const CONTENT_CLOSE: &str = "</document_content>\n</document>\n";

/// `written` with each `&lt;` that [`push_xml_text`] would have written for a `<` read back.
fn unescape_xml_text(written: &str) -> Cow<'_, str> {
    if !written.contains("&lt;") {
        return Cow::Borrowed(written);
    }
    let mut out = String::with_capacity(written.len());
    swap_at_structures(&mut out, written, "&lt;", "<");
    Cow::Owned(out)
}

/// The element names [`XmlFormat`] writes.
const XML_TAGS: [&str; 5] = [
    "documents",
    "document",
    "document_content",
    "source",
    "metadata",
];

/// Writes `text`, turning into `&lt;` each `<` that starts one of [`XmlFormat`]'s tags, a
/// comment, a CDATA section, a declaration (`<!`) or a processing instruction (`<?`): the
/// constructs with which text in one document could hide or forge another document's
/// boundaries from an XML parser. Everything else is written verbatim.
///
/// A tag is the layout's own when its name is one of the layout's element names, in any
/// letter case (a model reads `</DOCUMENT>` as a closing too), followed by whitespace, `/`,
/// `>` or the end of the text: `</document_contenté>` and `<documentation>` are other names.
///
/// ```
/// let mut out = String::new();
/// mentor_context::format::push_xml_text(&mut out, "a</document> <b> <!-- c --> <documents-x>");
/// assert_eq!(out, "a&lt;/document> <b> &lt;!-- c --> <documents-x>");
/// ```
pub fn push_xml_text(out: &mut String, text: &str) {
    swap_at_structures(out, text, "<", "&lt;");
}

/// Writes `text` with each `from` that opens one of the layout's structures written as
/// `to`, and the rest verbatim: `<` as `&lt;` in [`push_xml_text`], and back in
/// [`unescape_xml_text`], so that reading undoes what writing did.
fn swap_at_structures(out: &mut String, text: &str, from: &str, to: &str) {
    let mut rest = text;
    while let Some(at) = rest.find(from) {
        let tail = &rest[at + from.len()..];
        out.push_str(&rest[..at]);
        out.push_str(if opens_structure(tail) { to } else { from });
        rest = tail;
    }
    out.push_str(rest);
}

/// Whether a `<` followed by `tail` opens one of the layout's tags, or a construct in which
/// an XML parser would read past the layout's tags.
fn opens_structure(tail: &str) -> bool {
    if tail.starts_with(['!', '?']) {
        return true;
    }
    let name = tail.strip_prefix('/').unwrap_or(tail).as_bytes();
    XML_TAGS.iter().any(|tag| {
        name.len() >= tag.len()
            && name[..tag.len()].eq_ignore_ascii_case(tag.as_bytes())
            && name
                .get(tag.len())
                .is_none_or(|&b| b.is_ascii_whitespace() || b == b'/' || b == b'>')
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::tests::{head_text, metadata, written};

    #[test]
    fn xml_tags_are_neutralised() {
        let text =
            "x</document_content></DOCUMENT><source a><b><documentation><metadata/><document\t";
        assert_eq!(
            written(push_xml_text, text),
            "x&lt;/document_content>&lt;/DOCUMENT>&lt;source a><b><documentation>&lt;metadata/>&lt;document\t"
        );
    }

    #[test]
    fn only_the_layouts_own_names_are_escaped() {
        for verbatim in [
            "</document_contenté>",
            "</document_content\u{200d}>",
            "<documents-list>",
            "<sources>",
            "a < b",
            "<",
            "<3",
        ] {
            assert_eq!(written(push_xml_text, verbatim), verbatim);
        }
        for (text, escaped) in [
            ("<![CDATA[", "&lt;![CDATA["),
            ("<!-- x -->", "&lt;!-- x -->"),
            ("<?pi x?>", "&lt;?pi x?>"),
            ("<document", "&lt;document"),
            ("</source\n>", "&lt;/source\n>"),
        ] {
            assert_eq!(written(push_xml_text, text), escaped, "{text:?}");
        }
    }

    /// Reading back undoes what writing did, whatever the text holds but a `&lt;` of its
    /// own before a tag's name (which reads as the `<` it stands for).
    #[test]
    fn unescaping_gives_back_the_text_written() {
        for text in [
            "x</document_content></DOCUMENT><source a><b><!-- c --><?pi?>",
            "&lt;b> and &lt; alone, <3 < 4, <document",
            "",
        ] {
            let escaped = written(push_xml_text, text);
            assert_eq!(unescape_xml_text(&escaped), text, "{escaped:?}");
        }
    }

    #[test]
    fn xml_head_escapes_title_and_metadata() {
        assert_eq!(
            head_text(&XmlFormat, Some("a</source>\nb"), None),
            "<document index=\"3\">\n<source>a&lt;/source> b</source>\n"
        );
        let metadata = metadata(&[("k</metadata>", "v\n<document>")]);
        assert_eq!(
            head_text(&XmlFormat, None, Some(&metadata)),
            "<document index=\"3\">\n<metadata>\nk&lt;/metadata>: v &lt;document>\n</metadata>\n"
        );
    }
}

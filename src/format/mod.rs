//! How a block looks in the prompt.
//!
//! A [`Format`] writes the opening and closing of the context, and for each block a head (the
//! citation marker `[n]`, the title, the metadata lines) and a body (the content, framed so
//! that nothing inside it can pass for a boundary).
//!
//! Two formats ship, one to a file: [`PlainFormat`] (markdown-like, the default) and
//! [`XmlFormat`] (the layout of Anthropic's long-context guidance); [`BuiltinFormat`] names
//! either at run time. `line.rs` keeps titles, URLs and metadata on one line each.

mod builtin;
pub(crate) mod line;
mod misleading_chars;
mod plain;
mod xml;

pub use builtin::BuiltinFormat;
pub use line::push_line;
pub use plain::PlainFormat;
pub use xml::{XmlFormat, push_xml_text};

use std::borrow::Cow;

use crate::rag_result::Metadata;

/// Writes the text of the context.
///
/// Every piece a format writes (the opening, each head, each body, the closing) must end with
/// a newline that follows a character other than whitespace, and must start with a character
/// that is neither whitespace nor `/`. At such joins the counts of the built-in encodings add
/// up exactly (the exact-split rule of `ARCHITECTURE.md`), so the assembler
/// counts each piece once. A format that breaks the rule still gets exact counts: the
/// assembler notices and recounts the whole text, which costs a second pass.
///
/// ```
/// use mentor_context::{ContextBuilder, MentorRagResult};
/// use mentor_context::format::{BlockHead, Format};
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
///         mentor_context::format::push_line(out, head.title.unwrap_or("unknown"));
///         out.push('\n');
///     }
/// }
///
/// let assembler = ContextBuilder::new(100).format(Sourced).build()?;
/// let results = [MentorRagResult::from_content("Hello.", 1.0).with_title("Greeting")];
/// let context = assembler.assemble(&results);
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
        plain::push_fence(out, content);
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
        line::end_line(out, content);
        plain::push_fence(out, content);
        out.push('\n');
        if truncated {
            out.push_str("(truncated)\n");
        }
    }

    /// Reads back a body this format wrote at the start of `text`: its content, and how many
    /// bytes of `text` the body takes; `None` if `text` does not start with such a body. A
    /// follow-up turn reads the previous report's blocks with it, then writes each content
    /// again and compares, so a reader that accepts too much lets nothing through.
    ///
    /// Where the written form does not say whether the content ended with a newline, either
    /// may be returned: both are tried. The default reads the default body, the markdown
    /// fence. A format that writes its own body and does not read it back can continue only
    /// sealed reports in a follow-up turn (see [`seal`](crate::seal)).
    fn read_body<'t>(&self, text: &'t str, truncated: bool) -> Option<(Cow<'t, str>, usize)> {
        plain::read_fenced(text, truncated).map(|(content, len)| (Cow::Borrowed(content), len))
    }
}

/// Forwards every method, so references and shared pointers to a format are formats, and a
/// format can be chosen at run time as a `Box<dyn Format>`.
macro_rules! forward_format {
    ($($pointer:ty),*) => {$(
        impl<T: Format + ?Sized> Format for $pointer {
            fn name(&self) -> &str {
                (**self).name()
            }
            fn open(&self, out: &mut String) {
                (**self).open(out);
            }
            fn close(&self, out: &mut String) {
                (**self).close(out);
            }
            fn head(&self, head: &BlockHead<'_>, out: &mut String) {
                (**self).head(head, out);
            }
            fn content_open(&self, content: &str, out: &mut String) {
                (**self).content_open(content, out);
            }
            fn content(&self, content: &str, out: &mut String) {
                (**self).content(content, out);
            }
            fn content_close(&self, content: &str, truncated: bool, out: &mut String) {
                (**self).content_close(content, truncated, out);
            }
            fn read_body<'t>(&self, text: &'t str, truncated: bool) -> Option<(Cow<'t, str>, usize)> {
                (**self).read_body(text, truncated)
            }
        }
    )*};
}

forward_format!(&T, Box<T>, std::sync::Arc<T>);

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
    source_url: Option<&'a str>,
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
            source_url: None,
        }
    }

    /// The same head, with the result's source URL, for formats that write it beside the
    /// title.
    pub(crate) fn with_source_url(self, source_url: Option<&'a str>) -> Self {
        BlockHead { source_url, ..self }
    }

    /// The result's source URL, if any; not yet sanitised. The built-in formats show it only
    /// as the title when there is no title; a dialect's entries carry it as well.
    #[must_use]
    pub fn source_url(&self) -> Option<&'a str> {
        self.source_url
    }

    /// The metadata entries to show, in insertion order, without the keys the assembler was
    /// told to keep out of the prompt and without `null` values (they stay on the chip).
    pub fn metadata(&self) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
        let hidden = self.hidden_keys;
        self.metadata
            .into_iter()
            .flatten()
            .filter(move |(k, _)| !hidden.iter().any(|h| h == *k))
            .filter_map(|(k, v)| Some((k.as_str(), v.as_deref()?)))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn metadata(entries: &[(&str, &str)]) -> Metadata {
        entries
            .iter()
            .map(|&(k, v)| (k.to_string(), Some(v.to_string())))
            .collect()
    }

    /// What `push` writes of `text` into an empty string.
    pub(crate) fn written(push: fn(&mut String, &str), text: &str) -> String {
        let mut out = String::new();
        push(&mut out, text);
        out
    }

    pub(crate) fn head_text(
        format: &dyn Format,
        title: Option<&str>,
        metadata: Option<&Metadata>,
    ) -> String {
        let mut out = String::new();
        format.head(&BlockHead::new(3, title, false, metadata, &[]), &mut out);
        out
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

    /// Everything `format` writes for one cut block with a title and metadata, opening to
    /// closing: every method of the trait leaves a mark.
    pub(crate) fn render(format: &dyn Format) -> String {
        let mut out = String::new();
        format.open(&mut out);
        let metadata = metadata(&[("k", "v")]);
        format.head(
            &BlockHead::new(2, Some("T"), true, Some(&metadata), &[]),
            &mut out,
        );
        format.content_open("x`", &mut out);
        format.content("x<document>", &mut out);
        format.content_close("x", true, &mut out);
        format.close(&mut out);
        out
    }

    #[test]
    fn pointers_to_formats_write_what_the_format_writes() {
        let boxed: Box<dyn Format> = Box::new(XmlFormat);
        let shared = std::sync::Arc::new(PlainFormat);
        let borrowed = &XmlFormat;
        assert_eq!(render(&boxed), render(&XmlFormat));
        assert_eq!(render(&shared), render(&PlainFormat));
        assert_eq!(render(&borrowed), render(&XmlFormat));
        assert_eq!(boxed.name(), "xml");
        assert_ne!(render(&XmlFormat), render(&PlainFormat));
    }
}

//! The built-in formats, chosen by name at run time.

use crate::named_choice::named_choice;
use std::borrow::Cow;

use super::{BlockHead, Format, PlainFormat, XmlFormat};

/// One of the formats that ship with the crate, chosen at run time: from a command line, a
/// configuration file or a request.
///
/// ```
/// use mentor_context::{ContextBuilder, MentorRagResult};
/// use mentor_context::format::BuiltinFormat;
///
/// let format: BuiltinFormat = "XML".parse()?;
/// let assembler = ContextBuilder::new(100).format(format).build()?;
/// let results = [MentorRagResult::from_content("Hi.", 1.0)];
/// let context = assembler.assemble(&results);
/// assert!(context.text.starts_with("<documents>"));
/// # Ok::<(), mentor_context::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum BuiltinFormat {
    /// [`PlainFormat`], the default.
    #[default]
    Plain,
    /// [`XmlFormat`].
    Xml,
}

impl BuiltinFormat {
    /// Every built-in format, in a fixed order.
    /// A slice, not an array: a new value does not change this constant's type.
    pub const ALL: &[BuiltinFormat] = &[BuiltinFormat::Plain, BuiltinFormat::Xml];

    /// The format's name: `"plain"` or `"xml"`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            BuiltinFormat::Plain => "plain",
            BuiltinFormat::Xml => "xml",
        }
    }

    /// The format itself.
    #[must_use]
    pub fn format(self) -> &'static dyn Format {
        match self {
            BuiltinFormat::Plain => &PlainFormat,
            BuiltinFormat::Xml => &XmlFormat,
        }
    }
}

impl Format for BuiltinFormat {
    fn name(&self) -> &str {
        self.format().name()
    }
    fn open(&self, out: &mut String) {
        self.format().open(out);
    }
    fn close(&self, out: &mut String) {
        self.format().close(out);
    }
    fn head(&self, head: &BlockHead<'_>, out: &mut String) {
        self.format().head(head, out);
    }
    fn content_open(&self, content: &str, out: &mut String) {
        self.format().content_open(content, out);
    }
    fn content(&self, content: &str, out: &mut String) {
        self.format().content(content, out);
    }
    fn content_close(&self, content: &str, truncated: bool, out: &mut String) {
        self.format().content_close(content, truncated, out);
    }
    fn read_body<'t>(&self, text: &'t str, truncated: bool) -> Option<(Cow<'t, str>, usize)> {
        self.format().read_body(text, truncated)
    }
}

named_choice!(BuiltinFormat, "format", "plain or xml");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_writes_what_its_format_writes() {
        use crate::format::tests::render;
        for &format in BuiltinFormat::ALL {
            assert_eq!(render(&format), render(format.format()), "{format}");
        }
        assert_ne!(
            render(&BuiltinFormat::Plain),
            render(&BuiltinFormat::Xml),
            "the formats differ, so each delegating method is seen"
        );
    }

    #[test]
    fn names_round_trip_in_any_case() {
        for &format in BuiltinFormat::ALL {
            assert_eq!(format.to_string().parse::<BuiltinFormat>().unwrap(), format);
            assert_eq!(
                format
                    .to_string()
                    .to_uppercase()
                    .parse::<BuiltinFormat>()
                    .unwrap(),
                format
            );
        }
        assert_eq!(BuiltinFormat::Xml.name(), "xml");
        let err = "markdown".parse::<BuiltinFormat>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown format `markdown` (expected plain or xml)"
        );
    }
}

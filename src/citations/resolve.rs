//! [`Resolver`]: markers resolved to chips, for a whole answer, a stream of one, or a model
//! API's response: which chips an answer cites, in which order, how often and where; which
//! markers point at nothing; and the answer renumbered. The tally it keeps is `tally.rs`'s.

use std::borrow::Cow;

use super::markers::Scanner;
use super::resolution::Resolution;
use super::stream::CitationStream;
use super::tally::Tally;
use crate::context::Citation;
use crate::dialects::{Dialect, Entry};
use crate::error::Error;

/// Reads answers for the markers of one context's chips.
///
/// ```
/// use mentor_context::citations::Resolver;
/// use mentor_context::{ContextBuilder, MentorRagResult};
///
/// let results = [
///     MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9).with_title("Prices"),
///     MentorRagResult::from_content("Plan A is free.", 0.8).with_title("Plans"),
/// ];
/// let context = ContextBuilder::new(300).build()?.assemble(&results);
/// let answer = "Plan A is free [2]; Plan B costs 12 EUR [1][2]. See `x[1]` and [7].";
/// let resolution = Resolver::for_context(&context).renumber(true).resolve(answer);
/// assert_eq!(resolution.cited[0].citation.title.as_deref(), Some("Plans"));
/// assert_eq!(resolution.cited[0].count, 2);
/// assert_eq!(resolution.unknown[0].marker, "[7]");
/// assert_eq!(
///     resolution.answer.as_deref(),
///     Some("Plan A is free [1]; Plan B costs 12 EUR [2][1]. See `x[1]` and [7].")
/// );
/// # Ok::<(), mentor_context::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Resolver<'c> {
    chips: Cow<'c, [Citation]>,
    renumber: bool,
    // Set from a report by `from_report.rs`.
    pub(super) contents: Option<Cow<'c, [String]>>,
    pub(super) dialect: Option<Dialect>,
    pub(super) entries: Option<Cow<'c, [Entry]>>,
}

impl<'c> Resolver<'c> {
    /// A resolver for `chips` (a chip's marker is its `index`), renumbering off.
    #[must_use]
    pub fn new(chips: &'c [Citation]) -> Resolver<'c> {
        Resolver {
            chips: Cow::Borrowed(chips),
            renumber: false,
            contents: None,
            dialect: None,
            entries: None,
        }
    }

    /// Checks quotes against `contents`, the content of each chip in order
    /// ([`Assembler::contents`](crate::Assembler::contents)): a quoted span in straight or
    /// curly quotes just before a `[n]` marker is looked for in chip `n`'s content, after
    /// normalising whitespace and quote marks, and must start and end on its word boundaries
    /// ("safe" is not in "unsafe", nor "12" in "120"); so is a provider's quote. Default:
    /// none, and quotes before markers are not looked for (but
    /// [`for_context`](Self::for_context) reads them from the report).
    #[must_use]
    pub fn contents(mut self, contents: &'c [String]) -> Resolver<'c> {
        self.contents = Some(Cow::Borrowed(contents));
        self
    }

    /// The same resolver, owning what it reads against: for a stream kept past the report
    /// (in a server's session, or a binding's object).
    #[must_use]
    pub fn into_owned(self) -> Resolver<'static> {
        Resolver {
            chips: Cow::Owned(self.chips.into_owned()),
            renumber: self.renumber,
            contents: self.contents.map(|c| Cow::Owned(c.into_owned())),
            dialect: self.dialect,
            entries: self.entries.map(|e| Cow::Owned(e.into_owned())),
        }
    }

    /// The dialect whose responses [`response`](Self::response) reads: the context's, when
    /// made by [`for_context`](Self::for_context).
    #[must_use]
    pub fn dialect(mut self, dialect: impl Into<Option<Dialect>>) -> Resolver<'c> {
        self.dialect = dialect.into();
        self
    }

    /// Whether to renumber the answer 1..k in order of first citation (default off).
    #[must_use]
    pub fn renumber(mut self, renumber: bool) -> Resolver<'c> {
        self.renumber = renumber;
        self
    }

    /// Resolves a whole answer.
    #[must_use]
    pub fn resolve(&self, answer: &str) -> Resolution {
        let mut stream = self.stream();
        let _ = stream.push(answer);
        stream.finish().1
    }

    /// A resolver for an answer that arrives in chunks; see [`CitationStream`].
    #[must_use]
    pub fn stream(&self) -> CitationStream<'c> {
        CitationStream::new(Scanner::new(), self.tally(), self.renumber)
    }

    /// Checks a provider's quotes against `entries`, the entries sent in the request
    /// ([`Assembler::entries`](crate::Assembler::entries)): an Anthropic `cited_text` must be
    /// found in the entry it points at, within the range it gives. Default: none, and such
    /// quotes are listed as not verified.
    #[must_use]
    pub fn entries(mut self, entries: &'c [Entry]) -> Resolver<'c> {
        self.entries = Some(Cow::Borrowed(entries));
        self
    }

    /// The entries quotes are checked against, if given.
    pub(crate) fn sent_entries(&self) -> Option<Cow<'c, [Entry]>> {
        self.entries.clone()
    }

    pub(crate) fn tally(&self) -> Tally<'c> {
        Tally::new(self.chips.clone(), self.contents.clone())
    }

    /// The dialect responses are read in, or why there is none.
    pub(crate) fn response_dialect(&self) -> Result<Dialect, Error> {
        self.dialect.ok_or_else(|| Error::Response {
            problem: "the report was assembled as text, not in a dialect: read its answer's \
                      [n] markers with resolve"
                .to_string(),
        })
    }
}

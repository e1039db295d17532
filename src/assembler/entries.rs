//! A dialect's entries, made from a report: its citations, and the contents read back from
//! its text.

use super::head_cap;
use super::placing::Assembly;
use super::{Assembler, Inner};
use crate::context::AssembledContext;
use crate::dialects::{Entry, EntryParts, entry};
use crate::error::Error;
use crate::format::{BlockHead, push_line};
use crate::rag_result::MentorRagResult;

impl Assembler {
    /// The entries of `context` in this assembler's dialect: the JSON values to put in the
    /// model API's request, one per citation, in citation order (see
    /// [`dialects`](crate::dialects)). Each shows what the budget counted: the title and
    /// metadata as in the head (shortened where the head was), the content as cut.
    ///
    /// ```
    /// use mentor_context::dialects::Dialect;
    /// use mentor_context::{ContextBuilder, MentorRagResult};
    ///
    /// let assembler = ContextBuilder::new(500).dialect(Dialect::Anthropic).build()?;
    /// let results = [MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9)
    ///     .with_title("Prices")
    ///     .with_source_url("https://example.com/prices")];
    /// let context = assembler.assemble(&results);
    /// let entries = assembler.entries(&context)?;
    /// assert_eq!(
    ///     serde_json::to_string(&entries)?,
    ///     r#"[{"type":"search_result","source":"https://example.com/prices","title":"Prices","content":[{"type":"text","text":"Plan B costs 12 EUR."}],"citations":{"enabled":true}}]"#
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::NoDialect`] when this assembler writes no dialect;
    /// [`Error::PreviousTurnMismatch`] when `context` was not written by it (another dialect,
    /// an edited text), as for [`contents`](Self::contents).
    pub fn entries(&self, context: &AssembledContext<'_>) -> Result<Vec<Entry>, Error> {
        let Inner { config, .. } = &*self.inner;
        let dialect = config.dialect.ok_or(Error::NoDialect)?;
        let Inner { frame, .. } = &*self.inner;
        let read = Assembly::new(config, frame).read_blocks(context)?;
        let mut entries = Vec::with_capacity(read.len());
        for (citation, block) in context.citations.iter().zip(&read) {
            let content = &block.content;
            // The metadata in the order the text shows it, which a store may have lost.
            let result = MentorRagResult {
                content: String::new(),
                source_url: citation.source_url.clone(),
                title: citation.title.clone(),
                score: citation.score,
                metadata: block.metadata.clone(),
            };
            let shortened = head_cap::shorten(config, &result, citation.index, citation.truncated);
            let head = match &shortened {
                Some(shortened) => shortened.head(citation.index, citation.truncated),
                None => BlockHead::new(
                    citation.index,
                    result.display_title(),
                    citation.truncated,
                    result.metadata.as_ref(),
                    &config.hidden_keys,
                ),
            };
            let one_line = |text: &str| {
                let mut line = String::new();
                push_line(&mut line, text);
                line
            };
            let line = |text: Option<&str>| text.map(one_line).filter(|line| !line.is_empty());
            let parts = EntryParts {
                index: citation.index,
                title: line(head.title),
                source: line(citation.source_url.as_deref()),
                metadata: head
                    .metadata()
                    .map(|(key, value)| (one_line(key), one_line(value)))
                    .collect(),
                content,
                truncated: citation.truncated,
            };
            entries.push(entry(dialect, &parts));
        }
        Ok(entries)
    }
}

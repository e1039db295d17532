//! Reading a report back from the report alone: the contents of its blocks, by an assembler
//! that writes what the report records it was written in (its layout, dialect and encoding).

use crate::context::AssembledContext;
use crate::error::Error;
use crate::tokenizer::{Encoding, TokenCounter};

impl AssembledContext<'_> {
    /// The content of each block as the model saw it (cut where its citation is cut), in
    /// citation order, read back from the text in the [`layout`](Self::layout) the report
    /// records: what [`Assembler::contents`](crate::Assembler::contents) gives, without the
    /// assembler's options repeated. The text is checked as a follow-up turn checks it.
    ///
    /// # Errors
    ///
    /// [`Error::PreviousTurnMismatch`] when the report records no layout (it was written
    /// before reports did), was written in a format that is not built in, was counted by a
    /// tokenizer that is not a built-in encoding (a tokenizer file's) with a head cap, or its
    /// text is not what its layout writes for its citations.
    pub fn contents(&self) -> Result<Vec<String>, Error> {
        self.reader()?.contents(self)
    }

    /// An assembler that writes what this report was written in.
    pub(crate) fn reader(&self) -> Result<crate::Assembler, Error> {
        let builder = crate::ContextBuilder::new(self.budget).layout_of(self)?;
        let capped = self
            .layout
            .as_ref()
            .is_some_and(|layout| layout.max_head_tokens.is_some());
        if capped || self.encoding.parse::<Encoding>().is_ok() {
            return builder.build();
        }
        // A tokenizer the report cannot rebuild (a tokenizer file's). Without a head cap no
        // count decides what is read back, only the header's against the budget (given room
        // for another tokenizer's count of it): the name is all that must match.
        builder
            .tokenizer(NamedAs(self.encoding.clone()))
            .budget(self.budget.saturating_mul(4))
            .build()
    }
}

/// Counts as the default encoding under the name of the tokenizer a report was counted with:
/// for reading back a report without a head cap, whose reading depends on no count.
struct NamedAs(String);

impl TokenCounter for NamedAs {
    fn name(&self) -> &str {
        &self.0
    }
    fn token_lengths(&self, text: &str, lengths: &mut Vec<u32>) {
        Encoding::default().token_lengths(text, lengths);
    }
    fn count(&self, text: &str) -> usize {
        Encoding::default().count(text)
    }
    fn splits_exactly(&self, text: &str, at: usize) -> bool {
        Encoding::default().splits_exactly(text, at)
    }
    fn max_token_bytes(&self) -> usize {
        Encoding::default().max_token_bytes()
    }
    fn max_call_bytes(&self) -> usize {
        Encoding::default().max_call_bytes()
    }
}

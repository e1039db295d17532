//! A resolver for a whole report: its chips, its dialect, and the contents (and a dialect's
//! entries) read back from its text in the layout it records, so that quotes are checked
//! from the report alone.

use std::borrow::Cow;

use super::resolve::Resolver;
use crate::context::AssembledContext;
use crate::error::Error;

impl<'c> Resolver<'c> {
    /// A resolver for the chips of `context`, in the dialect it was assembled for, if any,
    /// checking quotes against the contents read back from the report alone, in the
    /// [`layout`](AssembledContext::layout) it records ([`AssembledContext::contents`]; in a
    /// dialect, the entries too): a quote before a `[n]` marker is checked by default. A
    /// report whose text does not read back (edited, written in a format that is not built
    /// in, or counted by a tokenizer file's tokenizer with a head cap) has every quote
    /// reported not verified; [`try_for_context`](Self::try_for_context)
    /// says why. A report of an older version records no layout: its quotes are looked for
    /// only once [`contents`](Self::contents) are given, as before.
    #[must_use]
    pub fn for_context(context: &'c AssembledContext<'_>) -> Resolver<'c> {
        let chips = Resolver::new(&context.citations).dialect(context.dialect);
        if context.layout.is_none() {
            return chips;
        }
        Resolver::read_back(context, chips.clone()).unwrap_or_else(|_| {
            // Quotes are still looked for: none can be found, so each is not verified.
            let mut unreadable = chips;
            unreadable.contents = Some(Cow::Owned(Vec::new()));
            unreadable
        })
    }

    /// [`for_context`](Self::for_context), or why the report's contents cannot be read from
    /// it alone.
    ///
    /// # Errors
    ///
    /// As [`AssembledContext::contents`] (and [`Assembler::entries`](crate::Assembler::entries)
    /// in a dialect).
    pub fn try_for_context(context: &'c AssembledContext<'_>) -> Result<Resolver<'c>, Error> {
        let chips = Resolver::new(&context.citations).dialect(context.dialect);
        Resolver::read_back(context, chips)
    }

    /// `resolver` checking quotes against the contents (and entries) of `context`.
    fn read_back(
        context: &AssembledContext<'_>,
        mut resolver: Resolver<'c>,
    ) -> Result<Resolver<'c>, Error> {
        if context.citations.is_empty() {
            // No chip to quote: nothing to read, and no tokenizer to load.
            resolver.contents = Some(Cow::Owned(Vec::new()));
            return Ok(resolver);
        }
        let reader = context.reader()?;
        let contents = reader.contents(context)?;
        let entries = match context.dialect {
            Some(_) => Some(Cow::Owned(reader.entries(context)?)),
            None => None,
        };
        resolver.contents = Some(Cow::Owned(contents));
        resolver.entries = entries;
        Ok(resolver)
    }
}

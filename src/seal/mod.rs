//! Sealed reports: proof that a report handed back for a follow-up turn is one this server
//! wrote.
//!
//! A chat backend keeps each turn's report for the next, often somewhere it does not control:
//! a browser session, a client's storage, a shared cache. Whoever can edit the report there
//! can edit the prompt of the next turn. What a follow-up turn accepts depends on whether
//! the assembler has a key ([`ContextBuilder::seal_key`](crate::ContextBuilder::seal_key)):
//!
//! - **Unsealed** (no key): the previous report is checked for agreement with its own text,
//!   not for where it came from. Its text must be exactly what this assembler writes for its
//!   citations, with the contents read back from between the heads, so nothing the renderer
//!   would have escaped can pass and no block, marker or closing can be forged. Field by
//!   field, what the next turn uses or carries:
//!
//!   | field | unsealed |
//!   |---|---|
//!   | `context` | exactly this assembler's rendering of the citations, or refused |
//!   | `index` | 1..n, or refused |
//!   | `title`; the metadata entries the head shows, and their order | proven: the head is written again from the chip and must be the text's (of a head shortened to `max_head_tokens`, what it shows) |
//!   | `sourceUrl` | proven where the text shows it, as the title of a block without one or in the `source:` line of the Anthropic, Bedrock, Cohere and Mistral dialects; elsewhere (plain, XML, `anthropic-documents` beside a title) carried as given |
//!   | `truncated`, `keptBytes`, `keptUtf16`, `headShortened` | proven by the text |
//!   | `fingerprint` | a whole block's, proven by its content; a cut block's covers content the text does not hold: carried as given |
//!   | each chip's `tokenCount` | counted again from its block, as an assembly counts it; refused if it disagrees |
//!   | the report's `tokenCount` | not carried: the next report's is counted from its text |
//!   | `score`, `inputIndex`, metadata the head does not show (hidden keys, `null` values, what a head cap leaves out) | not in the text: carried as given |
//!   | `encoding`, `dialect` | this assembler's, or refused; `budget`, `omitted`, `window`, `headroom` are not carried |
//!
//!   Nothing the model reads can come from a field carried as given, but the next report's
//!   chips can: a link to another site, another score. And agreement is all that is proven:
//!   the fingerprint is not cryptographic and anyone can compute it, so an edit that keeps
//!   the text and the chips in agreement (a title changed in both, a content and its
//!   fingerprint, a change in the middle of a content over 64 KiB) is not detected either.
//! - **Sealed** (a key): every report carries a [`Seal`], an HMAC-SHA256 tag over the whole
//!   report (its text, its citations, its omissions, its counts, the
//!   [`layout`](crate::AssembledContext::layout) it records) and the layout of the assembler
//!   that wrote it (tokenizer, format, header, hidden keys, head cap, dialect, each by its own
//!   name), and a follow-up turn refuses a report whose seal is missing or does not match. Any
//!   field changed is refused, and so is a report sealed by an assembler of another layout:
//!   the report is proven to be ours, and its text need not be read back.
//!
//! The seal covers the report as it is read, each field's value, not the bytes of its JSON:
//! the JSON with each citation's metadata in key order, so it survives a store that sorts
//! object keys (PostgreSQL `jsonb`). Spaces, key order, a key this version does not read, or
//! a number spelled another way that reads as the same value (`0.9` as `0.900000001`, the
//! same `f32`) do not change it, and such a report continues as the original would: nothing
//! the library reads from it differs. The seal proves where a report came from, not when, so
//! a report of an earlier turn can be handed back again.
//!
//! ```
//! use mentor_context::{ContextBuilder, MentorRagResult};
//!
//! let assembler = ContextBuilder::new(500).seal_key(b"a secret of 32 bytes or more......").build()?;
//! let results = [MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9)];
//! let first = assembler.assemble(&results);
//! assert!(first.seal.is_some());
//!
//! let mut edited = first.clone();
//! edited.text = edited.text.replace("12", "99");
//! assert!(assembler.assemble_follow_up(&edited, &[]).is_err());
//! assert!(assembler.assemble_follow_up(&first, &[]).is_ok());
//! # Ok::<(), mentor_context::Error>(())
//! ```

pub(crate) mod tag;

use std::fmt;
use std::sync::Arc;

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::context::AssembledContext;
use crate::error::{Error, PreviousTurnReason};
pub use tag::Seal;

/// The fewest bytes a seal key may have. HMAC takes any length, but a short key can be
/// guessed; 32 random bytes use all the strength SHA-256 has.
pub const MIN_KEY_BYTES: usize = 16;

/// What the tag is computed over first, so that it can never be mistaken for a tag of
/// anything else made with the same key.
const DOMAIN: &[u8] = b"mentor-context seal v1\n";

/// A key to seal reports with. Its bytes are never printed.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct SealKey(Arc<[u8]>);

impl fmt::Debug for SealKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SealKey({} bytes)", self.0.len())
    }
}

impl SealKey {
    pub(crate) fn new(key: &[u8]) -> SealKey {
        SealKey(key.into())
    }

    /// Checks the key's length.
    ///
    /// # Errors
    ///
    /// [`Error::SealKeyTooShort`] below [`MIN_KEY_BYTES`].
    pub(crate) fn check(&self) -> Result<(), Error> {
        if self.0.len() < MIN_KEY_BYTES {
            return Err(Error::SealKeyTooShort {
                bytes: self.0.len(),
            });
        }
        Ok(())
    }

    /// The seal of `context`, written by an assembler of `layout`.
    pub(crate) fn seal(&self, context: &AssembledContext<'_>, layout: &str) -> Seal {
        Seal(self.mac(context, layout).finalize().into_bytes().into())
    }

    /// Whether `context` carries its seal; the tags are compared in constant time.
    pub(crate) fn verify(
        &self,
        context: &AssembledContext<'_>,
        layout: &str,
    ) -> Result<(), (PreviousTurnReason, &'static str)> {
        let seal = context.seal.ok_or((
            PreviousTurnReason::SealMissing,
            "it carries no seal, and this assembler continues only sealed reports",
        ))?;
        self.mac(context, layout)
            .verify_slice(&seal.0)
            .map_err(|_| {
                (
                    PreviousTurnReason::SealMismatch,
                    "its seal does not match it: it was changed, or sealed with another key or \
                     layout",
                )
            })
    }

    fn mac(&self, context: &AssembledContext<'_>, layout: &str) -> Hmac<Sha256> {
        let mut mac =
            Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes a key of any length");
        mac.update(DOMAIN);
        // The layout's length first, so that no layout and report can pass for another pair.
        mac.update(&(layout.len() as u64).to_le_bytes());
        mac.update(layout.as_bytes());
        mac.update(&canonical(context));
        mac
    }
}

/// The report as JSON without its seal, with each citation's metadata in key order: a store
/// that sorts object keys gives them back that way, and the order they were written in is in
/// the text.
fn canonical(context: &AssembledContext<'_>) -> Vec<u8> {
    let mut unsealed = context.clone();
    unsealed.seal = None;
    for citation in &mut unsealed.citations {
        if let Some(metadata) = citation.metadata.as_mut() {
            metadata.sort_keys();
        }
    }
    serde_json::to_vec(&unsealed).expect("reports serialize")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seals_read_and_write_as_64_hex_digits() {
        let seal = Seal([0xab; 32]);
        let text = seal.to_string();
        assert_eq!(text, "ab".repeat(32));
        assert_eq!(text.parse::<Seal>(), Ok(seal));
        assert_eq!(format!("{seal:?}"), format!("Seal({text})"));
        assert_eq!(serde_json::to_string(&seal).unwrap(), format!("\"{text}\""));
        assert!("AB".repeat(32).parse::<Seal>().is_err());
        assert!("ab".repeat(31).parse::<Seal>().is_err());
        assert!(format!("{}zz", "ab".repeat(31)).parse::<Seal>().is_err());
    }

    #[test]
    fn keys_are_never_printed_and_short_ones_refused() {
        let key = SealKey::new(b"0123456789abcdef");
        assert_eq!(format!("{key:?}"), "SealKey(16 bytes)");
        assert!(key.check().is_ok());
        assert!(matches!(
            SealKey::new(b"0123456789abcde").check(),
            Err(Error::SealKeyTooShort { bytes: 15 })
        ));
    }
}

//! [`PreviousTurnReason`]: why a previous turn's report was refused, so that an application
//! can tell tampering from a configuration change.

use std::fmt;

/// Why [`Assembler::assemble_follow_up`](crate::Assembler::assemble_follow_up) refused the
/// previous turn's report ([`Error::previous_turn_reason`](crate::Error::previous_turn_reason)).
///
/// [`SealMismatch`](Self::SealMismatch), [`EditedBlock`](Self::EditedBlock) and
/// [`EditedText`](Self::EditedText) mean the report is not what was written: tampering, or a
/// store that changed it. [`OtherTokenizer`](Self::OtherTokenizer) and
/// [`OtherLayout`](Self::OtherLayout) mean the assembler changed since the report was
/// written (a deployment with other settings); [`SealMissing`](Self::SealMissing) that it
/// now seals and the report is not sealed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PreviousTurnReason {
    /// This assembler seals reports and the report carries no seal.
    SealMissing,
    /// The report's seal does not match it: it was changed, or sealed with another key or
    /// layout.
    SealMismatch,
    /// The report was counted with another tokenizer.
    OtherTokenizer,
    /// The report was written in another layout: another format, header, hidden keys, head
    /// cap or dialect; or it records no layout or a format that is not built in, where one
    /// is needed.
    OtherLayout,
    /// Block `n` (from 1) of the report's text is not what its citation says: its head, its
    /// content or its count.
    EditedBlock(usize),
    /// The report's text is not this layout's rendering of its citations outside any block
    /// (its header, opening, closing, or text after the last block), or its citations are
    /// not numbered 1..n.
    EditedText,
}

impl PreviousTurnReason {
    /// The reason's stable code, in upper snake case: `"SEAL_MISMATCH"`, `"EDITED_BLOCK"`.
    #[must_use]
    pub fn code(self) -> &'static str {
        match self {
            PreviousTurnReason::SealMissing => "SEAL_MISSING",
            PreviousTurnReason::SealMismatch => "SEAL_MISMATCH",
            PreviousTurnReason::OtherTokenizer => "OTHER_TOKENIZER",
            PreviousTurnReason::OtherLayout => "OTHER_LAYOUT",
            PreviousTurnReason::EditedBlock(_) => "EDITED_BLOCK",
            PreviousTurnReason::EditedText => "EDITED_TEXT",
        }
    }

    /// The block an [`EditedBlock`](Self::EditedBlock) names.
    #[must_use]
    pub fn block(self) -> Option<usize> {
        match self {
            PreviousTurnReason::EditedBlock(n) => Some(n),
            _ => None,
        }
    }

    /// Whether the report is not what was written (tampering, or a store that changed it),
    /// as opposed to an assembler configured otherwise since.
    #[must_use]
    pub fn is_edited(self) -> bool {
        matches!(
            self,
            PreviousTurnReason::SealMismatch
                | PreviousTurnReason::EditedBlock(_)
                | PreviousTurnReason::EditedText
        )
    }
}

impl fmt::Display for PreviousTurnReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

//! Where the budget went: the header, the layout, the heads (their metadata apart) and the
//! contents, and what is left free, as shares of the budget with their exact token counts.
//!
//! Each piece is counted alone by the assembler's tokenizer (`machinery::text_parts`). The
//! built-in formats join pieces where counts add up, so the header, the heads and the bodies
//! add up to the text's count exactly. Inside a body, the content is counted alone too; the
//! layout is the rest of the count (the opening and closing, the fences or tags, a cut's
//! mark), so the shares always add up to the count the report gives.

use mentor_context::AssembledContext;
use mentor_context::machinery::TextParts;
use serde::Serialize;

/// One share of the budget.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(super) struct Share {
    /// Its key: the CSS class that colours it, and the name the tests look it up by.
    key: &'static str,
    /// What a reader calls it.
    name: &'static str,
    tokens: usize,
    /// Its part of the budget in percent, to one decimal, as text.
    percent: String,
    /// Its width in the bar, in percent of the bar: the same share, unrounded.
    width: String,
}

/// The bar and its table.
#[derive(Debug, Clone, Serialize)]
pub(super) struct Bar {
    shares: Vec<Share>,
    /// Whether the pieces, counted alone, came to more than the text's count, so that the
    /// layout's share is shown as 0: only a tokenizer whose joins are not exact can do that.
    joins_inexact: bool,
}

/// The shares of `context`'s budget, from its pieces.
pub(super) fn bar(context: &AssembledContext<'_>, parts: &TextParts) -> Bar {
    let header = parts.header.tokens;
    let metadata: usize = parts.blocks.iter().map(|b| b.metadata_tokens).sum();
    let heads: usize = parts
        .blocks
        .iter()
        .map(|b| b.head.tokens - b.metadata_tokens)
        .sum();
    let content: usize = parts.blocks.iter().map(|b| b.content.tokens).sum();
    let counted = header + heads + metadata + content;
    let layout = context.token_count.saturating_sub(counted);
    let free = context.budget.saturating_sub(context.token_count);
    let shares = [
        ("header", "header", header),
        ("layout", "layout", layout),
        ("heads", "heads", heads),
        ("metadata", "metadata", metadata),
        ("content", "content", content),
        ("free", "free", free),
    ]
    .into_iter()
    .map(|(key, name, tokens)| share(key, name, tokens, context.budget))
    .collect();
    Bar {
        shares,
        joins_inexact: counted > context.token_count,
    }
}

/// A share of `tokens` of `whole`.
pub(super) fn share(key: &'static str, name: &'static str, tokens: usize, whole: usize) -> Share {
    Share {
        key,
        name,
        tokens,
        percent: percent(tokens, whole, 1),
        width: percent(tokens, whole, 3),
    }
}

/// `part` over `whole` in percent, to `decimals` places; 0 of an empty whole.
pub(super) fn percent(part: usize, whole: usize, decimals: usize) -> String {
    if whole == 0 {
        return format!("{:.decimals$}", 0.0);
    }
    #[allow(clippy::cast_precision_loss)]
    let share = part as f64 * 100.0 / whole as f64;
    format!("{share:.decimals$}")
}

#[cfg(test)]
mod tests {
    use mentor_context::machinery::text_parts;
    use mentor_context::{ContextBuilder, MentorRagResult};

    use super::*;

    #[test]
    fn the_shares_add_up_to_the_budget_and_the_count() {
        let results = [
            MentorRagResult::from_content("Plan B costs 12 EUR a month.", 0.9)
                .with_title("Prices")
                .with_metadata([("valid from", "2026-01-01")]),
            MentorRagResult::from_content("word ".repeat(200), 0.5).with_title("Long"),
        ];
        let assembler = ContextBuilder::new(120)
            .header("Cite as [n].")
            .build()
            .unwrap();
        let context = assembler.assemble(&results);
        let bar = bar(&context, &text_parts(&assembler, &context).unwrap());
        let tokens = |key: &str| bar.shares.iter().find(|s| s.key == key).unwrap().tokens;
        let used: usize = ["header", "layout", "heads", "metadata", "content"]
            .iter()
            .map(|key| tokens(key))
            .sum();
        assert_eq!(used, context.token_count);
        assert_eq!(used + tokens("free"), 120);
        assert!(tokens("header") > 0 && tokens("metadata") > 0 && tokens("layout") > 0);
        assert!(!bar.joins_inexact);
        assert_eq!(percent(1, 3, 1), "33.3");
        assert_eq!(percent(5, 0, 1), "0.0");
    }
}

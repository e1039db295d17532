//! The choices of the assembler that are named values: what to do with a block that does not
//! fit, with duplicates, and in which order blocks are written. Each reads and writes its
//! name, for command lines and configuration files.

use crate::named_choice::named_choice;

/// How the assembler treats the first block that does not fit in what is left of the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Overflow {
    /// Cut its content to fill the room left (at a grapheme boundary, preferring a sentence or
    /// word end), mark it truncated, and stop. It is left out instead when less than
    /// [`min_truncated_tokens`](crate::ContextBuilder::min_truncated_tokens) of room would be
    /// left for its content.
    #[default]
    Truncate,
    /// Leave it and every lower-ranked block out.
    Stop,
    /// Leave it out and keep trying lower-ranked blocks.
    Skip,
}

impl Overflow {
    /// Every policy, in a fixed order.
    /// A slice, not an array: a new value does not change this constant's type.
    pub const ALL: &[Overflow] = &[Overflow::Truncate, Overflow::Stop, Overflow::Skip];

    /// The policy's name: `"truncate"`, `"stop"` or `"skip"`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Overflow::Truncate => "truncate",
            Overflow::Stop => "stop",
            Overflow::Skip => "skip",
        }
    }
}

/// Which results count as duplicates of a better-ranked one, to be left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Duplicates {
    /// Results with the same source URL and the same content: keep the best-ranked one.
    #[default]
    UrlAndContent,
    /// Results with the same content, whatever their URL (mirrors, syndicated pages): keep
    /// the best-ranked one. Near-duplicates are not looked for: that needs embeddings.
    Content,
    /// Keep them all.
    Keep,
}

impl Duplicates {
    /// Every mode, in a fixed order.
    /// A slice, not an array: a new value does not change this constant's type.
    pub const ALL: &[Duplicates] = &[
        Duplicates::UrlAndContent,
        Duplicates::Content,
        Duplicates::Keep,
    ];

    /// The mode's name: `"url-and-content"`, `"content"` or `"keep"`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Duplicates::UrlAndContent => "url-and-content",
            Duplicates::Content => "content",
            Duplicates::Keep => "keep",
        }
    }
}

/// The order of the blocks in the text. Which results are chosen always follows the ranking
/// by score (and the budget); this only arranges the chosen ones. Citation numbers follow
/// the order in the text, so chip `n` is still marker `[n]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Order {
    /// Best score first.
    #[default]
    Score,
    /// The order of the input: for a caller that has already reranked, and treats the score
    /// as informational.
    AsGiven,
    /// Best at the edges, weakest in the middle, for models that attend less to the middle
    /// of a long context ("lost in the middle"): ranks 1, 3, 5, ... from the start and
    /// ..., 6, 4, 2 towards the end, as LangChain's `LongContextReorder` arranges them.
    Edges,
}

impl Order {
    /// Every order, in a fixed order.
    /// A slice, not an array: a new value does not change this constant's type.
    pub const ALL: &[Order] = &[Order::Score, Order::AsGiven, Order::Edges];

    /// The order's name: `"score"`, `"as-given"` or `"edges"`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Order::Score => "score",
            Order::AsGiven => "as-given",
            Order::Edges => "edges",
        }
    }
}

named_choice!(Overflow, "overflow policy", "truncate, stop or skip");
named_choice!(
    Duplicates,
    "duplicates mode",
    "url-and-content, content or keep",
    legacy: ["urlAndContent" => Duplicates::UrlAndContent]
);
named_choice!(
    Order,
    "order",
    "score, as-given or edges",
    legacy: ["asGiven" => Order::AsGiven]
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_any_case() {
        for &overflow in Overflow::ALL {
            assert_eq!(overflow.to_string().parse::<Overflow>().unwrap(), overflow);
            assert_eq!(
                overflow
                    .as_str()
                    .to_uppercase()
                    .parse::<Overflow>()
                    .unwrap(),
                overflow
            );
        }
        for &duplicates in Duplicates::ALL {
            assert_eq!(
                duplicates.to_string().parse::<Duplicates>().unwrap(),
                duplicates
            );
        }
        assert_eq!(Overflow::Skip.to_string(), "skip");
        for &order in Order::ALL {
            assert_eq!(order.to_string().parse::<Order>().unwrap(), order);
        }
        assert_eq!(Duplicates::Keep.to_string(), "keep");
        assert_eq!(Order::AsGiven.to_string(), "as-given");
        let json = serde_json::to_string(&Duplicates::Content).unwrap();
        assert_eq!(json, r#""content""#);
        assert!("drop".parse::<Duplicates>().is_err());
        assert!(serde_json::from_str::<Duplicates>(r#""drop""#).is_err());
    }

    #[test]
    fn unknown_names_say_what_is_expected() {
        assert_eq!(
            "cut".parse::<Overflow>().unwrap_err().to_string(),
            "unknown overflow policy `cut` (expected truncate, stop or skip)"
        );
        assert_eq!(
            "".parse::<Duplicates>().unwrap_err().to_string(),
            "unknown duplicates mode `` (expected url-and-content, content or keep)"
        );
    }
}

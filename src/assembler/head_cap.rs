//! Keeping a block's head within `max_head_tokens`: the title and metadata values shortened
//! at a grapheme boundary and marked, so one long value cannot push a good result out.
//!
//! The head is what the format writes for the marker, the title and the metadata lines. When
//! it is over the cap, the title comes first: if it does not fit whole on its own, it is cut
//! to the longest prefix that fits and no metadata line is shown. Then come as many metadata
//! lines as fit with their values marked (the others stay on the chip only); then values are
//! shown whole in order while they fit, the first that does not is cut to the longest prefix
//! that fits, and the rest show only the mark. The marker line is never shortened further
//! than `[n] …`, so a cap below what that costs cannot be met.

use unicode_segmentation::GraphemeCursor;

use super::config::Config;
use crate::format::BlockHead;
use crate::rag_result::{MentorRagResult, Metadata};

/// What a shortened value ends with, so a reader sees that something is missing.
pub(super) const MARK: &str = "…";

/// The parts of a head, shortened to fit the cap.
pub(super) struct Shortened {
    title: Option<String>,
    metadata: Metadata,
    /// Never shortened: a format that writes it (a dialect's) writes it whole.
    source_url: Option<String>,
}

impl Shortened {
    /// The title as shortened, if the head has one.
    #[cfg(feature = "unstable_machinery")]
    pub(super) fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The head to write for block `index`.
    pub(super) fn head(&self, index: usize, truncated: bool) -> BlockHead<'_> {
        BlockHead::new(
            index,
            self.title.as_deref(),
            truncated,
            Some(&self.metadata),
            &[],
        )
        .with_source_url(self.source_url.as_deref())
    }
}

/// A head's fields as shown: the display title, then each metadata value shown in the prompt.
struct Fields<'r> {
    title: Option<&'r str>,
    entries: Vec<(&'r str, &'r str)>,
    source_url: Option<&'r str>,
}

/// How much of each field a candidate head keeps, from least to most.
#[derive(Clone, Copy)]
struct Keep {
    /// Metadata entries kept (the others are left out of the prompt).
    entries: usize,
    /// Fields (title first, if any, then kept values) shown whole; the others are marked.
    whole: usize,
    /// Bytes of the first field not shown whole kept before its mark.
    prefix: usize,
}

impl<'r> Fields<'r> {
    fn of(config: &'r Config, result: &'r MentorRagResult) -> Self {
        let head = BlockHead::new(
            0,
            None,
            false,
            result.metadata.as_ref(),
            &config.hidden_keys,
        );
        Fields {
            title: result.display_title(),
            entries: head.metadata().collect(),
            source_url: result.source_url.as_deref(),
        }
    }

    fn values(&self) -> impl Iterator<Item = &'r str> + '_ {
        self.title
            .into_iter()
            .chain(self.entries.iter().map(|&(_, v)| v))
    }

    fn shortened(&self, keep: Keep) -> Shortened {
        let mut values = self.values().enumerate().map(|(i, value)| {
            if i < keep.whole {
                value.to_string()
            } else if i == keep.whole {
                format!("{}{MARK}", value[..keep.prefix].trim_end())
            } else {
                MARK.to_string()
            }
        });
        let title = self.title.and_then(|_| values.next());
        let metadata = self
            .entries
            .iter()
            .zip(values)
            .take(keep.entries)
            .map(|(&(key, _), value)| (key.to_string(), Some(value)))
            .collect();
        Shortened {
            title,
            metadata,
            source_url: self.source_url.map(str::to_string),
        }
    }
}

/// The head of `result` as block `index`, shortened to the cap; `None` when it is not set or
/// the head fits whole.
pub(super) fn shorten(
    config: &Config,
    result: &MentorRagResult,
    index: usize,
    truncated: bool,
) -> Option<Shortened> {
    let cap = config.max_head_tokens?;
    let fields = Fields::of(config, result);
    let limit = value_limit(config, cap);
    let fits = |keep: Keep| fits(config, &fields.shortened(keep), index, truncated, cap);
    let count = fields.values().count();
    // A head of only a marker has nothing to shorten.
    if count == 0 || fits_whole(config, result, &fields, index, truncated, cap) {
        return None;
    }
    let m = fields.entries.len();
    let titled = usize::from(fields.title.is_some());
    // The title first: cut it, with no metadata line, if it does not fit whole alone.
    if let Some(title) = fields.title {
        let alone = Keep {
            entries: 0,
            whole: 1,
            prefix: 0,
        };
        if title.len() > limit || !fits(alone) {
            return Some(fields.shortened(longest_prefix(
                title,
                limit,
                |prefix| Keep {
                    entries: 0,
                    whole: 0,
                    prefix,
                },
                &fits,
            )));
        }
    }
    // Then as many metadata lines as fit with their values marked.
    let marked = |entries| Keep {
        entries,
        whole: titled,
        prefix: 0,
    };
    let entries = last_true(0, m, |e| fits(marked(e)));
    if entries < m {
        return Some(fields.shortened(marked(entries)));
    }
    // Then the most values shown whole, in order, with the rest marked. A value too long to
    // fit whatever the tokenizer does is not tried whole, so nothing unbounded is rendered.
    let first_too_long = fields
        .values()
        .position(|v| v.len() > limit)
        .unwrap_or(count);
    let whole = last_true(titled, first_too_long.min(count - 1), |w| {
        fits(Keep {
            entries: m,
            whole: w,
            prefix: 0,
        })
    });
    // And the longest prefix of the next value that fits.
    let next = fields.values().nth(whole).unwrap_or("");
    Some(fields.shortened(longest_prefix(
        next,
        limit,
        |prefix| Keep {
            entries: m,
            whole,
            prefix,
        },
        &fits,
    )))
}

/// The `Keep` with the longest prefix of `value` (at a grapheme boundary, at most `limit`
/// bytes) that fits.
fn longest_prefix(
    value: &str,
    limit: usize,
    keep: impl Fn(usize) -> Keep,
    fits: &impl Fn(Keep) -> bool,
) -> Keep {
    let value = &value[..floor_grapheme(value, limit.min(value.len()))];
    let boundaries = grapheme_boundaries(value);
    let best = last_true(0, boundaries.len() - 1, |b| fits(keep(boundaries[b])));
    keep(boundaries[best])
}

/// Whether the head fits whole. A value longer than [`value_limit`] cannot, and is not
/// rendered: a megabyte title costs nothing here.
fn fits_whole(
    config: &Config,
    result: &MentorRagResult,
    fields: &Fields<'_>,
    index: usize,
    truncated: bool,
    cap: usize,
) -> bool {
    let limit = value_limit(config, cap);
    if fields.values().any(|v| v.len() > limit) {
        return false;
    }
    let mut text = String::new();
    let head = BlockHead::new(
        index,
        fields.title,
        truncated,
        result.metadata.as_ref(),
        &config.hidden_keys,
    )
    .with_source_url(fields.source_url);
    config.format.head(&head, &mut text);
    within(config, &text, cap)
}

fn fits(config: &Config, shortened: &Shortened, index: usize, truncated: bool, cap: usize) -> bool {
    let mut text = String::new();
    config
        .format
        .head(&shortened.head(index, truncated), &mut text);
    within(config, &text, cap)
}

/// Whether `head` takes at most `cap` tokens. A token spans at most `max_token_bytes`, so a
/// longer text is over without being counted.
fn within(config: &Config, head: &str, cap: usize) -> bool {
    let tokenizer = &*config.tokenizer;
    head.len() <= cap.saturating_mul(tokenizer.max_token_bytes()) && tokenizer.count(head) <= cap
}

/// The longest value that could fit in `cap` tokens, whatever whitespace it loses on the way:
/// generous, since line breaks collapse.
fn value_limit(config: &Config, cap: usize) -> usize {
    cap.saturating_add(1)
        .saturating_mul(config.tokenizer.max_token_bytes())
        .saturating_mul(2)
}

/// The largest `i` in `lo..=hi` for which `ok(i)` holds, assuming it holds up to some point
/// and not after; `lo` if none does beyond it. Only values tested true are returned (or `lo`).
fn last_true(lo: usize, hi: usize, mut ok: impl FnMut(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (lo, hi);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if ok(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// The grapheme boundaries of `text`, from 0 to its length.
fn grapheme_boundaries(text: &str) -> Vec<usize> {
    let mut cursor = GraphemeCursor::new(0, text.len(), true);
    let mut boundaries = vec![0];
    while let Ok(Some(next)) = cursor.next_boundary(text, 0) {
        boundaries.push(next);
    }
    boundaries
}

/// The last grapheme boundary of `text` at or before `at`.
fn floor_grapheme(text: &str, at: usize) -> usize {
    let at = text.floor_char_boundary(at);
    let mut cursor = GraphemeCursor::new(at, text.len(), true);
    if cursor.is_boundary(text, 0).unwrap_or(false) {
        at
    } else {
        cursor.prev_boundary(text, 0).ok().flatten().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ContextBuilder;
    use crate::format::PlainFormat;

    /// The head of `result` as block 1, and whether it was shortened, as the assembler
    /// writes it.
    fn head(config: &Config, result: &MentorRagResult) -> (String, bool) {
        let mut out = String::new();
        let shortened = crate::assembler::head::write_head(config, result, 1, false, &mut out);
        (out, shortened)
    }

    #[test]
    fn a_head_that_fits_is_left_whole() {
        let config = ContextBuilder::new(100).max_head_tokens(20).config();
        let r = MentorRagResult::from_content("x", 1.0)
            .with_title("Prices")
            .with_metadata([("k", "v")]);
        assert_eq!(head(&config, &r), ("[1] Prices\nk: v\n".to_string(), false));
    }

    #[test]
    fn a_long_value_is_cut_to_fit_and_marked() {
        let config = ContextBuilder::new(100)
            .format(PlainFormat)
            .max_head_tokens(12)
            .config();
        let long = "word ".repeat(5000);
        let r = MentorRagResult::from_content("x", 1.0)
            .with_title("Prices")
            .with_metadata([("summary", long.as_str()), ("lang", "en")]);
        let (text, shortened) = head(&config, &r);
        assert!(shortened);
        assert!(config.tokenizer.count(&text) <= 12, "{text:?}");
        assert!(text.starts_with("[1] Prices\nsummary: word"), "{text:?}");
        assert!(text.contains("…\nlang: …\n"), "{text:?}");
        // The longest prefix: one more word would not fit.
        let kept = text.matches("word").count();
        let longer = format!(
            "[1] Prices\nsummary: {}…\nlang: …\n",
            "word ".repeat(kept + 1).trim_end()
        );
        assert!(config.tokenizer.count(&longer) > 12);
    }

    #[test]
    fn titles_are_cut_at_grapheme_boundaries() {
        let config = ContextBuilder::new(100).max_head_tokens(6).config();
        let r = MentorRagResult::from_content("x", 1.0).with_title("e\u{301}".repeat(400));
        let (text, shortened) = head(&config, &r);
        assert!(shortened);
        let title = text
            .strip_prefix("[1] ")
            .and_then(|t| t.strip_suffix("…\n"))
            .unwrap();
        assert!(
            !title.is_empty() && title.len().is_multiple_of(3),
            "{text:?}"
        );
        assert!(config.tokenizer.count(&text) <= 6);
    }

    #[test]
    fn the_title_comes_before_metadata_lines() {
        let config = ContextBuilder::new(100).max_head_tokens(8).config();
        let r = MentorRagResult::from_content("x", 1.0)
            .with_title("Subscription plans and prices for every region")
            .with_metadata([("valid from", "2026-01-01"), ("currency", "EUR")]);
        let (text, shortened) = head(&config, &r);
        assert!(shortened);
        assert!(text.starts_with("[1] Subscription plans"), "{text:?}");
        assert!(text.ends_with("…\n") && !text.contains("valid"), "{text:?}");
        assert!(config.tokenizer.count(&text) <= 8);
        // With room for the title, the keys come next, values marked.
        let config = ContextBuilder::new(100).max_head_tokens(20).config();
        let (text, _) = head(&config, &r);
        assert!(
            text.starts_with("[1] Subscription plans and prices for every region\nvalid from: "),
            "{text:?}"
        );
    }

    #[test]
    fn many_keys_leave_trailing_lines_out() {
        let config = ContextBuilder::new(100).max_head_tokens(10).config();
        let entries: Vec<(String, String)> = (0..2000)
            .map(|i| (format!("key{i}"), format!("value {i}")))
            .collect();
        let r = MentorRagResult::from_content("x", 1.0).with_metadata(entries);
        let (text, shortened) = head(&config, &r);
        assert!(shortened);
        assert!(config.tokenizer.count(&text) <= 10, "{text:?}");
        assert!(text.starts_with("[1]\nkey0: …\n"), "{text:?}");
    }

    #[test]
    fn a_cap_below_the_marker_keeps_the_marker() {
        let config = ContextBuilder::new(100).max_head_tokens(1).config();
        let r = MentorRagResult::from_content("x", 1.0).with_title("Title");
        assert_eq!(head(&config, &r), ("[1] …\n".to_string(), true));
    }
}

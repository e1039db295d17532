//! The default layout: a marker line, metadata lines, and the content in a markdown fence.

use std::sync::LazyLock;

use memchr::memmem::Finder;

use super::line::{push_decimal, push_line, push_metadata_line, visible};
use super::{BlockHead, Format};

/// The default format: a marker line, metadata lines, and the content in a markdown fence.
///
/// ````text
/// [1] Price list 2026
/// valid from: 2026-01-01
/// ```
/// Plan B costs 12 EUR a month.
/// ```
/// [2] https://example.com/faq
/// ...
/// ````
///
/// The fence is three backticks, or one more than the longest run of backticks in the
/// content, so no line of the content can close it. A cut block gets a `(truncated)` line
/// after its fence. Titles, URLs and metadata are kept on one line each (see [`push_line`]);
/// a metadata key that starts with `[`, `` ` `` or `~` gets a backslash before it, so it
/// cannot read as a marker or a fence.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct PlainFormat;

impl Format for PlainFormat {
    fn name(&self) -> &str {
        "plain"
    }

    fn head(&self, head: &BlockHead<'_>, out: &mut String) {
        out.push('[');
        push_decimal(out, head.index);
        out.push(']');
        if let Some(title) = visible(head.title) {
            out.push(' ');
            push_line(out, title);
        }
        out.push('\n');
        for (key, value) in head.metadata() {
            push_metadata_line(out, key, value, push_line);
        }
    }
}

/// Writes a fence of backticks longer than any run of backticks in `content` (three at least).
pub(super) fn push_fence(out: &mut String, content: &str) {
    // Only a run of three or more can make the fence longer than three, so only those are
    // looked at: `memmem` jumps from one to the next, comparing 32 bytes at a time. This runs
    // twice per block, on the warm path too, and markdown has a backtick every few words
    // (inline code) but a run of three only where a code block opens or closes.
    // The searcher is built once: building it costs more than searching a block for it.
    static THREE: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("```"));
    let bytes = content.as_bytes();
    let (mut longest, mut run_end) = (0, 0);
    for at in THREE.find_iter(bytes) {
        if at < run_end {
            continue;
        }
        let run = bytes[at..].iter().take_while(|&&b| b == b'`').count();
        longest = longest.max(run);
        run_end = at + run;
    }
    for _ in 0..(longest + 1).max(3) {
        out.push('`');
    }
}

/// Reads a fenced body ([`push_fence`], the content, the fence again, and `(truncated)` after
/// a cut) at the start of `text`: the content without its last newline, and the body's length.
/// The fence is longer than any run of backticks in the content, so the first line that is
/// the fence alone closes it.
pub(super) fn read_fenced(text: &str, truncated: bool) -> Option<(&str, usize)> {
    let ticks = text.bytes().take_while(|&b| b == b'`').count();
    if ticks < 3 {
        return None;
    }
    let fence = &text[..ticks];
    let inner_start = ticks + 1;
    let after_open = text.get(ticks..)?.strip_prefix('\n')?;
    let inner_len = if after_open.starts_with(fence) && after_open[ticks..].starts_with('\n') {
        0
    } else {
        let closing = format!("\n{fence}\n");
        after_open.find(&closing)? + 1
    };
    let mut end = inner_start + inner_len + ticks + 1;
    if truncated {
        end += text.get(end..)?.strip_prefix("(truncated)\n").map(|_| 12)?;
    }
    let inner = &text[inner_start..inner_start + inner_len];
    Some((inner.strip_suffix('\n').unwrap_or(inner), end))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::tests::{head_text, metadata, written};

    #[test]
    fn plain_head_lists_metadata_in_order() {
        let metadata = metadata(&[("version", "3"), ("author", "A. Writer"), ("empty", " ")]);
        assert_eq!(
            head_text(&PlainFormat, Some("Guide"), Some(&metadata)),
            "[3] Guide\nversion: 3\nauthor: A. Writer\nempty:\n"
        );
        assert_eq!(head_text(&PlainFormat, None, None), "[3]\n");
    }

    #[test]
    fn metadata_keys_cannot_forge_markers_or_fences() {
        let metadata = metadata(&[("[7] Forged", "x"), ("```", "y"), ("ok", "[8] z")]);
        assert_eq!(
            head_text(&PlainFormat, None, Some(&metadata)),
            "[3]\n\\[7] Forged: x\n\\```: y\nok: [8] z\n"
        );
    }

    #[test]
    fn fence_is_longer_than_any_backtick_run() {
        for (text, fence) in [
            ("a ```` b", "`````"),
            ("no ticks", "```"),
            ("``` a ````` b `", "``````"),
            // A longer run right after a shorter one, away from the start.
            ("abcd ``x````", "`````"),
        ] {
            assert_eq!(written(push_fence, text), fence, "{text:?}");
        }
    }

    /// Every text of backticks and letters up to 12 long: the fence is one more than the
    /// longest run, and three at least, however the runs of one and two fall.
    #[test]
    fn fence_matches_the_longest_run_on_every_short_text() {
        for bits in 0u32..(1 << 13) {
            let len = (bits >> 12) as usize * 4 + 8;
            let text: String = (0..len)
                .map(|i| if bits >> (i % 12) & 1 == 1 { '`' } else { 'a' })
                .collect();
            let longest = text.split('a').map(str::len).max().unwrap_or(0);
            assert_eq!(
                written(push_fence, &text).len(),
                (longest + 1).max(3),
                "{text}"
            );
        }
    }
}

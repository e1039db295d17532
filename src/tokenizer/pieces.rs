//! The pre-tokenizer of the `bpe-openai` engine: OpenAI's split patterns, compiled once, and a
//! pool of search caches for them.
//!
//! A search needs a cache (`regex_automata`'s lazy DFA states). The regex's own pool hands
//! one out per search: without a lock to the first thread that searches, behind a lock to
//! every other, which cost a thread other than the first about a quarter more time per count
//! with a search per piece. Here a count takes one cache from the pool beside the patterns for
//! all its pieces, on any thread. The pool is scratch, not state: any cache finds the same
//! pieces, so no count depends on what another thread or an earlier call left in it (issue 48:
//! the library keeps no global mutable state; `tests/library/global_state.rs` allows this
//! pool, and nothing else that changes after it is built).
//!
//! The patterns and the look-ahead emulation are those of `bpe-openai` 0.3.2 (its `lib.rs`):
//! `\s+(?!\S)` cannot be written for a regex engine without look-around, so a pattern `\s+\s`
//! is tried before `\s+` and gives back its last character. `tests/library/engines.rs` holds the counts
//! to tiktoken-rs's, token for token, on every fixture and on random Unicode.

use std::panic::{RefUnwindSafe, UnwindSafe};
use std::sync::LazyLock;

use regex_automata::meta::{Cache, Regex};
use regex_automata::util::pool::Pool;
use regex_automata::{Anchored, Input};

use super::Encoding;

/// The index, among each encoding's three patterns, of `\s+\s`: the one whose last character
/// is a look-ahead, given back to the next piece.
const LOOK_AHEAD_PATTERN: usize = 1;

/// Makes a search cache for the patterns.
type MakeCache = Box<dyn Fn() -> Cache + Send + Sync + UnwindSafe + RefUnwindSafe>;

/// An encoding's split patterns, and a pool of search caches for them: one taken per count.
struct Splitter {
    regex: Regex,
    caches: Pool<Cache, MakeCache>,
}

/// The split patterns of an encoding: its own `first`, then `\s+\s` and `\s+`.
///
/// # Panics
///
/// If a pattern does not compile; they are constants, and every test compiles them.
fn split_patterns(first: &str) -> Splitter {
    let regex =
        Regex::new_many(&[first, "\\s+\\s", "\\s+"]).expect("OpenAI's split patterns compile");
    let made_from = regex.clone();
    Splitter {
        regex,
        caches: Pool::new(Box::new(move || made_from.create_cache())),
    }
}

static CL100K_BASE: LazyLock<Splitter> = LazyLock::new(|| {
    split_patterns(
        "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+$",
    )
});

static O200K_BASE: LazyLock<Splitter> = LazyLock::new(|| {
    split_patterns(
        &[
            "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
            "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
            "\\p{N}{1,3}",
            " ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*",
            "\\s*[\\r\\n]+",
            "\\s+$",
        ]
        .join("|"),
    )
});

/// Calls `each` with every piece of `text`, in order, as `encoding`'s pre-tokenizer splits
/// it.
///
/// # Panics
///
/// If `encoding` is not one that `bpe-openai` ships; the engine checks that first.
pub(super) fn for_each_piece(encoding: Encoding, text: &str, each: impl FnMut(&str)) {
    let splitter = match encoding {
        Encoding::Cl100kBase => &*CL100K_BASE,
        Encoding::O200kBase => &*O200K_BASE,
        other => unreachable!("bpe-openai has no {other}; OpenAiTokenizer::new checks"),
    };
    let mut cache = splitter.caches.get();
    split(&splitter.regex, &mut cache, text, each);
}

/// The loop of [`for_each_piece`], with the cache to search with.
fn split(regex: &Regex, cache: &mut Cache, text: &str, mut each: impl FnMut(&str)) {
    let mut start = 0;
    while start < text.len() {
        let input = Input::new(&text[start..]).anchored(Anchored::Yes);
        // Every character starts a piece: `\s+`, the punctuation pattern and the letter
        // patterns together cover all of Unicode, so an anchored search always matches.
        let Some(found) = regex.search_with(cache, &input) else {
            each(&text[start..]);
            return;
        };
        let mut end = start + found.end();
        if found.pattern().as_usize() == LOOK_AHEAD_PATTERN {
            let last = text[start..end]
                .chars()
                .next_back()
                .map_or(0, char::len_utf8);
            // `\s+\s` matches two characters at least, so one is left.
            end -= last;
        }
        if end == start {
            // Unreachable with these patterns; never loop on an empty piece.
            end = text[start..]
                .chars()
                .next()
                .map_or(text.len(), |c| start + c.len_utf8());
        }
        each(&text[start..end]);
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(encoding: Encoding, text: &str) -> Vec<String> {
        let mut pieces = Vec::new();
        for_each_piece(encoding, text, |piece| pieces.push(piece.to_owned()));
        pieces
    }

    #[test]
    fn whitespace_before_a_word_gives_back_its_last_space() {
        for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
            assert_eq!(pieces(encoding, "a   b"), ["a", "  ", " b"]);
            assert_eq!(pieces(encoding, "a  "), ["a", "  "]);
        }
    }

    #[test]
    fn pieces_join_up_to_the_text_on_any_thread_and_when_nested() {
        let text = "Plan B: 12345 EUR\u{200b}\n\n  /x ［1］ 東京 مرحبا 👍🏽 it's";
        for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
            let here = pieces(encoding, text);
            assert_eq!(here.concat(), text);
            assert!(here.iter().all(|piece| !piece.is_empty()));
            let there = std::thread::scope(|s| s.spawn(|| pieces(encoding, text)).join());
            assert_eq!(there.ok(), Some(here.clone()));
            // A split inside a split takes a cache of its own from the pool.
            let mut nested = Vec::new();
            for_each_piece(encoding, text, |piece| {
                nested.extend(pieces(encoding, piece));
            });
            assert_eq!(nested.concat(), text);
        }
    }
}

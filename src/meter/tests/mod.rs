//! The meter against recounts, with every kind of tokenizer it meets: the default engine
//! (no limit per call), the reference engine, and tokenizers that take only 64 or 1,000 bytes a
//! call, so that the chunked paths (counting, measuring and re-tokenizing from a checkpoint
//! in calls that meet at exact split points) run on texts of a few kilobytes.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;
use crate::Encoding;
use crate::tokenizer::{Engine, TokenCache};

mod chunks;
mod walk;

/// A tokenizer that promises to take at most `cap` bytes a call, and records the longest
/// call it was given.
struct Capped {
    inner: Encoding,
    cap: usize,
    longest_call: AtomicUsize,
}

impl Capped {
    fn new(inner: Encoding, cap: usize) -> Self {
        Capped {
            inner,
            cap,
            longest_call: AtomicUsize::new(0),
        }
    }

    fn called(&self, text: &str) {
        self.longest_call.fetch_max(text.len(), Ordering::Relaxed);
    }

    /// The meter keeps to the cap, but for a cut's frame after a capped stretch.
    fn check_calls(&self) {
        let longest = self.longest_call.load(Ordering::Relaxed);
        assert!(
            longest <= self.cap + FRAME_SLACK_BYTES,
            "a call of {longest} bytes, cap {}",
            self.cap
        );
    }
}

impl TokenCounter for Capped {
    fn name(&self) -> &str {
        "capped"
    }
    fn token_lengths(&self, text: &str, lengths: &mut Vec<u32>) {
        self.called(text);
        self.inner.token_lengths(text, lengths);
    }
    fn count(&self, text: &str) -> usize {
        self.called(text);
        self.inner.count(text)
    }
    fn splits_exactly(&self, text: &str, at: usize) -> bool {
        self.inner.splits_exactly(text, at)
    }
    fn max_token_bytes(&self) -> usize {
        self.inner.max_token_bytes()
    }
    fn max_call_bytes(&self) -> usize {
        self.cap
    }
}

/// Runs `check` with each kind of tokenizer for the meter, for both encodings, and the
/// encoding itself to recount with; then checks the capped ones kept to their caps.
fn with_every_tokenizer(check: impl Fn(&dyn TokenCounter, &Encoding)) {
    for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
        check(&encoding, &encoding);
        check(&encoding.with_engine(Engine::Tiktoken).unwrap(), &encoding);
        for cap in [MIN_CHUNK_BYTES, 1000] {
            let capped = Capped::new(encoding, cap);
            check(&capped, &encoding);
            capped.check_calls();
        }
    }
}

#[test]
fn count_adds_up_over_calls_of_any_cap() {
    let text = "The quick brown fox jumps over the lazy dog. Prices: 12.50 EUR.\n\
                東京の天気は晴れです。 مرحبا بالعالم 👍🏽\n"
        .repeat(150);
    with_every_tokenizer(|tokenizer, reference| {
        let mut meter = Meter::new(tokenizer, None);
        let counted = meter.count(&text);
        assert_eq!(
            counted,
            Some(reference.count(&text)),
            "{}",
            tokenizer.name()
        );
        // Each byte is tokenized once.
        assert_eq!(meter.bytes_tokenized, text.len(), "{}", tokenizer.name());
    });
}

#[test]
fn a_stretch_longer_than_the_cap_without_a_split_point_cannot_be_counted() {
    let tokenizer = Capped::new(Encoding::O200kBase, MIN_CHUNK_BYTES);
    let mut meter = Meter::new(&tokenizer, None);
    let text = format!("word {} word", "x".repeat(MIN_CHUNK_BYTES + 1));
    assert_eq!(meter.count(&text), None);
    let fits = format!("word {} word", "x".repeat(MIN_CHUNK_BYTES - 8));
    assert_eq!(meter.count(&fits), Some(Encoding::O200kBase.count(&fits)));
    // Exactly the cap, with no split point: one call takes it.
    let whole = "x".repeat(MIN_CHUNK_BYTES);
    assert_eq!(meter.count(&whole), Some(Encoding::O200kBase.count(&whole)));
    tokenizer.check_calls();
}

#[test]
fn measure_matches_count_when_it_fits() {
    let text = "The quick brown fox jumps over the lazy dog. ".repeat(200);
    with_every_tokenizer(|tokenizer, reference| {
        let n = reference.count(&text);
        let mut meter = Meter::new(tokenizer, None);
        assert_eq!(
            meter.measure(&text, n, None),
            Some(n),
            "{}",
            tokenizer.name()
        );
        let mut meter = Meter::new(tokenizer, None);
        assert_eq!(meter.measure(&text, n - 1, None), None);
    });
}

#[test]
fn checkpoints_are_exact_splits_about_every_32_tokens_within_the_room() {
    // Long rare words: many token ends fall inside a word, where no split is exact.
    let text = "Antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis, \
                floccinaucinihilipilification 12345678 "
        .repeat(100);
    with_every_tokenizer(|tokenizer, reference| {
        let name = tokenizer.name();
        for room in [50, 200, 700] {
            let mut meter = Meter::new(tokenizer, None);
            assert_eq!(meter.measure(&text, room, None), None);
            let checkpoints = meter.checkpoints.as_slice();
            for c in checkpoints {
                assert!(c.tokens <= room, "{name} room {room}: {c:?} past the room");
                assert!(
                    c.at == 0 || tokenizer.splits_exactly(&text, c.at),
                    "{name} room {room}: {c:?} is no exact split"
                );
                assert_eq!(reference.count(&text[..c.at]), c.tokens);
            }
            // One every 32 tokens, plus the chunk ends: not one at every token end. Calls of a
            // capped tokenizer end chunks more often.
            let bound = if tokenizer.max_call_bytes() < text.len() {
                room / 8 + 4
            } else {
                room / CHECKPOINT_EVERY + 4
            };
            assert!(
                checkpoints.len() <= bound,
                "{name} room {room}: {} checkpoints",
                checkpoints.len()
            );
            assert!(checkpoints.len() >= room / CHECKPOINT_EVERY / 2);
        }
    });
}

#[test]
fn token_end_finds_every_token_end_aiming_lower() {
    let text = "The quick brown fox jumps over the lazy dog, again and again. ".repeat(60);
    with_every_tokenizer(|tokenizer, reference| {
        let mut lengths = Vec::new();
        reference.token_lengths(&text, &mut lengths);
        let ends: Vec<usize> = std::iter::once(0)
            .chain(lengths.iter().scan(0, |at, &len| {
                *at += len as usize;
                Some(*at)
            }))
            .collect();
        let room = 300;
        let mut meter = Meter::new(tokenizer, None);
        assert_eq!(meter.measure(&text, room, None), None);
        // Each call asks for no more than the one before, as the cut's do: from the measured
        // end back to the start, re-tokenizing the stretches before it one by one.
        for n in (0..room).rev().step_by(3) {
            assert_eq!(
                meter.token_end(&text, n),
                ends[n],
                "{}: token {n}",
                tokenizer.name()
            );
        }
        let checkpoints = meter.checkpoints.as_slice();
        assert!(checkpoints.windows(2).all(|pair| pair[0].at < pair[1].at));
    });
}

#[test]
fn count_reusing_agrees_with_a_recount_of_the_cut_text() {
    let measured = "The quick brown fox jumps over the lazy dog, again and again. ".repeat(60);
    with_every_tokenizer(|tokenizer, reference| {
        let mut meter = Meter::new(tokenizer, None);
        assert_eq!(meter.measure(&measured, 300, None), None);
        // Texts that share a prefix with what was measured, then differ: a cut and its close.
        for keep in [0, 5, 63, 64, 65, 400, 1000, 1200] {
            let text = format!("{}\n```\n", &measured[..keep]);
            assert_eq!(
                meter.count_reusing(&measured, &text),
                Some(reference.count(&text)),
                "{}: keep {keep}",
                tokenizer.name()
            );
        }
    });
}

#[test]
fn measure_stops_near_the_room() {
    let text = "The quick brown fox jumps over the lazy dog. ".repeat(2000);
    with_every_tokenizer(|tokenizer, _| {
        let mut meter = Meter::new(tokenizer, None);
        assert_eq!(meter.measure(&text, 100, None), None);
        // 100 tokens are about 450 bytes; the meter may look one chunk further.
        assert!(
            meter.bytes_tokenized < 1000,
            "{}: {}",
            tokenizer.name(),
            meter.bytes_tokenized
        );
    });
}

#[test]
fn the_count_at_a_mark_is_seen_whatever_the_room() {
    // Ten one-token words: the mark after the tenth is at, past or before the room.
    let text = "word ".repeat(100);
    let mark = "word ".repeat(10).len() - 1;
    with_every_tokenizer(|tokenizer, reference| {
        assert_eq!(reference.count(&text[..mark]), 10);
        for room in [9, 10, 11] {
            let mut meter = Meter::new(tokenizer, None);
            assert_eq!(meter.measure(&text, room, Some(mark)), None);
            // The count at the mark was seen, in a checkpoint or in the tokens measured.
            assert_eq!(
                meter.rebase(&text, mark),
                Some(10),
                "{} room {room}",
                tokenizer.name()
            );
        }
    });
}

/// Measuring with a cache: what one request learns, the next reuses, with the same answers.
#[test]
fn a_cache_carries_what_was_measured_to_the_next_request() {
    let text = "The quick brown fox jumps over the lazy dog, again and again. ".repeat(60);
    with_every_tokenizer(|tokenizer, reference| {
        let name = tokenizer.name();
        let total = reference.count(&text);
        let cache = TokenCache::new(1 << 20);
        let measure = |room: usize| {
            let mut meter = Meter::new(tokenizer, Some(&cache));
            let measured = meter.measure(&text, room, None);
            (measured, meter.bytes_tokenized)
        };
        // Overflowing at 100 tokens: the checkpoints up to there are kept.
        let (first, cold_bytes) = measure(100);
        assert_eq!(first, None);
        // At 300 tokens it resumes from the last of them, and learns more.
        let (second, bytes) = measure(300);
        assert_eq!(second, None);
        assert!(
            bytes < cold_bytes * 3,
            "{name}: {bytes} bytes at 300 tokens"
        );
        // Again at 300: only the stretch after the last checkpoint within 300 tokens.
        let (third, bytes) = measure(300);
        assert_eq!(third, None);
        assert!(
            bytes < cold_bytes / 2,
            "{name}: {bytes} bytes again at 300 tokens"
        );
        // The whole text fits: counted once, then known without tokenizing.
        assert_eq!(measure(total).0, Some(total), "{name}");
        assert_eq!(measure(total), (Some(total), 0), "{name}");
        // One token short, with every known checkpoint within the room: it resumes from the
        // last of them and finds the text does not fit.
        let (short, bytes) = measure(total - 1);
        assert_eq!(short, None, "{name}");
        assert!(
            bytes < cold_bytes / 2,
            "{name}: {bytes} bytes one token short"
        );
    });
}

/// A recount files its total with no checkpoint but the start; measuring the same text in a
/// smaller room starts from there (cut.rs recounts a cut block's body; another request's
/// result can be that very text).
#[test]
fn a_recounted_text_is_measured_again_from_the_start() {
    let text = "The quick brown fox jumps over the lazy dog, again and again. ".repeat(20);
    with_every_tokenizer(|tokenizer, reference| {
        let total = reference.count(&text);
        let cache = TokenCache::new(1 << 20);
        let mut meter = Meter::new(tokenizer, Some(&cache));
        assert_eq!(meter.count_reusing("", &text), Some(total));
        let mut meter = Meter::new(tokenizer, Some(&cache));
        assert_eq!(
            meter.measure(&text, total - 1, None),
            None,
            "{}",
            tokenizer.name()
        );
        let mut meter = Meter::new(tokenizer, Some(&cache));
        assert_eq!(meter.measure(&text, total, None), Some(total));
        assert_eq!(meter.bytes_tokenized, 0);
    });
}

/// One token per `char` and no split it vouches for: every measure goes through `probe`.
struct CharsWithoutSplits;

impl TokenCounter for CharsWithoutSplits {
    fn name(&self) -> &str {
        "chars"
    }
    fn token_lengths(&self, text: &str, lengths: &mut Vec<u32>) {
        lengths.extend(text.chars().map(|c| c.len_utf8() as u32));
    }
}

/// Without split points the meter probes ever longer prefixes; it stops at the first one that
/// overflows the room, so the cost follows the room, not the text.
#[test]
fn probing_stops_at_the_first_prefix_that_overflows() {
    let text = "abcdefghij".repeat(20_000);
    for room in [10, 100, 1000] {
        let mut meter = Meter::new(&CharsWithoutSplits, None);
        assert_eq!(meter.measure(&text, room, None), None);
        let first_probe = (room * CHUNK_BYTES_PER_TOKEN).max(MIN_CHUNK_BYTES);
        assert_eq!(meter.bytes_tokenized, first_probe, "room {room}");
    }
    // Short enough to fit: probes grow until the whole text is seen.
    let short = "abcdefghij".repeat(30);
    let mut meter = Meter::new(&CharsWithoutSplits, None);
    assert_eq!(meter.measure(&short, 300, None), Some(300));
    assert_eq!(meter.measure(&short, 299, None), None);
}

/// One token per word and one per space, and no split it vouches for: long tokens, so that a
/// text can be longer than the first probe and still fit.
struct WordsWithoutSplits;

impl TokenCounter for WordsWithoutSplits {
    fn name(&self) -> &str {
        "words"
    }
    fn token_lengths(&self, text: &str, lengths: &mut Vec<u32>) {
        let mut word = 0;
        for c in text.chars() {
            if c == ' ' {
                if word > 0 {
                    lengths.push(word);
                }
                lengths.push(1);
                word = 0;
            } else {
                word += c.len_utf8() as u32;
            }
        }
        if word > 0 {
            lengths.push(word);
        }
    }
}

#[test]
fn probing_finds_a_text_that_fits_exactly() {
    // 200 tokens in 1,100 bytes: more than the first probe takes for a room of 200.
    let text = "abcdefghij ".repeat(100);
    assert!(text.len() > 200 * CHUNK_BYTES_PER_TOKEN);
    let mut meter = Meter::new(&WordsWithoutSplits, None);
    assert_eq!(meter.measure(&text, 200, None), Some(200));
    let mut meter = Meter::new(&WordsWithoutSplits, None);
    assert_eq!(meter.measure(&text, 199, None), None);
    // A long text whose first probe fits: the next is four times longer, not the call cap.
    let long = "abcdefghij ".repeat(10_000);
    let mut meter = Meter::new(&WordsWithoutSplits, None);
    assert_eq!(meter.measure(&long, 200, None), None);
    let first_probe = 200 * CHUNK_BYTES_PER_TOKEN;
    assert_eq!(meter.bytes_tokenized, first_probe * 5);
}

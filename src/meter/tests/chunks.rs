//! How much the meter tokenizes at a time, and what one measure leaves for the next: the
//! chunk sized by the bytes per token seen, the buffer of token lengths kept, nothing of an
//! earlier text used for a cut.

use super::*;

/// The tokenizer of `encoding` counted by `engine`, which ships it.
fn shipped(encoding: Encoding, engine: Engine) -> impl TokenCounter {
    encoding.with_engine(engine).expect("ships")
}

/// Two bytes a token, and an exact split after every token: text far denser than the meter's
/// first guess of [`CHUNK_BYTES_PER_TOKEN`].
struct Pairs;

impl TokenCounter for Pairs {
    fn name(&self) -> &str {
        "pairs"
    }
    fn token_lengths(&self, text: &str, lengths: &mut Vec<u32>) {
        lengths.extend(text.as_bytes().chunks(2).map(|pair| pair.len() as u32));
    }
    fn splits_exactly(&self, _text: &str, at: usize) -> bool {
        at.is_multiple_of(2)
    }
}

/// The first chunks are sized by the fixed guess; once the meter has seen
/// [`MIN_SEEN_TOKENS`], by the bytes per token it saw, a tenth over: a block that overflows is
/// tokenized little past the room, not two and a half times as far.
#[test]
fn chunks_follow_the_bytes_per_token_seen() {
    let text = "ab".repeat(5_000);
    let room = 200;
    let mut meter = Meter::new(&Pairs, None);
    assert_eq!(meter.measure(&text, room, None), None);
    // Nothing seen yet: five bytes a token, to the last exact split before that.
    assert_eq!(meter.bytes_tokenized, room * CHUNK_BYTES_PER_TOKEN - 2);
    assert!(meter.tokens_seen >= MIN_SEEN_TOKENS);
    let before = meter.bytes_tokenized;
    assert_eq!(meter.measure(&text, room, None), None);
    // Two bytes a token seen, 2.2 with the margin.
    assert_eq!(
        meter.bytes_tokenized - before,
        room * 2 * SEEN_MARGIN_TENTHS / 10 - 2
    );
    // The count is exact whatever the chunks.
    assert_eq!(meter.measure(&text[..2 * room], room, None), Some(room));
}

/// Tokens that were only counted (a block that fits) count as seen too.
#[test]
fn counted_tokens_are_seen() {
    let text = "ab".repeat(5_000);
    let mut meter = Meter::new(&Pairs, None);
    // Just enough tokens to go by, in bytes few enough to fit the room by their length
    // alone, so they are counted.
    let seen = 2 * MIN_SEEN_TOKENS;
    assert_eq!(
        meter.measure(&text[..seen], seen, None),
        Some(MIN_SEEN_TOKENS)
    );
    assert_eq!(meter.bytes_tokenized, seen);
    assert_eq!(meter.measure(&text, 200, None), None);
    assert_eq!(
        meter.bytes_tokenized - seen,
        200 * 2 * SEEN_MARGIN_TENTHS / 10 - 2
    );
}

/// Text sparser than the fixed guess does not make chunks longer than it: they stay in
/// proportion to the room.
#[test]
fn sparse_text_seen_keeps_the_fixed_guess() {
    let sparse = format!("{}{}", " ".repeat(3_000), "ab".repeat(50));
    let tokenizer = shipped(Encoding::Cl100kBase, Engine::BpeOpenai);
    let mut meter = Meter::new(&tokenizer, None);
    let total = meter.count(&sparse).expect("counts");
    assert!(
        sparse.len() / total > CHUNK_BYTES_PER_TOKEN,
        "{total} tokens"
    );
    meter.tokens_seen = MIN_SEEN_TOKENS;
    let text = "ab".repeat(5_000);
    let before = meter.bytes_tokenized;
    assert_eq!(meter.measure(&text, 100, None), None);
    assert!(meter.bytes_tokenized - before <= 100 * CHUNK_BYTES_PER_TOKEN + 8);
}

/// A meter measures every block of an assembly: the token lengths of one block keep their
/// room for the next.
#[test]
fn measuring_again_keeps_the_room_for_token_lengths() {
    let text = "The quick brown fox. ".repeat(100);
    let tokenizer = shipped(Encoding::O200kBase, Engine::BpeOpenai);
    let mut meter = Meter::new(&tokenizer, None);
    assert_eq!(meter.measure(&text, 400, None), None);
    let capacity = meter.chunk.lengths.capacity();
    assert!(capacity >= 400);
    // A shorter measure after it, which a fresh vector would take far less room for.
    assert_eq!(meter.measure(&text, 10, None), None);
    assert!(meter.chunk.lengths.len() < 100);
    assert_eq!(meter.chunk.lengths.capacity(), capacity);
}

/// What a measure learned is forgotten by the next one, even one that only counts: a cut is
/// never placed by the token lengths of another text.
#[test]
fn a_counted_text_leaves_nothing_of_the_last_one_for_a_cut() {
    let tokenizer = shipped(Encoding::O200kBase, Engine::BpeOpenai);
    // A token every two bytes: five of them end at byte 9.
    let long = "x y z w v u t s r q p o n m l k j i h g ".repeat(20);
    let mut meter = Meter::new(&tokenizer, None);
    assert_eq!(meter.measure(&long, 50, None), None);
    let short = "The quick fox is here.";
    assert_eq!(tokenizer.count(&short[..9]), 2);
    assert!(tokenizer.splits_exactly(short, 9));
    let tokens = tokenizer.count(short);
    assert_eq!(meter.measure(short, 1000, None), Some(tokens));
    // Only the short text's start and end were seen: the count at byte 9 is not known, or
    // known right; never the long text's five.
    let head = meter.rebase(short, 9);
    assert!(matches!(head, None | Some(2)), "{head:?}");
}

/// Where no exact split is near the chunk sized by the text seen before, the meter looks as
/// far as the fixed guess would, and probes as it would: whether a text fits does not depend
/// on what the meter measured before it. (Dense text seen first made the chunk small; with a
/// 64 KiB call limit, a text of long space runs that fit alone was then found not to.)
#[test]
fn what_fits_does_not_depend_on_the_text_seen_before() {
    let tokenizer = shipped(Encoding::Cl100kBase, Engine::Tiktoken);
    let dense = " ab".repeat(400);
    let mut sparse = String::from("x");
    for _ in 0..3 {
        sparse.push_str(&" ".repeat(45_000));
        sparse.push('y');
    }
    let total = tokenizer.count(&sparse);
    // Room to spare: with the fixed guess the text fits in one chunk.
    let room = 5 * total;
    let alone = Meter::new(&tokenizer, None).measure(&sparse, room, None);
    assert_eq!(alone, Some(total));
    let mut meter = Meter::new(&tokenizer, None);
    assert_eq!(
        meter.measure(&dense, 5000, None),
        Some(tokenizer.count(&dense))
    );
    assert!(meter.tokens_seen >= MIN_SEEN_TOKENS);
    assert_eq!(meter.measure(&sparse, room, None), alone);
}

/// Four-byte tokens `abcd` and one-byte tokens for any other byte, split exactly between any
/// two tokens: text
/// whose density changes from one stretch to the next, as prose gives way to a table.
struct Units;

impl TokenCounter for Units {
    fn name(&self) -> &str {
        "units"
    }
    fn token_lengths(&self, text: &str, lengths: &mut Vec<u32>) {
        let mut rest = text.as_bytes();
        while !rest.is_empty() {
            let len = if rest.starts_with(b"abcd") { 4 } else { 1 };
            lengths.push(len);
            rest = &rest[len as usize..];
        }
    }
    fn splits_exactly(&self, text: &str, at: usize) -> bool {
        // Tokens are taken from the left, so a split is exact where a token of the whole ends.
        let mut lengths = Vec::new();
        self.token_lengths(text, &mut lengths);
        let mut end = 0;
        lengths.iter().any(|&len| {
            end += len as usize;
            end == at
        }) || at == 0
    }
}

/// A meter that has seen four bytes a token.
fn seen_four_bytes_a_token() -> Meter<'static> {
    let mut meter = Meter::new(&Units, None);
    let seen = "abcd".repeat(MIN_SEEN_TOKENS);
    assert_eq!(
        meter.measure(&seen, seen.len(), None),
        Some(MIN_SEEN_TOKENS)
    );
    meter
}

/// The rest of a text that the bytes per token seen put well within the room is only counted
/// (its token lengths and checkpoints are not needed unless it is cut), and the count is exact,
/// up to a text that fills the room exactly.
#[test]
fn a_last_stretch_likely_to_fit_is_only_counted() {
    let mut meter = seen_four_bytes_a_token();
    // 400 bytes, more than the room of 200 tokens, but an estimated 100 tokens: counted.
    let text = "abcd".repeat(100);
    let before = meter.bytes_tokenized;
    assert_eq!(meter.measure(&text, 200, None), Some(100));
    assert_eq!(meter.bytes_tokenized - before, text.len());
    assert!(
        meter.chunk.lengths.is_empty(),
        "the stretch was tokenized where counting it was enough"
    );
    // An estimated 88 tokens that are in fact exactly the room's 200.
    let exact = format!("{}{}", "abcd".repeat(50), "x".repeat(150));
    assert_eq!(meter.measure(&exact, 200, None), Some(200));
    assert!(
        meter.chunk.lengths.is_empty(),
        "the stretch was tokenized where counting it was enough"
    );
    // An estimate over four fifths of the room is measured token by token, as before.
    let close = "abcd".repeat(170);
    assert_eq!(meter.measure(&close, 200, None), Some(170));
    assert_eq!(meter.chunk.lengths.len(), 170);
    // The last stretch of a text measured in several chunks is judged by its own bytes: one
    // byte a token seen makes the first chunk about 1,100 bytes, and the last hundred or so
    // are counted.
    let mut meter = Meter::new(&Units, None);
    let seen = "x".repeat(MIN_SEEN_TOKENS);
    assert_eq!(
        meter.measure(&seen, seen.len(), None),
        Some(MIN_SEEN_TOKENS)
    );
    assert_eq!(meter.measure(&"abcd".repeat(300), 1000, None), Some(300));
    let first_end = meter.checkpoints.last().at;
    assert!(first_end > 1000, "{first_end}");
    // The stretch tokenized token by token was the first: the rest was only counted.
    assert_eq!(meter.chunk.start.at, 0);
    assert_eq!(meter.chunk.lengths.len() * 4, first_end);
}

/// A stretch estimated to fit that does not (sparse text seen, dense text measured) is
/// tokenized again: the answer, the count at the mark and every cut are those of a meter that
/// never estimated.
#[test]
fn a_likely_fit_that_overflows_is_cut_as_if_never_estimated() {
    let text = format!("{}{}", "abcd".repeat(10), "x".repeat(400));
    let mark = Some(40);
    let mut fresh = Meter::new(&Units, None);
    assert_eq!(fresh.measure(&text, 200, mark), None);
    let mut meter = seen_four_bytes_a_token();
    // 440 bytes at four a token is an estimated 110 of the 200: counted first, then tokenized
    // for the cut, so the tokenizer was handed the text twice.
    let before = meter.bytes_tokenized;
    assert_eq!(meter.measure(&text, 200, mark), None);
    assert_eq!(meter.bytes_tokenized - before, 2 * text.len());
    assert!(!meter.chunk.lengths.is_empty());
    for n in [150, 120, 30, 10, 0] {
        assert_eq!(
            meter.token_end(&text, n),
            fresh.token_end(&text, n),
            "token {n}"
        );
    }
    let mut meter = seen_four_bytes_a_token();
    assert_eq!(meter.measure(&text, 200, mark), None);
    assert_eq!(meter.rebase(&text, 40), Some(10));
}

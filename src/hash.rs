//! A fast, non-cryptographic hash of byte strings, for the token cache and the duplicate check.

/// Hashes `parts` (each with its length, so `["ab", "c"]` and `["a", "bc"]` differ), eight bytes
/// a step in the manner of FxHash, starting from `seed`, with murmur3's finaliser so that
/// every input bit reaches every output bit.
///
/// It spreads keys; it does not resist attack. Colliding texts can be made whatever the seed:
/// a step's multiply passes the top bit of a word through unchanged, and the next step's
/// rotation brings it where a flip in the next word cancels it. The token cache confirms a
/// match by comparing the texts, so a collision costs a comparison, never a wrong answer;
/// the duplicate check, whose input is anyone's, uses [`hash_wide`] instead. SipHash,
/// the standard library's hash, would cost a fifth of a tokenizer pass on a warm request. It
/// is defined here, not borrowed, so that its values stay the same from build to build:
/// reports carry fingerprints from one turn to the next.
pub(crate) fn hash_parts(seed: u64, parts: &[&[u8]]) -> u64 {
    let mut h = start(seed);
    for part in parts {
        h = mix_rest(h, part);
    }
    finish(h)
}

/// [`hash_parts`]`(seed, &[part])` of each of four parts, found side by side.
///
/// Each step of the hash waits on the multiply before it, so one text hashes at the speed of
/// that chain. Four chains side by side let the processor overlap them: the words all four
/// parts have are taken in lockstep, and each part's rest alone. The values are those of
/// [`hash_parts`], which reports carry from one turn to the next.
pub(crate) fn hash_four(seed: u64, parts: [&[u8]; 4]) -> [u64; 4] {
    let words = parts.iter().map(|part| part.len() / 8).min().unwrap_or(0);
    let word = |chunk: &[u8]| u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
    let [a, b, c, d] = parts.map(|part| part[..words * 8].chunks_exact(8));
    let mut lanes = [start(seed); 4];
    for (((a, b), c), d) in a.zip(b).zip(c).zip(d) {
        lanes[0] = mix(lanes[0], word(a));
        lanes[1] = mix(lanes[1], word(b));
        lanes[2] = mix(lanes[2], word(c));
        lanes[3] = mix(lanes[3], word(d));
    }
    let mut hashes = lanes;
    for (hash, part) in hashes.iter_mut().zip(parts) {
        let rest = mix_rest_by(*hash, &part[words * 8..], mix);
        *hash = finish(mix(rest, part.len() as u64));
    }
    hashes
}

/// A hash for keys that never leave the process, like the duplicate check's: four lanes of
/// eight bytes at a time, independent until the end, and each step keyed by `seed`.
///
/// Each step of one lane waits on the multiply before it; with four the processor overlaps
/// them, and a 2 KiB text hashes several times faster than with [`hash_parts`]. Each step
/// multiplies by a key made from `seed` into a 128-bit product and folds its halves together
/// ([`keyed_step`]), so a change to any bit of a word spreads over the whole state in a way
/// that depends on the key: with the seed secret to the process, the flips that collide
/// [`hash_parts`] do not carry over. It is not a cryptographic hash. Its values may change
/// from build to build.
pub(crate) fn hash_wide(seed: u64, parts: &[&[u8]]) -> u64 {
    // A key for each lane, odd so that no bit of the product is lost to it, and lanes that
    // start apart, so that equal blocks in different lanes do not cancel.
    let keys = [1u64, 2, 3, 4].map(|lane| finish(seed ^ lane.wrapping_mul(K)) | 1);
    let mut lanes = [0, 1, 2, 3].map(|lane: u64| start(seed ^ lane.wrapping_mul(K)));
    let step0 = |h, word| keyed_step(h, word, keys[0]);
    for part in parts {
        let mut blocks = part.chunks_exact(32);
        for block in &mut blocks {
            for ((lane, key), word) in lanes.iter_mut().zip(keys).zip(block.chunks_exact(8)) {
                let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
                *lane = keyed_step(*lane, word, key);
            }
        }
        // The rest of the part and its length through the first lane, as `hash_parts` does.
        lanes[0] = mix_rest_by(lanes[0], blocks.remainder(), step0);
        lanes[0] = step0(lanes[0], part.len() as u64);
    }
    let [first, rest @ ..] = lanes;
    finish(rest.into_iter().fold(first, step0))
}

/// One step of [`hash_wide`]: `word` into `h`, times `key` as a 128-bit product whose
/// two halves are folded together.
fn keyed_step(h: u64, word: u64, key: u64) -> u64 {
    let product = u128::from(h ^ word) * u128::from(key);
    (product as u64) ^ ((product >> 64) as u64)
}

/// The multiplier of every step, FxHash's.
const K: u64 = 0x517c_c1b7_2722_0a95;

/// Where a hash starts from `seed`: never from zero, which mixing zero words (an empty text)
/// would keep at zero.
fn start(seed: u64) -> u64 {
    seed ^ 0x9e37_79b9_7f4a_7c15
}

/// One step: `word` into `h`.
fn mix(h: u64, word: u64) -> u64 {
    (h.rotate_left(5) ^ word).wrapping_mul(K)
}

/// `part` into `h`, eight bytes a step, the last step padded with zeros, then its length.
fn mix_rest(h: u64, part: &[u8]) -> u64 {
    let h = mix_rest_by(h, part, mix);
    mix(h, part.len() as u64)
}

/// `part` into `h` by `step`, eight bytes a step, the last step padded with zeros.
fn mix_rest_by(mut h: u64, part: &[u8], step: impl Fn(u64, u64) -> u64) -> u64 {
    let mut chunks = part.chunks_exact(8);
    for chunk in &mut chunks {
        h = step(h, u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
    }
    let mut last = [0u8; 8];
    last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    step(h, u64::from_le_bytes(last))
}

/// murmur3's finaliser: every bit of `h` reaches every bit of the result.
fn finish(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// A seed chosen once per process, at random.
pub(crate) fn process_seed() -> u64 {
    use std::hash::BuildHasher;
    static SEED: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *SEED.get_or_init(|| std::collections::hash_map::RandomState::new().hash_one(0x6d63_7478_u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_boundaries_and_seeds_change_the_hash() {
        assert_ne!(hash_parts(0, &[b"ab", b"c"]), hash_parts(0, &[b"a", b"bc"]));
        assert_ne!(hash_parts(0, &[b"abc"]), hash_parts(1, &[b"abc"]));
        assert_eq!(hash_parts(7, &[b"abc"]), hash_parts(7, &[b"abc"]));
        // A trailing zero byte is not the same as none.
        assert_ne!(hash_parts(0, &[b"a"]), hash_parts(0, &[b"a\0"]));
        assert_eq!(process_seed(), process_seed());
        assert_ne!(hash_parts(0, &[]), 0);
        assert_ne!(hash_parts(0, &[b""]), hash_parts(0, &[]));
    }

    /// `hash_parts(0, &[b"abc"])` and `hash_parts(7, &[b"0123456789", b""])` as the hash
    /// gave them before it was split into steps.
    const STABLE_ABC: u64 = 0x0bfb_9c04_217c_e1ed;
    const STABLE_DIGITS: u64 = 0x775c_d173_2796_7da9;

    /// Values of the stable hash from before it was split into steps: reports carry them
    /// from one turn to the next, so they must not change.
    #[test]
    fn stable_values_do_not_change() {
        assert_eq!(hash_parts(0, &[b"abc"]), STABLE_ABC);
        assert_eq!(hash_parts(7, &[b"0123456789", b""]), STABLE_DIGITS);
    }

    /// Four at a time gives what one at a time gives, whatever the lengths: equal, apart by
    /// less than a word or by many, empty, and each part the shortest in turn.
    #[test]
    fn four_side_by_side_are_four_one_at_a_time() {
        let text: Vec<u8> = (0..=255u8).cycle().take(3_010).collect();
        let lengths = [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 200, 2_143, 3_000];
        for (i, &a) in lengths.iter().enumerate() {
            for &b in &lengths[i..] {
                for seed in [0, 7] {
                    let parts = [&text[..a], &text[1..=b], &text[3..3 + a], &text[..b]];
                    let one_at_a_time = parts.map(|part| hash_parts(seed, &[part]));
                    assert_eq!(hash_four(seed, parts), one_at_a_time, "{a} {b}");
                    let turned = [parts[1], parts[2], parts[3], parts[0]];
                    let one_at_a_time = turned.map(|part| hash_parts(seed, &[part]));
                    assert_eq!(hash_four(seed, turned), one_at_a_time, "{a} {b}");
                }
            }
        }
        assert_eq!(hash_four(0, [b"abc"; 4]), [STABLE_ABC; 4]);
    }

    #[test]
    fn wide_hash_tells_apart_what_the_stable_one_does() {
        let long: Vec<u8> = (0..=255u8).cycle().take(2_000).collect();
        let cases: [&[&[u8]]; 9] = [
            &[b"ab", b"c"],
            &[b"a", b"bc"],
            &[b"a"],
            &[b"a\0"],
            &[],
            &[b""],
            &[&long],
            &[&long[..1_999]],
            &[&long[1..]],
        ];
        let hashes: Vec<u64> = cases.iter().map(|parts| hash_wide(3, parts)).collect();
        for (i, a) in hashes.iter().enumerate() {
            for b in &hashes[i + 1..] {
                assert_ne!(a, b);
            }
        }
        assert_ne!(hash_wide(3, &[&long]), hash_wide(4, &[&long]));
        assert_eq!(hash_wide(3, &[&long]), hash_wide(3, &[&long]));
        // Equal blocks in every lane, and the same bytes moved by one block, differ too.
        let same = [7u8; 64];
        let mut moved = [7u8; 64];
        moved[8] = 8;
        let mut moved_on = [7u8; 64];
        moved_on[40] = 8;
        assert_ne!(hash_wide(0, &[&same]), hash_wide(0, &[&moved]));
        assert_ne!(hash_wide(0, &[&moved]), hash_wide(0, &[&moved_on]));
    }

    /// The flips that collide `hash_parts` for every seed: the top bit (or the one below it)
    /// of a word, and the bit the next step of the same lane rotates it to in the next word.
    #[test]
    fn the_wide_hash_does_not_collide_where_the_stable_one_does() {
        let text = b"The quick brown fox jumps over the lazy dog; the dog sleeps on.".to_vec();
        // In 16 bytes, bytes 7 and 8 end one word of the first lane's rest and start the
        // next; in 64, bytes 7 and 32 (and 39) are in the first lane's words of two blocks.
        // The top bit of two words in a row too: a step whose top bit passes through a
        // multiply unchanged, with no rotation, would cancel it.
        let flips = [
            [(7, 0x80), (8, 0x10)],
            [(7, 0x40), (8, 0x08)],
            [(7, 0x80), (15, 0x80)],
            [(7, 0x80), (32, 0x10)],
            [(7, 0x40), (32, 0x08)],
            [(7, 0x80), (39, 0x80)],
        ];
        for (n, pairs) in flips.iter().enumerate() {
            let base: &[u8] = if n < 3 { &text[..16] } else { &text };
            let mut flipped = base.to_vec();
            for &(at, bit) in pairs {
                flipped[at] ^= bit;
            }
            if n == 0 {
                // The stable hash collides here, whatever the seed.
                assert_eq!(hash_parts(5, &[base]), hash_parts(5, &[&flipped]));
            }
            for seed in 0..200 {
                assert_ne!(
                    hash_wide(seed, &[base]),
                    hash_wide(seed, &[&flipped]),
                    "flips {pairs:?}, seed {seed}"
                );
            }
        }
    }
}

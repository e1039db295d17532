//! A fast, non-cryptographic hash of byte strings, for the token cache and the duplicate check.

/// Hashes `parts` (each with its length, so `["ab", "c"]` and `["a", "bc"]` differ), eight bytes
/// a step in the manner of FxHash, starting from `seed`, with murmur3's finaliser so that
/// every input bit reaches every output bit.
///
/// It spreads keys; it does not resist attack. The cache and the duplicate check confirm a
/// match by comparing the texts, so a collision costs a comparison, never a wrong answer; the
/// duplicate check also seeds it per process, so inputs crafted to collide cannot be prepared
/// in advance. SipHash, the standard library's hash, would cost a fifth of a tokenizer pass
/// on a warm request. It is defined here, not borrowed, so that its values stay the same from
/// build to build: reports carry fingerprints from one turn to the next.
pub(crate) fn fingerprint(seed: u64, parts: &[&[u8]]) -> u64 {
    let mut h = start(seed);
    for part in parts {
        h = mix_rest(h, part);
    }
    finish(h)
}

/// A hash of the same make as [`fingerprint`], but over four lanes of eight bytes at a time,
/// which are independent until the end. Each step of one lane waits on the multiply before
/// it; with four the processor overlaps them, and a 2 KiB text hashes several times faster.
/// Its values may change from build to build: it is for keys that never leave the process,
/// like the duplicate check's (seeded per process all the same).
pub(crate) fn fingerprint_wide(seed: u64, parts: &[&[u8]]) -> u64 {
    // Lanes that start apart, so that equal blocks in different lanes do not cancel.
    let mut lanes = [0, 1, 2, 3].map(|lane: u64| start(seed ^ lane.wrapping_mul(K)));
    for part in parts {
        let mut blocks = part.chunks_exact(32);
        for block in &mut blocks {
            for (lane, word) in lanes.iter_mut().zip(block.chunks_exact(8)) {
                *lane = mix(*lane, u64::from_le_bytes(word.try_into().expect("8 bytes")));
            }
        }
        // The rest of the part and its length through the first lane, as `fingerprint` does.
        lanes[0] = mix_rest(lanes[0], blocks.remainder());
        lanes[0] = mix(lanes[0], part.len() as u64);
    }
    let [first, rest @ ..] = lanes;
    finish(rest.into_iter().fold(first, mix))
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
fn mix_rest(mut h: u64, part: &[u8]) -> u64 {
    let mut chunks = part.chunks_exact(8);
    for chunk in &mut chunks {
        h = mix(h, u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
    }
    let mut last = [0u8; 8];
    last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    h = mix(h, u64::from_le_bytes(last));
    mix(h, part.len() as u64)
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
        assert_ne!(
            fingerprint(0, &[b"ab", b"c"]),
            fingerprint(0, &[b"a", b"bc"])
        );
        assert_ne!(fingerprint(0, &[b"abc"]), fingerprint(1, &[b"abc"]));
        assert_eq!(fingerprint(7, &[b"abc"]), fingerprint(7, &[b"abc"]));
        // A trailing zero byte is not the same as none.
        assert_ne!(fingerprint(0, &[b"a"]), fingerprint(0, &[b"a\0"]));
        assert_eq!(process_seed(), process_seed());
        assert_ne!(fingerprint(0, &[]), 0);
        assert_ne!(fingerprint(0, &[b""]), fingerprint(0, &[]));
    }

    /// `fingerprint(0, &[b"abc"])` and `fingerprint(7, &[b"0123456789", b""])` as the hash
    /// gave them before it was split into steps.
    const STABLE_ABC: u64 = 0x0bfb_9c04_217c_e1ed;
    const STABLE_DIGITS: u64 = 0x775c_d173_2796_7da9;

    /// Values of the stable hash from before it was split into steps: reports carry them
    /// from one turn to the next, so they must not change.
    #[test]
    fn stable_values_do_not_change() {
        assert_eq!(fingerprint(0, &[b"abc"]), STABLE_ABC);
        assert_eq!(fingerprint(7, &[b"0123456789", b""]), STABLE_DIGITS);
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
        let hashes: Vec<u64> = cases
            .iter()
            .map(|parts| fingerprint_wide(3, parts))
            .collect();
        for (i, a) in hashes.iter().enumerate() {
            for b in &hashes[i + 1..] {
                assert_ne!(a, b);
            }
        }
        assert_ne!(fingerprint_wide(3, &[&long]), fingerprint_wide(4, &[&long]));
        assert_eq!(fingerprint_wide(3, &[&long]), fingerprint_wide(3, &[&long]));
        // Equal blocks in every lane, and the same bytes moved by one block, differ too.
        let same = [7u8; 64];
        let mut moved = [7u8; 64];
        moved[8] = 8;
        let mut moved_on = [7u8; 64];
        moved_on[40] = 8;
        assert_ne!(
            fingerprint_wide(0, &[&same]),
            fingerprint_wide(0, &[&moved])
        );
        assert_ne!(
            fingerprint_wide(0, &[&moved]),
            fingerprint_wide(0, &[&moved_on])
        );
    }
}

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
    const K: u64 = 0x517c_c1b7_2722_0a95;
    // Never start from zero, which mixing zero words (an empty text) would keep at zero.
    let mut h = seed ^ 0x9e37_79b9_7f4a_7c15;
    let mut mix = |word: u64| h = (h.rotate_left(5) ^ word).wrapping_mul(K);
    for part in parts {
        let mut chunks = part.chunks_exact(8);
        for chunk in &mut chunks {
            mix(u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
        }
        let mut last = [0u8; 8];
        last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        mix(u64::from_le_bytes(last));
        mix(part.len() as u64);
    }
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
}

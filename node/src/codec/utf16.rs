//! UTF-16, as V8 hands a string out, into UTF-8.
//!
//! V8 writes its strings out as UTF-8 one character at a time once a text holds one
//! character past ASCII (a `é` in one title): for the 50 x 2 KiB request that took longer
//! than assembling. So a text is copied out as V8 keeps it (one byte per character, or
//! UTF-16: a plain copy) and converted here, piece by piece, eight code units at a time while
//! they are ASCII.

/// `units` as UTF-8 in `out` (emptied first); `false` if they hold a lone surrogate, which
/// becomes U+FFFD (as V8 writes one) and which the caller refuses: JavaScript strings may
/// hold one, text may not.
pub(crate) fn to_utf8(units: &[u16], out: &mut String) -> bool {
    let mut whole = true;
    out.clear();
    out.reserve(units.len());
    // SAFETY: only whole characters are written: ASCII bytes, and `encode_utf8`'s.
    let out = unsafe { out.as_mut_vec() };
    let mut at = 0;
    while at < units.len() {
        while let Some(eight) = units.get(at..at + 8) {
            if eight.iter().fold(0, |all, &unit| all | unit) >= 0x80 {
                break;
            }
            out.extend(eight.iter().map(|&unit| unit as u8));
            at += 8;
        }
        let Some(&unit) = units.get(at) else {
            break;
        };
        at += 1;
        let c = match unit {
            0..0x80 => {
                out.push(unit as u8);
                continue;
            }
            0xD800..0xDC00 => match units.get(at) {
                Some(&low) if (0xDC00..0xE000).contains(&low) => {
                    at += 1;
                    let high = u32::from(unit - 0xD800) << 10;
                    char::from_u32(0x10000 + high + u32::from(low - 0xDC00))
                }
                _ => None,
            },
            _ => char::from_u32(u32::from(unit)),
        };
        let c = c.unwrap_or_else(|| {
            whole = false;
            char::REPLACEMENT_CHARACTER
        });
        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    }
    whole
}

/// The UTF-16 code units of `text`, and whether a character of it is past U+00FF: ASCII
/// runs are counted eight bytes at a time, other characters one by one.
pub(crate) fn units_of(text: &str) -> (usize, bool) {
    let bytes = text.as_bytes();
    let (mut units, mut beyond_latin1, mut at) = (0, false, 0);
    while at < bytes.len() {
        let run = ascii_run(&bytes[at..]);
        units += run;
        at += run;
        if let Some(c) = text.get(at..).and_then(|rest| rest.chars().next()) {
            units += c.len_utf16();
            beyond_latin1 |= u32::from(c) > 0xFF;
            at += c.len_utf8();
        }
    }
    (units, beyond_latin1)
}

/// The length of the ASCII start of `bytes`, eight bytes at a time.
fn ascii_run(bytes: &[u8]) -> usize {
    let mut run = 0;
    for word in bytes.chunks_exact(8) {
        let word = u64::from_ne_bytes(word.try_into().unwrap_or([0x80; 8]));
        if word & 0x8080_8080_8080_8080 != 0 {
            break;
        }
        run += 8;
    }
    run + bytes[run..]
        .iter()
        .take_while(|byte| byte.is_ascii())
        .count()
}

/// `text`, whose every character is below U+0100, as Latin-1 in `out` (emptied first).
pub(crate) fn latin1_from_utf8(text: &str, out: &mut Vec<u8>) {
    out.clear();
    out.reserve(text.len());
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let run = ascii_run(&bytes[at..]);
        out.extend_from_slice(&bytes[at..at + run]);
        at += run;
        if let Some(c) = text.get(at..).and_then(|rest| rest.chars().next()) {
            out.push(u8::try_from(u32::from(c)).unwrap_or(b'?'));
            at += c.len_utf8();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_character_converts_as_the_standard_library_does() {
        let text = "ASCII that runs past eight units, é, €, 😀, 価格, and a tail";
        let units: Vec<u16> = text.encode_utf16().collect();
        let mut out = String::new();
        assert!(to_utf8(&units, &mut out));
        assert_eq!(out, text);
        for cut in 0..units.len() {
            let whole = to_utf8(&units[..cut], &mut out);
            assert_eq!(out, String::from_utf16_lossy(&units[..cut]));
            // Only a cut inside the emoji leaves a lone surrogate.
            assert_eq!(
                whole,
                String::from_utf16(&units[..cut]).is_ok(),
                "cut at {cut}"
            );
        }
        assert!(!to_utf8(&[0x61, 0xD800, 0x62, 0xDC00], &mut out));
        assert_eq!(out, "a\u{fffd}b\u{fffd}");
    }

    #[test]
    fn utf8_is_measured_in_code_units_and_narrowed_to_latin1() {
        for text in [
            "",
            "ascii",
            "é",
            "ÿ and ASCII past eight bytes, é",
            "€",
            "😀x",
            "価格",
        ] {
            let beyond = text.chars().any(|c| u32::from(c) > 0xFF);
            assert_eq!(
                units_of(text),
                (text.encode_utf16().count(), beyond),
                "{text}"
            );
        }
        let text = "naïve café, ÿ, and ASCII past eight bytes: ½";
        let mut out = Vec::new();
        latin1_from_utf8(text, &mut out);
        assert_eq!(out, text.chars().map(|c| c as u8).collect::<Vec<u8>>());
    }
}

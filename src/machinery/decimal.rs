//! The shortest decimal of an `f32`, as `serde_json` writes it, written on the stack.

use std::fmt::{self, Write as _};

/// The float of `value`'s shortest decimal, as `serde_json` writes an `f32` and Python's
/// `json.loads` or JavaScript's `JSON.parse` reads it back: what a binding hands its language
/// for a score, so that a report built as objects equals its JSON read back.
///
/// ```
/// use mentor_context::machinery::shortest_f32;
///
/// assert_eq!(shortest_f32(0.937), 0.937);
/// assert_eq!(f64::from(0.937_f32), 0.9369999766349792);
/// ```
#[must_use]
pub fn shortest_f32(value: f32) -> f64 {
    let mut decimal = Decimal {
        bytes: [0; Decimal::CAPACITY],
        len: 0,
    };
    if write!(decimal, "{value}").is_err() {
        return f64::from(value);
    }
    std::str::from_utf8(&decimal.bytes[..decimal.len])
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(f64::from(value))
}

/// A decimal written on the stack: one per score in a report, so no allocation for it.
struct Decimal {
    bytes: [u8; Decimal::CAPACITY],
    len: usize,
}

impl Decimal {
    /// Room for the longest `f32` Rust writes without an exponent: the smallest subnormal,
    /// `-0.` and 45 more digits, 48 bytes.
    const CAPACITY: usize = 64;
}

impl fmt::Write for Decimal {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        let end = self.len + text.len();
        let room = self.bytes.get_mut(self.len..end).ok_or(fmt::Error)?;
        room.copy_from_slice(text.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_f32_reads_back_as_its_json() {
        for value in [
            0.937_f32,
            0.5,
            -0.1,
            f32::MAX,
            f32::MIN_POSITIVE,
            1e-45,
            0.0,
            -0.0,
            3e38,
        ] {
            // The text serde_json writes, read as Python and JavaScript read it: correctly
            // rounded (serde_json's own reader is not, without its float_roundtrip feature).
            let json = serde_json::to_string(&value).unwrap();
            let read: f64 = json.parse().unwrap();
            assert_eq!(
                shortest_f32(value).to_bits(),
                read.to_bits(),
                "{value}: {json}"
            );
        }
        assert!(shortest_f32(f32::NAN).is_nan());
    }
}

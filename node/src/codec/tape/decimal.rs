//! The shortest decimal of an `f32`, as `serde_json` writes it, written on the stack.

use std::fmt::{self, Write as _};

/// The float of `value`'s shortest decimal, as `serde_json` writes an `f32` and `JSON.parse`
/// reads it back.
pub(super) fn shortest_f32(value: f32) -> f64 {
    /// Room for the longest `f32` Rust writes without an exponent: the smallest subnormal,
    /// `-0.` and 45 more digits, 48 bytes.
    struct Decimal {
        bytes: [u8; 64],
        len: usize,
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
    let mut decimal = Decimal {
        bytes: [0; 64],
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

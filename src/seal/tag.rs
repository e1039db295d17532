//! [`Seal`]: the tag a sealed report carries, as data: what a report holds and a store keeps,
//! apart from the key and the reports it is computed over (`mod.rs`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The HMAC-SHA256 tag of a report, written as 64 lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Seal(pub(super) [u8; 32]);

impl fmt::Debug for Seal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Seal({self})")
    }
}

impl fmt::Display for Seal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for byte in self.0 {
            write!(f, "{byte:02x}")?;
        }
        Ok(())
    }
}

impl FromStr for Seal {
    type Err = String;

    fn from_str(hex: &str) -> Result<Seal, String> {
        let bytes = hex.as_bytes();
        if bytes.len() != 64 {
            return Err(format!("a seal is 64 hex digits, not {}", bytes.len()));
        }
        let digit = |b: u8| match b {
            b'0'..=b'9' => Ok(b - b'0'),
            b'a'..=b'f' => Ok(b - b'a' + 10),
            _ => Err("a seal is lowercase hex digits".to_string()),
        };
        let mut tag = [0; 32];
        for (byte, pair) in tag.iter_mut().zip(bytes.chunks(2)) {
            *byte = digit(pair[0])? << 4 | digit(pair[1])?;
        }
        Ok(Seal(tag))
    }
}

impl Serialize for Seal {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Seal {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Seal, D::Error> {
        let hex = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        hex.parse().map_err(serde::de::Error::custom)
    }
}

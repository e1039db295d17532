//! A packed JavaScript value, read through serde.
//!
//! Every value is handed to the visitor as what it is (`deserialize_any`), so the library's
//! visitors decide what is acceptable and word the error as they do for JSON ("invalid
//! type: integer `5`, expected a string"). Numbers are handed over as `JSON.stringify`
//! would write them and serde_json read them back: a whole number as an integer, any other
//! as a float, and NaN or an infinity as the float it is, for the library to name.

use serde::de::value::{BorrowedStrDeserializer, StrDeserializer};
use serde::de::{DeserializeSeed, Visitor};

use super::{tag, unsupported};

/// Why a packed value could not be read: a message in serde's words.
pub(crate) use mentor_context::machinery::MessageError as DeError;

/// A value as `codec.js` packed it: the text of its keys and strings, and its tags.
///
/// The text is copied out of V8 as it is kept there: one byte per character (Latin-1) when
/// every character fits in one, which `codec.js` tells; else UTF-16. Either way its code
/// units are JavaScript's, which the lengths on the tape count.
#[derive(Debug, Default)]
pub(crate) struct Packed {
    pub(crate) one_byte: bool,
    pub(crate) latin1: Vec<u8>,
    pub(crate) utf16: Vec<u16>,
    pub(crate) tags: Vec<f64>,
    /// The long strings, each where it is in one of the two buffers.
    pub(crate) bigs: Vec<Big>,
    pub(crate) big_latin1: Vec<u8>,
    pub(crate) big_utf16: Vec<u16>,
}

/// Where a long string is.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Big {
    pub(crate) one_byte: bool,
    pub(crate) start: usize,
    pub(crate) len: usize,
}

impl Packed {
    /// About the bytes the buffers hold.
    pub(crate) fn bytes(&self) -> usize {
        self.latin1.capacity()
            + self.big_latin1.capacity()
            + (self.utf16.capacity() + self.big_utf16.capacity()) * size_of::<u16>()
            + self.tags.capacity() * size_of::<f64>()
            + self.bigs.capacity() * size_of::<Big>()
    }

    /// Empties the buffers, keeping their room.
    pub(crate) fn clear(&mut self) {
        self.latin1.clear();
        self.utf16.clear();
        self.tags.clear();
        self.bigs.clear();
        self.big_latin1.clear();
        self.big_utf16.clear();
    }

    /// Whether long string `at` is one byte per character: the codec writes one flag per
    /// long string after the tape.
    pub(crate) fn big_is_one_byte(&self, flags_from: usize, at: usize) -> bool {
        self.tags.get(flags_from + at) == Some(&1.0)
    }

    /// A reader at the start of the value.
    pub(crate) fn reader(&self) -> Result<Reader<'_>, DeError> {
        Ok(Reader {
            text: if self.one_byte {
                Text::Latin1(&self.latin1)
            } else {
                Text::Utf16(&self.utf16)
            },
            tags: &self.tags,
            bigs: Bigs {
                at: &self.bigs,
                latin1: &self.big_latin1,
                utf16: &self.big_utf16,
            },
            pos: 0,
            at: 0,
            depth: 0,
            element: None,
            scratch: String::new(),
        })
    }
}

/// The long strings of a packed value.
#[derive(Debug, Clone, Copy)]
struct Bigs<'a> {
    at: &'a [Big],
    latin1: &'a [u8],
    utf16: &'a [u16],
}

impl<'a> Bigs<'a> {
    fn text(self, at: usize) -> Option<Text<'a>> {
        let big = self.at.get(at)?;
        let end = big.start.checked_add(big.len)?;
        Some(if big.one_byte {
            Text::Latin1(self.latin1.get(big.start..end)?)
        } else {
            Text::Utf16(self.utf16.get(big.start..end)?)
        })
    }
}

/// The text of a packed value, in JavaScript's code units.
#[derive(Debug, Clone, Copy)]
enum Text<'a> {
    Latin1(&'a [u8]),
    Utf16(&'a [u16]),
}

impl<'a> Text<'a> {
    fn len(self) -> usize {
        match self {
            Text::Latin1(bytes) => bytes.len(),
            Text::Utf16(units) => units.len(),
        }
    }

    fn slice(self, from: usize, to: usize) -> Option<Text<'a>> {
        Some(match self {
            Text::Latin1(bytes) => Text::Latin1(bytes.get(from..to)?),
            Text::Utf16(units) => Text::Utf16(units.get(from..to)?),
        })
    }
}

/// A piece of text: borrowed from the packed value when it is ASCII (most pieces of most
/// texts; Latin-1 ASCII is UTF-8 as it is), else converted into the reader's scratch.
#[derive(Clone, Copy)]
enum Piece<'a> {
    Borrowed(&'a str),
    Scratch,
}

/// A tape that `codec.js` cannot have written: a bug, said as one.
fn malformed() -> DeError {
    DeError("internal error: the packed value is malformed".to_string())
}

/// Reads one packed value.
#[derive(Clone)]
pub(crate) struct Reader<'a> {
    text: Text<'a>,
    tags: &'a [f64],
    bigs: Bigs<'a>,
    /// The next tag.
    pos: usize,
    /// The next code unit of text.
    at: usize,
    /// How many arrays and objects the reader is in.
    depth: usize,
    /// The element of the outermost array being read: the result a problem is in.
    element: Option<usize>,
    /// A piece that is not ASCII, converted to UTF-8.
    scratch: String,
}

impl<'a> Reader<'a> {
    /// The element of the outermost array that was being read, if any.
    pub(crate) fn element(&self) -> Option<usize> {
        self.element
    }

    /// A reader for each element of the array this reader is at (the requests of
    /// `assembleMany`), found by skipping over them: each starts at its own start.
    pub(crate) fn elements(mut self) -> Result<Vec<Reader<'a>>, DeError> {
        if self.next()? != tag::ARRAY {
            return Err(malformed());
        }
        let count = self.count()?;
        let mut elements = Vec::with_capacity(count.min(self.tags.len()));
        for _ in 0..count {
            let (pos, at) = (self.pos, self.at);
            self.skip()?;
            elements.push(Reader {
                text: self.text.slice(at, self.at).ok_or_else(malformed)?,
                tags: &self.tags[pos..self.pos],
                bigs: self.bigs,
                pos: 0,
                at: 0,
                depth: 0,
                element: None,
                scratch: String::new(),
            });
        }
        Ok(elements)
    }

    /// What the value is when JSON has no such thing (`undefined`, a function), without
    /// reading it; `None` for a value JSON has.
    pub(crate) fn unsupported(&self) -> Option<&'static str> {
        if self.tags.get(self.pos) != Some(&tag::UNSUPPORTED) {
            return None;
        }
        match self.tags.get(self.pos + 1).copied()? {
            unsupported::BIGINT => Some("a bigint"),
            unsupported::UNDEFINED => Some("undefined"),
            unsupported::FUNCTION => Some("a function"),
            unsupported::SYMBOL => Some("a symbol"),
            _ => None,
        }
    }

    /// Whether the value is an array (without reading it).
    pub(crate) fn is_array(&self) -> bool {
        self.tags.first() == Some(&tag::ARRAY)
    }

    fn next(&mut self) -> Result<f64, DeError> {
        let value = *self.tags.get(self.pos).ok_or_else(malformed)?;
        self.pos += 1;
        Ok(value)
    }

    fn count(&mut self) -> Result<usize, DeError> {
        // The codec's own counts, whole and not negative; were one not (a bug), `as`
        // saturates, and the slicing after it refuses what does not fit.
        Ok(self.next()? as usize)
    }

    /// Steps over the next `units` code units of text.
    fn step(&mut self, units: usize) -> Result<Text<'a>, DeError> {
        let end = self
            .at
            .checked_add(units)
            .filter(|&end| end <= self.text.len());
        let piece = self.text.slice(self.at, end.ok_or_else(malformed)?);
        self.at += units;
        piece.ok_or_else(malformed)
    }

    /// The next `units` code units of text.
    fn piece(&mut self, units: usize) -> Result<Piece<'a>, DeError> {
        let text = self.step(units)?;
        self.convert(text)
    }

    /// Long string `at`.
    fn big(&mut self, at: usize) -> Result<Piece<'a>, DeError> {
        let text = self.bigs.text(at).ok_or_else(malformed)?;
        self.convert(text)
    }

    /// `text` as UTF-8: borrowed if it is ASCII, else converted into the scratch.
    fn convert(&mut self, text: Text<'a>) -> Result<Piece<'a>, DeError> {
        match text {
            Text::Latin1(bytes) if bytes.is_ascii() => {
                // SAFETY: ASCII is UTF-8.
                Ok(Piece::Borrowed(unsafe {
                    std::str::from_utf8_unchecked(bytes)
                }))
            }
            Text::Latin1(bytes) => {
                self.scratch.clear();
                self.scratch
                    .extend(bytes.iter().map(|&byte| char::from(byte)));
                Ok(Piece::Scratch)
            }
            Text::Utf16(units) => {
                if super::utf16::to_utf8(units, &mut self.scratch) {
                    Ok(Piece::Scratch)
                } else {
                    Err(DeError(
                        "a string holds a lone surrogate: not Unicode text".to_string(),
                    ))
                }
            }
        }
    }

    /// Hands `piece` to `visitor` as a string.
    fn visit_piece<V: Visitor<'a>>(
        &self,
        piece: Piece<'a>,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        match piece {
            Piece::Borrowed(text) => visitor.visit_borrowed_str(text),
            Piece::Scratch => visitor.visit_str(&self.scratch),
        }
    }

    /// Skips one value.
    fn skip(&mut self) -> Result<(), DeError> {
        match self.next()? {
            tag::STRING => {
                let units = self.count()?;
                self.step(units).map(|_| ())
            }
            tag::NUMBER | tag::UNSUPPORTED | tag::BIG => self.next().map(|_| ()),
            tag::TRUE | tag::FALSE | tag::NULL => Ok(()),
            tag::ARRAY => {
                for _ in 0..self.count()? {
                    self.skip()?;
                }
                Ok(())
            }
            tag::OBJECT => {
                for _ in 0..self.count()? {
                    let units = self.key_units()?;
                    self.step(units)?;
                    self.skip()?;
                }
                Ok(())
            }
            _ => Err(malformed()),
        }
    }

    /// The length of the key of the next entry of an object.
    fn key_units(&mut self) -> Result<usize, DeError> {
        self.count()
    }

    /// Hands the key of the next entry of an object to `seed`.
    fn key<K: DeserializeSeed<'a>>(&mut self, seed: K) -> Result<K::Value, DeError> {
        let units = self.key_units()?;
        match self.piece(units)? {
            Piece::Borrowed(key) => seed.deserialize(BorrowedStrDeserializer::new(key)),
            Piece::Scratch => seed.deserialize(StrDeserializer::new(&self.scratch)),
        }
    }
}

mod deserializer;

//! JavaScript values in and out, through serde.
//!
//! A JavaScript value crosses packed (`codec.js` packs it, as `JSON.stringify` sees it): one
//! string holding its keys and short strings end to end, its long strings apart (each copied
//! out of V8 as V8 keeps it), and a Float64Array of tags, lengths and numbers (the tags are
//! below). Rust reads a packed value through a serde `Deserializer` ([`Reader`], in
//! `packed/`), so the library's own `Deserialize` rules (its `wire` rules for results)
//! decide what it means. A report goes back on a tape written by a serde `Serializer`
//! ([`Tape`], in `tape/`), so the keys and their order are the library's own; JavaScript
//! builds each struct by its shape (`shapes.rs`) with one object literal, and other objects
//! with keys it holds by number (`keys.rs`).
//!
//! Why not N-API calls per property: reading the 50 x 2 KiB request that way took longer
//! than V8 takes to `JSON.parse` the whole report, the cost this package is measured
//! against (see `benches/README.md`).

mod keys;
mod map_key;
mod packed;
mod shapes;
mod tape;
mod utf16;

use std::cell::{Cell, RefCell};

use napi::Result;

use crate::raw::{self, Env, Value};
pub(crate) use packed::{Big, DeError, Packed, Reader};
pub(crate) use tape::Tape;

/// Tags of the tape, as `codec.js` numbers them.
pub(crate) mod tag {
    pub(crate) const STRING: f64 = 0.0;
    pub(crate) const NUMBER: f64 = 1.0;
    pub(crate) const TRUE: f64 = 2.0;
    pub(crate) const FALSE: f64 = 3.0;
    pub(crate) const NULL: f64 = 4.0;
    pub(crate) const ARRAY: f64 = 5.0;
    pub(crate) const OBJECT: f64 = 6.0;
    /// A value JSON cannot hold; the next number says which ([`super::unsupported`]).
    pub(crate) const UNSUPPORTED: f64 = 7.0;
    /// A struct: the number of its shape (its keys), then its fields' values in order. Only
    /// on the way out.
    pub(crate) const SHAPE: f64 = 8.0;
    /// A long string, copied out apart: its number among them, and 1 if it is one byte per
    /// character. Only on the way in.
    pub(crate) const BIG: f64 = 9.0;
}

/// What an `UNSUPPORTED` item was, as `codec.js` numbers them.
pub(crate) mod unsupported {
    pub(crate) const BIGINT: f64 = 0.0;
    pub(crate) const TOO_DEEP: f64 = 2.0;
    pub(crate) const UNDEFINED: f64 = 3.0;
    pub(crate) const FUNCTION: f64 = 4.0;
    pub(crate) const SYMBOL: f64 = 5.0;
}

/// The string `value` (a string: the caller checked), as Rust text.
pub(crate) fn read_string(env: Env, value: Value) -> Result<String> {
    let mut units = Vec::new();
    raw::read_utf16(env, value, &mut units)?;
    let mut text = String::new();
    // A lone surrogate (an answer cut inside an emoji, say) is shown as U+FFFD, as V8 would.
    let _ = utf16::to_utf8(&units, &mut text);
    Ok(text)
}

/// A stream's string chunks as Rust text. JavaScript may cut a string between the two
/// halves of a character outside the BMP (an emoji); such a high surrogate at the end of a
/// chunk is held and read with the next, so the character arrives whole, not as two U+FFFD.
#[derive(Debug, Default)]
pub(crate) struct Chunks {
    held: Option<u16>,
}

impl Chunks {
    /// The string `value` (a string: the caller checked) after what is held, holding a high
    /// surrogate it ends with.
    pub(crate) fn read(&mut self, env: Env, value: Value) -> Result<String> {
        let mut units: Vec<u16> = self.held.take().into_iter().collect();
        raw::read_utf16(env, value, &mut units)?;
        if units
            .last()
            .is_some_and(|unit| (0xD800..0xDC00).contains(unit))
        {
            self.held = units.pop();
        }
        let mut text = String::new();
        // A lone surrogate elsewhere is shown as U+FFFD, as V8 would.
        let _ = utf16::to_utf8(&units, &mut text);
        Ok(text)
    }

    /// Whether half a character is held: the stream ended inside one.
    pub(crate) fn holds_half(&self) -> bool {
        self.held.is_some()
    }
}

/// The JavaScript half of the codec, kept once per environment (`raw::set_instance_data`).
pub(crate) struct Codec {
    object: napi::sys::napi_ref,
    pack: napi::sys::napi_ref,
    unpack: napi::sys::napi_ref,
    add_keys: napi::sys::napi_ref,
    add_shapes: napi::sys::napi_ref,
    warn: napi::sys::napi_ref,
    /// How many key names, and how many shapes, JavaScript has been given.
    keys_sent: Cell<usize>,
    shapes_sent: Cell<usize>,
    /// Buffers of the last call, for the next (taken, so a re-entered call makes its own).
    packed: Cell<Packed>,
    tape: Cell<Tape>,
    latin1: RefCell<Vec<u8>>,
}

/// The source of the JavaScript half.
const SOURCE: &str = include_str!("codec.js");

/// Buffers larger than this are let go after a call rather than kept for the next: one huge
/// request should not hold its memory for the life of the process.
const MAX_KEPT_BYTES: usize = 4 << 20;

impl Codec {
    /// This environment's codec, made on first use.
    pub(crate) fn get<'env>(env: Env) -> Result<&'env Codec> {
        if let Some(codec) = raw::instance_data::<Codec>(env)? {
            return Ok(codec);
        }
        let object = raw::run_script(env, SOURCE)?;
        let function = |name| raw::named(env, object, name).and_then(|f| raw::keep(env, f));
        let codec = Codec {
            object: raw::keep(env, object)?,
            pack: function(c"pack")?,
            unpack: function(c"unpack")?,
            add_keys: function(c"addKeys")?,
            add_shapes: function(c"addShapes")?,
            warn: function(c"warn")?,
            keys_sent: Cell::new(0),
            shapes_sent: Cell::new(0),
            packed: Cell::default(),
            tape: Cell::default(),
            latin1: RefCell::default(),
        };
        raw::set_instance_data(env, Box::new(codec))?;
        raw::instance_data::<Codec>(env)?.ok_or_else(|| {
            napi::Error::new(
                napi::Status::GenericFailure,
                "the codec was not kept".to_string(),
            )
        })
    }

    /// Packs `value` into the buffers of the last call (or new ones when a call in progress
    /// holds them). Runs JavaScript: getters and `toJSON` of the value.
    pub(crate) fn pack(&self, env: Env, value: Value) -> Result<Packed> {
        let mut packed = self.packed.take();
        let object = raw::kept(env, self.object)?;
        let pack = raw::kept(env, self.pack)?;
        let text = raw::call(env, pack, object, &[value])?;
        let tags = raw::named(env, object, c"tags")?;
        let length = raw::named(env, object, c"length")?;
        let length = raw::number(env, length)?;
        let one_byte = raw::named(env, object, c"oneByte")?;
        packed.clear();
        packed.one_byte = raw::boolean(env, one_byte)?;
        if packed.one_byte {
            raw::read_latin1(env, text, &mut packed.latin1)?;
        } else {
            raw::read_utf16(env, text, &mut packed.utf16)?;
        }
        // Long strings, each copied out apart, as V8 keeps it (see `codec.js`); the tape is
        // followed by a flag for each, 1 if it is one byte per character.
        let bigs = raw::named(env, object, c"bigs")?;
        let count = raw::named(env, object, c"bigCount")?;
        // Both are the codec's own counts: whole numbers within the array.
        let (length, count) = (length as usize, raw::number(env, count)? as usize);
        raw::read_f64s(env, tags, length + count, &mut packed.tags)?;
        for at in 0..count {
            let big = raw::element(env, bigs, at)?;
            let one_byte = packed.big_is_one_byte(length, at);
            let (start, len) = if one_byte {
                let start = packed.big_latin1.len();
                raw::read_latin1(env, big, &mut packed.big_latin1)?;
                (start, packed.big_latin1.len() - start)
            } else {
                let start = packed.big_utf16.len();
                raw::read_utf16(env, big, &mut packed.big_utf16)?;
                (start, packed.big_utf16.len() - start)
            };
            packed.bigs.push(Big {
                one_byte,
                start,
                len,
            });
        }
        packed.tags.truncate(length);
        // Not kept past the call: they are the caller's.
        raw::clear_named(env, object, c"bigs")?;
        Ok(packed)
    }

    /// Gives back the buffers of a call, for the next.
    pub(crate) fn recycle(&self, packed: Packed) {
        if packed.bytes() <= MAX_KEPT_BYTES {
            self.packed.set(packed);
        }
    }

    /// An empty tape to serialize into, with the room of the last.
    pub(crate) fn take_tape(&self) -> Tape {
        let mut tape = self.tape.take();
        tape.clear();
        tape
    }

    /// Builds the JavaScript value `tape` holds, and keeps the tape's room for the next call.
    pub(crate) fn unpack(&self, env: Env, tape: Tape) -> Result<Value> {
        let built = self.build(env, &tape);
        if tape.bytes() <= MAX_KEPT_BYTES {
            self.tape.set(tape);
        }
        built
    }

    fn build(&self, env: Env, tape: &Tape) -> Result<Value> {
        let object = raw::kept(env, self.object)?;
        let sent = self.keys_sent.get();
        let new_keys = keys::names_from(sent);
        if !new_keys.is_empty() {
            let names = raw::string_array(env, &new_keys)?;
            let add_keys = raw::kept(env, self.add_keys)?;
            raw::call(env, add_keys, object, &[names])?;
            self.keys_sent.set(sent + new_keys.len());
        }
        // After the keys: a shape's are among them.
        let sent = self.shapes_sent.get();
        let new_shapes = shapes::shapes_from(sent);
        if !new_shapes.is_empty() {
            let names = keys::names_from(0);
            let shapes: Vec<String> = new_shapes
                .iter()
                .map(|shape| {
                    let names: Vec<&str> = shape.iter().map(|&key| names[key as usize]).collect();
                    names.join("\n")
                })
                .collect();
            let shapes: Vec<&str> = shapes.iter().map(String::as_str).collect();
            let shapes = raw::string_array(env, &shapes)?;
            let add_shapes = raw::kept(env, self.add_shapes)?;
            raw::call(env, add_shapes, object, &[shapes])?;
            self.shapes_sent.set(sent + new_shapes.len());
        }
        let mut latin1 = std::mem::take(&mut *self.latin1.borrow_mut());
        let text = match tape.latin1(&mut latin1) {
            Some(bytes) => raw::latin1_string(env, bytes),
            None => raw::string(env, tape.text()),
        };
        *self.latin1.borrow_mut() = latin1;
        let text = text?;
        let tags = raw::f64_array(env, tape.tags())?;
        let unpack = raw::kept(env, self.unpack)?;
        raw::call(env, unpack, object, &[text, tags])
    }

    /// `process.emitWarning(message)`, with the type `MentorContextWarning`.
    pub(crate) fn warn(&self, env: Env, message: &str) -> Result<()> {
        let object = raw::kept(env, self.object)?;
        let warn = raw::kept(env, self.warn)?;
        let message = raw::string(env, message)?;
        raw::call(env, warn, object, &[message]).map(|_| ())
    }
}

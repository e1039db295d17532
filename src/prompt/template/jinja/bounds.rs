//! What one render may spend, and the meter our own filters and the formatter pay through.
//!
//! # The rule
//!
//! A render gets [`BASE_FUEL`], plus [`FUEL_PER_MESSAGE`] for each message, plus one fuel
//! for every [`INPUT_BYTES_PER_FUEL`] bytes of text in the messages and documents. Fuel is
//! minijinja's: one unit per instruction, one per 64 bytes of strings and list slots a template
//! creates, and (here) one per [`BYTES_PER_FUEL`] bytes that `repr`, `tojson`, `join` and the
//! formatter write. A real template does a bounded amount of work per message and per byte it
//! copies: Qwen 3's, Gemma 3's, DeepSeek V3's and Llama 3.1's use about 60 fuel a turn and a
//! twelfth of a fuel a byte, at most about a quarter of what the rule gives them from 2 to
//! 20,000 turns (`bounds_tests.rs` holds them to a third), so the history's trimming, not the
//! fuel, decides; a template that loops, repeats or nests without end stops at a total that
//! grows only with its input.
//!
//! Every allocation a template can cause is paid for before it is made: minijinja's own for its
//! operators and filters, [`Meter`] for ours. Where minijinja would write a container as text
//! without paying first (`~`, `in` on a string, the filters that take text), the template goes
//! through ours instead (`stringify.rs`). What a render can hold is therefore at most a
//! few bytes per unit of fuel, and the text our code builds at most [`BYTES_PER_FUEL`] bytes
//! per fuel.
//!
//! Nesting is bounded apart: [`MAX_DEPTH`] levels in every recursive path of ours (`repr`,
//! `tojson`, `join`'s items, what a namespace stores), and a value nested deeper is an error
//! naming the bound. minijinja's own recursive paths (comparisons, dropping) cannot be
//! bounded from outside, so the render's stack is sized for the deepest value a render can
//! build ([`stack_for`]), the lesser of two bounds: what its fuel pays for, and what its source
//! can write. A value outlives a loop's iteration only through a namespace (a `set` in a loop
//! is the iteration's own), and what a namespace stores is held to [`MAX_DEPTH`]; every other
//! level of nesting is written in the source, at least a byte a level (`[[[x]]]`). So a real
//! template of a few kilobytes renders on a stack of a few dozen megabytes, however long the
//! conversation and so its fuel; only a template made to nest, a megabyte of brackets,
//! reserves more (address space, which only that nesting touches).

use minijinja::{Error, ErrorKind, State};

/// How a [`Meter`] pays: fuel, in minijinja's units of 64.
pub(super) type Pay<'a> = &'a dyn Fn(u64) -> Result<(), Error>;

/// Fuel every render gets, whatever its input.
pub(super) const BASE_FUEL: u64 = 200_000;

/// Fuel per message of the conversation.
pub(super) const FUEL_PER_MESSAGE: u64 = 400;

/// Input bytes (messages and documents) per fuel granted.
pub(super) const INPUT_BYTES_PER_FUEL: u64 = 4;

/// Bytes of text our filters and the formatter may write per fuel (minijinja charges the same
/// for serializing: 16 of its 64 units per byte).
pub(super) const BYTES_PER_FUEL: usize = 4;

/// The deepest value `repr`, `tojson` and `join` walk. Python's own limit is its recursion
/// limit (about 1,000); no chat template nests its data more than a handful of levels.
pub(super) const MAX_DEPTH: usize = 256;

/// The fuel of one render, by [the rule](self).
pub(super) fn fuel_for(messages: usize, input_bytes: usize) -> u64 {
    let messages = u64::try_from(messages).unwrap_or(u64::MAX);
    let bytes = u64::try_from(input_bytes).unwrap_or(u64::MAX);
    BASE_FUEL
        .saturating_add(messages.saturating_mul(FUEL_PER_MESSAGE))
        .saturating_add(bytes / INPUT_BYTES_PER_FUEL)
}

/// Stack for a render whatever its fuel: minijinja's own frames, the formatter's, ours.
const BASE_STACK: usize = 8 << 20;

/// Stack per fuel: the deepest frames minijinja spends per level of a nested value (comparing
/// two values, in a debug build) over the least fuel a level costs (one instruction and a list
/// slot, 1.5 fuel, for `[[[...]]]` literals); `bounds_tests.rs` builds the deepest value the base
/// fuel allows and compares, prints and drops it.
const STACK_PER_FUEL: usize = 2048;

/// Stack per level of nesting: [`STACK_PER_FUEL`] over the least fuel a level costs (1.5).
const STACK_PER_LEVEL: usize = STACK_PER_FUEL * 3 / 2;

/// The stack of a render with `fuel` of a template whose source is `source_bytes` long, with
/// `recursion_limit` levels of calls: enough for the deepest value either bound allows.
pub(super) fn stack_for(fuel: u64, source_bytes: usize, recursion_limit: usize) -> usize {
    let by_fuel = usize::try_from(fuel)
        .unwrap_or(usize::MAX)
        .saturating_mul(STACK_PER_FUEL);
    let by_source = source_bytes
        .saturating_add(MAX_DEPTH)
        .saturating_add(recursion_limit)
        .saturating_mul(STACK_PER_LEVEL);
    by_fuel.min(by_source).saturating_add(BASE_STACK)
}

/// Stack per byte of template source, for the compiler: a filter chain `|f` is two bytes a
/// link, and each link costs the parser and the compiler about 2 KB (in a debug build).
const COMPILE_STACK_PER_BYTE: usize = 1024;

/// The stack to compile a template of `bytes` on.
pub(super) fn compile_stack_for(bytes: usize) -> usize {
    bytes
        .saturating_mul(COMPILE_STACK_PER_BYTE)
        .saturating_add(BASE_STACK)
}

/// Bytes written between two payments: small enough that no payment lets much more through
/// than the fuel left, large enough that paying costs nothing next to the writing.
const CHUNK: usize = 1024;

/// A string built by our code on a template's behalf, paid for as it grows: every
/// [`CHUNK`] bytes, before they are appended, [`BYTES_PER_FUEL`] bytes per fuel.
pub(super) struct Meter<'a> {
    text: String,
    unpaid: usize,
    pay: Option<Pay<'a>>,
}

/// Pays with a render's fuel.
pub(super) fn fuel_of<'a>(state: &'a State<'_, '_>) -> impl Fn(u64) -> Result<(), Error> + 'a {
    move |fuel| state.consume_fuel(fuel)
}

impl<'a> Meter<'a> {
    /// A meter paying through `pay`; `None` pays nothing (tests of the pure functions).
    pub(super) fn new(pay: Option<Pay<'a>>) -> Meter<'a> {
        Meter {
            text: String::new(),
            unpaid: 0,
            pay,
        }
    }

    /// Appends `s` once it is paid for.
    ///
    /// # Errors
    ///
    /// minijinja's out-of-fuel error, before `s` is appended.
    pub(super) fn push_str(&mut self, s: &str) -> Result<(), Error> {
        self.unpaid = self.unpaid.saturating_add(s.len());
        if self.unpaid >= CHUNK {
            self.pay()?;
        }
        self.text.push_str(s);
        Ok(())
    }

    /// Appends `c`.
    ///
    /// # Errors
    ///
    /// As [`push_str`](Self::push_str).
    pub(super) fn push(&mut self, c: char) -> Result<(), Error> {
        self.push_str(c.encode_utf8(&mut [0; 4]))
    }

    fn pay(&mut self) -> Result<(), Error> {
        let fuel = self.unpaid.div_ceil(BYTES_PER_FUEL);
        self.unpaid = 0;
        match self.pay {
            Some(pay) => pay(u64::try_from(fuel).unwrap_or(u64::MAX)),
            None => Ok(()),
        }
    }

    /// The text, paid for in full.
    ///
    /// # Errors
    ///
    /// minijinja's out-of-fuel error.
    pub(super) fn finish(mut self) -> Result<String, Error> {
        self.pay()?;
        Ok(self.text)
    }
}

/// The error for a value nested deeper than [`MAX_DEPTH`] in `what` (`repr`, `tojson`, ...),
/// marked as this bound's ([`is_too_deep`]).
pub(super) fn too_deep(what: &str) -> Error {
    Error::new(
        ErrorKind::InvalidOperation,
        format!("{what}: the value is nested more than {MAX_DEPTH} levels deep"),
    )
    .with_source(TooDeep)
}

/// minijinja's detail for calls nested past the environment's recursion limit
/// (`vm/context.rs`, `check_depth`, in minijinja 3.1.0, the version `Cargo.toml` pins).
const RECURSION_LIMIT_EXCEEDED: &str = "recursion limit exceeded";

/// Whether `err` is a nesting bound's: ours ([`too_deep`]) or minijinja's recursion limit.
pub(super) fn is_too_deep(err: &Error) -> bool {
    std::error::Error::source(err).is_some_and(<dyn std::error::Error>::is::<TooDeep>)
        || (err.kind() == ErrorKind::InvalidOperation
            && err.detail() == Some(RECURSION_LIMIT_EXCEEDED))
}

/// The mark [`too_deep`]'s error carries as its source, so that the render's error says
/// which bound it met without reading its words.
#[derive(Debug)]
struct TooDeep;

impl std::fmt::Display for TooDeep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "nested more than {MAX_DEPTH} levels deep")
    }
}

impl std::error::Error for TooDeep {}

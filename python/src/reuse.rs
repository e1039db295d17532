//! The buffers one `Assembler` reads its requests into, kept from call to call.
//!
//! Reading 50 results of 2 KiB fresh allocates a few hundred strings and tables and frees
//! them after the call; in a loop of calls that was the largest part of the cost the Python
//! call adds to the Rust one. Read into the last request's results instead, the strings are
//! copied into capacity they already have (`deserialize_request_into`).

use std::sync::{Mutex, MutexGuard, TryLockError};

use mentor_context::MentorRagResult;
use mentor_context::wire::ParsedResults;

/// The most bytes the buffers keep between calls. One request far larger than the usual (a
/// megabyte document, a million results) is read, and its buffers are then let go, so that
/// one request does not hold its memory for the life of the `Assembler`.
pub(crate) const MAX_KEPT_BYTES: usize = 4 << 20;

/// The results of the last request, their buffers kept for the next.
#[derive(Default)]
pub(crate) struct Reused(Mutex<ParsedResults>);

impl Reused {
    /// The bytes the buffers hold now, or `None` while a call holds them.
    pub(crate) fn kept_bytes(&self) -> Option<usize> {
        self.take().map(|parsed| kept_bytes(&parsed))
    }

    /// The buffers, when no other call holds them (calls on one `Assembler` from several
    /// threads at once, or a call made from a finalizer inside another); else `None`, and
    /// the caller reads into buffers of its own.
    pub(crate) fn take(&self) -> Option<MutexGuard<'_, ParsedResults>> {
        // After a panic they are in an unknown state; every read overwrites them whole, so
        // they are as good as empty.
        try_lock(&self.0)
    }
}

/// `mutex`'s guard when no one holds it, even if a thread panicked holding it; `None`
/// rather than waiting. What is kept behind these locks is only ever reused, never
/// trusted, and a wait could be on a call that waits for the GIL this thread holds.
pub(crate) fn try_lock<T>(mutex: &Mutex<T>) -> Option<MutexGuard<'_, T>> {
    match mutex.try_lock() {
        Ok(guard) => Some(guard),
        Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}

/// Lets go of `parsed`'s buffers when they hold more than [`MAX_KEPT_BYTES`].
pub(crate) fn trim(parsed: &mut ParsedResults) {
    if kept_bytes(parsed) > MAX_KEPT_BYTES {
        *parsed = ParsedResults::default();
    }
}

/// About the bytes `parsed` holds: the list of results (its room, not only its length: a
/// refused request leaves the list empty and its room kept), each result's strings, and each
/// metadata table's entries and index.
pub(crate) fn kept_bytes(parsed: &ParsedResults) -> usize {
    /// An entry of a metadata table: its key and value, and the hash and slot `IndexMap`
    /// keeps for it.
    const ENTRY_BYTES: usize = size_of::<(String, Option<String>)>() + 2 * size_of::<usize>() + 1;
    let optional = |text: &Option<String>| text.as_ref().map_or(0, String::capacity);
    let results = parsed.results.iter().map(|result| {
        let metadata = result.metadata.as_ref().map_or(0, |table| {
            let entries = table
                .iter()
                .map(|(key, value)| key.capacity() + optional(value));
            table.capacity() * ENTRY_BYTES + entries.sum::<usize>()
        });
        result.content.capacity()
            + optional(&result.source_url)
            + optional(&result.title)
            + metadata
    });
    parsed.results.capacity() * size_of::<MentorRagResult>() + results.sum::<usize>()
}

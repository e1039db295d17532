//! The keys of the structs serde writes, numbered once for the process.
//!
//! serde names a struct's fields with `&'static str`s, the same few dozen in every report.
//! Each gets a number the first time it is written; JavaScript keeps the names by number
//! (`codec.js`, `addKeys`), so it sets each property with a key string it already holds
//! instead of making (and interning) a new one per property. Numbers are never reused, so a
//! tape written on any thread reads the same in every environment.

use std::cell::RefCell;
use std::sync::{PoisonError, RwLock};

/// Every key numbered so far, by number.
static KEYS: RwLock<Vec<&'static str>> = RwLock::new(Vec::new());

thread_local! {
    /// The keys this thread has looked up, by the address of their text: serde hands the
    /// same `&'static str` for a field every time, so an address compare finds it.
    static SEEN: RefCell<Vec<(usize, usize, u32)>> = const { RefCell::new(Vec::new()) };
}

/// The number of `key`.
pub(super) fn number(key: &'static str) -> u32 {
    let address = (key.as_ptr() as usize, key.len());
    let seen = SEEN.with_borrow(|seen| {
        seen.iter()
            .find(|&&(at, len, _)| (at, len) == address)
            .map(|&(_, _, id)| id)
    });
    if let Some(id) = seen {
        return id;
    }
    let id = {
        let mut keys = KEYS.write().unwrap_or_else(PoisonError::into_inner);
        // Two fields of two types may share a name, in one entry; so may two copies of one
        // string literal at two addresses.
        match keys.iter().position(|known| *known == key) {
            Some(at) => at,
            None => {
                keys.push(key);
                keys.len() - 1
            }
        }
    };
    let id = u32::try_from(id).unwrap_or(u32::MAX);
    SEEN.with_borrow_mut(|seen| seen.push((address.0, address.1, id)));
    id
}

/// The names numbered `from` and after, in order.
pub(super) fn names_from(from: usize) -> Vec<&'static str> {
    let keys = KEYS.read().unwrap_or_else(PoisonError::into_inner);
    keys.get(from..).map(<[_]>::to_vec).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_keeps_its_number_on_every_thread() {
        let first = number("a key of this test");
        assert_eq!(number("a key of this test"), first);
        let elsewhere = std::thread::spawn(|| number("a key of this test"))
            .join()
            .unwrap();
        assert_eq!(elsewhere, first);
        let other = number("another key of this test");
        assert_ne!(other, first);
        let names = names_from(0);
        assert_eq!(names[first as usize], "a key of this test");
        assert_eq!(names[other as usize], "another key of this test");
    }
}

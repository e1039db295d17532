//! The keys of a report as Python strings, interned once and kept from report to report.

use std::cell::{Cell, RefCell};
use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::reuse::try_lock;

/// The keys of the reports built so far, kept for the next: a report is made of the same
/// two dozen names, and interning them anew cost each call about 20 dict lookups.
static KNOWN_KEYS: Mutex<Vec<(&'static str, Py<PyString>)>> = Mutex::new(Vec::new());

/// The known keys; none when another report holds them (it puts back as many).
pub(super) fn take_known_keys() -> Vec<(&'static str, Py<PyString>)> {
    try_lock(&KNOWN_KEYS)
        .map(|mut known| std::mem::take(&mut *known))
        .unwrap_or_default()
}

pub(super) fn put_back_known_keys(keys: Vec<(&'static str, Py<PyString>)>) {
    if let Some(mut known) = try_lock(&KNOWN_KEYS)
        && keys.len() >= known.len()
    {
        *known = keys;
    }
}

/// The field names of the structs serialized so far, as Python strings. A name is found
/// again by its pointer (serde hands over the same `&'static str` each time), first where
/// the last one found was followed, since a struct's fields come in the same order each time.
pub(super) struct Keys<'py> {
    pub(super) py: Python<'py>,
    pub(super) seen: RefCell<Vec<(&'static str, Py<PyString>)>>,
    /// Where the name after the last one found was, the first place to look.
    pub(super) next: Cell<usize>,
}

impl<'py> Keys<'py> {
    pub(super) fn get(&self, name: &'static str) -> Bound<'py, PyString> {
        let mut seen = self.seen.borrow_mut();
        let hinted = self.next.get();
        let at = match seen.get(hinted) {
            Some((known, _)) if std::ptr::eq(*known, name) => Some(hinted),
            _ => seen
                .iter()
                .position(|(known, _)| std::ptr::eq(*known, name)),
        };
        let at = at.unwrap_or_else(|| {
            seen.push((name, PyString::intern(self.py, name).unbind()));
            seen.len() - 1
        });
        self.next.set(at + 1);
        seen[at].1.bind(self.py).clone()
    }
}

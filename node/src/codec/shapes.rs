//! The shapes of the structs serde writes: the keys of their fields in order, numbered once
//! for the process.
//!
//! A report is some sixty structs of five shapes (a citation, an omission, ...). JavaScript
//! builds an object of a shape it knows with an object literal of its own (`codec.js`,
//! `addShapes`): V8 makes such an object at once with the right hidden class, where setting
//! its properties one by one by computed key takes it through a lookup per property. That
//! is what lets the report be built for less than `JSON.parse` of it costs. Numbers are never
//! reused, so a tape written on any thread reads the same in every environment.

use std::cell::RefCell;
use std::sync::{PoisonError, RwLock};

use rustc_hash::FxHashMap;

use super::keys;

/// Every shape numbered so far, by number: the key numbers of its fields (see `keys.rs`).
static SHAPES: RwLock<Vec<Vec<u32>>> = RwLock::new(Vec::new());

thread_local! {
    /// The shapes this thread has looked up, by their key numbers.
    static SEEN: RefCell<FxHashMap<Vec<u32>, u32>> = RefCell::new(FxHashMap::default());
    /// The same, by the addresses of their fields' names: a struct's serialization hands the
    /// same names every time, so its shape is found without numbering its keys.
    static BY_NAMES: RefCell<FxHashMap<Vec<(usize, usize)>, u32>> =
        RefCell::new(FxHashMap::default());
}

/// The number of the shape whose fields are named `fields`.
pub(super) fn of_fields(fields: &[&'static str]) -> u32 {
    let addresses = || {
        fields
            .iter()
            .map(|name| (name.as_ptr() as usize, name.len()))
    };
    let found = BY_NAMES.with_borrow(|seen| {
        // A lookup without building the key: a shape has a dozen fields at most.
        let mut key = [(0, 0); 16];
        (fields.len() <= key.len()).then(|| {
            for (slot, address) in key.iter_mut().zip(addresses()) {
                *slot = address;
            }
            seen.get(&key[..fields.len()]).copied()
        })?
    });
    if let Some(id) = found {
        return id;
    }
    let numbers: Vec<u32> = fields.iter().map(|name| keys::number(name)).collect();
    let id = number(&numbers);
    BY_NAMES.with_borrow_mut(|seen| seen.insert(addresses().collect(), id));
    id
}

/// The number of the shape whose fields have the key numbers `keys`.
fn number(keys: &[u32]) -> u32 {
    if let Some(id) = SEEN.with_borrow(|seen| seen.get(keys).copied()) {
        return id;
    }
    let id = {
        let mut shapes = SHAPES.write().unwrap_or_else(PoisonError::into_inner);
        match shapes.iter().position(|known| known == keys) {
            Some(at) => at,
            None => {
                shapes.push(keys.to_vec());
                shapes.len() - 1
            }
        }
    };
    let id = u32::try_from(id).unwrap_or(u32::MAX);
    SEEN.with_borrow_mut(|seen| seen.insert(keys.to_vec(), id));
    id
}

/// The shapes numbered `from` and after, in order, each as its key numbers.
pub(super) fn shapes_from(from: usize) -> Vec<Vec<u32>> {
    let shapes = SHAPES.read().unwrap_or_else(PoisonError::into_inner);
    shapes.get(from..).map(<[_]>::to_vec).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shape_found_by_its_names_is_the_shape_of_its_keys() {
        let names: [&'static str; 2] = ["a field of this test", "another field of this test"];
        let id = of_fields(&names);
        assert_eq!(of_fields(&names), id);
        let keys = [keys::number(names[0]), keys::number(names[1])];
        assert_eq!(number(&keys), id);
        assert_eq!(shapes_from(0)[id as usize], keys);
    }

    #[test]
    fn a_shape_keeps_its_number_on_every_thread() {
        let first = number(&[900, 901, 902]);
        assert_eq!(number(&[900, 901, 902]), first);
        let elsewhere = std::thread::spawn(|| number(&[900, 901, 902]))
            .join()
            .unwrap();
        assert_eq!(elsewhere, first);
        let other = number(&[900, 902]);
        assert_ne!(other, first);
        assert_eq!(shapes_from(0)[first as usize], [900, 901, 902]);
    }
}

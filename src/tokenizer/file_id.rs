//! Names for tokenizers read from files: the family and a short hash of the file, so that
//! reports say which file counted, and a shared [`TokenCache`](crate::TokenCache) never mixes
//! the counts of two files.

use std::path::Path;

use crate::Error;
use crate::hash::hash_parts;
use crate::read_file::{TOKENIZER_FILE, read_file};

/// Reads `path` (a regular file, at most [`TOKENIZER_FILE`] bytes) and loads its bytes with
/// `from_slice`, naming the file in any error.
pub(super) fn load_file<T>(
    path: &Path,
    from_slice: impl FnOnce(&[u8]) -> Result<T, Error>,
) -> Result<T, Error> {
    let bytes = read_file(path, TOKENIZER_FILE).map_err(|e| Error::tokenizer_file(path, e))?;
    from_slice(&bytes).map_err(|e| e.in_file(path))
}

/// `family@hash`, the hash being 8 hex digits of the file's bytes, the same on every build and
/// platform (`llama3@0c8e2f1a`).
pub(super) fn file_name(family: &str, file: &[u8]) -> String {
    // Only the top 32 bits: enough to tell a handful of files apart, short enough to read.
    format!("{family}@{:08x}", hash_parts(0, &[file]) >> 32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_differ_by_content_and_keep_the_family() {
        let a = file_name("llama3", b"{\"model\": 1}");
        assert_eq!(a, file_name("llama3", b"{\"model\": 1}"));
        assert_ne!(a, file_name("llama3", b"{\"model\": 2}"));
        assert!(
            a.starts_with("llama3@") && a.len() == "llama3@".len() + 8,
            "{a}"
        );
    }
}

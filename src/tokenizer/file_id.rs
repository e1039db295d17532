//! Names for tokenizers read from files: the family and a short hash of the file, so that
//! reports say which file counted, and a shared [`TokenCache`](crate::TokenCache) never mixes
//! the counts of two files.

use crate::fingerprint::fingerprint;

/// `family@hash`, the hash being 8 hex digits of the file's bytes, the same on every build and
/// platform (`llama3@0c8e2f1a`).
pub(super) fn file_name(family: &str, file: &[u8]) -> String {
    // Only the top 32 bits: enough to tell a handful of files apart, short enough to read.
    format!("{family}@{:08x}", fingerprint(0, &[file]) >> 32)
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

//! The few lines a page names (the slowest, the least filled): kept as they stream past, in a
//! list of fixed length, so a run of any length keeps ten of each.

/// The `N` entries with the least keys seen, least first; among equal keys, the first seen.
/// Lines are offered in input order, so "first seen" is "earliest line", whatever `--jobs`.
#[derive(Debug, Clone)]
pub(super) struct Least<K, V, const N: usize> {
    entries: Vec<(K, V)>,
}

impl<K: Ord, V, const N: usize> Least<K, V, N> {
    pub(super) fn new() -> Self {
        Least {
            entries: Vec::with_capacity(N + 1),
        }
    }

    /// Whether an entry of `key` would be kept: to skip building a value that would not.
    pub(super) fn takes(&self, key: &K) -> bool {
        self.entries.len() < N || self.entries.last().is_some_and(|(last, _)| key < last)
    }

    /// Offers an entry; it is kept if it is among the `N` least so far.
    pub(super) fn offer(&mut self, key: K, value: V) {
        if !self.takes(&key) {
            return;
        }
        // After every entry of an equal key: the first seen stays first.
        let at = self.entries.partition_point(|(k, _)| *k <= key);
        self.entries.insert(at, (key, value));
        self.entries.truncate(N);
    }

    /// The entries, least first.
    pub(super) fn entries(&self) -> &[(K, V)] {
        &self.entries
    }
}

#[cfg(test)]
mod tests {
    use std::cmp::Reverse;

    use super::*;

    #[test]
    fn keeps_the_least_and_the_first_of_equals() {
        let mut least: Least<u32, usize, 3> = Least::new();
        for (line, key) in [5, 1, 4, 1, 9, 0, 4].into_iter().enumerate() {
            least.offer(key, line);
        }
        let kept: Vec<(u32, usize)> = least.entries().to_vec();
        assert_eq!(kept, [(0, 5), (1, 1), (1, 3)]);
        // The most, by reversing the key.
        let mut most: Least<Reverse<u32>, usize, 2> = Least::new();
        for (line, key) in [5, 9, 4, 9].into_iter().enumerate() {
            most.offer(Reverse(key), line);
        }
        let lines: Vec<usize> = most.entries().iter().map(|(_, line)| *line).collect();
        assert_eq!(lines, [1, 3]);
    }
}

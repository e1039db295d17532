//! A bounded, thread-safe cache of token counts, for the documents a chat backend sees request
//! after request.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use crate::hash::hash_parts;
use crate::meter::Checkpoint;

/// Remembers what measuring a text taught: its token count and exact checkpoints inside it.
///
/// Chat backends retrieve the same documents again and again. With a cache, a block measured
/// once is not tokenized again: a hit costs a hash and a comparison of the text. A block that
/// has to be cut is re-tokenized only around the cut, from the nearest checkpoint.
///
/// Entries are keyed by the tokenizer's name and the text, and a hit is confirmed by comparing
/// the whole text, so a hash collision (or a document crafted to collide) can never produce a
/// wrong count. When the texts held exceed the size limit, the oldest entries go first.
///
/// ```
/// use mentor_context::{ContextBuilder, MentorRagResult};
/// use mentor_context::tokenizer::TokenCache;
///
/// let cache = TokenCache::new(64 << 20);
/// let assembler = ContextBuilder::new(500).cache(cache.clone()).build()?;
/// let results = [MentorRagResult::from_content("Cached once, counted once.", 1.0)];
/// let cold = assembler.assemble(&results);
/// let counted = cache.len();
/// assert!(counted > 0);
/// // The same documents again: the counts come from the cache, and nothing new is counted.
/// let warm = assembler.assemble(&results);
/// assert_eq!(cold, warm);
/// assert_eq!(cache.len(), counted);
/// # Ok::<(), mentor_context::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct TokenCache {
    inner: Arc<Mutex<Inner>>,
}

#[derive(Debug)]
struct Inner {
    max_bytes: usize,
    bytes: usize,
    entries: HashMap<u64, Arc<Entry>>,
    /// Keys in insertion order, for eviction.
    order: VecDeque<u64>,
}

/// What is known about one text.
#[derive(Debug)]
pub(crate) struct Entry {
    pub(crate) tokenizer: Box<str>,
    pub(crate) text: Box<str>,
    /// The whole text's count, if it was ever measured to the end.
    pub(crate) total: Option<usize>,
    /// Exact split points with the count before each, ascending, from the start.
    pub(crate) checkpoints: Box<[Checkpoint]>,
}

/// Bytes an entry costs beyond its text: the key, the map slot, the checkpoints' headers.
const ENTRY_OVERHEAD: usize = 96;

impl Entry {
    fn cost(&self) -> usize {
        self.text.len() + std::mem::size_of_val(&*self.checkpoints) + ENTRY_OVERHEAD
    }
}

impl TokenCache {
    /// A cache holding at most about `max_bytes` of texts and their counts.
    #[must_use]
    pub fn new(max_bytes: usize) -> TokenCache {
        TokenCache {
            inner: Arc::new(Mutex::new(Inner {
                max_bytes,
                bytes: 0,
                entries: HashMap::new(),
                order: VecDeque::new(),
            })),
        }
    }

    /// The number of texts held.
    #[must_use]
    pub fn len(&self) -> usize {
        self.lock().entries.len()
    }

    /// Whether the cache holds nothing.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// About how many bytes the cache holds.
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }

    /// Forgets everything.
    pub fn clear(&self) {
        let mut inner = self.lock();
        inner.entries.clear();
        inner.order.clear();
        inner.bytes = 0;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock cannot leave the map inconsistent in a way that
        // matters: every entry is checked against the text before it is used.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// What is known about `text` under `tokenizer`, if anything.
    pub(crate) fn get(&self, tokenizer: &str, text: &str) -> Option<Arc<Entry>> {
        let key = key(tokenizer, text);
        let entry = self.lock().entries.get(&key).cloned()?;
        (&*entry.tokenizer == tokenizer && &*entry.text == text).then_some(entry)
    }

    /// Records what measuring `text` taught, replacing what was known.
    pub(crate) fn put(
        &self,
        tokenizer: &str,
        text: &str,
        total: Option<usize>,
        checkpoints: &[Checkpoint],
    ) {
        let entry = Entry {
            tokenizer: tokenizer.into(),
            text: text.into(),
            total,
            checkpoints: checkpoints.into(),
        };
        let cost = entry.cost();
        let key = key(tokenizer, text);
        let mut inner = self.lock();
        if cost > inner.max_bytes {
            return;
        }
        if let Some(old) = inner.entries.insert(key, Arc::new(entry)) {
            inner.bytes -= old.cost();
        } else {
            inner.order.push_back(key);
        }
        inner.bytes += cost;
        while inner.bytes > inner.max_bytes {
            let Some(oldest) = inner.order.pop_front() else {
                break;
            };
            if let Some(old) = inner.entries.remove(&oldest) {
                inner.bytes -= old.cost();
            }
        }
    }
}

/// The cache's key for `text` under `tokenizer`. Hits are confirmed by comparing texts, so
/// the key needs to spread, not resist attack.
fn key(tokenizer: &str, text: &str) -> u64 {
    hash_parts(0, &[tokenizer.as_bytes(), text.as_bytes()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_only_for_the_same_text_and_tokenizer() {
        let cache = TokenCache::new(1 << 20);
        assert!(cache.is_empty());
        cache.put("o200k_base", "hello world", Some(2), &[Checkpoint::START]);
        assert_eq!(
            cache.get("o200k_base", "hello world").unwrap().total,
            Some(2)
        );
        assert!(cache.get("cl100k_base", "hello world").is_none());
        assert!(cache.get("o200k_base", "hello world!").is_none());
        assert!(!cache.is_empty());
        cache.clear();
        assert!(cache.is_empty());
    }

    /// Two texts, or two tokenizers, whose keys collide: an entry found under the key must
    /// match both, or it is not used. (A 64-bit collision cannot be found by search; the
    /// test files an entry under another pair's key by hand.)
    #[test]
    fn a_colliding_key_does_not_give_another_texts_entry() {
        let cache = TokenCache::new(1 << 20);
        cache.put("o200k_base", "hello world", Some(2), &[Checkpoint::START]);
        let entry = cache.get("o200k_base", "hello world").unwrap();
        {
            let mut inner = cache.lock();
            for (tokenizer, text) in [("o200k_base", "other text"), ("cl100k_base", "hello world")]
            {
                inner
                    .entries
                    .insert(key(tokenizer, text), Arc::clone(&entry));
            }
        }
        assert!(cache.get("o200k_base", "other text").is_none());
        assert!(cache.get("cl100k_base", "hello world").is_none());
        assert!(cache.get("o200k_base", "hello world").is_some());
    }

    /// What one entry for `text` with one checkpoint costs.
    fn cost_of(text: &str) -> usize {
        text.len() + std::mem::size_of::<Checkpoint>() + ENTRY_OVERHEAD
    }

    #[test]
    fn an_entry_as_large_as_the_cache_fits_and_a_larger_one_does_not() {
        let text = "hello world";
        let cache = TokenCache::new(cost_of(text));
        cache.put("t", text, Some(2), &[Checkpoint::START]);
        assert_eq!(cache.len(), 1);
        assert_eq!(cache.bytes(), cost_of(text));
        let cache = TokenCache::new(cost_of(text) - 1);
        cache.put("t", text, Some(2), &[Checkpoint::START]);
        assert!(cache.is_empty());
        assert_eq!(cache.bytes(), 0);
    }

    #[test]
    fn a_full_cache_evicts_nothing_until_it_is_over() {
        let cache = TokenCache::new(cost_of("one") + cost_of("two"));
        cache.put("t", "one", Some(1), &[Checkpoint::START]);
        cache.put("t", "two", Some(1), &[Checkpoint::START]);
        assert_eq!(cache.len(), 2);
        // Replacing an entry frees what it cost.
        cache.put("t", "two", Some(1), &[Checkpoint::START]);
        assert_eq!(
            (cache.len(), cache.bytes()),
            (2, cost_of("one") + cost_of("two"))
        );
        cache.put("t", "six", Some(1), &[Checkpoint::START]);
        assert_eq!(cache.len(), 2);
        assert!(cache.get("t", "one").is_none());
        cache.clear();
        assert!(cache.is_empty());
        assert_eq!(cache.bytes(), 0);
    }

    #[test]
    fn distinct_texts_get_distinct_keys() {
        let texts: std::collections::BTreeSet<String> = (0u8..128)
            .map(|b| char::from(b).to_string())
            .chain((0..2000).map(|i| i.to_string()))
            .chain((0..200).map(|i| "x".repeat(i)))
            .collect();
        let mut keys: Vec<u64> = texts.iter().map(|t| key("o200k_base", t)).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), texts.len());
        assert_ne!(key("o200k_base", "a"), key("cl100k_base", "a"));
    }

    #[test]
    fn evicts_oldest_beyond_the_limit() {
        let cache = TokenCache::new(3 * (ENTRY_OVERHEAD + 16 + 10));
        for i in 0..5 {
            cache.put("t", &format!("text {i:05}"), Some(i), &[Checkpoint::START]);
        }
        assert_eq!(cache.len(), 3);
        assert!(cache.get("t", "text 00000").is_none());
        assert!(cache.get("t", "text 00004").is_some());
        assert!(cache.bytes() <= 3 * (ENTRY_OVERHEAD + 16 + 10));
    }
}

//! Many requests at once on one shared assembler (feature `rayon`).

use rayon::prelude::*;

use super::Assembler;
use crate::context::AssembledContext;
use crate::rag_result::MentorRagResult;

impl Assembler {
    /// Assembles every request of `requests` in parallel on rayon's thread pool (the pool
    /// this is called from, if any, else the global one) and returns the contexts in the
    /// order of the requests.
    ///
    /// Each context is exactly what [`assemble`](Self::assemble) returns for its request:
    /// the assembler is shared, read-only, by all threads. With a [`TokenCache`](crate::tokenizer::TokenCache)
    /// the threads share the cache too.
    ///
    /// ```
    /// use mentor_context::{ContextBuilder, MentorRagResult};
    ///
    /// let assembler = ContextBuilder::new(200).build()?;
    /// let requests: Vec<Vec<MentorRagResult>> = (0..100)
    ///     .map(|i| vec![MentorRagResult::from_content(format!("Document {i}."), 0.5)])
    ///     .collect();
    /// let contexts = assembler.assemble_many(&requests);
    /// assert_eq!(contexts.len(), 100);
    /// assert!(contexts[42].text.contains("Document 42."));
    /// # Ok::<(), mentor_context::Error>(())
    /// ```
    ///
    /// Without the feature, scoped threads do the same; see the crate documentation's
    /// "Many requests at once".
    #[must_use]
    #[cfg_attr(docsrs, doc(cfg(feature = "rayon")))]
    pub fn assemble_many<'r, R>(&self, requests: &'r [R]) -> Vec<AssembledContext<'r>>
    where
        R: AsRef<[MentorRagResult]> + Sync,
    {
        requests
            .par_iter()
            .map(|request| self.assemble(request.as_ref()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::tokenizer::TokenCache;
    use crate::{ContextBuilder, MentorRagResult};

    #[test]
    fn many_in_parallel_are_each_what_one_at_a_time_gives_in_order() {
        let requests: Vec<Vec<MentorRagResult>> = (0..64)
            .map(|i| {
                (0..i % 7 + 1)
                    .map(|j| {
                        MentorRagResult::from_content(
                            format!("Request {i}, document {j}. ").repeat(i + j),
                            1.0 / (j + 1) as f32,
                        )
                    })
                    .collect()
            })
            .collect();
        for cache in [None, Some(TokenCache::new(1 << 20))] {
            let assembler = ContextBuilder::new(120).cache(cache).build().unwrap();
            let many = assembler.assemble_many(&requests);
            assert_eq!(many.len(), requests.len());
            for (request, context) in requests.iter().zip(&many) {
                assert_eq!(*context, assembler.assemble(request));
            }
        }
    }
}

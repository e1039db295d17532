//! Writing a block's head: the marker, the title and the metadata lines, whole or shortened to
//! `max_head_tokens` (`head_cap.rs`).

use super::config::Config;
use super::head_cap;
use crate::format::BlockHead;
use crate::rag_result::MentorRagResult;

/// Writes the head of `result` as block `index` in the format of `config`, shortened to
/// `max_head_tokens` if that is set and the whole head is over it. Returns whether it was
/// shortened: what the block's citation reports, decided here once.
pub(super) fn write_head(
    config: &Config,
    result: &MentorRagResult,
    index: usize,
    truncated: bool,
    out: &mut String,
) -> bool {
    if let Some(shortened) = head_cap::shorten(config, result, index, truncated) {
        config.format.head(&shortened.head(index, truncated), out);
        return true;
    }
    let head = BlockHead::new(
        index,
        result.display_title(),
        truncated,
        result.metadata.as_ref(),
        &config.hidden_keys,
    )
    .with_source_url(result.source_url.as_deref());
    config.format.head(&head, out);
    false
}

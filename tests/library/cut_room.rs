//! Issue 33 item 14: what `min_truncated_tokens` (`--min-truncated-tokens`) promises, held
//! to the letter of its help: a block is cut only with at least that many tokens of room
//! for its content, and the cut keeps at least half of the room it had, not only half of
//! the minimum. The move back to a sentence or word end used to look back at least 64
//! bytes, most of a short room: at budget 50 with a minimum of 20, a cut kept 6.

use mentor_context::tokenizer::TokenCounter;
use mentor_context::{ContextBuilder, Encoding, MentorRagResult};

#[test]
fn a_cut_keeps_at_least_half_the_room_its_content_had() {
    let prose = "Quillstack is billed per active seat, and every seat includes storage. \
                 Annual plans save two months. "
        .repeat(20);
    // A sentence end, then a long stretch without a word end: a key, a hash, a URL.
    let key = format!("See the notice. {}", "A1b2C3d4E5".repeat(60));
    let mut cuts = 0;
    for (content, min) in [&prose, &key]
        .into_iter()
        .flat_map(|content| [1, 8, 12, 20, 32, 64].map(|min| (content, min)))
    {
        let results = [MentorRagResult::from_content(content.clone(), 0.9).with_title("Prices")];
        let assembler = |budget| {
            ContextBuilder::new(budget)
                .min_truncated_tokens(min)
                .build()
                .unwrap()
        };
        // The whole text but the content: what a cut leaves for the content is the rest.
        let frame =
            assembler(10_000).assemble(&results).token_count - Encoding::O200kBase.count(content);
        for budget in min..min + 200 {
            let context = assembler(budget).assemble(&results);
            let room = budget.saturating_sub(frame);
            let Some(cut) = context.citations.first() else {
                assert!(
                    room < min + 4,
                    "budget {budget}, minimum {min}: left out with room {room}"
                );
                continue;
            };
            assert!(cut.truncated);
            cuts += 1;
            let kept = Encoding::O200kBase.count(&content[..cut.kept_bytes.unwrap()]);
            // The cut mark's few tokens are the frame's, whatever the seams.
            assert!(
                room + 4 >= min,
                "budget {budget}, minimum {min}: cut with room {room}"
            );
            assert!(
                kept * 2 >= room.min(budget - (context.token_count - kept)),
                "budget {budget}, minimum {min}: kept {kept} of a room of {room}"
            );
            assert!(
                kept * 2 >= min,
                "budget {budget}, minimum {min}: the cut kept {kept} content tokens of {content:.20}"
            );
        }
    }
    assert!(cuts > 1000, "{cuts}");
}

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

/// Issue 44: at budget 50 with a minimum of 20, o200k, plain, a header, a first result of
/// 5,242 characters of control and symbol characters kept 6 tokens. Its whitespace (line
/// breaks, U+000B, U+000C, U+0085) came in runs longer than the window a cut looks back in,
/// and trailing whitespace was dropped whatever its length.
#[test]
fn a_cut_in_a_run_of_control_whitespace_keeps_half_the_room() {
    let header = "Answer from these documents and cite them as [n].";
    let assembler = ContextBuilder::new(50)
        .header(header)
        .min_truncated_tokens(20)
        .build()
        .unwrap();
    let mut pool: Vec<char> = (1u32..32)
        .chain(127..160)
        .filter_map(char::from_u32)
        .collect();
    pool.extend("!@#$%^&*()_+-=[]{}|;:'\",.<>/?`~§±©®°€£¥•…—–™".chars());
    let spaces = ['\t', '\n', '\u{b}', '\u{c}', '\r', '\u{85}', ' '];
    // A fixed generator: the same contents on every run.
    let mut state = 12345u64;
    let mut next = |n: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        usize::try_from(state >> 33).unwrap() % n
    };
    let mut contents = vec![format!("={}", "\r\u{c}\u{85} \u{c}\n".repeat(5241 / 6))];
    for _ in 0..1500 {
        let mut chars: Vec<char> = (0..1 + next(12)).map(|_| pool[next(pool.len())]).collect();
        for _ in 0..next(8) {
            chars.push(spaces[next(spaces.len())]);
        }
        contents.push((0..5242).map(|_| chars[next(chars.len())]).collect());
    }
    let mut cuts = 0;
    for content in &contents {
        let results = [MentorRagResult::from_content(content.clone(), 1.0)];
        let context = assembler.assemble(&results);
        let Some(cut) = context.citations.first() else {
            continue;
        };
        cuts += 1;
        let kept = Encoding::O200kBase.count(&content[..cut.kept_bytes.unwrap()]);
        // What the content could have had, the other parts being what they came to.
        let room = 50 - (context.token_count - kept);
        assert!(
            kept * 2 >= room && kept * 2 >= 20,
            "kept {kept} of a room of {room}: {:?}",
            content.chars().take(40).collect::<String>()
        );
    }
    assert!(cuts > 1000, "{cuts}");
}

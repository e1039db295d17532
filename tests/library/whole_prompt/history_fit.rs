//! `Prompt::history`: the numbers the history's fitting used are the trimming rule's, over
//! generated conversations, windows, caps and trim steps.

use mentor_context::prompt::{ChatTemplate, PromptBuilder};

use super::conversations::{Shape, conversation};
use super::properties::{date, results};

/// Each prompt's `history` against its dropped messages and against the same conversation
/// with every turn kept: the kept turns and the dropped ones cost what the whole history
/// costs; the next older turn is the newest dropped one; a rule's trim left the kept turns in
/// the room (widened by what the context left unused, with one small result) and the next
/// older turn over what a trim leaves.
#[test]
fn the_history_s_numbers_are_the_rule_s() {
    let results = results();
    let (mut trimmed, mut over_room, mut widened) = (0, 0, 0);
    for seed in 0..80u64 {
        // Every other conversation with one result: the context leaves room to the history.
        let results = if seed % 2 == 0 {
            &results[..]
        } else {
            &results[..1]
        };
        let chat = conversation(seed, Shape::Plain, 1 + (seed % 9) as usize);
        let roomy = PromptBuilder::new(ChatTemplate::harmony(), 60_000)
            .date(date())
            .build()
            .unwrap()
            .assemble(&chat, results)
            .unwrap();
        let whole = roomy.history;
        assert_eq!(whole.kept_turns, whole.turns, "seed {seed}");
        assert_eq!(whole.next_older_tokens, None, "seed {seed}");
        assert!(roomy.dropped.is_empty());
        for (window, cap, step) in [
            (700, None, 0.25),
            (1200, Some(60), 0.25),
            (1200, Some(120), 0.0),
            (900, Some(200), 0.5),
        ] {
            let prompt = PromptBuilder::new(ChatTemplate::harmony(), window)
                .reserve(200)
                .history_max_tokens(cap)
                .trim_step(step)
                .date(date())
                .build()
                .unwrap()
                .assemble(&chat, results)
                .unwrap();
            let h = prompt.history;
            let case = format!("seed {seed}, window {window}, cap {cap:?}, step {step}");
            assert_eq!(h.turns, whole.turns, "{case}");
            assert!(cap.is_none_or(|cap| h.room <= cap), "{case}");
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let free = (h.room as f64 * step).ceil() as usize;
            assert_eq!(h.trimmed_room, h.room - free, "{case}");
            let dropped: usize = prompt.dropped.iter().map(|d| d.tokens).sum();
            assert_eq!(h.kept_tokens + dropped, whole.kept_tokens, "{case}");
            assert_eq!(
                h.next_older_tokens.is_some(),
                h.kept_turns < h.turns,
                "{case}"
            );
            let Some(next) = h.next_older_tokens else {
                assert!(h.kept_tokens <= h.room && !h.dropped_to_fit, "{case}");
                continue;
            };
            assert!(next <= dropped, "{case}");
            if h.turns - h.kept_turns == 1 {
                assert_eq!(next, dropped, "{case}");
            }
            if h.dropped_to_fit {
                continue;
            }
            trimmed += 1;
            assert!(h.kept_tokens <= h.room, "{case}");
            assert!(h.kept_tokens + next > h.trimmed_room, "{case}");
            if h.kept_tokens + next > h.room {
                over_room += 1;
            }
            if cap.is_none_or(|cap| h.room < cap) && h.room > (window - 200) / 2 {
                widened += 1;
            }
        }
    }
    assert!(
        trimmed > 10 && over_room > 0 && widened > 0,
        "{trimmed} trimmed, {over_room} over the room, {widened} widened"
    );
}

/// A question that takes most of the window leaves the history less than the rule's room:
/// turns the rule kept are dropped to fit, and the report says so; with a short question the
/// same history is the rule's alone.
#[test]
fn turns_dropped_to_fit_are_reported_as_such() {
    use mentor_context::prompt::Message;
    let mut chat = vec![Message::system("Answer from the documents.")];
    for turn in 0..6 {
        chat.push(Message::user(&format!(
            "What does plan {turn} cost per month?"
        )));
        chat.push(Message::assistant(&format!(
            "Plan {turn} costs {turn}2 EUR a month, billed yearly."
        )));
    }
    let fitted = |question: String| {
        let mut chat = chat.clone();
        chat.push(Message::user(&question));
        PromptBuilder::new(ChatTemplate::harmony(), 700)
            .reserve(100)
            .date(date())
            .build()
            .unwrap()
            .assemble(&chat, &[])
            .unwrap()
    };
    let short = fitted("And plan B?".into()).history;
    assert!(!short.dropped_to_fit, "{short:?}");
    assert_eq!(short.kept_turns, short.turns, "{short:?}");
    let long = fitted("word ".repeat(420)).history;
    assert!(long.dropped_to_fit, "{long:?}");
    assert!(long.kept_turns < long.turns, "{long:?}");
}

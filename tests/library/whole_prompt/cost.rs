//! The whole prompt's cost, counted in bytes handed to the tokenizer (deterministic, unlike
//! time): a cold prompt costs about one count of itself; the next turn of the same
//! conversation, with a warm cache, costs what is new; a longer history costs no more.

use mentor_context::machinery::prompt_with_stats;
use mentor_context::prompt::{ChatTemplate, Message, PromptAssembler, PromptBuilder};
use mentor_context::tokenizer::TokenCache;
use mentor_context::{Encoding, MentorRagResult};

use super::conversations::Rng;
use crate::common::fixture;

const CHATML: &str = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}<|im_start|>assistant\n";

/// A ChatML template of `source`, counted with `o200k_base`.
fn chatml(source: &str) -> ChatTemplate {
    ChatTemplate::jinja(
        source,
        Encoding::O200kBase,
        ["<|im_start|>".to_string(), "<|im_end|>".to_string()],
        None,
        None,
    )
    .unwrap()
}

fn prompts(cache: &TokenCache) -> PromptAssembler {
    PromptBuilder::new(chatml(CHATML), 8192)
        .reserve(1024)
        .date(
            "2026-12-02"
                .parse::<mentor_context::prompt::ConversationDate>()
                .unwrap(),
        )
        .cache(cache.clone())
        .build()
        .unwrap()
}

/// A conversation of `turns` turns of a steady size, then a question.
fn chat(turns: usize) -> Vec<Message> {
    let mut rng = Rng::new(3);
    let mut chat = vec![Message::system(
        "Answer from the documents and cite them as [n].",
    )];
    for turn in 0..turns {
        chat.push(Message::user(&format!(
            "Question {turn}: how does feature {} work with plan {}?",
            rng.below(50),
            rng.below(5)
        )));
        chat.push(Message::assistant(&format!(
            "Feature {turn} works on every plan [1]. It syncs every {} minutes, keeps {} versions and \
             exports to CSV and PDF; on plan {} it also keeps an audit log for a year [2].",
            rng.below(60),
            rng.below(30),
            rng.below(5)
        )));
    }
    chat.push(Message::user(&format!(
        "Question {turns}: and what does it cost?"
    )));
    chat
}

fn cost(
    prompts: &PromptAssembler,
    chat: &[Message],
    results: &[MentorRagResult],
) -> (usize, usize) {
    let (prompt, stats) = prompt_with_stats(prompts, chat, results);
    let prompt = prompt.unwrap();
    (stats.bytes_tokenized, prompt.prompt.unwrap().len())
}

#[test]
fn a_cold_prompt_costs_about_one_count_and_the_next_turn_what_is_new() {
    let results = fixture("bench-english.json");
    let cache = TokenCache::new(64 << 20);
    let prompts = prompts(&cache);
    let twenty = chat(20);
    let (cold, floor) = cost(&prompts, &twenty, &results);
    #[allow(clippy::cast_precision_loss)]
    let ratio = cold as f64 / floor as f64;
    assert!(ratio <= 1.3, "cold: {ratio:.3} x one count of the prompt");

    // The next turn: the answer and one more question, the same results.
    let mut next = twenty[..twenty.len()].to_vec();
    next.push(Message::assistant("It costs 12 EUR a month [1]."));
    next.push(Message::user("Question 21: and per year?"));
    let (warm, _) = cost(&prompts, &next, &results);
    #[allow(clippy::cast_precision_loss)]
    let warm_ratio = warm as f64 / cold as f64;
    assert!(warm_ratio <= 0.3, "warm: {warm_ratio:.3} x the cold cost");

    // A history twice as long costs no more on a warm turn: only what is new is counted.
    let forty = chat(40);
    let _ = cost(&prompts, &forty, &results);
    let mut next = forty.clone();
    next.push(Message::assistant("It costs 12 EUR a month [1]."));
    next.push(Message::user("Question 41: and per year?"));
    let (warm_forty, _) = cost(&prompts, &next, &results);
    assert!(
        warm_forty <= warm + 256,
        "a longer history costs more: {warm_forty} against {warm}"
    );
}

/// However long the conversation, a whole prompt takes a handful of renders: its cost is linear
/// in the conversation. Three paths: contents found in the text (ChatML), Harmony, and a
/// template that rewrites contents (`upper`), whose shares are estimated, not measured by
/// rendering without each turn, and whose estimates fall short (upper case costs more
/// tokens), so the fitting must drop many turns at once.
#[test]
fn renders_stay_few_however_long_the_conversation() {
    let results = fixture("pricing.json");
    let upper = chatml(
        "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content | upper }}<|im_end|>\n{% endfor %}<|im_start|>assistant\n",
    );
    for (name, template) in [
        ("chatml", chatml(CHATML)),
        ("harmony", ChatTemplate::harmony()),
        ("upper", upper),
    ] {
        let prompts = PromptBuilder::new(template, 4096)
            .reserve(512)
            .date(
                "2026-12-02"
                    .parse::<mentor_context::prompt::ConversationDate>()
                    .unwrap(),
            )
            .build()
            .unwrap();
        for turns in [10, 400, 2000] {
            let (prompt, stats) = prompt_with_stats(&prompts, &chat(turns), &results);
            let prompt = prompt.unwrap();
            assert!(prompt.token_count + 512 <= 4096);
            assert!(
                stats.renders <= 16,
                "{name}, {turns} turns: {} renders",
                stats.renders
            );
            if turns == 2000 {
                assert!(prompt.dropped.len() > 3000, "{name}: the case trims");
            }
        }
    }
}

/// A template whose text grows with the question's length (here 500 tokens more once the
/// question with its context passes 100 characters) makes every shrink of the context's budget
/// leave the prompt over by the same amount while the context itself, one short result, does
/// not shrink. The fitting gives the context a few tries, then drops it whole: a bounded
/// number of renders, over every window in the range, not one per step of the budget.
#[test]
fn a_context_that_does_not_shrink_is_dropped_after_a_few_renders() {
    let growing = chatml(
        "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}\
         {% if messages[-1].content | length > 100 %}{{ 'pad ' * 500 }}{% endif %}\
         <|im_start|>assistant\n",
    );
    let results = [MentorRagResult::from_content(
        "Plan B costs 12 EUR a month, billed yearly; plan A is free for a team of three, and \
         plan C is priced on request for teams of more than fifty people.",
        0.9,
    )];
    let chat = [Message::user("What does plan B cost?")];
    let (mut most, mut dropped) = (0, 0);
    for window in (300..1400).step_by(10) {
        let prompts = PromptBuilder::new(growing.clone(), window)
            .reserve(100)
            .build()
            .unwrap();
        let (prompt, stats) = prompt_with_stats(&prompts, &chat, &results);
        let prompt = prompt.unwrap();
        assert!(prompt.token_count + 100 <= window, "window {window}");
        most = most.max(stats.renders);
        if prompt.context.citations.is_empty() {
            dropped += 1;
        }
    }
    // One render of the conversation, the first try, eight more, the empty context, and the
    // tools' render where there are tools (none here).
    assert!(most <= 12, "{most} renders at most");
    assert!(
        most >= 8 && dropped > 0,
        "the case shrinks: {most} renders, {dropped} dropped"
    );
}

/// With no room left for the context, a prompt still over the window drops turns at once: no
/// render is spent on a context budget that is already zero. Here a question that takes most
/// of the window leaves the rule's history over it.
#[test]
fn a_prompt_over_with_no_context_room_drops_turns_without_retrying_the_context() {
    let mut chat = Vec::new();
    for turn in 0..6 {
        chat.push(Message::user(&format!(
            "What does plan {turn} cost per month?"
        )));
        chat.push(Message::assistant(&format!(
            "Plan {turn} costs {turn}2 EUR a month, billed yearly."
        )));
    }
    chat.push(Message::user(&"word ".repeat(420)));
    let prompts = PromptBuilder::new(chatml(CHATML), 700)
        .reserve(100)
        .build()
        .unwrap();
    let (prompt, stats) = prompt_with_stats(&prompts, &chat, &[]);
    let prompt = prompt.unwrap();
    assert!(prompt.history.dropped_to_fit, "{:?}", prompt.history);
    // Enough turns went, and no more: the next older one would not have fitted.
    let next = prompt
        .history
        .next_older_tokens
        .expect("a turn was dropped");
    assert!(prompt.history.kept_turns > 0, "{:?}", prompt.history);
    assert!(
        prompt.token_count + next > 700 - 100,
        "{:?}",
        prompt.history
    );
    // The conversation's render, the first try, the try after the drop, the history widened.
    assert!(stats.renders <= 5, "{} renders", stats.renders);
}

/// A question over the window with a history before it: every turn goes, then one clear
/// error, with no turn looked up past the last.
#[test]
fn a_question_over_the_window_drops_every_turn_then_is_one_error() {
    let mut chat = Vec::new();
    for turn in 0..3 {
        chat.push(Message::user(&format!("What does plan {turn} cost?")));
        chat.push(Message::assistant("12 EUR a month."));
    }
    chat.push(Message::user(&"word ".repeat(900)));
    let prompts = PromptBuilder::new(chatml(CHATML), 700)
        .reserve(100)
        .build()
        .unwrap();
    let (prompt, _) = prompt_with_stats(&prompts, &chat, &[]);
    assert!(
        matches!(
            prompt,
            Err(mentor_context::Error::PromptTooLarge {
                window: 700,
                reserve: 100,
                ..
            })
        ),
        "{prompt:?}"
    );
}

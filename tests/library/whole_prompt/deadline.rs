//! A whole prompt's fitting stops at its deadline: one already passed makes no count and no
//! prompt; one cancelled in the middle stops at the next count, without a prompt; one that
//! never comes changes nothing.

use std::sync::atomic::{AtomicUsize, Ordering};

use mentor_context::prompt::{
    ChatTemplate, ConversationDate, Deadline, Message, PromptAssembler, PromptBuilder,
};
use mentor_context::tokenizer::TokenCounter;
use mentor_context::{Encoding, Error, ErrorKind, MentorRagResult};

const CHATML: &str = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}<|im_start|>assistant\n";

/// o200k_base, counting its calls, which cancels `deadline` when it is asked to count a text
/// holding `cancel_on`.
struct Cancelling {
    inner: Encoding,
    calls: AtomicUsize,
    cancelled_at: AtomicUsize,
    cancel_on: &'static str,
    deadline: Deadline,
}

impl Cancelling {
    fn called(&self, text: &str) {
        let calls = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        if !self.cancel_on.is_empty()
            && text.contains(self.cancel_on)
            && !self.deadline.is_cancelled()
        {
            self.cancelled_at.store(calls, Ordering::SeqCst);
            self.deadline.cancel();
        }
    }
}

impl TokenCounter for Cancelling {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn token_lengths(&self, text: &str, lengths: &mut Vec<u32>) {
        self.called(text);
        self.inner.token_lengths(text, lengths);
    }
    fn count(&self, text: &str) -> usize {
        self.called(text);
        self.inner.count(text)
    }
    fn splits_exactly(&self, text: &str, at: usize) -> bool {
        self.inner.splits_exactly(text, at)
    }
    fn max_token_bytes(&self) -> usize {
        self.inner.max_token_bytes()
    }
    fn max_call_bytes(&self) -> usize {
        self.inner.max_call_bytes()
    }
}

/// Prompts through a tokenizer that cancels `deadline` on a text holding `cancel_on` (never
/// when it is empty), and the tokenizer's calls and the call that cancelled, shared.
fn assembler(
    cancel_on: &'static str,
    deadline: &Deadline,
) -> (PromptAssembler, std::sync::Arc<Cancelling>) {
    let counter = std::sync::Arc::new(Cancelling {
        inner: Encoding::O200kBase,
        calls: AtomicUsize::new(0),
        cancelled_at: AtomicUsize::new(0),
        cancel_on,
        deadline: deadline.clone(),
    });
    let template = ChatTemplate::jinja(
        CHATML,
        counter.clone(),
        ["<|im_start|>".to_string(), "<|im_end|>".to_string()],
        None,
        None,
    )
    .unwrap();
    let prompts = PromptBuilder::new(template, 4096)
        .reserve(512)
        .date("2026-12-02".parse::<ConversationDate>().unwrap())
        .build()
        .unwrap();
    (prompts, counter)
}

fn conversation() -> Vec<Message> {
    vec![
        Message::system("Answer from the documents and cite them as [n]."),
        Message::user("Question one: which plans are there?"),
        Message::assistant("Plan A and Plan B [1]."),
        Message::user("Question two: what does Plan B cost?"),
    ]
}

fn results() -> Vec<MentorRagResult> {
    (0..20)
        .map(|i| {
            MentorRagResult::from_content(
                format!("Plan {i} costs {i} EUR a month and keeps {i} versions."),
                1.0 - i as f32 / 100.0,
            )
        })
        .collect()
}

#[track_caller]
fn assert_passed(result: Result<mentor_context::prompt::Prompt<'_>, Error>) {
    match result {
        Err(err) => {
            assert!(matches!(err, Error::DeadlinePassed), "{err}");
            assert_eq!(err.kind(), ErrorKind::DeadlinePassed);
            assert_eq!(err.kind().code(), "DEADLINE_PASSED");
        }
        Ok(prompt) => panic!("a prompt past the deadline: {:?}", prompt.prompt),
    }
}

#[test]
fn a_deadline_already_passed_counts_nothing_and_makes_no_prompt() {
    let passed = Deadline::at(std::time::Instant::now());
    assert!(passed.has_passed());
    let (prompts, counter) = assembler("", &Deadline::never());
    // Building counts the header and the frame; a fitting counts from here.
    let built = counter.calls.load(Ordering::SeqCst);
    let (conversation, results) = (conversation(), results());
    assert_passed(prompts.assemble_until(&conversation, &results, &passed));
    assert_eq!(counter.calls.load(Ordering::SeqCst), built);
    // A clone of a cancelled deadline has passed too.
    let cancelled = Deadline::never();
    let clone = cancelled.clone();
    cancelled.cancel();
    assert_passed(prompts.assemble_until(&conversation, &results, &clone));
    assert_eq!(counter.calls.load(Ordering::SeqCst), built);
}

#[test]
fn a_deadline_cancelled_during_the_counts_stops_at_the_next_one() {
    let deadline = Deadline::never();
    // The question's text is counted by the fitting alone (the context never holds it).
    let (prompts, counter) = assembler("Question two", &deadline);
    let (conversation, results) = (conversation(), results());
    assert_passed(prompts.assemble_until(&conversation, &results, &deadline));
    let cancelled_at = counter.cancelled_at.load(Ordering::SeqCst);
    assert!(cancelled_at > 0, "the question was never counted");
    assert_eq!(
        counter.calls.load(Ordering::SeqCst),
        cancelled_at,
        "the tokenizer was called after the cancellation"
    );
    // Without the cancellation, the same fitting goes on to count much more.
    let (whole, uncancelled) = assembler("", &Deadline::never());
    whole
        .assemble_until(&conversation, &results, &Deadline::never())
        .unwrap();
    assert!(uncancelled.calls.load(Ordering::SeqCst) > cancelled_at);
}

#[test]
fn a_deadline_that_does_not_pass_changes_nothing() {
    let (prompts, _) = assembler("", &Deadline::never());
    let (conversation, results) = (conversation(), results());
    let far = Deadline::after(std::time::Duration::from_secs(3600));
    let until = prompts
        .assemble_until(&conversation, &results, &far)
        .unwrap();
    let plain = prompts.assemble(&conversation, &results).unwrap();
    assert_eq!(
        serde_json::to_string(&until).unwrap(),
        serde_json::to_string(&plain).unwrap()
    );
    assert!(!until.context.citations.is_empty());
}

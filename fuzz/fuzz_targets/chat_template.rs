//! Any template bytes as a Jinja chat template: it compiles and renders a prompt within the
//! window, or fails with one error (it does not compile, raises, runs out of fuel, nests too
//! deep, writes too much). Never a hang, a stack overflow or more memory than the bound
//! (libFuzzer's `-timeout` and `-rss_limit_mb` catch those).
//!
//! Input layout (see `fuzz/README.md`; `fuzz/seed_targets.sh` writes seeds in it):
//!
//! | bytes | meaning |
//! | ----- | ------- |
//! | 0     | bit 0 a `bos_token` and `eos_token`; bits 1-2 where the context goes (modulo 3: the question, the system message, `documents`); bit 3 a history of two turns |
//! | 1..   | the template, UTF-8 (inputs that are not are skipped) |
//!
//! Counted with o200k_base, control tokens `<|im_start|>` and `<|im_end|>`, a window of
//! 4096 and a reserve of 512, with two results of `fixtures/pricing.json`.

#![no_main]

mod common;

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use mentor_context::prompt::{ChatTemplate, ContextPlacement, Message, PromptBuilder};
use mentor_context::{Encoding, Error, MentorRagResult};

const WINDOW: usize = 4096;
const RESERVE: usize = 512;

fn results() -> &'static [MentorRagResult] {
    static RESULTS: OnceLock<Vec<MentorRagResult>> = OnceLock::new();
    RESULTS.get_or_init(|| common::pricing().into_iter().take(2).collect())
}

fn allowed(err: &Error) -> bool {
    matches!(err, Error::ChatTemplate(_) | Error::PromptTooLarge { .. })
}

fuzz_target!(|data: &[u8]| {
    let Some((&options, source)) = data.split_first() else {
        return;
    };
    let Ok(source) = std::str::from_utf8(source) else {
        return;
    };
    let (bos, eos) = if options & 1 != 0 {
        (Some("<s>".to_string()), Some("</s>".to_string()))
    } else {
        (None, None)
    };
    let control = ["<|im_start|>".to_string(), "<|im_end|>".to_string()];
    let template = match ChatTemplate::jinja(source, Encoding::O200kBase, control, bos, eos) {
        Ok(template) => template,
        Err(err) => {
            assert!(matches!(err, Error::ChatTemplate(_)), "{err:?}");
            return;
        }
    };
    let placement = ContextPlacement::ALL[usize::from((options >> 1) & 3) % 3];
    let prompts = match PromptBuilder::new(template, WINDOW)
        .reserve(RESERVE)
        .context_in(placement)
        .build()
    {
        Ok(prompts) => prompts,
        // Documents go only to a template that reads them.
        Err(Error::PromptSetting { .. }) if placement == ContextPlacement::Documents => return,
        Err(err) => panic!("a valid configuration refused: {err:?}"),
    };
    let mut conversation = vec![Message::system(
        "Answer from the documents and cite them as [n].",
    )];
    if options & 8 != 0 {
        conversation.push(Message::user("Which plans are there?"));
        conversation.push(Message::assistant("Starter, Team and Business [1]."));
    }
    conversation.push(Message::user("What does the Team plan cost?"));
    match prompts.assemble(&conversation, results()) {
        Ok(prompt) => {
            assert!(
                prompt.token_count + RESERVE <= WINDOW,
                "{} tokens and the reserve exceed the window",
                prompt.token_count
            );
            assert_eq!(prompt.window, WINDOW);
        }
        Err(err) => assert!(allowed(&err), "an error of another kind: {err:?}"),
    }
});

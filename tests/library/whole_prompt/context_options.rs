//! The context's options, given to `PromptBuilder` without a budget of their own
//! (`context_options`), or as a whole `ContextBuilder` whose budget is not read (`context`).

use mentor_context::ContextBuilder;
use mentor_context::prompt::{ChatTemplate, Message, Prompt, PromptBuilder};

use super::properties::{date, results};

/// The same options give the same prompt however they are given: in one call of
/// `context_options`, in two (each over the last), or as a `ContextBuilder` with a budget
/// the fitting does not read; and they are read (the prompt differs from the defaults').
#[test]
fn the_context_s_options_need_no_budget_and_a_given_one_is_not_read() {
    let chat = [
        Message::system("Answer from the documents."),
        Message::user("What do the documents say?"),
    ];
    let results = results();
    let fitted = |builder: PromptBuilder| -> Prompt<'static> {
        builder
            .reserve(200)
            .date(date())
            .build()
            .unwrap()
            .assemble(&chat, &results)
            .unwrap()
            .into_owned()
    };
    let base = || PromptBuilder::new(ChatTemplate::harmony(), 1500);
    let options = fitted(base().context_options(|c| c.header("Sources:").max_blocks(2)));
    let text = options.prompt.clone().unwrap();
    assert!(text.contains("Sources:"), "{text}");
    assert!(options.context.citations.len() <= 2);

    let in_two = fitted(
        base()
            .context_options(|c| c.header("Sources:"))
            .context_options(|c| c.max_blocks(2)),
    );
    let whole = fitted(base().context(ContextBuilder::new(5).header("Sources:").max_blocks(2)));
    for other in [&in_two, &whole] {
        assert_eq!(other.prompt, options.prompt);
        assert_eq!(other.token_count, options.token_count);
    }
    // The budget of 5 was not the context's: it took what the window left.
    assert!(
        whole.context.token_count > 5,
        "{}",
        whole.context.token_count
    );

    let default = fitted(base());
    assert_ne!(default.prompt, options.prompt);
    assert!(default.context.citations.len() > 2);
}

//! The context as the template's `documents` (transformers' `apply_chat_template(documents=)`,
//! as Command R's and Granite's templates read them), with a template that needs no download.

use mentor_context::prompt::{ChatTemplate, ContextPlacement, Message, PromptBuilder};
use mentor_context::tokenizer::TokenCounter;
use mentor_context::{Encoding, MentorRagResult};

const WITH_DOCUMENTS: &str = "{% for d in documents %}<|doc|>{{ d.title }}\n{{ d.text }}<|end|>\n\
    {% endfor %}{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n\
    {% endfor %}<|im_start|>assistant\n";

/// The context's part is the documents' titles and texts, each counted alone; the parts add
/// up to the count, and the documents are the ones the report cites.
#[test]
fn the_documents_part_is_their_titles_and_texts_counted() {
    let control = ["<|doc|>", "<|end|>", "<|im_start|>", "<|im_end|>"].map(String::from);
    let template =
        ChatTemplate::jinja(WITH_DOCUMENTS, Encoding::O200kBase, control, None, None).unwrap();
    let results = [
        MentorRagResult::from_content("Plan B costs 12 EUR a month, billed yearly.", 0.9)
            .with_title("Pricing"),
        MentorRagResult::from_content("Plan A is free for a team of three.", 0.8)
            .with_source_url("https://example.com/plans"),
    ];
    let chat = [
        Message::system("Answer from the documents."),
        Message::user("What does plan B cost?"),
    ];
    let prompt = PromptBuilder::new(template, 2000)
        .context_in(ContextPlacement::Documents)
        .build()
        .unwrap()
        .assemble(&chat, &results)
        .unwrap();
    let documents = prompt.documents.as_ref().expect("documents were given");
    assert_eq!(documents.len(), 2);
    assert_eq!(prompt.context.citations.len(), 2);
    let counter = Encoding::O200kBase;
    let expected: usize = documents
        .iter()
        .map(|d| counter.count(&d.title) + counter.count(&d.text))
        .sum();
    assert!(expected > 0);
    assert_eq!(prompt.parts.context, expected);
    let parts = &prompt.parts;
    assert_eq!(
        parts.template
            + parts.tools
            + parts.system
            + parts.history
            + parts.context
            + parts.question,
        prompt.token_count
    );
    let text = prompt.prompt.as_deref().unwrap();
    assert!(text.contains("<|doc|>Pricing\n"), "{text}");
}

//! A whole prompt's cost on a conversation far longer than its window: 16 MiB of short turns
//! fitted to 8,192 tokens, beside its floor measured in the same run, one count of the
//! conversation's text (every message's content, joined) by the template's tokenizer.
//!
//! Groups `long/{harmony,qwen3,deepseek_v3}`: `ours` is `PromptAssembler::assemble` (no cache),
//! `floor` the count. Harmony always; Qwen 3 and DeepSeek V3 (with a system message just before
//! the question, which DeepSeek's template gathers at the start) with the `huggingface` feature
//! and `MENTOR_TOKENIZER_DATA` set. `MENTOR_LONG_MIB` changes the size (default 16).
//!
//! ```text
//! MENTOR_TOKENIZER_DATA=$PWD/.ci-data/tokenizers cargo bench --features huggingface --bench long_prompt
//! ```

mod paired;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use mentor_context::prompt::{ChatTemplate, Message, PromptBuilder};
use mentor_context::tokenizer::TokenCounter;
use mentor_context::wire::parse_results;
use mentor_context::{Encoding, MentorRagResult};
use paired::Pairs;

fn results() -> Vec<MentorRagResult> {
    let path = format!("{}/fixtures/bench-english.json", env!("CARGO_MANIFEST_DIR"));
    let json = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    parse_results(&json).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Short turns up to `bytes` of content, then the question; with `late_system`, a system
/// message just before it.
fn chat(bytes: usize, late_system: bool) -> Vec<Message> {
    let mut chat = vec![Message::system(
        "Answer from the documents and cite them as [n].",
    )];
    let mut size = 0;
    let mut turn = 0;
    while size < bytes {
        let question = format!("Question {turn}: and plan {}?", turn % 5);
        let answer = format!("Plan {} costs {} EUR a month [1].", turn % 5, turn % 90);
        size += question.len() + answer.len();
        chat.push(Message::user(&question));
        chat.push(Message::assistant(&answer));
        turn += 1;
    }
    if late_system {
        chat.push(Message::system("Answer in one sentence."));
    }
    chat.push(Message::user("And what does Plan B cost?"));
    chat
}

fn bench_long(
    c: &mut Criterion,
    name: &str,
    template: &ChatTemplate,
    counter: &dyn TokenCounter,
    late_system: bool,
) {
    let mib: usize = std::env::var("MENTOR_LONG_MIB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(16);
    let chat = chat(mib << 20, late_system);
    let text: String = chat.iter().filter_map(Message::content).collect();
    let results = results();
    let prompts = PromptBuilder::new(template.clone(), 8192)
        .reserve(1024)
        .date(
            "2026-12-02"
                .parse::<mentor_context::prompt::ConversationDate>()
                .unwrap(),
        )
        .build()
        .unwrap();
    let prompt = prompts.assemble(&chat, &results).unwrap();
    eprintln!(
        "long/{name}: {} messages, {} bytes of content; {} tokens, {} messages dropped",
        chat.len(),
        text.len(),
        prompt.token_count,
        prompt.dropped.len()
    );
    let id = format!("long/{name}");
    let mut group = c.benchmark_group(&id);
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(10));
    Pairs::bench(
        &mut group,
        &id,
        ("ours", || {
            prompts
                .assemble(black_box(&chat), black_box(&results))
                .unwrap()
                .token_count
        }),
        ("floor", || counter.count(black_box(&text))),
    );
    group.finish();
}

fn long(c: &mut Criterion) {
    bench_long(
        c,
        "harmony",
        &ChatTemplate::harmony(),
        &Encoding::O200kBase,
        false,
    );
    #[cfg(feature = "huggingface")]
    if let Some(data) = std::env::var_os("MENTOR_TOKENIZER_DATA") {
        for (model, late_system) in [("qwen3", false), ("deepseek_v3", true)] {
            let dir = std::path::PathBuf::from(&data).join(model);
            let template = ChatTemplate::from_files(
                dir.join("tokenizer_config.json"),
                dir.join("tokenizer.json"),
            )
            .unwrap();
            let counter = mentor_context::tokenizer::HuggingFaceTokenizer::from_file(
                dir.join("tokenizer.json"),
            )
            .unwrap();
            bench_long(c, model, &template, &counter, late_system);
        }
    }
}

criterion_group!(benches, long);
criterion_main!(benches);

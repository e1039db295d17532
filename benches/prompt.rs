//! Timing benchmarks for the whole prompt (`PromptAssembler::assemble`), each beside its
//! floor measured in the same run: one count of the final prompt by its tokenizer.
//!
//! A 20-turn conversation and the 50 results of `fixtures/bench-english.json` fitted to 8,192
//! tokens, through Harmony (gpt-oss, counted with `o200k_base`) and, with the `huggingface`
//! feature and `MENTOR_TOKENIZER_DATA` set, through Qwen 3's own template and tokenizer.
//! Groups (`prompt/{harmony,qwen3}/...`):
//!
//! - `cold`: `ours` (no cache) paired with `floor`, the tokenizer's count of the prompt text
//!   `ours` produced;
//! - `warm`: the next turn (one more answer and question, the same results) with a cache
//!   that saw this turn; `new-results`: the same with other results, beside `new-results-cold`,
//!   that turn with those results and no cache; `warm-40`: the next turn of a 40-turn
//!   conversation. Their medians against `cold`'s are the ratios in
//!   `benches/README.md`.
//!
//! `prompt/{harmony,qwen3}-tools/...`: the same conversation with four tool definitions
//! (`FOUR_TOOLS`: nested objects, an enum, an array), `cold` beside its floor and `warm` only.

mod paired;

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use mentor_context::prompt::{ChatTemplate, Message, PromptAssembler, PromptBuilder, Tools};
use mentor_context::tokenizer::{TokenCache, TokenCounter};
use mentor_context::wire::parse_results;
use mentor_context::{Encoding, MentorRagResult};
use paired::Pairs;

fn results(name: &str) -> Vec<MentorRagResult> {
    let path = format!("{}/fixtures/bench-{name}.json", env!("CARGO_MANIFEST_DIR"));
    let json = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    parse_results(&json).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A conversation of `turns` turns of a steady size, then a question.
fn chat(turns: usize) -> Vec<Message> {
    let mut chat = vec![Message::system(
        "Answer from the documents and cite them as [n].",
    )];
    for turn in 0..turns {
        chat.push(Message::user(&format!(
            "Question {turn}: how does feature {} work with plan {}?",
            turn * 7 % 50,
            turn % 5
        )));
        chat.push(Message::assistant(&format!(
            "Feature {turn} works on every plan [1]. It syncs every {} minutes, keeps {} versions and \
             exports to CSV and PDF; on plan {} it also keeps an audit log for a year [2].",
            turn * 3 % 60,
            turn % 30,
            turn % 5
        )));
    }
    chat.push(Message::user(&format!(
        "Question {turns}: and what does it cost?"
    )));
    chat
}

/// `chat` one turn on.
fn next_turn(chat: &[Message]) -> Vec<Message> {
    let mut next = chat.to_vec();
    next.push(Message::assistant("It costs 12 EUR a month [1]."));
    next.push(Message::user("And per year, with the discount?"));
    next
}

/// Four tools of the shapes agents send: a nested object, an enum, an array, a plain string.
const FOUR_TOOLS: &str = r#"[
  {"type": "function", "function": {"name": "search_docs", "description": "Searches the product documentation.",
    "parameters": {"type": "object", "properties": {"query": {"type": "string", "description": "What to look for."},
      "filters": {"type": "object", "properties": {"product": {"type": "string"}, "since": {"type": "string", "description": "An ISO date."}}}},
      "required": ["query"]}}},
  {"type": "function", "function": {"name": "get_price", "description": "Looks up a plan's price.",
    "parameters": {"type": "object", "properties": {"plan": {"type": "string", "enum": ["free", "team", "business"]},
      "period": {"type": "string", "enum": ["month", "year"]}}, "required": ["plan"]}}},
  {"type": "function", "function": {"name": "create_ticket", "description": "Opens a support ticket.",
    "parameters": {"type": "object", "properties": {"title": {"type": "string"},
      "tags": {"type": "array", "items": {"type": "string"}}, "priority": {"type": "integer"}}, "required": ["title"]}}},
  {"type": "function", "function": {"name": "get_time", "description": "The current time in a time zone.",
    "parameters": {"type": "object", "properties": {"zone": {"type": "string"}}}}}
]"#;

fn builder(template: &ChatTemplate, tools: Option<&Tools>) -> PromptBuilder {
    PromptBuilder::new(template.clone(), 8192)
        .reserve(1024)
        .tools(tools.cloned())
        .date(
            "2026-12-02"
                .parse::<mentor_context::prompt::ConversationDate>()
                .unwrap(),
        )
}

fn bench_template(
    c: &mut Criterion,
    name: &str,
    template: &ChatTemplate,
    counter: &dyn TokenCounter,
    tools: Option<&Tools>,
) {
    let english = results("english");
    let other = results("multilingual");
    let twenty = chat(20);
    let forty = chat(40);
    let cold = builder(template, tools).build().unwrap();
    let prompt = cold.assemble(&twenty, &english).unwrap();
    let text = prompt.prompt.clone().unwrap();
    eprintln!(
        "prompt/{name}: {} tokens of 8192 - 1024 ({} for tools), {} bytes, {} messages dropped, context {} tokens",
        prompt.token_count,
        prompt.parts.tools,
        text.len(),
        prompt.dropped.len(),
        prompt.context.token_count
    );
    // The same job for `benches/prompt_peers.py`: the conversation and the context to fit.
    if tools.is_none() {
        let job = serde_json::json!({"conversation": twenty, "context": prompt.context.text, "window": 8192, "reserve": 1024});
        let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("target/prompt-job-{name}.json"));
        std::fs::write(&out, serde_json::to_vec(&job).unwrap()).unwrap();
    }
    let id = format!("prompt/{name}/cold");
    let mut group = c.benchmark_group(&id);
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    Pairs::bench(
        &mut group,
        &id,
        ("ours", || {
            cold.assemble(black_box(&twenty), black_box(&english))
                .unwrap()
                .token_count
        }),
        ("floor", || counter.count(black_box(&text))),
    );
    group.finish();

    // A cache that saw one turn, then the next turn timed; the assembler and its cache are
    // dropped outside the timing (freeing a cache is not a turn's cost).
    let warmed = |chat: &[Message]| -> PromptAssembler {
        let prompts = builder(template, tools)
            .cache(TokenCache::new(64 << 20))
            .build()
            .unwrap();
        prompts.assemble(chat, &english).unwrap();
        prompts
    };
    let mut group = c.benchmark_group(format!("prompt/{name}/next"));
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    let twenty_next = next_turn(&twenty);
    let forty_next = next_turn(&forty);
    group.bench_function("warm", |b| {
        b.iter_batched_ref(
            || warmed(&twenty),
            |p| p.assemble(&twenty_next, &english).unwrap().token_count,
            BatchSize::PerIteration,
        );
    });
    if tools.is_some() {
        group.finish();
        return;
    }
    group.bench_function("new-results", |b| {
        b.iter_batched_ref(
            || warmed(&twenty),
            |p| p.assemble(&twenty_next, &other).unwrap().token_count,
            BatchSize::PerIteration,
        );
    });
    // The cold cost of that turn with those other results: what `new-results` saves, since
    // counting other text costs what that text costs, whatever the cache holds.
    group.bench_function("new-results-cold", |b| {
        b.iter(|| {
            cold.assemble(black_box(&twenty_next), black_box(&other))
                .unwrap()
                .token_count
        });
    });
    group.bench_function("warm-40", |b| {
        b.iter_batched_ref(
            || warmed(&forty),
            |p| p.assemble(&forty_next, &english).unwrap().token_count,
            BatchSize::PerIteration,
        );
    });
    group.finish();
}

fn prompts(c: &mut Criterion) {
    let tools: Tools = FOUR_TOOLS.parse().unwrap();
    let harmony = ChatTemplate::harmony();
    bench_template(c, "harmony", &harmony, &Encoding::O200kBase, None);
    bench_template(
        c,
        "harmony-tools",
        &harmony,
        &Encoding::O200kBase,
        Some(&tools),
    );
    #[cfg(feature = "huggingface")]
    if let Some(dir) = std::env::var_os("MENTOR_TOKENIZER_DATA") {
        let dir = std::path::PathBuf::from(dir).join("qwen3");
        let template = ChatTemplate::from_files(
            dir.join("tokenizer_config.json"),
            dir.join("tokenizer.json"),
        )
        .unwrap();
        let counter =
            mentor_context::tokenizer::HuggingFaceTokenizer::from_file(dir.join("tokenizer.json"))
                .unwrap();
        bench_template(c, "qwen3", &template, &counter, None);
        bench_template(c, "qwen3-tools", &template, &counter, Some(&tools));
    }
}

criterion_group!(benches, prompts);
criterion_main!(benches);

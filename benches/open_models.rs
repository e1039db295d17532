//! Open models' `tokenizer.json` files (feature `huggingface`): Qwen 3 against Llama 3, each
//! assembly against its own floor, one `token_lengths` pass of the text it produced by the
//! same tokenizer, timed in alternation (`paired.json`, read by `benches/report.py`).
//!
//! ```text
//! MENTOR_TOKENIZER_DATA=$PWD/.ci-data/tokenizers \
//!     cargo bench --features huggingface --bench open_models
//! ```
//!
//! Groups `open/{llama3,qwen3}/{english,multilingual,markdown}/{4000,32000}`: `ours` (assemble,
//! default policy and format) and `own-floor`. The input is three distinct copies of the bench
//! fixture (150 results), more than 32,000 tokens of any of them; the fill (the count over the
//! budget) is printed beside each.

mod paired;

use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use mentor_context::tokenizer::{HuggingFaceTokenizer, TokenCounter};
use mentor_context::wire::parse_results;
use mentor_context::{ContextBuilder, MentorRagResult};
use paired::Pairs;

const MODELS: [(&str, &str); 2] = [
    ("llama3", "llama3/tokenizer.json"),
    ("qwen3", "qwen3/tokenizer.json"),
];

const FIXTURES: [&str; 3] = ["english", "multilingual", "markdown"];

const BUDGETS: [usize; 2] = [4_000, 32_000];

/// The folder `.ci/tokenizer-data` fills; the bench needs it.
fn data_dir() -> PathBuf {
    std::env::var_os("MENTOR_TOKENIZER_DATA")
        .map(PathBuf::from)
        .expect(
            "set MENTOR_TOKENIZER_DATA to the tokenizer files (.ci/tokenizer-data fetches them)",
        )
}

/// Three distinct copies of the bench fixture `name`.
fn results(name: &str) -> Vec<MentorRagResult> {
    let path = format!("{}/fixtures/bench-{name}.json", env!("CARGO_MANIFEST_DIR"));
    let json = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let results = parse_results(&json).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut out = Vec::new();
    for copy in 0..3 {
        out.extend(results.iter().map(|r| {
            let mut r = r.clone();
            r.content = format!("Copy {copy}. {}", r.content);
            r.source_url = r.source_url.map(|url| format!("{url}?copy={copy}"));
            r.score *= 1.0 - 0.001 * copy as f32;
            r
        }));
    }
    out
}

fn open(c: &mut Criterion) {
    let dir = data_dir();
    for (model, file) in MODELS {
        let path = dir.join(file);
        let tokenizer = Arc::new(
            HuggingFaceTokenizer::from_file(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display())),
        );
        for name in FIXTURES {
            let results = results(name);
            for budget in BUDGETS {
                let assembler = ContextBuilder::new(budget)
                    .tokenizer(Arc::clone(&tokenizer))
                    .build()
                    .expect("valid configuration");
                let context = assembler.assemble(&results);
                let text = context.text;
                assert_eq!(context.token_count, tokenizer.count(&text));
                let id = format!("open/{model}/{name}/{budget}");
                eprintln!(
                    "{id}: {} tokens of {budget} (fill {:.4}), {} bytes of text, {} blocks",
                    context.token_count,
                    context.token_count as f64 / budget as f64,
                    text.len(),
                    context.citations.len()
                );
                let mut group = c.benchmark_group(&id);
                group
                    .sample_size(20)
                    .warm_up_time(Duration::from_secs(1))
                    .measurement_time(Duration::from_secs(4));
                let assemble = || assembler.assemble(black_box(&results));
                let mut lengths = Vec::new();
                let floor = || {
                    lengths.clear();
                    tokenizer.token_lengths(black_box(&text), &mut lengths);
                    black_box(lengths.len())
                };
                Pairs::bench(&mut group, &id, ("ours", assemble), ("own-floor", floor));
                group.finish();
            }
        }
    }
}

criterion_group!(benches, open);
criterion_main!(benches);

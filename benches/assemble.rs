//! Timing benchmarks for `ContextBuilder::assemble`, each next to a baseline measured in the
//! same run, so that `benches/report.py` can turn them into ratios that survive a noisy,
//! shared machine.
//!
//! The floor `F` is one `encode_ordinary` pass of tiktoken-rs over the text that ends up in
//! the prompt. Groups and benchmark IDs (parsed by the report script):
//!
//! - `cold/{english,multilingual,markdown}/{o200k,cl100k}`: `ours` (assemble, default policy and
//!   format, 4,000 tokens), `floor` (F over the text `ours` produced), `naive` (re-encode the
//!   whole prompt after each appended block);
//! - `warm/{english,multilingual}/{o200k,cl100k}`: `ours` with a warmed `TokenCache`, and
//!   `floor` again;
//! - `budget`: `ours/<budget>` and `floor/<budget>` for budgets from 500 to 32,000 tokens
//!   over 500 distinct results (o200k);
//! - `inputs`: `ours/<n>` for 5, 50, 500 and 5,000 results, and `ours/10mb` for one 10 MB
//!   result, all at 4,000 tokens (o200k);
//! - `backend/{english,multilingual,markdown}/{o200k,cl100k}`: `tiktoken` and `bpe-openai`, the same
//!   cold assembly counted by each engine, and `own-floor`, one bpe-openai encode of the
//!   text, timed in alternation with `bpe-openai`.
//!
//! `cold/*/ours` with `floor`, and `backend/*/bpe-openai` with `own-floor`, run both workloads
//! in every iteration and time one. Each sample's pair of times gives a ratio free of the
//! load changing between the two functions; the median of those ratios is printed and written
//! to `paired.json` in the group's criterion directory, where `report.py` reads it.

mod paired;

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use mentor_context::tokenizer::TokenCache;
use mentor_context::wire::parse_results;
use mentor_context::{AssembledContext, Assembler, ContextBuilder, Encoding, MentorRagResult};
use paired::Pairs;
use tiktoken_rs::CoreBPE;

/// The budget of the targets.
const BUDGET: usize = 4000;

/// The bench fixtures of the cold and engine groups: prose in English, in many scripts, and
/// markdown API documentation (fenced code, tables, long inline code).
const FIXTURES: [&str; 3] = ["english", "multilingual", "markdown"];

/// Budgets of the sweep.
const BUDGETS: [usize; 7] = [500, 1000, 2000, 4000, 8000, 16000, 32000];

/// Input sizes of the sweep, in results.
const INPUTS: [usize; 4] = [5, 50, 500, 5000];

/// Size of the single huge result.
const HUGE_BYTES: usize = 10 * 1024 * 1024;

fn fixture(name: &str) -> Vec<MentorRagResult> {
    let path = format!("{}/fixtures/bench-{name}.json", env!("CARGO_MANIFEST_DIR"));
    let json = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    parse_results(&json).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn bpe(encoding: Encoding) -> &'static CoreBPE {
    match encoding {
        Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        other => panic!("no benchmark for {other}"),
    }
}

fn short_name(encoding: Encoding) -> &'static str {
    match encoding {
        Encoding::O200kBase => "o200k",
        Encoding::Cl100kBase => "cl100k",
        other => panic!("no benchmark for {other}"),
    }
}

/// The floor: one tokenizer pass over `text`.
fn floor(bpe: &CoreBPE, text: &str) -> usize {
    bpe.encode_ordinary(text).len()
}

/// A configuration for `budget` tokens in `encoding`.
fn builder(budget: usize, encoding: Encoding) -> ContextBuilder {
    ContextBuilder::new(budget).encoding(encoding)
}

/// An assembler, built (and so its tables) outside the timing loop, so that the one-off cost
/// is not timed.
fn assembler(budget: usize, encoding: Encoding) -> Assembler {
    builder(budget, encoding)
        .build()
        .expect("valid configuration")
}

/// Assembles once outside the timing loop and checks the result is what the floor is
/// measured over: the exact count of the text.
fn produce(builder: &Assembler, bpe: &CoreBPE, results: &[MentorRagResult]) -> String {
    let context: AssembledContext = builder.assemble(results);
    assert_eq!(
        context.token_count,
        floor(bpe, &context.text),
        "token_count is not the count of the text"
    );
    assert!(context.token_count <= builder.budget());
    context.text
}

/// The strategy users of other libraries write: append each block in score order, re-encode
/// the whole prompt, and take the block back out and stop once it is over the budget.
fn naive(results: &[MentorRagResult], budget: usize, bpe: &CoreBPE) -> String {
    let mut order: Vec<&MentorRagResult> = results.iter().collect();
    order.sort_by(|a, b| b.score.total_cmp(&a.score));
    let mut prompt = String::new();
    for (i, result) in order.into_iter().enumerate() {
        let start = prompt.len();
        render_plain(&mut prompt, i + 1, result);
        if bpe.encode_ordinary(&prompt).len() > budget {
            prompt.truncate(start);
            break;
        }
    }
    prompt
}

/// A block in the layout of `PlainFormat`: `[n] Title`, `key: value` lines, fenced content.
fn render_plain(out: &mut String, index: usize, result: &MentorRagResult) {
    out.push('[');
    out.push_str(&index.to_string());
    out.push(']');
    if let Some(title) = result.display_title() {
        out.push(' ');
        out.push_str(title);
    }
    out.push('\n');
    for (key, value) in result.metadata.iter().flatten() {
        let Some(value) = value else { continue };
        out.push_str(key);
        out.push_str(": ");
        out.push_str(value);
        out.push('\n');
    }
    out.push_str("```\n");
    out.push_str(&result.content);
    if !result.content.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("```\n");
}

/// `copies` distinct copies of `results`: each content starts with its copy number, titles
/// carry it too, and scores decrease slightly with each copy so the ranking interleaves.
fn replicate(results: &[MentorRagResult], copies: usize) -> Vec<MentorRagResult> {
    let mut out = Vec::with_capacity(results.len() * copies);
    for copy in 0..copies {
        for result in results {
            let mut r = result.clone();
            r.content = format!("Copy {copy}. {}", result.content);
            r.title = result.title.as_ref().map(|t| format!("{t} (copy {copy})"));
            r.score = result.score * (1.0 - 0.0007 * copy as f32);
            out.push(r);
        }
    }
    out
}

/// One result of at least `bytes` bytes of ordinary prose: the fixture's paragraphs, over and
/// over, separated by blank lines.
fn huge(results: &[MentorRagResult], bytes: usize) -> MentorRagResult {
    let paragraphs: Vec<&str> = results
        .iter()
        .flat_map(|r| r.content.split("\n\n"))
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    let mut content = String::with_capacity(bytes + 4096);
    for paragraph in paragraphs.iter().cycle() {
        if content.len() >= bytes {
            break;
        }
        content.push_str(paragraph);
        content.push_str("\n\n");
    }
    MentorRagResult::new(
        content.trim_end().to_string(),
        Some("https://docs.example.com/handbook/all"),
        Some("The whole handbook"),
        0.9,
    )
    .with_metadata([("product", "Quillstack"), ("chunk_id", "handbook#all")])
}

fn configure(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
}

/// Targets 1 and 5: cold assembly against the floor and the naive baseline.
fn cold(c: &mut Criterion) {
    for name in FIXTURES {
        let results = fixture(name);
        for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
            let bpe = bpe(encoding);
            let builder = assembler(BUDGET, encoding);
            let text = produce(&builder, bpe, &results);
            let bytes = mentor_context::machinery::assemble_with_stats(&builder, &results)
                .1
                .bytes_tokenized;
            eprintln!(
                "cold/{name}/{}: {} bytes of text, {bytes} bytes tokenized ({:.3}x)",
                short_name(encoding),
                text.len(),
                bytes as f64 / text.len() as f64
            );
            let mut group = c.benchmark_group(format!("cold/{name}/{}", short_name(encoding)));
            configure(&mut group);
            // `ours` and `floor` each run both workloads in turn and time one, so that the
            // load of a shared machine falls on both alike: their ratio is the target.
            let assemble = || builder.assemble(black_box(&results));
            let encode = || bpe.encode_ordinary(black_box(&text));
            let id = format!("cold/{name}/{}", short_name(encoding));
            Pairs::bench(&mut group, &id, ("ours", assemble), ("floor", encode));
            group.bench_function("naive", |b| {
                b.iter(|| naive(black_box(&results), BUDGET, bpe));
            });
            group.finish();
        }
    }
}

/// Target 2: the same results again, with every count in a warmed cache.
fn warm(c: &mut Criterion) {
    for name in ["english", "multilingual"] {
        let results = fixture(name);
        for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
            let bpe = bpe(encoding);
            let builder = builder(BUDGET, encoding)
                .cache(TokenCache::new(64 << 20))
                .build()
                .expect("valid configuration");
            let text = produce(&builder, bpe, &results);
            let (again, stats) = mentor_context::machinery::assemble_with_stats(&builder, &results);
            let bytes = stats.bytes_tokenized;
            assert_eq!(again.text, text, "a warm run changed the text");
            eprintln!(
                "warm/{name}/{}: {bytes} bytes tokenized when warm ({:.3}x the text)",
                short_name(encoding),
                bytes as f64 / text.len() as f64
            );
            let mut group = c.benchmark_group(format!("warm/{name}/{}", short_name(encoding)));
            configure(&mut group);
            group.bench_function("ours", |b| b.iter(|| builder.assemble(black_box(&results))));
            group.bench_function("floor", |b| b.iter(|| floor(bpe, black_box(&text))));
            group.finish();
        }
    }
}

/// Target 3, first half: cost against the budget, with input enough for the largest.
fn budget(c: &mut Criterion) {
    let encoding = Encoding::O200kBase;
    let bpe = bpe(encoding);
    let results = replicate(&fixture("english"), 10);
    let mut group = c.benchmark_group("budget");
    configure(&mut group);
    for budget in BUDGETS {
        let builder = assembler(budget, encoding);
        let text = produce(&builder, bpe, &results);
        assert!(
            floor(bpe, &text) * 10 >= budget * 9,
            "the input does not fill {budget} tokens"
        );
        group.bench_with_input(BenchmarkId::new("ours", budget), &results, |b, results| {
            b.iter(|| builder.assemble(black_box(results)));
        });
        group.bench_with_input(BenchmarkId::new("floor", budget), &text, |b, text| {
            b.iter(|| floor(bpe, black_box(text)));
        });
    }
    group.finish();
}

/// Target 3, second half: cost against the input size at a fixed budget.
fn inputs(c: &mut Criterion) {
    let encoding = Encoding::O200kBase;
    let bpe = bpe(encoding);
    let english = fixture("english");
    let many = replicate(&english, INPUTS[INPUTS.len() - 1] / english.len());
    let huge = vec![huge(&english, HUGE_BYTES)];
    let builder = assembler(BUDGET, encoding);
    let mut group = c.benchmark_group("inputs");
    configure(&mut group);
    for n in INPUTS {
        let results = &many[..n];
        produce(&builder, bpe, results);
        group.bench_with_input(BenchmarkId::new("ours", n), results, |b, results| {
            b.iter(|| builder.assemble(black_box(results)));
        });
    }
    let text = produce(&builder, bpe, &huge);
    assert!(
        floor(bpe, &text) * 10 >= BUDGET * 9,
        "the 10 MB result does not fill the budget"
    );
    group.bench_with_input(BenchmarkId::new("ours", "10mb"), &huge, |b, huge| {
        b.iter(|| builder.assemble(black_box(huge)));
    });
    group.finish();
}

/// Target 6: the engines. `cold/*/ours` counts with the default engine (bpe-openai); here
/// `tiktoken` is the same cold assembly counted by the reference engine, `bpe-openai` the
/// default one again, and `own-floor` one bpe-openai encode of the text it produced, timed in
/// alternation with `bpe-openai`.
fn backend(c: &mut Criterion) {
    use mentor_context::tokenizer::{Engine, TokenCounter};
    for name in FIXTURES {
        let results = fixture(name);
        for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
            assert_eq!(encoding.default_engine(), Engine::BpeOpenai);
            let fast = assembler(BUDGET, encoding);
            let reference = builder(BUDGET, encoding)
                .tokenizer(
                    encoding
                        .with_engine(Engine::Tiktoken)
                        .expect("it ships all"),
                )
                .build()
                .expect("valid configuration");
            assert_eq!(
                fast.assemble(&results),
                reference.assemble(&results),
                "the engines disagree"
            );
            let text = fast.assemble(&results).text;
            let own = encoding
                .with_engine(Engine::BpeOpenai)
                .expect("it ships it");
            let mut group = c.benchmark_group(format!("backend/{name}/{}", short_name(encoding)));
            configure(&mut group);
            group.bench_function("tiktoken", |b| {
                b.iter(|| reference.assemble(black_box(&results)));
            });
            let assemble = || fast.assemble(black_box(&results));
            let mut lengths = Vec::new();
            let encode = || {
                lengths.clear();
                own.token_lengths(black_box(&text), &mut lengths);
                black_box(&lengths);
            };
            let id = format!("backend/{name}/{}", short_name(encoding));
            Pairs::bench(
                &mut group,
                &id,
                ("bpe-openai", assemble),
                ("own-floor", encode),
            );
            group.finish();
        }
    }
}

criterion_group!(benches, cold, warm, budget, inputs, backend);
criterion_main!(benches);

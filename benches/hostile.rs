//! Timing of the hostile inputs of issue 9, each next to a typical request timed in the same
//! run (`typical`: the 50 x 2 KiB English bench request into 4,000 tokens, o200k_base), so
//! that each reads as a ratio: what the hostile request costs in typical requests.
//!
//! Cases (group `hostile`): a 16 MiB title and a 16 MiB metadata value at budget 100; a
//! million spaces in each head field (title, URL, key, value) at budget 100; 50,000 tiny
//! results under each overflow policy at budget 5; 20,000 results of 1 KB under `Skip` at
//! budget 100. The request is built and parsed outside the timing: what is timed is the
//! assembly, whose cost must follow the budget, not the hostile field's size.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use mentor_context::wire::parse_results;
use mentor_context::{Assembler, ContextBuilder, MentorRagResult, Overflow};

fn typical() -> Vec<MentorRagResult> {
    let path = format!("{}/fixtures/bench-english.json", env!("CARGO_MANIFEST_DIR"));
    parse_results(&std::fs::read_to_string(path).expect("the bench fixture")).expect("parses")
}

fn assembler(budget: usize, overflow: Overflow) -> Assembler {
    ContextBuilder::new(budget)
        .overflow(overflow)
        .build()
        .expect("valid configuration")
}

fn with_field(field: &str, text: String) -> Vec<MentorRagResult> {
    let result = MentorRagResult::from_content("Short body.", 1.0);
    vec![match field {
        "title" => result.with_title(text),
        "url" => result.with_source_url(text),
        "key" => result.with_metadata([(text, "v".to_string())]),
        _ => result.with_metadata([("k".to_string(), text)]),
    }]
}

fn cases() -> Vec<(String, Vec<MentorRagResult>, Assembler)> {
    let mut cases = Vec::new();
    let at_100 = assembler(100, Overflow::Truncate);
    cases.push((
        "title-16mib".to_string(),
        with_field("title", "a".repeat(16 << 20)),
        at_100.clone(),
    ));
    cases.push((
        "value-16mib".to_string(),
        with_field("value", "v".repeat(16 << 20)),
        at_100.clone(),
    ));
    for field in ["title", "url", "key", "value"] {
        let spaces = format!("a{}b", " ".repeat(1_000_000));
        cases.push((
            format!("{field}-1m-spaces"),
            with_field(field, spaces),
            at_100.clone(),
        ));
    }
    let tiny: Vec<MentorRagResult> = (0..50_000)
        .map(|i| MentorRagResult::from_content(format!("x{i:09}"), 1.0))
        .collect();
    for overflow in [Overflow::Truncate, Overflow::Stop, Overflow::Skip] {
        cases.push((
            format!("tiny-50k-{overflow}"),
            tiny.clone(),
            assembler(5, overflow),
        ));
    }
    let kilobyte: Vec<MentorRagResult> = (0..20_000)
        .map(|i| {
            MentorRagResult::from_content(format!("word{i:05} ").repeat(100), 1.0)
                .with_title(format!("Doc {i}"))
        })
        .collect();
    cases.push((
        "1kb-20k-skip".to_string(),
        kilobyte,
        assembler(100, Overflow::Skip),
    ));
    cases
}

fn hostile(c: &mut Criterion) {
    let typical_results = typical();
    let typical_assembler = assembler(4000, Overflow::Truncate);
    for (name, results, assembler) in cases() {
        let mut group = c.benchmark_group(format!("hostile/{name}"));
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(3));
        group.bench_function("ours", |b| {
            b.iter(|| black_box(assembler.assemble(black_box(&results))));
        });
        group.bench_function("typical", |b| {
            b.iter(|| black_box(typical_assembler.assemble(black_box(&typical_results))));
        });
        group.finish();
    }
}

criterion_group!(benches, hostile);
criterion_main!(benches);

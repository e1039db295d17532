//! Allocations per assembly grow with the blocks in the output (and the omitted results
//! reported), never with the bytes of the input. Counted with a counting global allocator
//! that counts each thread's allocations apart, so the other tests of this binary, running on
//! threads of their own, add nothing to a count.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::common;

use mentor_context::tokenizer::Engine;
use mentor_context::{ContextBuilder, Encoding, MentorRagResult};

struct Counting;

thread_local! {
    // Const-initialized and without a destructor, so reading it never allocates: the
    // allocator itself reads it.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

/// The largest single allocation any thread has asked for: a chat template's render runs on
/// a thread of its own, so only a count shared by all threads sees it.
static LARGEST: AtomicUsize = AtomicUsize::new(0);

fn count_one(size: usize) {
    ALLOCATIONS.with(|count| count.set(count.get() + 1));
    LARGEST.fetch_max(size, Ordering::Relaxed);
}

// SAFETY: defers to the system allocator; only counts calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one(layout.size());
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one(new_size);
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations(builder: &ContextBuilder, results: &[MentorRagResult]) -> (usize, usize) {
    let assembler = builder.build().unwrap();
    // One run first, so lazily built tables are not counted.
    let _ = assembler.assemble(results);
    let before = ALLOCATIONS.get();
    let context = assembler.assemble(results);
    let count = ALLOCATIONS.get() - before;
    let blocks = context.citations.len();
    drop(context);
    (count, blocks)
}

fn english() -> Vec<MentorRagResult> {
    common::fixture("bench-english")
}

/// An o200k_base configuration counted by `engine`.
fn builder(budget: usize, engine: Engine) -> ContextBuilder {
    ContextBuilder::new(budget).tokenizer(Encoding::O200kBase.with_engine(engine).unwrap())
}

/// Allocations follow the blocks, with either engine, never the bytes of the input. (The
/// bpe-openai engine encodes a piece that is one token without `bpe`'s encoder, which
/// allocates per piece: 8,036 allocations for the 50 x 2 KiB request before, 364 after.)
#[test]
fn allocations_do_not_grow_with_input_bytes() {
    for &engine in Engine::ALL {
        input_bytes_do_not_add_allocations(engine);
    }
}

fn input_bytes_do_not_add_allocations(engine: Engine) {
    let builder = builder(4000, engine);
    let small = english();
    // The same results with ten times the content each.
    let large: Vec<MentorRagResult> = small
        .iter()
        .map(|r| MentorRagResult {
            content: r.content.repeat(10),
            ..r.clone()
        })
        .collect();
    let (small_allocs, small_blocks) = allocations(&builder, &small);
    let (large_allocs, large_blocks) = allocations(&builder, &large);
    println!("{engine}: 50 x 2 KiB: {small_allocs} allocations for {small_blocks} blocks");
    println!("{engine}: 50 x 20 KiB: {large_allocs} allocations for {large_blocks} blocks");
    // Ten times the input bytes, fewer blocks, about the same text: no more allocations.
    assert!(large_blocks < small_blocks);
    assert!(
        large_allocs <= small_allocs,
        "{engine}: {large_allocs} > {small_allocs}"
    );

    let one = |content: String| {
        vec![MentorRagResult::new(
            content,
            Some("https://x.example"),
            Some("Doc"),
            1.0,
        )]
    };
    // One result cut to fit: 100 KB or 10 MB of it, the same allocations.
    let paragraph = small[0].content.clone();
    let sized = |bytes: usize| one(paragraph.repeat(bytes / paragraph.len()));
    let (one_100k, _) = allocations(&builder, &sized(100 << 10));
    let (one_10m, _) = allocations(&builder, &sized(10 << 20));
    println!("{engine}: one 100 KB result: {one_100k} allocations; one 10 MB result: {one_10m}");
    assert_eq!(one_10m, one_100k);
}

#[test]
fn allocations_per_block_are_bounded() {
    for &engine in Engine::ALL {
        allocations_per_extra_block_are_bounded(engine);
    }
}

fn allocations_per_extra_block_are_bounded(engine: Engine) {
    let results = english();
    let mut per_block = Vec::new();
    for budget in [1000, 2000, 4000, 8000] {
        let builder = builder(budget, engine);
        let (allocs, blocks) = allocations(&builder, &results);
        println!("{engine}: budget {budget}: {allocs} allocations, {blocks} blocks");
        per_block.push((blocks, allocs));
    }
    // Each extra block costs a bounded number of allocations: its chip's strings and
    // metadata, and inside tiktoken-rs, whose `encode_ordinary` allocates its result and a
    // vector per piece of text that is not a single token (about 40 in all for a 2 KiB
    // block, measured); bpe-openai's `bpe` allocates two per such piece. A regression guard,
    // with room for noise in the engines' share.
    let (b0, a0) = per_block[0];
    let (b1, a1) = per_block[per_block.len() - 1];
    let slope = (a1 - a0) as f64 / (b1 - b0) as f64;
    println!("{engine}: about {slope:.1} allocations per extra block");
    assert!(slope <= 60.0, "{engine}: {slope}");
}

/// A chat template turning a container into text (`~`, `in`, a text filter or test) pays for
/// the text before it is written, so a render that runs out of fuel never asked for more than
/// its fuel buys: here a few megabytes, where each template would write 2 GB before being
/// charged. (No other test of this binary asks for a gigabyte at once.)
#[test]
fn templates_turning_containers_into_text_allocate_within_their_fuel() {
    use mentor_context::prompt::{ChatTemplate, Message, PromptBuilder};
    let big = "{% set s = 'x' * 1000000 %}";
    let cases = [
        "{{ '' ~ ([s] * 2000) }}",
        "{{ ([s] * 2000) ~ '' }}",
        "{{ ([s] * 2000)|upper }}",
        "{{ 'a'|replace('a', [s] * 2000) }}",
        "{{ 'abc' is startingwith([s] * 2000) }}",
        "{{ ([s] * 2000) in 'abc' }}",
        "{{ ([s] * 2000) is in 'abc' }}",
        // A dict printed: its items go through the metered repr too, not minijinja's Display.
        "{{ {'a': [s] * 2000} }}",
        "{{ '' ~ {'a': [s] * 2000} }}",
    ];
    for case in cases {
        let template = ChatTemplate::jinja(
            &format!("{big}{case}{{% for m in messages %}}{{{{ m.content }}}}{{% endfor %}}"),
            Encoding::O200kBase,
            [],
            None,
            None,
        )
        .unwrap();
        LARGEST.store(0, Ordering::Relaxed);
        let outcome = PromptBuilder::new(template, 100_000)
            .build()
            .unwrap()
            .assemble(&[Message::user("Hello")], &[])
            .map(|prompt| prompt.token_count);
        let largest = LARGEST.load(Ordering::Relaxed);
        let err = outcome.expect_err(case).to_string();
        assert!(
            err.contains("out of fuel") || err.contains("requires string as left operand"),
            "{case}: {err}"
        );
        assert!(
            largest < 1 << 30,
            "{case}: asked for {largest} bytes at once"
        );
    }
}

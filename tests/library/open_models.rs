//! The open models' tokenizers against their owners' own code: Llama 3, Qwen 3, DeepSeek V3
//! and Gemma 3 (`tokenizer.json`, feature `huggingface`) against the `tokenizers` Python
//! package, and Mistral's Tekken files against mistral-common.
//!
//! The files and the Python reference are fetched by `.ci/tokenizer-data` into `.ci-data/`
//! (never committed), and `.ci/run` runs these tests with
//! `MENTOR_TOKENIZER_DATA=.ci-data/tokenizers` and
//! `MENTOR_TOKENIZER_PYTHON=.ci-data/venv/bin/python`. Without `MENTOR_TOKENIZER_DATA`, as under
//! a plain `cargo test`, each test prints why it is skipped; with it, a missing file fails the
//! test, naming the file.
#![cfg(feature = "huggingface")]

use crate::common;

mod nfc;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use mentor_context::format::XmlFormat;
use mentor_context::machinery::openai_splits_exactly;
use mentor_context::tokenizer::{HuggingFaceTokenizer, TekkenTokenizer, TokenCounter};
use mentor_context::wire::parse_results;
use mentor_context::{ContextBuilder, MentorRagResult, Overflow};

/// The most bytes the assembler hands a tokenizer in one call unless it says otherwise
/// (`TokenCounter::max_call_bytes`).
const DEFAULT_MAX_CALL_BYTES: usize = 64 * 1024;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;

/// One tokenizer under test.
struct Model {
    /// The file's place under the data folder, also the test's label.
    file: &'static str,
    /// The family its name must start with.
    family: &'static str,
    /// Whether it must take the exact-split path (the decision the README documents).
    exact_splits: bool,
    tokenizer: Tokenizer,
}

enum Tokenizer {
    HuggingFace(Box<HuggingFaceTokenizer>),
    Tekken(Box<TekkenTokenizer>),
}

impl Model {
    fn counter(&self) -> &dyn TokenCounter {
        match &self.tokenizer {
            Tokenizer::HuggingFace(t) => t.as_ref(),
            Tokenizer::Tekken(t) => t.as_ref(),
        }
    }

    fn ids(&self, text: &str) -> Vec<u32> {
        match &self.tokenizer {
            Tokenizer::HuggingFace(t) => t.encode(text),
            Tokenizer::Tekken(t) => t.encode(text),
        }
    }

    fn has_exact_splits(&self) -> bool {
        match &self.tokenizer {
            Tokenizer::HuggingFace(t) => t.has_exact_splits(),
            Tokenizer::Tekken(t) => t.has_exact_splits(),
        }
    }

    fn kind(&self) -> &'static str {
        match &self.tokenizer {
            Tokenizer::HuggingFace(_) => "huggingface",
            Tokenizer::Tekken(_) => "tekken",
        }
    }
}

/// (file under the data folder, family, exact splits).
const MODELS: [(&str, &str, bool); 6] = [
    ("llama3/tokenizer.json", "llama3@", true),
    ("qwen3/tokenizer.json", "qwen@", true),
    ("deepseek_v3/tokenizer.json", "deepseek-v3@", true),
    ("gemma3/tokenizer.json", "gemma@", false),
    ("tekken_240718.json", "tekken-v3@", true),
    ("tekken_240911.json", "tekken-v3@", true),
];

/// The data folder, or `None` (with the reason printed) when the tests are not asked for.
fn data_dir(test: &str) -> Option<PathBuf> {
    match std::env::var_os("MENTOR_TOKENIZER_DATA") {
        Some(dir) => Some(PathBuf::from(dir)),
        None => {
            eprintln!(
                "{test}: skipped: MENTOR_TOKENIZER_DATA is not set (run .ci/tokenizer-data, or \
                 .ci/run, which sets it)"
            );
            None
        }
    }
}

/// Every model, loaded once. Panics, naming the file, when one is missing or bad.
fn models(dir: &Path) -> &'static [Model] {
    static MODELS_LOADED: OnceLock<Vec<Model>> = OnceLock::new();
    MODELS_LOADED.get_or_init(|| {
        MODELS
            .iter()
            .map(|&(file, family, exact_splits)| {
                let path = dir.join(file);
                assert!(
                    path.is_file(),
                    "{} is missing: MENTOR_TOKENIZER_DATA is set, so the tokenizer files must \
                     be there (.ci/tokenizer-data fetches them)",
                    path.display()
                );
                let tokenizer = if file.ends_with("tokenizer.json") {
                    Tokenizer::HuggingFace(Box::new(
                        HuggingFaceTokenizer::from_file(&path).unwrap(),
                    ))
                } else {
                    Tokenizer::Tekken(Box::new(TekkenTokenizer::from_file(&path).unwrap()))
                };
                Model {
                    file,
                    family,
                    exact_splits,
                    tokenizer,
                }
            })
            .collect()
    })
}

/// Texts that tokenizers handle differently: scripts, emoji, whitespace runs, special-token
/// strings of every family, invisible characters, NFC-sensitive sequences.
fn hostile_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("word ".to_string()),
        Just("Sentence ends here. ".to_string()),
        Just("   ".to_string()),
        Just("\n".to_string()),
        Just("\r\n".to_string()),
        Just("\n\n\n".to_string()),
        Just("\t".to_string()),
        Just("/".to_string()),
        Just("'s 'LL".to_string()),
        Just("1234567".to_string()),
        Just("e\u{301}\u{302}".to_string()),
        Just("\u{f76}\u{344}\u{1100}\u{1161}\u{11a8}".to_string()),
        Just("👩🏽‍💻".to_string()),
        Just("🏳️‍🌈".to_string()),
        Just("\u{200B}\u{200D}\u{FEFF}\u{202E}".to_string()),
        Just("中文字符とカタカナ".to_string()),
        Just("مرحبا بالعالم".to_string()),
        Just("हिन्दी".to_string()),
        Just("▁▁ ▁".to_string()),
        Just("<0x41>".to_string()),
        Just("<|begin_of_text|>".to_string()),
        Just("<|im_start|>".to_string()),
        Just("<think>".to_string()),
        Just("<｜begin▁of▁sentence｜>".to_string()),
        Just("<bos><start_of_turn>".to_string()),
        Just("<unused0>".to_string()),
        Just("[INST]</s><s>".to_string()),
        Just("fn main() { println!(\"{x:?}\"); }".to_string()),
        any::<String>(),
        "[ \\t\\n\\r\\PC]{0,64}",
    ]
}

fn hostile_text() -> impl Strategy<Value = String> {
    prop::collection::vec(hostile_piece(), 0..16).prop_map(|pieces| pieces.concat())
}

/// Property cases per model: 2,048 unless `MENTOR_TOKENIZER_CASES` says otherwise.
fn property_cases() -> usize {
    common::env_count("MENTOR_TOKENIZER_CASES", 2048)
}

/// Every text of every fixture (contents, titles, metadata), and the fixed hostile texts.
fn fixture_texts() -> Vec<String> {
    let mut texts = Vec::new();
    for name in common::fixture_names() {
        for r in parse_results(&common::fixture_text(&name)).unwrap() {
            texts.push(r.content.clone());
            texts.extend(r.title.as_deref().map(str::to_string));
        }
    }
    texts.extend([
        String::new(),
        " ".repeat(5000),
        "\n".repeat(300),
        "a".repeat(3000),
        "👨‍👩‍👧‍👦".repeat(50),
    ]);
    texts
}

/// The reference ids of `cases` for `model`, from its owners' code (one Python process).
fn reference_ids(model: &Model, path: &Path, cases: &[String]) -> Vec<Vec<u32>> {
    let python = std::env::var("MENTOR_TOKENIZER_PYTHON").unwrap_or_else(|_| "python3".into());
    let scratch = std::env::temp_dir().join(format!(
        "mentor-context-{}-{}",
        std::process::id(),
        model.file.replace('/', "-")
    ));
    let (cases_path, out_path) = (scratch.with_extension("in"), scratch.with_extension("out"));
    std::fs::write(&cases_path, serde_json::to_string(cases).unwrap()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/count_tokens.py");
    let status = Command::new(&python)
        .arg(script)
        .arg(model.kind())
        .arg(path)
        .arg(&cases_path)
        .arg(&out_path)
        .status()
        .unwrap_or_else(|e| panic!("cannot run {python} (MENTOR_TOKENIZER_PYTHON): {e}"));
    assert!(status.success(), "the reference failed for {}", model.file);
    let ids = serde_json::from_str(&std::fs::read_to_string(&out_path).unwrap()).unwrap();
    let _ = (
        std::fs::remove_file(cases_path),
        std::fs::remove_file(out_path),
    );
    ids
}

/// The contract of `token_lengths`: they cover the text, each at least a byte where the text
/// has a byte per token; under NFC (Qwen 3), at least a byte where NFC leaves the text alone
/// (elsewhere the tokens NFC added past the text's bytes have none), and the text's exact
/// splits are token ends.
fn check_lengths(model: &Model, text: &str, count: usize) {
    let mut lengths = Vec::new();
    model.counter().token_lengths(text, &mut lengths);
    assert_eq!(lengths.len(), count, "{}: {text:?}", model.file);
    let sum: usize = lengths.iter().map(|&l| l as usize).sum();
    assert_eq!(sum, text.len(), "{}: lengths of {text:?}", model.file);
    let normalizes = model.family == "qwen@" && !nfc::is_nfc(text);
    if count <= text.len() && !normalizes {
        assert!(lengths.iter().all(|&l| l > 0), "{}: {text:?}", model.file);
    }
    nfc::check_split_ends(model.counter(), text, &lengths);
    let longest = model.counter().max_token_bytes();
    assert!(
        lengths.iter().all(|&l| l as usize <= longest),
        "{}: a token of {text:?} is longer than {longest} bytes",
        model.file
    );
}

#[test]
fn ids_match_the_reference_on_every_fixture_and_property_case() {
    let Some(dir) = data_dir("ids_match_the_reference") else {
        return;
    };
    let mut runner = TestRunner::deterministic();
    let strategy = hostile_text();
    let generated: Vec<String> = (0..property_cases())
        .map(|_| strategy.new_tree(&mut runner).unwrap().current())
        .collect();
    let fixtures = fixture_texts();
    for model in models(&dir) {
        let cases: Vec<String> = fixtures.iter().chain(&generated).cloned().collect();
        let expected = reference_ids(model, &dir.join(model.file), &cases);
        assert_eq!(expected.len(), cases.len());
        let mut mismatches = Vec::new();
        for (text, expected) in cases.iter().zip(&expected) {
            let ids = model.ids(text);
            if &ids != expected {
                mismatches.push(format!("{text:?}: {ids:?} != {expected:?}"));
            }
            let count = model.counter().count(text);
            assert_eq!(count, expected.len(), "{}: count of {text:?}", model.file);
            check_lengths(model, text, count);
        }
        assert!(
            mismatches.is_empty(),
            "{}: {} of {} cases differ from the reference, first: {}",
            model.file,
            mismatches.len(),
            cases.len(),
            mismatches[..mismatches.len().min(3)].join("\n")
        );
        eprintln!(
            "{}: {} cases ({} fixture texts), 0 mismatches",
            model.counter().name(),
            cases.len(),
            fixtures.len()
        );
    }
}

#[test]
fn names_and_paths_are_the_documented_ones() {
    let Some(dir) = data_dir("names_and_paths") else {
        return;
    };
    for model in models(&dir) {
        let name = model.counter().name();
        assert!(name.starts_with(model.family), "{}: {name}", model.file);
        assert_eq!(model.has_exact_splits(), model.exact_splits, "{name}");
        // Qwen's NFC normalizer alone leaves the longest token unbounded, and with it the
        // work per call bounded by the default (on the exact path, a stretch without a split
        // point, not the context); the others take a megabyte per call.
        let tokenizer = model.counter();
        if model.family == "qwen@" {
            assert_eq!(tokenizer.max_token_bytes(), usize::MAX);
            assert_eq!(tokenizer.max_call_bytes(), DEFAULT_MAX_CALL_BYTES);
        } else {
            assert!(tokenizer.max_token_bytes() <= 1024, "{name}");
            let expected = if model.kind() == "tekken" {
                64 << 10
            } else {
                1 << 20
            };
            assert_eq!(tokenizer.max_call_bytes(), expected, "{name}");
        }
    }
}

/// A file on the recount path (Gemma 3) still gets a context longer than the default call
/// limit, 64 KiB: its tokenizer takes a megabyte per call.
#[test]
fn a_recount_context_can_pass_64_kib() {
    let Some(dir) = data_dir("a_recount_context_can_pass_64_kib") else {
        return;
    };
    let results = common::fixture("bench-english");
    for model in models(&dir).iter().filter(|m| m.family == "gemma@") {
        let tokenizer = model.counter();
        let context = common::assemble_checked(ContextBuilder::new(60_000), tokenizer, &results);
        assert!(context.text.len() > 64 << 10, "{}", context.text.len());
    }
}

/// About 200 distinct results of ordinary documents (two copies of each bench fixture): more
/// than a 32,000-token budget holds, for any of the models.
fn many_results() -> Vec<MentorRagResult> {
    let mut results = Vec::new();
    for name in ["bench-english", "bench-multilingual"] {
        for copy in 0..2 {
            results.extend(common::fixture(name).into_iter().map(|mut r| {
                r.content = format!("Copy {copy}. {}", r.content);
                r.source_url = r.source_url.map(|url| format!("{url}?copy={copy}"));
                r.score *= 1.0 - 0.001 * copy as f32;
                r
            }));
        }
    }
    results
}

/// Every model fills budgets up to 32,000 tokens (Qwen 3 as Llama 3 does: more than 64 KiB of
/// text, no ceiling), and the count of each context is what its owners' code counts.
#[test]
fn contexts_of_up_to_32000_tokens_are_full_and_count_as_the_reference() {
    let Some(dir) = data_dir("contexts_of_up_to_32000_tokens") else {
        return;
    };
    let results = many_results();
    let budgets = [4_000, 16_000, 32_000];
    for model in models(&dir) {
        let tokenizer = model.counter();
        let mut texts = Vec::new();
        for budget in budgets {
            let context =
                common::assemble_checked(ContextBuilder::new(budget), tokenizer, &results);
            // The block that does not fit is cut to the room: a full context is within a
            // few tokens of the budget.
            assert!(
                context.token_count * 100 >= budget * 99,
                "{}: {} tokens at budget {budget}",
                model.file,
                context.token_count
            );
            texts.push((context.text, context.token_count));
        }
        assert!(texts[2].0.len() > 64 << 10, "{}", model.file);
        let cases: Vec<String> = texts.iter().map(|(text, _)| text.clone()).collect();
        let expected = reference_ids(model, &dir.join(model.file), &cases);
        for ((_, count), (ids, budget)) in texts.iter().zip(expected.iter().zip(budgets)) {
            assert_eq!(*count, ids.len(), "{} at budget {budget}", model.file);
        }
    }
}

/// A control token's string in a document is text: several ordinary tokens, never the one
/// control token (which would be a single id).
#[test]
fn special_token_strings_are_ordinary_text() {
    let Some(dir) = data_dir("special_token_strings") else {
        return;
    };
    for model in models(&dir) {
        // The control tokens of each family, as its chat template writes them.
        let specials: &[&str] = match model.family {
            "llama3@" => &["<|begin_of_text|>", "<|eot_id|>", "<|start_header_id|>"],
            "qwen@" => &["<|im_start|>", "<|im_end|>", "<|endoftext|>"],
            "deepseek-v3@" => &["<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"],
            "gemma@" => &["<bos>", "<start_of_turn>", "<end_of_turn>", "<eos>"],
            _ => &["<s>", "</s>", "[INST]", "[/INST]"],
        };
        for special in specials {
            let count = model.counter().count(special);
            assert!(count > 1, "{}: {special} is {count} token", model.file);
        }
    }
}

#[test]
fn assembled_contexts_keep_every_invariant() {
    let Some(dir) = data_dir("assembled_contexts") else {
        return;
    };
    for model in models(&dir) {
        for name in common::fixture_names() {
            let results = common::fixture(&name);
            for budget in [30, 400, 4000] {
                for xml in [false, true] {
                    let mut builder = ContextBuilder::new(budget).tokenizer(model.counter());
                    if xml {
                        builder = builder.format(XmlFormat);
                    }
                    let context = builder.build().unwrap().assemble(&results);
                    assert_eq!(context.encoding, model.counter().name());
                    common::check_invariants(&context, &results, model.counter(), xml, None);
                }
            }
        }
    }
}

/// A megabyte of whitespace, of special-token strings, of invisible characters: no panic,
/// the count exact, and the bytes tokenized bounded by what could fit.
#[test]
fn hostile_megabytes_are_bounded_by_the_budget() {
    let Some(dir) = data_dir("hostile_megabytes") else {
        return;
    };
    const MB: usize = 1 << 20;
    let fill = |unit: &str| unit.repeat(MB / unit.len());
    let texts = [
        ("spaces", fill(" ")),
        ("newlines and tabs", fill("\n\t")),
        ("special tokens", fill("<|begin_of_text|><|im_start|><bos>")),
        ("invisible", fill("\u{200B}\u{200D}\u{FEFF}")),
        ("one letter", fill("a")),
    ];
    for model in models(&dir) {
        let tokenizer = model.counter();
        for (name, content) in &texts {
            let results = [
                MentorRagResult::from_content("A normal first document.", 0.9),
                MentorRagResult::from_content(content.clone(), 0.8).with_title(*name),
                MentorRagResult::from_content("A normal last document.", 0.1),
            ];
            for budget in [40, 4_000] {
                for overflow in [Overflow::Truncate, Overflow::Skip] {
                    let builder = ContextBuilder::new(budget)
                        .tokenizer(tokenizer)
                        .overflow(overflow);
                    let (context, stats) = mentor_context::machinery::assemble_with_stats(
                        &builder.build().unwrap(),
                        &results,
                    );
                    common::check_invariants(&context, &results, tokenizer, false, None);
                    let reach = (budget + 1)
                        .saturating_mul(tokenizer.max_token_bytes())
                        .min(tokenizer.max_call_bytes());
                    let bound = 2 * context.text.len() + 4 * reach + 4096;
                    assert!(
                        stats.bytes_tokenized <= bound,
                        "{} {name} budget {budget}: tokenized {} bytes, bound {bound}",
                        model.file,
                        stats.bytes_tokenized
                    );
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(common::proptest_cases(256))]

    /// The rule the exact path rests on, for every model that takes it: at every position
    /// `openai_splits_exactly` accepts (and, under NFC, where the character after is
    /// NFC-stable), the counts of the halves add up to the whole.
    #[test]
    fn exact_splits_add_up(text in hostile_text()) {
        let Some(dir) = data_dir("exact_splits_add_up") else {
            return Ok(());
        };
        for model in models(&dir).iter().filter(|m| m.has_exact_splits()) {
            let tokenizer = model.counter();
            let whole = tokenizer.count(&text);
            for (at, _) in text.char_indices() {
                let exact = tokenizer.splits_exactly(&text, at);
                // Under NFC the rule is OpenAI's with fewer positions; elsewhere it is OpenAI's.
                prop_assert!(!exact || openai_splits_exactly(&text, at));
                if model.family != "qwen@" {
                    prop_assert_eq!(exact, openai_splits_exactly(&text, at));
                }
                if exact {
                    let parts = tokenizer.count(&text[..at]) + tokenizer.count(&text[at..]);
                    prop_assert_eq!(parts, whole, "{} at {} in {:?}", model.file, at, text);
                }
            }
        }
    }
}

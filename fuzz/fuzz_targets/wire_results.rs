//! Any text as a request of results, as .NET's System.Text.Json writes it: an error naming a
//! line and column inside the text, or results that assemble within the invariants of
//! `assemble`.
//!
//! Input layout (see `fuzz/README.md`; the seeds are `fixtures/` files as they are):
//!
//! | bytes | meaning |
//! | ----- | ------- |
//! | 0..   | the request, UTF-8 (inputs that are not are skipped) |
//!
//! The budget (0..=3000) and the format are taken from the text's length, so that every seed
//! is a fixture unchanged. It checks: `parse_results` and `parse_request` in both modes
//! agree (the same results; `Reject` refuses exactly when `Report` lists an unknown
//! property); an error is `Error::Json` at a line and column of the text; the results
//! assemble to a text within the budget whose recount is `token_count`, with every result
//! cited or omitted exactly once, chips numbered 1..n.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mentor_context::format::BuiltinFormat;
use mentor_context::tokenizer::TokenCounter;
use mentor_context::wire::{UnknownProperties, parse_request, parse_results};
use mentor_context::{ContextBuilder, Encoding, Error, MentorRagResult};

/// Results as text to compare: a NaN score (which a string score can spell) is not equal to
/// itself.
fn same(results: &[MentorRagResult]) -> String {
    format!("{results:?}")
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let results = parse_results(text);
    let reported = parse_request(text, UnknownProperties::Report);
    let rejected = parse_request(text, UnknownProperties::Reject);
    match (&results, &reported) {
        (Ok(results), Ok(reported)) => assert_eq!(same(results), same(&reported.results)),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        (a, b) => panic!("parse_results {a:?} but parse_request {b:?}"),
    }
    match (&reported, &rejected) {
        (Ok(reported), Ok(rejected)) => {
            assert!(
                reported.unknown_properties.is_empty(),
                "Reject let an unknown property pass"
            );
            assert_eq!(same(&reported.results), same(&rejected.results));
        }
        (Ok(reported), Err(_)) => {
            assert!(
                !reported.unknown_properties.is_empty(),
                "Reject refused what Report read cleanly"
            )
        }
        (Err(_), Ok(_)) => panic!("Reject read what Report refused"),
        (Err(_), Err(_)) => {}
    }
    let results = match results {
        Ok(results) => results,
        Err(Error::Json {
            line,
            column,
            message,
            ..
        }) => {
            let lines = text.split('\n').count();
            assert!(
                (1..=lines).contains(&line) && column >= 1,
                "line {line}, column {column} outside a text of {lines} lines"
            );
            assert!(!message.is_empty(), "an error that says nothing");
            return;
        }
        Err(other) => panic!("not a JSON error: {other:?}"),
    };
    let budget = text.len() % 3001;
    let format = BuiltinFormat::ALL[text.len() % BuiltinFormat::ALL.len()];
    let assembler = ContextBuilder::new(budget).format(format).build().unwrap();
    let context = assembler.assemble(&results);
    assert!(context.token_count <= budget, "over the budget");
    assert_eq!(
        Encoding::O200kBase.count(&context.text),
        context.token_count,
        "recount"
    );
    let mut seen = vec![0u8; results.len()];
    for (i, chip) in context.citations.iter().enumerate() {
        assert_eq!(chip.index, i + 1, "chips numbered 1..n");
        seen[chip.input_index] += 1;
    }
    for omission in &context.omitted {
        seen[omission.input_index] += 1;
    }
    assert!(
        seen.iter().all(|&n| n == 1),
        "a result not cited or omitted exactly once"
    );
});

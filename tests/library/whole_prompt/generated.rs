//! The whole prompt's guarantees as properties over generated cases (proptest): up to about
//! 200 messages with tool calls and results, tool definitions, any window and reserve, with
//! the templates that need no downloaded files. `properties.rs` holds the fixed-seed checks
//! that also assert what the cases reach (cut contexts, trims, rare trims).

use mentor_context::prompt::PromptBuilder;
use mentor_context::wire::parse_results;
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};

use super::conversations::{Shape, conversation, tools};
use super::harmony::no_result_without_its_call;
use super::properties::{check_history, date, recount, results, templates};
use crate::common;

/// One generated case.
#[derive(Clone, Debug)]
struct Case {
    which: usize,
    seed: u64,
    turns: usize,
    tool_count: usize,
    window: usize,
    reserve: usize,
    set: usize,
}

fn cases() -> impl Strategy<Value = Case> {
    (
        0..3usize,
        any::<u64>(),
        0..60usize,
        0..4usize,
        700..6_000usize,
        0..400usize,
        0..3usize,
    )
        .prop_map(
            |(which, seed, turns, tool_count, window, reserve, set)| Case {
                which,
                seed,
                turns,
                tool_count,
                window,
                reserve,
                set,
            },
        )
}

fn check(case: &Case) -> Result<(), TestCaseError> {
    let Case {
        which,
        seed,
        turns,
        tool_count,
        window,
        reserve,
        set,
    } = *case;
    let (name, template) = templates().into_iter().nth(which).unwrap();
    // OpenAI's rule counts string fields only, and its count of tools is an estimate.
    let openai = name == "openai";
    let chat = conversation(
        seed,
        if openai { Shape::Plain } else { Shape::Tools },
        turns,
    );
    let tools = (tool_count > 0 && !openai).then(|| tools(seed, tool_count));
    let results = match set {
        0 => results(),
        1 => Vec::new(),
        _ => parse_results(&common::fixture_text("pricing.json")).unwrap(),
    };
    let prompts = PromptBuilder::new(template.clone(), window)
        .reserve(reserve)
        .date(date())
        .tools(tools)
        .build()
        .unwrap();
    let prompt = match prompts.assemble(&chat, &results) {
        Ok(prompt) => prompt,
        Err(mentor_context::Error::PromptTooLarge { needed, .. }) => {
            prop_assert!(
                needed + reserve > window,
                "{}: refused, needing {}",
                name,
                needed
            );
            return Ok(());
        }
        Err(e) => return Err(TestCaseError::fail(format!("{name}: {e}"))),
    };
    prop_assert!(prompt.exact);
    prop_assert_eq!(recount(&template, &prompt), prompt.token_count, "{}", name);
    prop_assert!(prompt.token_count + reserve <= window, "{}", name);
    let p = prompt.parts;
    prop_assert_eq!(
        p.template + p.tools + p.system + p.history + p.context + p.question,
        prompt.token_count
    );
    if name == "harmony" && tool_count > 0 {
        prop_assert!(p.tools > 0, "Harmony writes the tools");
    }
    no_result_without_its_call(usize::try_from(seed).unwrap(), &prompt);
    check_history(&chat, &prompt);
    Ok(())
}

#[test]
fn every_prompt_is_exact_fits_and_keeps_whole_turns() {
    // A runner of its own, not `proptest!`: the macro lets `PROPTEST_CASES` (4,096 in CI, for
    // the cheap properties) replace the count, and each case here renders and counts up to a
    // few hundred messages in a debug build. Failures are kept beside the source, as the
    // macro keeps them.
    let mut runner = TestRunner::new(ProptestConfig {
        cases: 24,
        source_file: Some(file!()),
        ..ProptestConfig::default()
    });
    if let Err(failure) = runner.run(&cases(), |case| check(&case)) {
        panic!("{failure}");
    }
}

//! The whole prompt's guarantees as properties over generated cases (proptest): up to about
//! 200 messages with tool calls and results, tool definitions, any window and reserve, with
//! the templates that need no downloaded files. `properties.rs` holds the fixed-seed checks
//! that also assert what the cases reach (cut contexts, trims, rare trims).

use mentor_context::prompt::PromptBuilder;
use mentor_context::wire::parse_results;
use proptest::prelude::*;

use super::conversations::{Shape, conversation, tools};
use super::harmony::no_result_without_its_call;
use super::properties::{check_history, date, recount, results, templates};
use crate::common;

proptest! {
    // Explicit, so that CI's PROPTEST_CASES (set for the cheap properties) does not multiply
    // these: each case renders and counts up to a few hundred messages.
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn every_prompt_is_exact_fits_and_keeps_whole_turns(
        which in 0..3usize,
        seed in any::<u64>(),
        turns in 0..60usize,
        tool_count in 0..4usize,
        window in 700..6_000usize,
        reserve in 0..400usize,
        set in 0..3usize,
    ) {
        let (name, template) = templates().into_iter().nth(which).unwrap();
        // OpenAI's rule counts string fields only, and its count of tools is an estimate.
        let openai = name == "openai";
        let chat = conversation(seed, if openai { Shape::Plain } else { Shape::Tools }, turns);
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
                prop_assert!(needed + reserve > window, "{}: refused, needing {}", name, needed);
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
    }
}

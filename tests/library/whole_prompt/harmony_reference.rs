//! gpt-oss's whole prompts with tools, tool calls and tool results against the owners' code:
//! the messages vLLM's chat endpoint makes of the request (its mapping, written out in
//! `tests/reference/whole_prompt.py` from `vllm/entrypoints/openai/parser/harmony_utils.py`),
//! rendered by `openai-harmony`. Generated conversations (0 to 20 turns, calls with `arguments`
//! as a string and as an object, several calls at once, reasoning, results holding Harmony's
//! tokens), 1 to 8 generated tools (nested, enum and array parameters) or none, every reasoning
//! effort, windows from 2,048 to 32,768; and one set of tools with every schema form
//! openai-harmony writes its own way (`oneOf`, `nullable`, defaults, titles, examples, type
//! lists). Equal text, equal count, `tokenCount + reserve <= window`, no control token in a
//! tool's result or a call's arguments, and no result kept without its call.
//!
//! Run by `.ci/run` as `whole_prompt::reference` is, with the same variables.
#![cfg(feature = "huggingface")]

use std::path::PathBuf;

use mentor_context::ContextBuilder;
use mentor_context::prompt::{
    ChatTemplate, ConversationDate, PromptBuilder, ReasoningEffort, Tools,
};
use serde_json::{Value, json};

use super::conversations::tools as generated_tools;
use super::harmony::{agent_conversation, no_result_without_its_call};
use super::reference::{check_fits, result_sets, run_script};
use crate::common;

/// One tool set with every schema form openai-harmony writes its own way.
fn schema_forms() -> Tools {
    serde_json::from_value(json!([
        {"type": "function", "function": {"name": "forms", "description": "Every form.\nOn two lines.",
            "parameters": {"type": "object", "description": "The arguments.", "properties": {
                "choice": {"description": "One of two.", "oneOf": [
                    {"type": "string", "description": "One of two.", "default": "x"},
                    {"type": "integer", "nullable": true, "default": 3}]},
                "other": {"oneOf": [{"type": "string", "enum": ["a", "b"], "default": "a"},
                    {"type": "boolean", "description": "A flag."}], "default": "a"},
                "maybe": {"type": "string", "nullable": true, "default": "none yet"},
                "level": {"type": "string", "enum": ["low", "high"], "default": "low"},
                "count": {"type": "integer", "default": 10, "title": "Count"},
                "ratio": {"type": "number", "default": 0.25, "examples": ["0.5", 1]},
                "either": {"type": ["integer", "string", "null"]},
                "list": {"type": "array"},
                "matrix": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
                "inner": {"type": "object", "properties": {"deep": {"type": "object",
                    "properties": {"leaf": {"type": "boolean"}}, "required": ["leaf"]}}},
                "loose": {},
                "nothing": {"type": "null", "default": null}},
            "required": ["choice", "count"]}}},
        {"type": "function", "function": {"name": "top", "parameters": {"oneOf": [
            {"type": "string", "default": "s"}, {"type": "string", "enum": ["e"], "default": "e"},
            {"type": "object", "properties": {"k": {"type": "string"}}}]}}},
        {"type": "function", "function": {"name": "bare", "description": "No parameters."}},
        {"type": "function", "function": {"name": "empty", "description": "", "parameters": {}}},
    ]))
    .unwrap()
}

struct Case {
    prompt: mentor_context::prompt::Prompt<'static>,
    chat: Vec<mentor_context::prompt::Message>,
    tools: Option<Tools>,
    effort: Option<ReasoningEffort>,
}

#[test]
fn harmony_prompts_with_tools_are_vllm_and_openai_harmonys() {
    let Some(_) = std::env::var_os("MENTOR_TOKENIZER_DATA").map(PathBuf::from) else {
        eprintln!("skipped: MENTOR_TOKENIZER_DATA is not set (.ci/run sets it)");
        return;
    };
    let python = std::env::var("MENTOR_TOKENIZER_PYTHON")
        .expect("MENTOR_TOKENIZER_PYTHON names the reference venv's python");
    let date: ConversationDate = "2026-12-02".parse().unwrap();
    let windows = [2048, 4096, 8192, 16_384, 32_768];
    let efforts = [
        None,
        Some(ReasoningEffort::Low),
        Some(ReasoningEffort::Medium),
        Some(ReasoningEffort::High),
    ];
    let sets = result_sets();
    let count = 2 * common::env_count("MENTOR_PROMPT_CASES", 24);
    let mut cases = Vec::new();
    for seed in 0..count {
        let window = windows[seed % windows.len()];
        let reserve = [0, 256, 1000][seed % 3];
        let tools = match seed % 6 {
            0 => None,
            1 => Some(schema_forms()),
            _ => Some(generated_tools(seed as u64, 1 + seed % 8)),
        };
        let effort = efforts[seed % efforts.len()];
        let template = effort.map_or_else(ChatTemplate::harmony, ChatTemplate::harmony_with);
        let chat = agent_conversation(seed as u64, seed % 21);
        let prompt = match PromptBuilder::new(template, window)
            .reserve(reserve)
            .date(date)
            .context(ContextBuilder::new(0).max_head_tokens(64))
            .tools(tools.clone())
            .build()
            .unwrap()
            .assemble(&chat, &sets[seed % sets.len()])
        {
            Ok(prompt) => prompt.into_owned(),
            Err(mentor_context::Error::PromptTooLarge { .. }) => continue,
            Err(e) => panic!("seed {seed}: {e}"),
        };
        check_fits("harmony", seed, &prompt, window, reserve);
        no_result_without_its_call(seed, &prompt);
        cases.push(Case {
            prompt,
            chat,
            tools,
            effort,
        });
    }
    // The cases reach what they test.
    let with = |f: &dyn Fn(&Case) -> bool| cases.iter().filter(|c| f(c)).count();
    let calls = with(&|c| {
        c.prompt
            .prompt
            .as_deref()
            .is_some_and(|p| p.contains("<|call|>"))
    });
    let trimmed_with_tools = with(&|c| c.prompt.parts.tools > 0 && !c.prompt.dropped.is_empty());
    assert!(
        cases.len() * 4 >= count * 3 && calls * 3 >= cases.len() && trimmed_with_tools >= 3,
        "{} cases, {calls} with calls, {trimmed_with_tools} trimmed with tools",
        cases.len()
    );
    assert!(cases.iter().any(|c| {
        c.tools.is_none()
            && c.prompt
                .prompt
                .as_deref()
                .is_some_and(|p| p.contains("<|call|>"))
    }));
    let input: Vec<Value> = cases
        .iter()
        .map(|case| {
            json!({
                "template": "harmony",
                "messages": case.prompt.messages,
                "tools": case.tools,
                "reasoning_effort": case.effort.map(ReasoningEffort::as_str),
                "date": date.to_string(),
                "context": case.prompt.context.text,
            })
        })
        .collect();
    let reference = run_script(&python, &input);
    assert_eq!(reference.len(), cases.len());
    let mut failures = Vec::new();
    for (seed, (case, expected)) in cases.iter().zip(&reference).enumerate() {
        let ours = &case.prompt;
        if ours.prompt.as_deref() != expected["prompt"].as_str() {
            failures.push(format!(
                "case {seed}: prompt differs\n ours: {:?}\n them: {:?}",
                ours.prompt.as_deref(),
                expected["prompt"]
            ));
            continue;
        }
        if expected["count"].as_u64() != Some(ours.token_count as u64) {
            failures.push(format!(
                "case {seed}: count {} but openai-harmony counts {}",
                ours.token_count, expected["count"]
            ));
        }
        for key in ["controls_in_context", "controls_in_tools"] {
            if expected[key].as_u64() != Some(0) {
                failures.push(format!("case {seed}: {key} is {}", expected[key]));
            }
        }
        assert!(case.chat.len() >= ours.messages.len() - 1);
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

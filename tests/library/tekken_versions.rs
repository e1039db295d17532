//! A Tekken file's `version` chooses Mistral's instruct format: v3 joins the system messages
//! before the last user message, v7, v11 and v13 write them between `[SYSTEM_PROMPT]` and
//! `[/SYSTEM_PROMPT]`; any other version is refused by the `mistral` template, naming it. (The
//! formats against mistral-common itself: `whole_prompt::reference`, in `.ci/run`.)

use mentor_context::prompt::{ChatTemplate, Message, PromptBuilder};
use mentor_context::tokenizer::{TekkenTokenizer, TekkenVersion, TokenCounter};
use serde_json::{Value, json};

/// The tiny fixture Tekken file as `version`, with `special_tokens` if given.
fn tekken(version: &str, special_tokens: Option<&[&str]>) -> TekkenTokenizer {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/tokenizers/tekken-tiny.json"
    );
    let mut file: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    file["config"]["version"] = json!(version);
    if let Some(tokens) = special_tokens {
        file["special_tokens"] = tokens
            .iter()
            .enumerate()
            .map(|(rank, t)| json!({"rank": rank, "token_str": t, "is_control": true}))
            .collect();
    }
    TekkenTokenizer::from_slice(&serde_json::to_vec(&file).unwrap()).unwrap()
}

/// The special tokens of a v11 or v13 file, as Mistral's list them (fillers included).
const LISTED: [&str; 8] = [
    "<unk>",
    "<s>",
    "</s>",
    "[INST]",
    "[/INST]",
    "[SYSTEM_PROMPT]",
    "[/SYSTEM_PROMPT]",
    "<SPECIAL_7>",
];

fn prompt(template: ChatTemplate) -> (String, usize) {
    let prompts = PromptBuilder::new(template, 4096).build().unwrap();
    let conversation = [Message::system("Be brief."), Message::user("Plan B?")];
    let prompt = prompts.assemble(&conversation, &[]).unwrap();
    (prompt.prompt.unwrap(), prompt.token_count)
}

#[test]
fn each_version_writes_its_own_format() {
    let v3 = prompt(ChatTemplate::mistral(tekken("v3", None)).unwrap());
    assert_eq!(v3.0, "<s>[INST]Be brief.\n\nPlan B?[/INST]");
    let in_place = "<s>[SYSTEM_PROMPT]Be brief.[/SYSTEM_PROMPT][INST]Plan B?[/INST]";
    for (version, listed) in [
        ("v7", None),
        ("v11", Some(&LISTED[..])),
        ("v13", Some(&LISTED[..])),
    ] {
        let tekken = tekken(version, listed);
        let text_tokens = tekken.count("Be brief.") + tekken.count("Plan B?");
        let (text, count) = prompt(ChatTemplate::mistral(tekken).unwrap());
        assert_eq!(text, in_place, "{version}");
        // Five control tokens and the two texts, counted apart.
        assert_eq!(count, 5 + text_tokens, "{version}");
    }
}

#[test]
fn a_version_whose_format_is_not_written_is_refused_naming_it() {
    for version in ["v1", "v2", "v15"] {
        let tekken = tekken(version, Some(&LISTED));
        // The file still counts: the version names the format, not the vocabulary.
        assert_eq!(tekken.version().as_str(), version);
        assert!(tekken.count("Plan B?") > 0);
        let err = ChatTemplate::mistral(tekken).unwrap_err();
        // A template this library does not write: not the template's fault on a conversation.
        let kind = err
            .template_error()
            .map(mentor_context::TemplateError::kind);
        assert_eq!(kind, Some(mentor_context::TemplateErrorKind::Unsupported));
        let err = err.to_string();
        assert!(
            err.contains(&format!("the Tekken file's version is {version};"))
                && err.contains("for versions v3, v7, v11, v13 only")
                && !err.contains('\n'),
            "{err}"
        );
    }
    assert_eq!(TekkenVersion::ALL.len(), 7);
}

#[test]
fn a_file_after_v7_lists_the_tokens_its_format_writes() {
    let err = ChatTemplate::mistral(tekken("v11", None))
        .unwrap_err()
        .to_string();
    assert!(err.contains("(v11) lists no special_tokens"), "{err}");
    let without_system = ["<s>", "</s>", "[INST]", "[/INST]"];
    let err = ChatTemplate::mistral(tekken("v13", Some(&without_system)))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("lack [SYSTEM_PROMPT], which Mistral's v13 format writes"),
        "{err}"
    );
    // v3 writes no system-prompt token: the same list serves it.
    assert!(ChatTemplate::mistral(tekken("v3", Some(&without_system))).is_ok());
    // A listed token is a control token (neutralized in messages); a filler is not.
    let template =
        ChatTemplate::mistral(tekken("v13", Some(&[&LISTED[..], &["[THINK]"]].concat()))).unwrap();
    let control = template.control_tokens();
    assert!(control.iter().any(|t| t == "[THINK]"), "{control:?}");
    assert!(!control.iter().any(|t| t == "<SPECIAL_7>"), "{control:?}");
}

//! `prompt --tools`: an agent's tool definitions through a Hugging Face template.

use super::*;

use super::prompt::chatml_tokenizer;

const CONVERSATION: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../fixtures/prompt/conversation.json"
);

/// ChatML writing the tools in a system turn of their own, as Qwen 3's template does.
const TOOLS_CHATML: &str = "{% if tools %}<|im_start|>system\n<tools>{% for t in tools %}\n{{ t | tojson }}{% endfor %}\n</tools><|im_end|>\n{% endif %}{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}<|im_start|>assistant\n";

const TOOLS: &str = r#"[{"type": "function", "function": {"name": "search_prices", "description": "Looks a plan's price up.", "parameters": {"type": "object", "properties": {"plan": {"type": "string", "enum": ["A", "B"]}}}}}]"#;

fn run_prompt(template: &str, extra: &[&str]) -> Run {
    let tokenizer = chatml_tokenizer();
    let config = TempFile::new(
        "tokenizer_config.json",
        serde_json::json!({"chat_template": template})
            .to_string()
            .as_bytes(),
    );
    let mut args = vec![
        "prompt",
        PRICING,
        "--conversation",
        CONVERSATION,
        "--window",
        "8192",
        "--chat-template",
        config.path(),
        "--tokenizer-file",
        tokenizer.path(),
    ];
    args.extend(extra);
    run(&args)
}

#[test]
fn tools_are_written_and_counted_in_their_part() {
    let tools = TempFile::new("tools.json", TOOLS.as_bytes());
    let report = run_prompt(TOOLS_CHATML, &["--json", "--tools", tools.path()]).json();
    let text = report["prompt"].as_str().unwrap();
    assert!(
        text.starts_with("<|im_start|>system\n<tools>{\"type\": \"function\", \"function\": {\"name\": \"search_prices\""),
        "{text}"
    );
    let parts = &report["parts"];
    let sum: u64 = [
        "template", "system", "history", "context", "question", "tools",
    ]
    .iter()
    .map(|part| parts[part].as_u64().unwrap())
    .sum();
    assert_eq!(sum, report["tokenCount"].as_u64().unwrap());
    // The tokenizer counts a token per byte, and each control token as one: the tools' turn.
    let turn = text.split_inclusive("<|im_end|>\n").next().unwrap();
    let bytes = turn.len() - "<|im_start|>".len() - "<|im_end|>".len();
    assert_eq!(parts["tools"].as_u64().unwrap() as usize, bytes + 2);
    // Without tools, the report has no `tools` part: it reads as it always has.
    let report = run_prompt(TOOLS_CHATML, &["--json"]).json();
    assert!(report["parts"].get("tools").is_none(), "{report}");
    assert!(!report["prompt"].as_str().unwrap().contains("<tools>"));
}

#[test]
fn bad_tools_are_one_line_naming_the_tool() {
    let bad = TempFile::new(
        "tools.json",
        br#"[{"type": "function", "function": {"name": "search_prices", "parameters": []}}]"#,
    );
    run_prompt(TOOLS_CHATML, &["--tools", bad.path()]).bad(&[
        "--tools",
        "tools.json",
        "tool 0 (`search_prices`): `parameters` must be a JSON object, not an array",
    ]);
    let object = TempFile::new("tools.json", TOOLS.trim_matches(['[', ']']).as_bytes());
    run_prompt(TOOLS_CHATML, &["--tools", object.path()]).bad(&["--tools", "JSON array"]);
    // Results from standard input: the tools cannot be there too.
    run(&[
        "prompt",
        "--conversation",
        CONVERSATION,
        "--window",
        "8192",
        "--chat-template",
        "harmony",
        "--tools",
        "-",
    ])
    .bad(&["--tools", "standard input"]);
}

#[test]
fn templates_that_take_no_tools_refuse_them() {
    let tools = TempFile::new("tools.json", TOOLS.as_bytes());
    let run = run(&[
        "prompt",
        PRICING,
        "--conversation",
        CONVERSATION,
        "--window",
        "8192",
        "--chat-template",
        "openai",
        "--encoding",
        "p50k_base",
        "--tools",
        tools.path(),
    ]);
    run.bad(&["INVALID_SETTING", "--tools", "num_tokens_for_tools"]);
    run_inspect_without_conversation(tools.path());
}

/// gpt-oss writes the tools in its developer message; OpenAI's rule estimates them, and says
/// so.
#[test]
fn harmony_writes_the_tools_and_openai_estimates_them() {
    let tools = TempFile::new("tools.json", TOOLS.as_bytes());
    let report = |template: &str| {
        run(&[
            "prompt",
            PRICING,
            "--conversation",
            CONVERSATION,
            "--window",
            "8192",
            "--chat-template",
            template,
            "--date",
            "2026-12-02",
            "--json",
            "--tools",
            tools.path(),
        ])
        .json()
    };
    let harmony = report("harmony");
    let text = harmony["prompt"].as_str().unwrap();
    assert!(text.contains("namespace functions {\n\n// Looks a plan's price up.\ntype search_prices = (_: {\nplan?: \"A\" | \"B\",\n}) => any;"), "{text}");
    assert!(harmony["parts"]["tools"].as_u64().unwrap() > 0);
    assert!(harmony.get("exact").is_none(), "{harmony}");
    let openai = report("openai");
    assert!(openai["parts"]["tools"].as_u64().unwrap() > 0);
    assert_eq!(openai["exact"], false, "{openai}");
}

/// `inspect` draws a whole prompt only with a conversation: tools alone are refused, not
/// dropped.
fn run_inspect_without_conversation(tools: &str) {
    let page = std::env::temp_dir().join(format!("tools-inspect-{}.html", std::process::id()));
    let page = page.to_str().unwrap();
    run(&["inspect", PRICING, "--output", page, "--tools", tools])
        .bad(&["--tools", "--conversation"]);
    assert!(!std::path::Path::new(page).exists());
}

/// `inspect` draws the tools as a share of the window, and only where there are some.
#[test]
fn inspect_draws_the_tools_share() {
    let tokenizer = chatml_tokenizer();
    let config = TempFile::new(
        "tokenizer_config.json",
        serde_json::json!({"chat_template": TOOLS_CHATML})
            .to_string()
            .as_bytes(),
    );
    let tools = TempFile::new("tools.json", TOOLS.as_bytes());
    let page = |extra: &[&str]| {
        let page = TempFile::new("page.html", b"");
        let mut args = vec![
            "inspect",
            PRICING,
            "--conversation",
            CONVERSATION,
            "--window",
            "8192",
            "--chat-template",
            config.path(),
            "--tokenizer-file",
            tokenizer.path(),
            "--output",
            page.path(),
        ];
        args.extend(extra);
        run(&args).ok();
        std::fs::read_to_string(page.path()).unwrap()
    };
    let with = page(&["--tools", tools.path()]);
    assert!(with.contains("share w-tools"), "no tools share drawn");
    // Without tools, no share and no row in the table under the bar.
    assert!(!page(&[]).contains("swatch w-tools"));
}

/// ChatML whose generation prompt reads `enable_thinking` and which writes `date_string`, as
/// Qwen 3's and Llama 3.1's templates do.
const OPTIONS_CHATML: &str = "{% if date_string is defined %}Today: {{ date_string }}\n{% endif %}{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}<|im_start|>assistant\n{% if enable_thinking is defined and enable_thinking is false %}<think>\n\n</think>\n\n{% endif %}";

/// `--template-options FILE` gives the object; each `--template-option NAME=JSON` goes over
/// it; the template sees them, and the template's part counts what they add.
#[test]
fn template_options_reach_the_template_from_a_file_and_flags() {
    let file = TempFile::new(
        "options.json",
        br#"{"enable_thinking": true, "date_string": "1 Jan 2020"}"#,
    );
    let report = run_prompt(
        OPTIONS_CHATML,
        &[
            "--json",
            "--template-options",
            file.path(),
            "--template-option",
            "enable_thinking=false",
            "--template-option",
            r#"date_string="26 Jul 2024""#,
        ],
    )
    .json();
    let text = report["prompt"].as_str().unwrap();
    assert!(text.starts_with("Today: 26 Jul 2024\n"), "{text}");
    assert!(
        text.ends_with("assistant\n<think>\n\n</think>\n\n"),
        "{text}"
    );
    let plain = run_prompt(OPTIONS_CHATML, &["--json"]).json();
    // One token per byte in this tokenizer: the date line and the empty think block.
    let added = "Today: 26 Jul 2024\n".len() + "<think>\n\n</think>\n\n".len();
    assert_eq!(
        report["parts"]["template"].as_u64().unwrap(),
        plain["parts"]["template"].as_u64().unwrap() + added as u64
    );
    // The file alone: thinking stays on.
    let report = run_prompt(
        OPTIONS_CHATML,
        &["--json", "--template-options", file.path()],
    )
    .json();
    assert!(!report["prompt"].as_str().unwrap().contains("<think>"));
}

#[test]
fn bad_template_options_are_one_line_naming_the_flag() {
    run_prompt(OPTIONS_CHATML, &["--template-option", "enable_thinking"])
        .bad(&["--template-option", "NAME=JSON"]);
    run_prompt(
        OPTIONS_CHATML,
        &["--template-option", "date_string=26 Jul 2024"],
    )
    .bad(&[
        "--template-option",
        "not JSON",
        r#"date_string='"26 Jul 2024"'"#,
    ]);
    run_prompt(OPTIONS_CHATML, &["--template-option", "messages=[]"]).bad(&[
        "INVALID_SETTING",
        "--template-option: template option `messages` is set by the library",
    ]);
    let array = TempFile::new("options.json", b"[]");
    run_prompt(OPTIONS_CHATML, &["--template-options", array.path()]).bad(&[
        "--template-options",
        "options.json",
        "JSON object",
    ]);
    run(&[
        "prompt",
        PRICING,
        "--conversation",
        CONVERSATION,
        "--window",
        "8192",
        "--chat-template",
        "openai",
        "--template-option",
        "reasoning_effort=\"low\"",
    ])
    .bad(&[
        "INVALID_SETTING",
        "--template-options",
        "reads no template options (given: `reasoning_effort`)",
    ]);
    // gpt-oss reads `reasoning_effort`, and only its three values.
    run(&[
        "prompt",
        PRICING,
        "--conversation",
        CONVERSATION,
        "--window",
        "8192",
        "--chat-template",
        "harmony",
        "--template-option",
        "reasoning_effort=\"max\"",
    ])
    .bad(&[
        "INVALID_SETTING",
        "--template-options",
        "low, medium or high",
    ]);
    let page = std::env::temp_dir().join(format!("options-inspect-{}.html", std::process::id()));
    let page = page.to_str().unwrap();
    run(&[
        "inspect",
        PRICING,
        "--output",
        page,
        "--template-option",
        "enable_thinking=false",
    ])
    .bad(&["--template-option", "--conversation"]);
}

//! `--settings FILE` (JSON or TOML) and the flags over it: the library's settings under their
//! one name, refused in the library's words with its codes, naming the flag.

use super::*;

/// `assemble --json` of the pricing fixture with `args`.
fn report(args: &[&str]) -> Value {
    let mut all = vec!["assemble", "--json"];
    all.extend(args);
    all.push(PRICING);
    run(&all).json()
}

#[test]
fn a_settings_file_sets_what_the_flags_set_and_flags_override_it() {
    let json = TempFile::new(
        "settings.json",
        br#"{"budget": 300, "format": "xml", "hide_metadata_keys": ["chunk_id"], "max_blocks": 2}"#,
    );
    let toml = TempFile::new(
        "settings.toml",
        b"budget = 300\nformat = \"xml\"\nhide_metadata_keys = [\"chunk_id\"]\nmax_blocks = 2\n",
    );
    let flags = report(&[
        "--budget",
        "300",
        "--format",
        "xml",
        "--hide-metadata-keys",
        "chunk_id",
        "--max-blocks",
        "2",
    ]);
    assert_eq!(report(&["--settings", json.path()]), flags);
    assert_eq!(report(&["--settings", toml.path()]), flags);
    // A flag given wins over the file.
    let over = report(&["--settings", toml.path(), "--max-blocks", "1"]);
    assert_eq!(over["citations"].as_array().unwrap().len(), 1);
    assert_eq!(over["layout"]["format"], "xml");
    // The earlier flag's spelling is still read.
    assert_eq!(
        report(&[
            "--budget",
            "300",
            "--format",
            "xml",
            "--hide-metadata-key",
            "chunk_id",
            "--max-blocks",
            "2"
        ]),
        flags
    );
    // A TOML date, unquoted, is a date.
    let dated = TempFile::new(
        "dated.toml",
        b"window = 8192\nchat_template = \"harmony\"\ndate = 2026-12-04\n",
    );
    let prompt = run(&[
        "prompt",
        "--settings",
        dated.path(),
        "--conversation",
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/prompt/conversation.json"
        ),
        PRICING,
    ])
    .ok();
    assert!(prompt.contains("Current date: 2026-12-04"), "{prompt}");
}

#[test]
fn bad_settings_are_one_line_with_the_library_s_code() {
    let cases: [(&[u8], &str, &[&str]); 6] = [
        (
            br#"{"max_block": 2}"#,
            "json",
            &[
                "error[UNKNOWN_SETTING]",
                "unknown setting `max_block` (did you mean `max_blocks`?)",
            ],
        ),
        (
            b"overflow = \"cut\"\n",
            "toml",
            &[
                "error[UNKNOWN_NAME]",
                "overflow: unknown overflow policy `cut`",
            ],
        ),
        (
            b"budget = -5\n",
            "toml",
            &[
                "error[INVALID_SETTING]",
                "budget: negative; expected a whole number, 0 or more",
            ],
        ),
        (
            b"budget = 300\nbudget = 200\n",
            "toml",
            &["error[INVALID_INPUT]", "line 2, column 1", "duplicate key"],
        ),
        (
            b"{\"budget\": 3",
            "json",
            &["error[INVALID_JSON]", "line 1"],
        ),
        (
            br#"{"budget": 5, "header": "A header far longer than five tokens."}"#,
            "json",
            &[
                "error[HEADER_OVER_BUDGET]",
                "--header: the header takes more tokens",
            ],
        ),
    ];
    for (contents, extension, phrases) in cases {
        let file = TempFile::new(&format!("bad.{extension}"), contents);
        let run = run(&["assemble", "--settings", file.path(), PRICING]);
        run.bad(phrases);
        if !phrases[0].contains("HEADER") {
            assert!(run.stderr.contains(file.path()), "names the file: {run:#?}");
        }
    }
    run(&["assemble", "--settings", "/no/such/settings.toml", PRICING]).bad(&[
        "error[INVALID_INPUT]",
        "--settings: /no/such/settings.toml: cannot read",
    ]);
}

#[test]
fn the_rules_between_options_are_the_library_s_naming_the_flags() {
    for (args, phrases) in [
        (
            &["--encoding", "o200k_base", "--model", "gpt-4o"][..],
            &[
                "error[INVALID_SETTING]",
                "--model: cannot be used with --encoding",
            ][..],
        ),
        (
            &[
                "--budget",
                "100",
                "--model",
                "gpt-4",
                "--reserve-output",
                "10",
            ],
            &["--budget: cannot be used with --reserve-output: the model's window sets the budget"],
        ),
        (
            &["--reserve-output", "10"],
            &["--reserve-output: needs --model"],
        ),
        (
            &["--format", "xml", "--dialect", "cohere"],
            &["--dialect: cannot be used with --format"],
        ),
        (
            &["--cache-control"],
            &["--cache-control: marks a dialect's entries: give --dialect anthropic"],
        ),
        (
            &["--tokenizer-kind", "tekken"],
            &["--tokenizer-kind: says what --tokenizer-file is"],
        ),
        (
            &["--model", "gpt-nothing", "--reserve-output", "5"],
            &["error[UNKNOWN_MODEL]", "--model: unknown model"],
        ),
        (
            &["--max-block", "3"],
            &[
                "error[UNKNOWN_SETTING]",
                "unknown setting `--max-block` (did you mean `--max-blocks`?)",
            ],
        ),
    ] {
        let mut all = vec!["assemble"];
        all.extend(args);
        all.push(PRICING);
        run(&all).bad(phrases);
    }
}

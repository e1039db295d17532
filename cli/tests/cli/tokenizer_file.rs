//! `--tokenizer-file`: a model's own tokenizer, from a local file.

use super::*;

use mentor_context::tokenizer::TekkenTokenizer;

/// A small Tekken file: the 256 single bytes, then `extra` tokens, none special.
pub(super) fn tekken_file(extra: &[&str]) -> TempFile {
    use std::fmt::Write as _;
    let mut vocab = String::new();
    let tokens = (0..=255u8)
        .map(|b| vec![b])
        .chain(extra.iter().map(|t| t.as_bytes().to_vec()));
    for (rank, bytes) in tokens.enumerate() {
        let sep = if rank == 0 { "" } else { "," };
        let _ = write!(
            vocab,
            r#"{sep}{{"rank":{rank},"token_bytes":"{}","token_str":null}}"#,
            base64(&bytes)
        );
    }
    let size = 256 + extra.len();
    let json = format!(
        r#"{{"config":{{"pattern":"\\p{{L}}+|\\p{{N}}|\\s+(?!\\S)|\\s+|[^\\s\\p{{L}}\\p{{N}}]+","default_vocab_size":{size},"default_num_special_tokens":0,"version":"v3"}},"vocab":[{vocab}]}}"#
    );
    TempFile::new("tekken_test.json", json.as_bytes())
}

/// Standard base64, enough for token bytes.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[test]
fn a_tekken_file_counts_and_is_named_in_the_report() {
    let file = tekken_file(&["Pr", "ice", "the", " the"]);
    let tekken = TekkenTokenizer::from_file(file.path()).unwrap();
    for kind in [None, Some("tekken")] {
        let mut args = vec!["assemble", "--json", "--budget", "300"];
        args.extend(["--tokenizer-file", file.path()]);
        if let Some(kind) = kind {
            args.extend(["--tokenizer-kind", kind]);
        }
        args.push(PRICING);
        let report = run(&args).json();
        assert_eq!(report["encoding"], tekken.name(), "{report}");
        assert!(tekken.name().starts_with("tekken-v3@"));
        let text = report["context"].as_str().unwrap();
        assert_eq!(report["tokenCount"], tekken.count(text));
        assert!(tekken.count(text) <= 300);
        // The small vocabulary is a byte-level one: far from o200k_base's count.
        assert_ne!(tekken.count(text), Encoding::O200kBase.count(text));
    }
}

#[test]
fn a_bad_tokenizer_file_is_named() {
    let missing = "/nonexistent/tekken_x.json";
    run(&["assemble", "--tokenizer-file", missing, PRICING]).bad(&[
        "--tokenizer-file",
        missing,
        "no such file",
    ]);
    let bad = TempFile::new(
        "tekken_bad.json",
        br#"{"config": {"default_num_special_tokens": 1}}"#,
    );
    run(&["assemble", "--tokenizer-file", bad.path(), PRICING]).bad(&[
        "--tokenizer-file",
        bad.path(),
        "missing field",
    ]);
    run(&["assemble", "--tokenizer-kind", "tekken", PRICING]).bad(&["--tokenizer-file"]);
    run(&[
        "assemble",
        "--tokenizer-file",
        bad.path(),
        "--encoding",
        "o200k_base",
        PRICING,
    ])
    .bad(&["--encoding"]);
}

#[cfg(not(feature = "huggingface"))]
#[test]
fn a_tokenizer_json_needs_the_feature() {
    let file = TempFile::new("tokenizer.json", br#"{"version": "1.0", "model": {}}"#);
    run(&["assemble", "--tokenizer-file", file.path(), PRICING]).bad(&[
        "--tokenizer-file",
        file.path(),
        "no `huggingface` feature",
    ]);
}

#[cfg(feature = "huggingface")]
#[test]
fn a_bad_tokenizer_json_is_named() {
    let file = TempFile::new("tokenizer.json", br#"{"version": "1.0", "model": {}}"#);
    run(&["assemble", "--tokenizer-file", file.path(), PRICING])
        .bad(&["--tokenizer-file", file.path()]);
}

/// The small Tekken file as tokenizer `version`.
fn tekken_file_as(version: &str) -> TempFile {
    let v3 = tekken_file(&[]);
    let json = std::fs::read_to_string(v3.path()).unwrap();
    let json = json.replace(r#""version":"v3""#, &format!(r#""version":"{version}""#));
    TempFile::new("tekken_version.json", json.as_bytes())
}

#[test]
fn a_tekken_file_s_version_chooses_the_mistral_format_and_others_are_refused() {
    let conversation = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/prompt/conversation.json"
    );
    let prompt = |file: &TempFile| {
        run(&[
            "prompt",
            PRICING,
            "--conversation",
            conversation,
            "--window",
            "100000",
            "--chat-template",
            "mistral",
            "--tokenizer-file",
            file.path(),
        ])
    };
    let v3 = prompt(&tekken_file_as("v3")).ok();
    assert!(
        v3.starts_with("<s>[INST]Which plans") && !v3.contains("[SYSTEM_PROMPT]"),
        "{v3}"
    );
    let v7 = prompt(&tekken_file_as("v7")).ok();
    assert!(
        v7.starts_with("<s>[SYSTEM_PROMPT]You answer questions"),
        "{v7}"
    );
    prompt(&tekken_file_as("v15")).bad(&[
        "the Tekken file's version is v15;",
        "for versions v3, v7, v11, v13 only",
    ]);
    for version in ["v99", "banana"] {
        let file = tekken_file_as(version);
        run(&["assemble", "--tokenizer-file", file.path(), PRICING]).bad(&[
            "--tokenizer-file",
            &format!("config.version \"{version}\" is not a tokenizer version"),
            "one of v1, v2, v3, v7, v11, v13, v15",
        ]);
    }
}

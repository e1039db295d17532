//! Bad input of every kind: exit code 2, nothing on standard output, and one line on
//! standard error naming the input or option, the position and the problem.

use std::path::Path;

use super::*;

// --- Bad input: the file -------------------------------------------------------------------

/// Runs `assemble` on a temporary file holding `contents` and checks the one-line error names
/// the file and has every phrase.
#[track_caller]
fn bad_file(contents: &[u8], phrases: &[&str]) {
    let file = TempFile::new("bad.json", contents);
    let run = run(&["assemble", file.path()]);
    run.bad(phrases);
    assert!(run.stderr.contains(file.path()), "names the file: {run:#?}");
}

#[test]
fn a_missing_file() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/no-such-file.json");
    let path = path.to_str().unwrap();
    run(&["assemble", path]).bad(&[path, "cannot read", "no such file"]);
    run(&["bench", path]).bad(&[path, "no such file"]);
}

#[test]
fn a_directory() {
    let dir = env!("CARGO_MANIFEST_DIR");
    run(&["assemble", dir]).bad(&[dir, "cannot read", "is a directory"]);
}

/// Every file the command reads is read only when it is a regular file: a device such as
/// /dev/zero would otherwise be read until the cap (or, a `batch` line, forever). Each is one
/// line saying what it is; standard input stays accepted.
#[cfg(unix)]
#[test]
fn files_that_are_not_regular_are_refused_by_what_they_are() {
    let device = "/dev/zero";
    let is_device = "is a device, not a regular file";
    let results = TempFile::new("regular.json", br#"[{"content": "x", "score": 1}]"#);
    let results = results.path();
    let report = run(&["assemble", "--json", results]).ok();
    let report = TempFile::new("regular-report.json", report.as_bytes());
    let page = std::env::temp_dir().join(format!("mentor-not-regular-{}.html", std::process::id()));
    let page = page.to_str().unwrap();
    for args in [
        &["assemble", device][..],
        &["bench", device],
        &["batch", device],
        &["inspect", "--output", page, device],
        &["assemble", "--previous", device, results],
        &["cite", report.path(), device],
        &["cite", device, results],
        &["assemble", "--settings", device, results],
        &["serve", "--config", device],
        &["assemble", "--tokenizer-file", device, results],
        &["assemble", "--seal-key-file", device, results],
        &[
            "prompt",
            "--chat-template",
            "harmony",
            "--window",
            "9000",
            "--conversation",
            device,
        ],
    ] {
        let run = run(args);
        run.bad(&[device, is_device]);
    }
    run_with_stdin(&["assemble", "-"], br#"[{"content": "x", "score": 1}]"#).ok();
}

#[test]
fn empty_input() {
    bad_file(b"", &["empty input"]);
    bad_file(b"  \n\t\r\n", &["empty input"]);
    run(&["assemble"]).bad(&["<stdin>: empty input"]);
    run_with_stdin(&["assemble", "-"], b"\n\n").bad(&["<stdin>: empty input"]);
}

#[test]
fn invalid_json() {
    bad_file(
        b"[\n  {\"content\": \"x\", \"score\": 1,}\n]",
        &["line 2, column 31", "trailing comma"],
    );
    bad_file(
        b"[\n  {\"content\": \"x\",\n",
        &["line 3", "EOF while parsing"],
    );
    run_with_stdin(&["assemble"], b"not json").bad(&["<stdin>: line 1, column 2", "expected"]);
}

/// Four mistakes a newcomer makes, each answered with what to do about it.
#[test]
fn errors_say_what_to_do() {
    let pricing = std::fs::read_to_string(PRICING).unwrap();
    // What Windows PowerShell 5's `>` writes: UTF-16, little-endian, with a byte order mark.
    let mut utf16 = vec![0xff, 0xfe];
    utf16.extend(pricing.encode_utf16().flat_map(u16::to_le_bytes));
    let utf16_problem = "encoded in UTF-16 (little-endian), not UTF-8; save it as UTF-8";
    bad_file(&utf16, &[utf16_problem]);
    let unmarked: Vec<u8> = pricing.encode_utf16().flat_map(u16::to_be_bytes).collect();
    bad_file(&unmarked, &["encoded in UTF-16 (big-endian), not UTF-8"]);
    let lines = TempFile::new("utf16.jsonl", &utf16);
    run(&["batch", lines.path()]).bad(&[lines.path(), utf16_problem]);
    // Standard input is read as it comes (the `--report` page is written before it): its
    // first line stops the run, after the summary of no request.
    let piped = run_with_stdin(&["batch"], &utf16);
    assert_eq!(
        (piped.code, piped.stdout.as_str()),
        (Some(2), ""),
        "{piped:#?}"
    );
    let problem = format!("mentor-context: error[INVALID_INPUT]: <stdin>: {utf16_problem}\n");
    assert!(piped.stderr.ends_with(&problem), "{piped:#?}");
    assert!(
        piped
            .stderr
            .starts_with("mentor-context: batch: 0 requests"),
        "{piped:#?}"
    );

    bad_file(
        br#"{"content": "x", "score": 1}"#,
        &["found an object, a single result: wrap it in [ ]"],
    );
    run(&["assemble", "--encoding", "gpt-4o"]).bad(&[
        "--encoding",
        "`gpt-4o` is a model, not an encoding: use --model gpt-4o (or --encoding o200k_base)",
    ]);
    let too_large = format!("too large; at most {}", usize::MAX);
    run(&["assemble", "--budget", "99999999999999999999"]).bad(&["--budget", &too_large]);
}

#[test]
fn invalid_utf8() {
    // The first bad byte is the 19th of line 2: `  {"content": "caf` takes 18.
    bad_file(
        b"[\n  {\"content\": \"caf\xe9\", \"score\": 1}\n]",
        &["line 2, column 19", "invalid UTF-8", "0xe9"],
    );
    run_with_stdin(&["assemble"], b"\xff").bad(&["<stdin>: line 1, column 1", "invalid UTF-8"]);
}

#[test]
fn not_an_array() {
    bad_file(
        br#"{"content": "x", "score": 1}"#,
        &[
            "line 1, column 1",
            "expected a JSON array of results, found an object",
        ],
    );
}

#[test]
fn a_record_without_content() {
    bad_file(
        b"[\n  {\"content\": \"x\", \"score\": 1},\n  {\"title\": \"T\", \"score\": 0.5}\n]",
        &["line 3, column 30", "missing field `content`"],
    );
    bad_file(
        b"[{\"content\": \"x\"}]",
        &["line 1", "missing field `score`"],
    );
}

#[test]
fn a_field_of_the_wrong_type() {
    bad_file(
        b"[\n  {\"content\": \"x\", \"title\": 5, \"score\": 1}\n]",
        &[
            "line 2, column 29",
            "invalid type: integer `5`, expected a string",
        ],
    );
    bad_file(
        b"[\n  {\"content\": \"x\", \"score\": \"high\"}\n]",
        &["line 2", "string \"high\", expected a finite number"],
    );
}

#[test]
fn a_score_that_is_not_finite() {
    bad_file(
        b"[\n  {\"content\": \"x\", \"score\": 1e39}\n]",
        &["line 2, column 32", "score 1e39 is not a finite"],
    );
    bad_file(
        b"[\n  {\"content\": \"x\", \"score\": NaN}\n]",
        &["line 2", "expected value"],
    );
}

#[test]
fn metadata_values_that_are_not_strings() {
    bad_file(
        b"[\n  {\"content\": \"x\", \"score\": 1, \"metadata\": {\"version\": 3}}\n]",
        &[
            "line 2, column 56",
            "invalid type: integer `3`, expected a string",
        ],
    );
}

#[test]
fn bench_reports_bad_files_the_same_way() {
    let file = TempFile::new("bench-bad.json", b"[{\"score\": 1}]");
    run(&["bench", "--iterations", "5", file.path()]).bad(&[
        file.path(),
        "line 1",
        "missing field `content`",
    ]);
}

// --- Bad input: the options ----------------------------------------------------------------

#[test]
fn a_negative_budget() {
    run(&["assemble", "--budget", "-5", PRICING]).bad(&["--budget", "'-5'", "negative"]);
    run(&["assemble", "--budget=-5", PRICING]).bad(&["--budget", "negative"]);
    run(&["bench", "--budget", "-5", PRICING]).bad(&["--budget", "negative"]);
    run(&["assemble", "--budget", "lots", PRICING]).bad(&["--budget", "whole number"]);
}

#[test]
fn unknown_encoding_model_or_format() {
    run(&["assemble", "--encoding", "o300k", PRICING])
        .bad(&["--encoding", "unknown encoding `o300k`"]);
    run(&["assemble", "--model", "gpt-99", PRICING]).bad(&["--model", "unknown model `gpt-99`"]);
    run(&["assemble", "--format", "html", PRICING]).bad(&["--format", "unknown format `html`"]);
    run(&["assemble", "--overflow", "wrap", PRICING]).bad(&["--overflow", "'wrap'", "truncate"]);
}

#[test]
fn encoding_and_model_together() {
    run(&[
        "assemble",
        "--encoding",
        "cl100k_base",
        "--model",
        "gpt-4",
        PRICING,
    ])
    .bad(&["--encoding", "--model", "cannot be used with"]);
}

#[test]
fn configuration_errors() {
    run(&[
        "assemble",
        "--budget",
        "3",
        "--header",
        "A header of more than three tokens.",
        PRICING,
    ])
    .bad(&["--header", "more tokens than the budget of 3"]);
    run(&[
        "assemble",
        "--budget",
        "10",
        "--min-truncated-tokens",
        "11",
        PRICING,
    ])
    .bad(&["--min-truncated-tokens", "larger than the budget of 10"]);
    run(&["assemble", "--min-score", "NaN", PRICING]).bad(&["--min-score", "NaN"]);
    run(&["bench", "--iterations", "0", PRICING]).bad(&["--iterations", "at least 1"]);
}

#[test]
fn usage_errors_are_one_line_too() {
    run(&["assemble", "--no-such-option", PRICING]).bad(&["--no-such-option"]);
    run(&[]).bad(&["subcommand"]);
    run(&["bench"]).bad(&["required arguments were not provided: <FILE>"]);
    run(&["assemble", PRICING, PRICING]).bad(&["unexpected argument"]);
}

#[cfg(target_os = "linux")]
#[test]
fn a_failed_write_is_one_line_and_exit_code_1() {
    let full = std::fs::File::create("/dev/full").expect("/dev/full opens");
    let output = Command::new(env!("CARGO_BIN_EXE_mentor-context"))
        .args(["assemble", PRICING])
        .stdout(full)
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("<stdout>: cannot write"), "{stderr}");
}

/// Arguments that are not UTF-8. A Unix file name need not be: it is opened, and named with
/// the bytes escaped. An option value that must be text is one line naming the option. Each
/// of these used to panic in `std::env::args` (exit 101).
#[test]
#[cfg(unix)]
fn arguments_that_are_not_utf8_are_opened_or_named() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStringExt;

    let mut bytes = std::env::temp_dir().into_os_string().into_vec();
    bytes.extend_from_slice(format!("/mentor-context-{}-bad", std::process::id()).as_bytes());
    bytes.extend_from_slice(b"\xFF\xFE.json");
    let name = std::path::PathBuf::from(std::ffi::OsString::from_vec(bytes));
    std::fs::copy(super::PRICING, &name).unwrap();
    let opened = run_os(&[
        OsStr::new("assemble"),
        OsStr::new("--budget"),
        OsStr::new("100"),
        name.as_os_str(),
    ]);
    std::fs::remove_file(&name).unwrap();
    assert!(opened.ok().starts_with("[1] Subscription plans"));
    // Gone now: the message names it, its bytes escaped, on one line.
    run_os(&[OsStr::new("assemble"), name.as_os_str()])
        .bad(&["bad\\xFF\\xFE.json", "no such file"]);
    for (option, value, shown) in [
        (&b"--header"[..], &b"\xff"[..], "'\\xFF'"),
        (b"--hide-metadata-key", b"k\xff", "'k\\xFF'"),
        (b"--encoding", b"\xff", "'\\xFF'"),
        (b"--budget", b"1\xff", "'1\\xFF'"),
    ] {
        let option_name = std::str::from_utf8(option).unwrap();
        run_os(&os_args(&[
            b"assemble",
            option,
            value,
            super::PRICING.as_bytes(),
        ]))
        .bad(&[option_name, shown, "not valid UTF-8"]);
        let joined = [option, b"=", value].concat();
        run_os(&os_args(&[b"batch", &joined, super::PRICING.as_bytes()]))
            .bad(&[option_name, "not valid UTF-8"]);
    }
}

#[cfg(unix)]
fn os_args<'a>(args: &[&'a [u8]]) -> Vec<&'a std::ffi::OsStr> {
    use std::os::unix::ffi::OsStrExt;
    args.iter()
        .map(|a| std::ffi::OsStr::from_bytes(a))
        .collect()
}

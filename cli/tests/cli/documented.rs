//! What the READMEs show of the command is the command's: each transcript's output is what the
//! commands print now, and each example command runs.
//!
//! In `README.md` and `cli/README.md`, a fenced `text` block whose first line starts with
//! `$ ` is a transcript: each `$ ` line is a shell command, and the lines up to the next one
//! are what it prints, standard output and standard error together. A line `...` stands for
//! any number of lines, and a figure before a unit of time (`548.0 us`, `1879 requests/s`) for
//! any figure. A fenced `sh` block whose first line starts with `mentor-context ` is an
//! example: the whole block must exit 0. Both run with `sh`, in an empty folder holding
//! `fixtures` (the repository's), with this build of `mentor-context` first on `PATH`.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The documents whose transcripts and examples are run, from the repository's root.
const DOCUMENTS: [&str; 2] = ["README.md", "cli/README.md"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A fenced block: its info string, its first line's number and its lines.
struct Block {
    info: String,
    line: usize,
    lines: Vec<String>,
}

/// The fenced blocks of `document`; a fence of more backticks holds shorter ones.
fn blocks(document: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<(usize, Block)> = None;
    for (number, line) in document.lines().enumerate() {
        let ticks = line.bytes().take_while(|&b| b == b'`').count();
        match &mut open {
            None if ticks >= 3 => {
                let info = line[ticks..].trim().to_string();
                open = Some((
                    ticks,
                    Block {
                        info,
                        line: number + 2,
                        lines: Vec::new(),
                    },
                ));
            }
            Some((fence, _)) if ticks >= *fence && line.trim() == "`".repeat(ticks) => {
                blocks.extend(open.take().map(|(_, block)| block));
            }
            Some((_, block)) => block.lines.push(line.to_string()),
            None => {}
        }
    }
    blocks
}

/// A folder of its own for one block, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!(
            "mentor-context-documented-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::os::unix::fs::symlink(root().join("fixtures"), dir.join("fixtures")).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `script` with `sh` in `dir`, standard error into standard output; gives the exit
/// code and the output.
fn shell(dir: &Path, script: &str) -> (Option<i32>, String) {
    let binary = Path::new(env!("CARGO_BIN_EXE_mentor-context"));
    let path = std::env::join_paths(
        std::iter::once(binary.parent().unwrap().to_path_buf()).chain(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        )),
    )
    .unwrap();
    let output = Command::new("sh")
        .arg("-c")
        .arg(format!("exec 2>&1\n{script}"))
        .current_dir(dir)
        .env("PATH", path)
        .output()
        .expect("sh runs");
    (
        output.status.code(),
        String::from_utf8(output.stdout).expect("the output is UTF-8"),
    )
}

/// The line between two commands' outputs in one run of a transcript.
const SEPARATOR: &str = "\u{1}-- next command --\u{1}";

/// Runs a transcript's commands in one shell, each after the last (so `echo $?` sees the
/// last one's status), and gives each command's output lines.
fn run_transcript(dir: &Path, commands: &[&str]) -> Vec<Vec<String>> {
    let script: String = commands
        .iter()
        .map(|command| {
            format!("{command}\nstatus=$?\nprintf '\\n%s\\n' '{SEPARATOR}'\n(exit $status)\n")
        })
        .collect();
    let (_, output) = shell(dir, &script);
    let mut outputs: Vec<Vec<String>> = output
        .split(&format!("\n{SEPARATOR}\n"))
        .map(|part| part.lines().map(str::to_string).collect())
        .collect();
    outputs.truncate(commands.len());
    outputs
}

/// `line` with each figure of time and its unit replaced by `#` (`548.0 us,` and `1.02 ms,`
/// both become `# #,`).
fn without_timings(line: &str) -> String {
    let words: Vec<&str> = line.split(' ').collect();
    let mut kept: Vec<String> = words.iter().map(|w| (*w).to_string()).collect();
    for (at, pair) in words.windows(2).enumerate() {
        let unit = pair[1].trim_end_matches([',', ';']);
        let timed = ["ns", "us", "µs", "ms", "s", "requests/s"].contains(&unit);
        if timed && pair[0].parse::<f64>().is_ok() {
            kept[at] = "#".to_string();
            kept[at + 1] = format!("#{}", &pair[1][unit.len()..]);
        }
    }
    kept.join(" ")
}

/// Whether `actual` is what `expected` shows, `...` standing for any lines.
fn matches(expected: &[String], actual: &[String]) -> bool {
    let trimmed = |lines: &[String]| -> Vec<String> {
        let mut lines: Vec<String> = lines
            .iter()
            .map(|l| without_timings(l.trim_end()))
            .collect();
        while lines.last().is_some_and(String::is_empty) {
            lines.pop();
        }
        lines
    };
    fn go(expected: &[String], actual: &[String]) -> bool {
        match expected.split_first() {
            None => actual.is_empty(),
            Some((first, rest)) if first == "..." => {
                (0..=actual.len()).any(|skip| go(rest, &actual[skip..]))
            }
            Some((first, rest)) => actual.first() == Some(first) && go(rest, &actual[1..]),
        }
    }
    go(&trimmed(expected), &trimmed(actual))
}

/// What is wrong with one transcript, if anything.
fn check_transcript(name: &str, block: &Block) -> Option<String> {
    let mut commands: Vec<&str> = Vec::new();
    let mut shown: Vec<Vec<String>> = Vec::new();
    for line in &block.lines {
        if let Some(command) = line.strip_prefix("$ ") {
            commands.push(command);
            shown.push(Vec::new());
        } else if let Some(output) = shown.last_mut() {
            output.push(line.clone());
        }
    }
    let scratch = Scratch::new(name);
    let outputs = run_transcript(&scratch.0, &commands);
    let wrong: Vec<String> = commands
        .iter()
        .zip(&shown)
        .zip(outputs.iter().chain(std::iter::repeat(&Vec::new())))
        .filter(|((_, expected), actual)| !matches(expected, actual))
        .map(|((command, expected), actual)| {
            format!(
                "`{command}` shows\n{}\nbut prints\n{}",
                expected.join("\n"),
                actual.join("\n")
            )
        })
        .collect();
    (!wrong.is_empty()).then(|| format!("{name}:\n{}", wrong.join("\n")))
}

#[test]
fn documented_outputs_are_the_command_s() {
    let (mut transcripts, mut examples, mut wrong) = (0, 0, Vec::new());
    for document in DOCUMENTS {
        let text = std::fs::read_to_string(root().join(document)).unwrap();
        for block in blocks(&text) {
            let name = format!("{document}:{}", block.line);
            let first = block.lines.first().map_or("", String::as_str);
            if block.info == "text" && first.starts_with("$ ") {
                transcripts += 1;
                wrong.extend(check_transcript(&name.replace(['/', ':'], "-"), &block));
            } else if block.info == "sh" && first.starts_with("mentor-context ") {
                examples += 1;
                let scratch = Scratch::new(&name.replace(['/', ':'], "-"));
                let script = format!("set -e\n{}", block.lines.join("\n"));
                let (code, output) = shell(&scratch.0, &script);
                if code != Some(0) {
                    wrong.push(format!("{name}: exits {code:?}:\n{output}"));
                }
            }
        }
    }
    // Fewer would mean the reader lost some: the READMEs hold these many at least.
    assert!(
        transcripts >= 5 && examples >= 2,
        "{transcripts} transcripts, {examples} examples"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

#[test]
fn a_wrong_output_and_a_failing_command_are_found() {
    let block = |lines: &[&str]| Block {
        info: "text".to_string(),
        line: 1,
        lines: lines.iter().map(|l| (*l).to_string()).collect(),
    };
    let good = block(&[
        "$ printf 'a\\nb\\nc 12.5 ms, d\\n'",
        "a",
        "...",
        "c 3.0 us, d",
        "$ false",
        "$ echo $?",
        "1",
    ]);
    assert_eq!(check_transcript("good", &good), None);
    for bad in [
        block(&["$ printf 'a\\nb\\n'", "a"]),
        block(&["$ printf 'a\\n'", "a", "b"]),
        block(&["$ printf '12 tokens\\n'", "13 tokens"]),
        block(&["$ true", "$ echo $?", "1"]),
    ] {
        assert!(check_transcript("bad", &bad).is_some(), "{:?}", bad.lines);
    }
    let fences = blocks("````text\n```\ninside\n```\n````\n```sh\nx\n```\n");
    assert_eq!(fences.len(), 2);
    assert_eq!(fences[0].lines, ["```", "inside", "```"]);
    assert_eq!((fences[1].info.as_str(), fences[1].line), ("sh", 7));
}

/// The `sh` and `csharp` blocks of README.md's "The service" section.
fn service_blocks() -> Vec<Block> {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme
        .find("\n## The service")
        .expect("README.md has the service");
    let section = &readme[start + 1..];
    let section = &section[..section[1..]
        .find("\n## ")
        .map_or(section.len(), |end| end + 1)];
    blocks(section)
}

/// A new user pastes the shell snippet and then the .NET one: both talk to one service.
#[test]
fn the_service_snippets_share_one_port_and_profile() {
    let blocks = service_blocks();
    let mut ports = Vec::new();
    let mut profiles = Vec::new();
    for block in blocks
        .iter()
        .filter(|b| ["sh", "csharp"].contains(&b.info.as_str()))
    {
        let text = block.lines.join("\n");
        for (at, _) in text.match_indices("127.0.0.1:") {
            let port: String = text[at + 10..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            ports.push((block.info.clone(), port));
        }
        for (at, _) in text.match_indices("/v1/") {
            let profile: String = text[at + 4..].chars().take_while(|&c| c != '/').collect();
            profiles.push((block.info.clone(), profile));
        }
    }
    for found in [&ports, &profiles] {
        let kinds: std::collections::BTreeSet<_> = found.iter().map(|(kind, _)| kind).collect();
        let values: std::collections::BTreeSet<_> = found.iter().map(|(_, v)| v).collect();
        assert_eq!(kinds.len(), 2, "both snippets name it: {found:?}");
        assert_eq!(values.len(), 1, "one and the same: {found:?}");
    }
}

/// The snippet waits for the service to answer, and stops waiting if it exits instead (a
/// port in use, a bad option): the script ends, failing, rather than spinning for ever.
#[test]
fn the_service_snippet_stops_waiting_when_serve_exits() {
    let block = service_blocks()
        .into_iter()
        .find(|b| b.info == "sh")
        .expect("a shell snippet");
    let script = block.lines.join("\n");
    assert!(script.starts_with("mentor-context serve "), "{script}");
    // A service that cannot start: an option it does not know.
    let failing = script.replacen(
        "mentor-context serve ",
        "mentor-context serve --no-such-option ",
        1,
    );
    let scratch = Scratch::new("service-snippet-fails");
    std::fs::write(scratch.0.join("snippet.sh"), format!("set -e\n{failing}\n")).unwrap();
    // 60 s only catches the spin: the script ends at once.
    let (code, output) = shell(&scratch.0, "timeout 60 sh snippet.sh; echo \"exit $?\"");
    assert_eq!(code, Some(0), "{output}");
    let status = output.lines().last().unwrap_or_default();
    assert!(
        status != "exit 0" && status != "exit 124",
        "the snippet should end, failing: {output}"
    );
}

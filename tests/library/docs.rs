//! The documents name files and tests: every one must exist, so the guarantees table cannot
//! rot. A path is a code span holding a `/` (or a `.md` or `.toml` file at the root), or a
//! link's target; a test is a code span in a table naming a function after a path to a `.rs`
//! or `.py` file in the same cell, and must be defined in that file.

use std::path::{Path, PathBuf};

/// The documents whose names are checked, from the repository's root.
const DOCUMENTS: [&str; 7] = [
    "README.md",
    "ARCHITECTURE.md",
    "benches/README.md",
    "cli/README.md",
    "python/README.md",
    "node/README.md",
    "fuzz/README.md",
];

/// Folders that builds, CI and cargo-fuzz make: named in the documents, never committed.
const GENERATED: [&str; 7] = [
    "target/",
    ".ci-data/",
    ".ci-venv/",
    "fuzz/artifacts/",
    "corpus/",
    "artifacts/",
    "coverage/",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The code spans of `line` (single backticks; a doubled backtick opens a longer span).
fn code_spans(line: &str) -> Vec<&str> {
    let mut spans = Vec::new();
    let mut rest = line;
    while let Some(open) = rest.find('`') {
        let ticks = rest[open..].bytes().take_while(|&b| b == b'`').count();
        let after = &rest[open + ticks..];
        let fence = "`".repeat(ticks);
        let Some(close) = after.find(&fence) else {
            break;
        };
        spans.push(after[..close].trim());
        rest = &after[close + ticks..];
    }
    spans
}

/// The targets of the inline links and images of `line`.
fn link_targets(line: &str) -> Vec<&str> {
    line.match_indices("](")
        .filter_map(|(at, _)| {
            let target = &line[at + 2..];
            target.find(')').map(|end| &target[..end])
        })
        .filter(|t| !t.contains("://") && !t.starts_with('#') && !t.starts_with("mailto:"))
        .map(|t| t.split('#').next().unwrap_or(t))
        .collect()
}

fn looks_like_path(span: &str) -> bool {
    !span.is_empty()
        && span
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-'))
        && (!span.starts_with(['-', '/', '.']) || span.starts_with(".ci"))
        && !span.contains("//")
        && (span.contains('/') || span.ends_with(".md") || span.ends_with(".toml"))
}

fn looks_like_function(span: &str) -> bool {
    span.starts_with(|c: char| c.is_ascii_lowercase())
        && span
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && span.contains('_')
}

/// What `document` (at `path`, from the root) names that does not exist, one line each.
fn missing_names(root: &Path, path: &str, document: &str) -> Vec<String> {
    let folder = Path::new(path).parent().unwrap_or(Path::new(""));
    let mut missing = Vec::new();
    let mut fenced = false;
    for (number, line) in document.lines().enumerate() {
        let at = format!("{path}:{}", number + 1);
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        for target in link_targets(line) {
            if !root.join(folder).join(target).exists() {
                missing.push(format!("{at}: the link to `{target}`"));
            }
        }
        // Tests are named in tables: a path, then the tests in it, in one cell.
        let table = line.starts_with('|');
        let cells: Vec<&str> = if table {
            line.split(" | ").collect()
        } else {
            vec![line]
        };
        for cell in cells {
            let mut file: Option<PathBuf> = None;
            for span in code_spans(cell) {
                if looks_like_path(span) {
                    if GENERATED.iter().any(|g| span.starts_with(g)) {
                        continue;
                    }
                    let full = root.join(span.trim_end_matches('/'));
                    if !full.exists() {
                        missing.push(format!("{at}: `{span}`"));
                    }
                    file = Some(full).filter(|f| {
                        f.extension().is_some_and(|e| e == "rs" || e == "py") && f.is_file()
                    });
                } else if let Some(file) = &file
                    && table
                    && looks_like_function(span)
                {
                    let source = std::fs::read_to_string(file).unwrap_or_default();
                    let defined = [format!("fn {span}("), format!("def {span}(")]
                        .iter()
                        .any(|definition| source.contains(definition.as_str()));
                    if !defined {
                        missing.push(format!("{at}: `{span}` in {}", file.display()));
                    }
                }
            }
        }
    }
    missing
}

/// The front door stays one a newcomer reads in minutes: details go to `cli/README.md`,
/// `python/README.md`, the crate docs, figures to `benches/README.md`.
#[test]
fn the_readme_is_at_most_300_lines() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(lines <= 300, "README.md has {lines} lines");
}

#[test]
fn every_path_named_in_the_documents_exists() {
    let root = root();
    let mut missing = Vec::new();
    let mut names = 0;
    for path in DOCUMENTS {
        let document =
            std::fs::read_to_string(root.join(path)).unwrap_or_else(|err| panic!("{path}: {err}"));
        names += document
            .lines()
            .flat_map(code_spans)
            .filter(|s| looks_like_path(s))
            .count();
        missing.extend(missing_names(&root, path, &document));
    }
    assert!(names > 30, "only {names} paths found: the reader is broken");
    assert!(
        missing.is_empty(),
        "named but missing:\n{}",
        missing.join("\n")
    );
}

#[test]
fn a_missing_path_a_missing_test_and_a_broken_link_are_found() {
    let root = root();
    let document = "\
| a guarantee | `tests/library/docs.rs` `every_path_named_in_the_documents_exists` |
| another | `tests/library/docs.rs` `no_such_test_here` |
See `src/no_such_file.rs` and [the plot](docs/no-such.svg); `cargo test` is no path.
```sh
cargo run -- fixtures/inside-a-fence-is-not-checked.json
```
";
    let missing = missing_names(&root, "README.md", document);
    assert_eq!(
        missing.len(),
        3,
        "expected exactly the three bad names: {missing:?}"
    );
    assert!(missing[0].contains("no_such_test_here"), "{missing:?}");
    assert!(missing[1].contains("docs/no-such.svg"), "{missing:?}");
    assert!(missing[2].contains("src/no_such_file.rs"), "{missing:?}");
}

/// The source files of the library, the command and the bindings, from the repository's
/// root: every one below these folders that ends in one of the endings.
fn source_files(root: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            return;
        };
        for entry in entries.flatten() {
            let path = dir.join(entry.file_name());
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                walk(root, &path, out);
            } else if ["rs", "py", "pyi", "js", "html", "css"]
                .iter()
                .any(|ending| path.extension().is_some_and(|e| e == *ending))
            {
                out.push(path.to_string_lossy().into_owned());
            }
        }
    }
    let mut files = Vec::new();
    for dir in [
        "src",
        "cli/src",
        "python/src",
        "python/mentor_context",
        "node/src",
    ] {
        walk(root, Path::new(dir), &mut files);
    }
    files.sort();
    files
}

/// Whether `architecture` names `file`: its whole path in a code span, or its name in a code
/// span on a line that names its folder (`src/assembler/` ... `cut.rs`).
fn names_file(architecture: &str, file: &str) -> bool {
    let (folder, name) = file.rsplit_once('/').unwrap_or(("", file));
    architecture.lines().any(|line| {
        let spans = code_spans(line);
        spans.contains(&file)
            || (spans.contains(&name)
                && (spans.contains(&format!("{folder}/").as_str())
                    || line.contains(&format!("`{folder}/"))))
    })
}

#[test]
fn the_module_map_names_every_source_file() {
    let root = root();
    let architecture = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let files = source_files(&root);
    assert!(
        files.len() > 150,
        "{} files: the walk found the tree",
        files.len()
    );
    let unnamed: Vec<&String> = files
        .iter()
        .filter(|file| !names_file(&architecture, file))
        .collect();
    assert!(
        unnamed.is_empty(),
        "ARCHITECTURE.md does not name: {unnamed:#?}"
    );
    // And the check can fail: a file that is not there is not named.
    assert!(!names_file(&architecture, "src/assembler/no_such_file.rs"));
}

/// The feature-gated public items of `src`, as `(file:line, feature, marked)`: an item is
/// `pub` (not `pub(crate)`) under a `#[cfg(feature = "F")]` in its attributes, and marked
/// when the same attributes say `#[cfg_attr(docsrs, doc(cfg(feature = "F")))]`, so that
/// docs.rs names the feature a user must turn on.
fn feature_gated_items(file: &str, source: &str) -> Vec<(String, String, bool)> {
    let mut items = Vec::new();
    let mut attributes: Vec<&str> = Vec::new();
    for (number, line) in source.lines().enumerate() {
        let line = line.trim();
        if line.starts_with("#[") || line.starts_with("///") {
            attributes.push(line);
            continue;
        }
        let gates = attributes
            .iter()
            .filter_map(|a| a.strip_prefix("#[cfg(feature = \""))
            .filter_map(|a| a.split('"').next());
        if line.starts_with("pub ") {
            for feature in gates {
                let mark = format!("#[cfg_attr(docsrs, doc(cfg(feature = \"{feature}\")))]");
                let marked = attributes.contains(&mark.as_str());
                items.push((
                    format!("{file}:{}", number + 1),
                    feature.to_string(),
                    marked,
                ));
            }
        }
        attributes.clear();
    }
    items
}

#[test]
fn feature_gated_items_are_marked_for_docs_rs() {
    let root = root();
    let mut items = Vec::new();
    for file in source_files(&root) {
        if file.starts_with("src/") && file.ends_with(".rs") {
            let source = std::fs::read_to_string(root.join(&file)).unwrap();
            items.extend(feature_gated_items(&file, &source));
        }
    }
    // `from_files` and `HuggingFaceTokenizer` at least: a reader that finds none is broken.
    assert!(
        items.iter().filter(|(_, f, _)| f == "huggingface").count() >= 3,
        "{items:?}"
    );
    let unmarked: Vec<_> = items.iter().filter(|(_, _, marked)| !marked).collect();
    assert!(
        unmarked.is_empty(),
        "feature-gated but not marked: {unmarked:?}"
    );
    // docs.rs builds with every feature and `--cfg docsrs`, and the crate turns `doc_cfg` on.
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains(
            "[package.metadata.docs.rs]\nall-features = true\nrustdoc-args = [\"--cfg\", \"docsrs\"]"
        ),
        "Cargo.toml's [package.metadata.docs.rs]"
    );
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    assert!(lib.contains("#![cfg_attr(docsrs, feature(doc_cfg))]"));
}

#[test]
fn an_unmarked_feature_gated_item_is_found() {
    let source = "\
#[cfg(feature = \"huggingface\")]
/// Docs.
pub fn gated() {}
#[cfg(feature = \"rayon\")]
#[cfg_attr(docsrs, doc(cfg(feature = \"rayon\")))]
pub fn marked() {}
#[cfg(feature = \"rayon\")]
pub(crate) fn inside() {}
";
    let items = feature_gated_items("x.rs", source);
    assert_eq!(
        items,
        [
            ("x.rs:3".to_string(), "huggingface".to_string(), false),
            ("x.rs:6".to_string(), "rayon".to_string(), true),
        ]
    );
}

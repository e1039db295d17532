//! No global mutable state in the library (issue 48): what a call computes depends on its
//! arguments and on what the caller owns, never on what another thread or an earlier call left
//! behind. A scan of `src/` for the ways Rust writes such state: `thread_local!`, `static mut`,
//! and a `static` holding an atomic, a lock or a cell.
//!
//! Every `static` must be of a type known to be read-only: a primitive or a reference (a
//! `&str`, a slice), or, built once on first use and never changed after, a `LazyLock` or a
//! `OnceLock` of one of [`BUILT_ONCE`]'s types. Any other type is refused, whatever it is
//! named (an alias, a struct of ours, a path), so state cannot hide behind a name: a new
//! static needs its type added here, with the reason it cannot change. Each is read-only once built (a compiled pattern,
//! a searcher, a vocabulary's tables, the process's hash seed, the names of the settings), so
//! every thread and every call sees the same value. A struct of the list is checked field by
//! field, and so is any struct of the same file a field names, so that a table does not grow a
//! memo of atomics behind its name. One field is
//! allowed to change: [`SCRATCH`], a pool of regex search caches beside the patterns, which
//! is what every `regex_automata` regex holds inside (a compiled `Regex` here is allowed
//! with it): any cache finds the same matches, so no result depends on what is in the pool.

use std::path::{Path, PathBuf};

/// The types a `static` `LazyLock` or `OnceLock` may hold, and the file of each that is a
/// struct of ours (its fields are scanned too); `None` for a foreign or a plain type.
const BUILT_ONCE: [(&str, Option<&str>); 8] = [
    // regex-automata's compiled patterns: the jinja string tests'.
    ("Regex", None),
    // The pre-tokenizer's patterns, with their pool of search caches.
    ("Splitter", Some("src/tokenizer/pieces.rs")),
    ("Option<Regex>", None),
    // memchr's searcher for a fence of backticks.
    ("Finder<'static>", None),
    // bpe-openai's tables and the bytes of every token.
    ("Loaded", Some("src/tokenizer/bpe_openai.rs")),
    // tiktoken-rs's encoder and the byte length of every token.
    ("Tables", Some("src/tokenizer/tiktoken.rs")),
    // The process's hash seed: chosen at random once, the same for every call after.
    ("u64", None),
    // The settings' field names, read once from the derive.
    ("&'static [&'static str]", None),
];

/// The field type that may change in a [`BUILT_ONCE`] struct: search caches, scratch.
const SCRATCH: &str = "Pool<Cache, ";

/// A static's type as the scan compares it: one space between words, and the standard
/// library's paths left out (`std::sync::OnceLock<T>` is `OnceLock<T>`).
fn normalized(ty: &str) -> String {
    ty.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace("std::sync::", "")
        .replace("core::sync::", "")
        .replace("std::cell::", "")
        .replace("core::cell::", "")
        .replace("< ", "<")
        .replace(", >", ">")
        .replace(",>", ">")
        .replace(" >", ">")
}

/// Whether a static of type `ty` is read-only whatever it holds: a reference (no `&mut`) or
/// a primitive.
fn plain(ty: &str) -> bool {
    const PRIMITIVES: [&str; 15] = [
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
        "bool", "char", "f64",
    ];
    (ty.starts_with('&') && !ty.starts_with("&mut") && !ty.starts_with("&'static mut"))
        || PRIMITIVES.contains(&ty)
}

/// What holds state that changes after it is built.
const MUTABLE: [&str; 10] = [
    "Atomic", "Mutex", "RwLock", "RefCell", "Cell<", "OnceCell", "Condvar", "Pool<", "mpsc",
    "Barrier",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file below `src/`, from the repository's root.
fn library_files(root: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            return;
        };
        for entry in entries.flatten() {
            let path = dir.join(entry.file_name());
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                walk(root, &path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path.to_string_lossy().into_owned());
            }
        }
    }
    let mut files = Vec::new();
    walk(root, Path::new("src"), &mut files);
    files.sort();
    files
}

/// Whether a `static` declared on `line` (`static NAME: TYPE = ...`, perhaps `pub` or
/// `pub(crate)`) is `mut`, and its type; `None` when the line declares none.
fn static_type(line: &str) -> Option<(bool, &str)> {
    let at = line.find("static ")?;
    let before = line[..at].trim();
    if !(before.is_empty()
        || before == "pub"
        || (before.starts_with("pub(") && before.ends_with(')')))
    {
        return None;
    }
    let rest = line[at + "static ".len()..].trim_start();
    let (mutable, rest) = match rest.strip_prefix("mut ") {
        Some(rest) => (true, rest),
        None => (false, rest),
    };
    let (name, declared) = rest.split_once(':')?;
    let name = name.trim();
    if name.is_empty() || !name.chars().all(|c| c == '_' || c.is_alphanumeric()) {
        return None;
    }
    let ty = declared
        .split_once(" =")
        .map_or(declared, |(ty, _)| ty)
        .trim();
    Some((mutable, ty))
}

/// The fields of `struct NAME { ... }` in `source`, one line each.
fn struct_fields<'s>(source: &'s str, name: &str) -> Vec<&'s str> {
    let open = format!("struct {name} {{");
    source
        .lines()
        .skip_while(|line| !line.contains(&open))
        .skip(1)
        .take_while(|line| line.trim() != "}")
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect()
}

/// Each place of `source` (the file `file`) that declares global mutable state, as
/// `file:line: what`; `structs` gives the source of a [`BUILT_ONCE`] struct's file.
fn mutable_state(file: &str, source: &str, structs: &dyn Fn(&str) -> String) -> Vec<String> {
    let mut found = Vec::new();
    let lines: Vec<&str> = source.lines().collect();
    for (number, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let at = format!("{file}:{}", number + 1);
        if code.contains("thread_local!") || code.contains("#[thread_local]") {
            found.push(format!("{at}: a thread-local"));
        }
        // A declaration rustfmt broke over lines, up to its `=`.
        let mut declaration = code.to_string();
        for next in lines.iter().skip(number + 1).take(8) {
            if declaration.contains(" =") || declaration.ends_with(';') {
                break;
            }
            declaration.push(' ');
            declaration.push_str(next.trim());
        }
        let Some((mutable, ty)) = static_type(&declaration) else {
            continue;
        };
        let ty = normalized(ty);
        if mutable {
            found.push(format!("{at}: a static mut"));
        } else if let Some(word) = MUTABLE.iter().find(|word| ty.contains(*word)) {
            found.push(format!("{at}: a static holding a {word}: {ty}"));
        } else if plain(&ty) {
        } else if let Some(inner) = ["LazyLock<", "OnceLock<"]
            .iter()
            .find_map(|cell| ty.strip_prefix(cell)?.strip_suffix('>'))
        {
            match BUILT_ONCE.iter().find(|(name, _)| *name == inner) {
                None => found.push(format!(
                    "{at}: a static of {inner}, not among the types known to be read-only \
                     once built"
                )),
                Some((name, Some(defined_in))) => {
                    let defining = structs(defined_in);
                    if struct_fields(&defining, name).is_empty() {
                        found.push(format!("{at}: no struct {name} in {defined_in}"));
                    }
                    fields_state(&at, &defining, defined_in, name, 0, &mut found);
                }
                Some((_, None)) => {}
            }
        } else {
            found.push(format!(
                "{at}: a static of {ty}, not a type known to be read-only"
            ));
        }
    }
    found
}

/// The fields of `name` (a struct of `source`, the file `file`) that can change, and those of
/// any struct of the same file a field's type names, a few levels down.
fn fields_state(
    at: &str,
    source: &str,
    file: &str,
    name: &str,
    depth: usize,
    found: &mut Vec<String>,
) {
    for field in struct_fields(source, name) {
        let ty = field.split_once(':').map_or("", |(_, ty)| ty.trim());
        if ty.starts_with(SCRATCH) {
            continue;
        }
        if let Some(word) = MUTABLE.iter().find(|word| field.contains(*word)) {
            found.push(format!(
                "{at}: {name} ({file}) holds {word}: {}",
                field.trim()
            ));
        }
        let named = ty
            .split(|c: char| !(c == '_' || c.is_alphanumeric()))
            .filter(|word| !word.is_empty() && *word != name);
        for word in named {
            if depth < 4 && !struct_fields(source, word).is_empty() {
                fields_state(at, source, file, word, depth + 1, found);
            }
        }
    }
}

#[test]
fn the_library_holds_no_global_mutable_state() {
    let root = root();
    let read = |file: &str| std::fs::read_to_string(root.join(file)).unwrap();
    let files = library_files(&root);
    assert!(
        files.len() > 150,
        "{} files: the walk found src/",
        files.len()
    );
    let mut statics = 0;
    let mut found = Vec::new();
    for file in &files {
        let source = read(file);
        statics += source
            .lines()
            .filter(|l| static_type(l.trim()).is_some())
            .count();
        found.extend(mutable_state(file, &source, &read));
    }
    // The once-built statics are there to be checked: a reader that finds none is broken.
    assert!(statics >= 8, "{statics} statics found");
    assert!(found.is_empty(), "global mutable state in src/: {found:#?}");
}

#[test]
fn each_kind_of_global_mutable_state_is_found() {
    let structs = |file: &str| {
        if file.ends_with("bpe_openai.rs") {
            // A memo one struct down.
            return "struct Loaded {\n    bpe: Bpe,\n    seen: Seen,\n}\n\
                    struct Seen {\n    slots: Box<[AtomicU8]>,\n}\n"
                .to_string();
        }
        if file.ends_with("pieces.rs") {
            "struct Splitter {\n    regex: Regex,\n    caches: Pool<Cache, MakeCache>,\n    \
             seen: Pool<Vec<u8>, MakeVec>,\n}\n"
        } else {
            "struct Tables {\n    bpe: &'static CoreBPE,\n    lengths: Box<[AtomicU8]>,\n}\n"
        }
        .to_string()
    };
    let source = "\
thread_local! {
    static CACHE: RefCell<usize> = const { RefCell::new(0) };
}
static mut COUNT: usize = 0;
    pub(crate) static HITS: AtomicUsize = AtomicUsize::new(0);
static SEEN: Mutex<Vec<String>> = Mutex::new(Vec::new());
static MEMO: LazyLock<Mutex<HashMap<u32, u32>>> = LazyLock::new(Default::default);
static OTHER: OnceLock<Vec<u8>> = OnceLock::new();
static O200K: OnceLock<Tables> = OnceLock::new();
// static IN_A_COMMENT: AtomicUsize = AtomicUsize::new(0);
static PATTERN: LazyLock<Regex> = LazyLock::new(|| Regex::new(\"a\").unwrap());
static NAME: &str = \"static mut\";
static O200K_BASE: LazyLock<Splitter> = LazyLock::new(|| split_patterns(\"a\"));
static ALIASED: Memo = LazyLock::new(Default::default);
static COUNTER: Counter = Counter::new();
static HELD: std::sync::OnceLock<Holder> = std::sync::OnceLock::new();
static BROKEN: LazyLock<
    Mutex<Vec<u32>>,
> = LazyLock::new(Default::default);
static SEED: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
static LOADED: LazyLock<Loaded> = LazyLock::new(Loaded::new);
";
    let found = mutable_state("x.rs", source, &structs);
    let lines: Vec<&str> = found
        .iter()
        .map(|f| f.split(": ").next().unwrap())
        .collect();
    assert_eq!(
        lines,
        [
            "x.rs:1", "x.rs:2", "x.rs:4", "x.rs:5", "x.rs:6", "x.rs:7", "x.rs:8", "x.rs:9",
            "x.rs:13", "x.rs:14", "x.rs:15", "x.rs:16", "x.rs:17", "x.rs:21"
        ],
        "{found:#?}"
    );
    assert!(found[7].contains("Tables (src/tokenizer/tiktoken.rs) holds Atomic"));
    // The pool of search caches is scratch; a pool of anything else is not.
    assert!(found[8].contains("seen: Pool<Vec<u8>"), "{found:#?}");
    // Behind an alias, a struct of ours, a path or a line break, and one struct down.
    assert!(found[9].contains("a static of Memo"), "{found:#?}");
    assert!(found[10].contains("a static of Counter"), "{found:#?}");
    assert!(found[11].contains("a static of Holder"), "{found:#?}");
    assert!(
        found[12].contains("holding a Mutex: LazyLock<Mutex<Vec<u32>>>"),
        "{found:#?}"
    );
    assert!(
        found[13].contains("Seen (src/tokenizer/bpe_openai.rs) holds Atomic"),
        "{found:#?}"
    );
}

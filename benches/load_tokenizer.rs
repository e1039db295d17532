//! Times loading a tokenizer file, as a service pays once at start-up:
//!
//! ```text
//! cargo bench --features huggingface --bench load_tokenizer -- PATH [RUNS]
//! ```
//!
//! Prints the tokenizer's name and the minimum and median of RUNS loads (default 11), each
//! a full read and parse of the file. A file named `tekken*.json` is read as Tekken, anything
//! else as a Hugging Face `tokenizer.json`.

use std::time::Instant;

use mentor_context::tokenizer::{HuggingFaceTokenizer, TekkenTokenizer, TokenCounter};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // `cargo bench` adds `--bench`; only the positional arguments are ours.
    let mut args = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with("--"));
    let path = args.next().ok_or("usage: load_tokenizer PATH [RUNS]")?;
    let runs: usize = args.next().map_or(Ok(11), |n| n.parse())?;
    let tekken = std::path::Path::new(&path)
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("tekken"));
    let mut times = Vec::with_capacity(runs);
    let mut name = String::new();
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let tokenizer: Box<dyn TokenCounter> = if tekken {
            Box::new(TekkenTokenizer::from_file(&path)?)
        } else {
            Box::new(HuggingFaceTokenizer::from_file(&path)?)
        };
        times.push(start.elapsed());
        name = tokenizer.name().to_string();
    }
    times.sort_unstable();
    println!(
        "{name}: min {:.0} ms, median {:.0} ms over {} loads",
        times[0].as_secs_f64() * 1e3,
        times[times.len() / 2].as_secs_f64() * 1e3,
        times.len()
    );
    Ok(())
}

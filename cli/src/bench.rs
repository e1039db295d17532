//! `bench`: times the assembly in-process, as a service that holds one assembler runs it.
//!
//! A process per assembly would time the process start and the building of the encoding's
//! tables, which a long-running service pays once; here both are paid before timing starts.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use mentor_context::MentorRagResult;
use serde::Serialize;

use crate::batch::Worker;
use crate::batch::read::{Lines, parse_request};
use crate::input::Input;
use crate::options::BuildArgs;
use crate::options::Configured;
use crate::options::parse::{parse_iterations, utf8};
use crate::output::{Failure, json_line};

#[derive(Debug, Args)]
pub(crate) struct BenchArgs {
    #[command(flatten)]
    pub(crate) build: BuildArgs,

    /// How many timed assemblies to run (after a few untimed warm-up ones) [default: 200; with
    /// --batch, one per request held, so that each is timed once].
    #[arg(long, value_name = "N", value_parser = utf8(parse_iterations))]
    pub(crate) iterations: Option<usize>,

    /// Print one JSON object with the keys iterations, minNs, medianNs, maxNs, floorNs (one
    /// encode of the produced text by the same engine, timed in alternation), tokenCount and
    /// bytesTokenized (then a newline) instead of readable lines.
    #[arg(long)]
    pub(crate) json: bool,

    /// Time the warm path: assemble with a token-count cache (64 MiB), which the warm-up
    /// assemblies fill, as a chat backend that sees the same documents again would. Without
    /// it, every assembly is cold: nothing is remembered between them.
    #[arg(long)]
    pub(crate) cache: bool,

    /// Read FILE as `batch` reads it (JSON Lines, one request per line, a line's budget
    /// applying to it) and time its requests in turn, the first --requests of them: as in a
    /// `batch` run, each assembly meets text the last one did not. The figures are per
    /// request.
    #[arg(long)]
    pub(crate) batch: bool,

    /// With --batch: how many requests to read from FILE and hold in memory.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_BENCH_REQUESTS, value_parser = utf8(parse_iterations), requires = "batch")]
    pub(crate) requests: usize,

    /// The JSON array of results (with --batch, the JSON Lines file), read once; `-` reads
    /// standard input.
    #[arg(value_name = "FILE")]
    pub(crate) file: PathBuf,
}

/// How many timed assemblies `bench` runs by default on one request.
pub(crate) const DEFAULT_BENCH_ITERATIONS: usize = 200;

/// How many requests `bench --batch` holds by default: 1,000 of the 50 x 2 KiB kind are about
/// 120 MB of text, far more than a processor's caches, as a long batch run is.
pub(crate) const DEFAULT_BENCH_REQUESTS: usize = 1000;

/// Assemblies run and thrown away before timing: the first ones pay for building the
/// encoding's tables and warming caches and allocators, which a long-running service pays
/// only once. With `--cache`, they also fill the token cache.
const WARM_UP_ASSEMBLIES: usize = 3;

/// The cache `bench --cache` uses: far more than any one request file needs, so the timed
/// assemblies measure a cache that holds everything rather than one that evicts.
const BENCH_CACHE_BYTES: usize = 64 << 20;

/// What `bench --json` prints.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct BenchReport {
    iterations: usize,
    min_ns: u64,
    median_ns: u64,
    max_ns: u64,
    token_count: usize,
    /// The median time of one encode of the produced text by the same engine, timed in
    /// alternation with the assemblies so that a busy machine slows both alike:
    /// `medianNs / floorNs` is what assembling costs over tokenizing the answer once.
    floor_ns: u64,
    /// The bytes one timed assembly handed to the tokenizer (the last one's). It shows what
    /// the timings cannot show reliably: with `--cache`, how much counting the cache saved.
    bytes_tokenized: usize,
}

/// A request to time: the budget its line sets, and its results.
type Request = (Option<usize>, Vec<MentorRagResult>);

/// One request timed: the budget its line sets, its results, and the text it produces, which
/// the floor encodes.
struct Timed {
    budget: Option<usize>,
    results: Vec<MentorRagResult>,
    text: String,
}

/// Runs `bench` and returns what to print.
pub(crate) fn run(args: &BenchArgs) -> Result<String, Failure> {
    let mut settings = args.build.settings()?;
    if args.cache && settings.cache_bytes.is_none() {
        settings.cache_bytes = Some(BENCH_CACHE_BYTES);
    }
    let Configured {
        settings,
        assembler,
    } = Configured::new(settings)?;
    let requests = if args.batch {
        read_batch(args)?
    } else {
        let results = Input::new(Some(args.file.as_path())).load(settings.strict)?;
        vec![(None, results)]
    };
    // The assemblers for lines' budgets, found or built as `batch` does (outside the clock).
    let mut worker = Worker::new(&assembler, false);
    let mut assembler_for = |budget| {
        worker
            .assembler_for(budget)
            .cloned()
            .map_err(|problem| Failure::bad_input(problem.to_string()))
    };
    let mut timed = Vec::with_capacity(requests.len());
    for (budget, results) in requests {
        let text = assembler_for(budget)?.assemble(&results).text;
        timed.push(Timed {
            budget,
            results,
            text,
        });
    }
    for request in timed.iter().cycle().take(WARM_UP_ASSEMBLIES) {
        std::hint::black_box(assembler_for(request.budget)?.assemble(&request.results));
    }
    let iterations = args.iterations.unwrap_or(if args.batch {
        timed.len()
    } else {
        DEFAULT_BENCH_ITERATIONS
    });
    let tokenizer = assembler.tokenizer();
    let mut lengths = Vec::new();
    let mut times = Vec::with_capacity(iterations);
    let mut floors = Vec::with_capacity(iterations);
    let mut token_count = 0;
    let mut bytes_tokenized = 0;
    for request in timed.iter().cycle().take(iterations) {
        let assembler = assembler_for(request.budget)?;
        let start = Instant::now();
        let (context, stats) =
            mentor_context::machinery::assemble_with_stats(&assembler, &request.results);
        times.push(elapsed_ns(start));
        token_count = context.token_count;
        bytes_tokenized = stats.bytes_tokenized;
        // Keeps the optimiser from discarding the assembly. The context is dropped here,
        // after the clock has stopped: freeing it is not part of assembling.
        std::hint::black_box(context);
        lengths.clear();
        let start = Instant::now();
        tokenizer.token_lengths(std::hint::black_box(&request.text), &mut lengths);
        floors.push(elapsed_ns(start));
        std::hint::black_box(&lengths);
    }
    times.sort_unstable();
    floors.sort_unstable();
    let report = BenchReport {
        iterations: times.len(),
        min_ns: times[0],
        median_ns: median(&times),
        max_ns: times[times.len() - 1],
        token_count,
        floor_ns: median(&floors),
        bytes_tokenized,
    };
    if args.json {
        json_line(&report)
    } else {
        Ok(format!(
            "iterations: {}\ntokens:     {}\ntokenized:  {} bytes\nmin:        {} ns\nmedian:     {} ns\nmax:        {} ns\nfloor:      {} ns\n",
            report.iterations,
            report.token_count,
            report.bytes_tokenized,
            report.min_ns,
            report.median_ns,
            report.max_ns,
            report.floor_ns
        ))
    }
}

/// The first `--requests` requests of a batch file, each with the budget its line sets. A bad
/// line stops the bench, named: timing a file with some requests silently left out would
/// time other requests than the ones a `batch` run assembles.
fn read_batch(args: &BenchArgs) -> Result<Vec<Request>, Failure> {
    let (mut lines, _) = Lines::open(Some(args.file.as_path()))?;
    let mut requests = Vec::new();
    while requests.len() < args.requests {
        let Some(line) = lines.next_line()? else {
            break;
        };
        let request = parse_request(&line.bytes).map_err(|bad| {
            let name = Input::new(Some(args.file.as_path())).name();
            Failure::bad_input(format!("{name}: line {}: {}", line.number, bad.problem))
        })?;
        requests.push((request.budget, request.results));
    }
    if requests.is_empty() {
        let name = Input::new(Some(args.file.as_path())).name();
        return Err(Failure::bad_input(format!("{name}: no requests to time")));
    }
    Ok(requests)
}

/// Nanoseconds since `start`.
fn elapsed_ns(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// The median of sorted, non-empty `times`: the middle one, or the mean of the two middle
/// ones.
fn median(times: &[u64]) -> u64 {
    let mid = times.len() / 2;
    if times.len().is_multiple_of(2) {
        times[mid - 1].midpoint(times[mid])
    } else {
        times[mid]
    }
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        assert_eq!(median(&[5]), 5);
        assert_eq!(median(&[1, 2, 9]), 2);
        assert_eq!(median(&[1, 3, 5, 100]), 4);
        assert_eq!(median(&[u64::MAX - 1, u64::MAX]), u64::MAX - 1);
    }
}

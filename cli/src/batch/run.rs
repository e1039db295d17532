//! Running a batch: lines are read on one thread, assembled on `jobs` threads, and written on
//! the calling thread in input order, whatever order they finish in.
//!
//! Reading a line's JSON and writing its report cost about a quarter of assembling it
//! (callgrind, on the 50 x 2 KiB requests). When the jobs leave a core free, the reader
//! parses and the writer writes the JSON, so the jobs only assemble; when every core has a
//! job, each job does all three for its own lines, since one reader or writer doing it for
//! many jobs would hold them all up.
//!
//! At most `2 x jobs` lines are in flight (read, not yet written): the reader takes a credit
//! before it hands a line on, and the writer gives one back for each line it writes. So memory
//! follows the number of jobs times the largest request, never the length of the input, and a
//! slow line holds up the reading, not the memory.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::Instant;

use mentor_context::{AssembledContext, Assembler};
use serde::Serialize;
use serde_json::value::RawValue;

use super::progress::Progress;
use super::read::{BadLine, Line, Lines, Request, parse_request};
use super::summary::{Sample, Summary};
use crate::output::{Failure, one_line};

/// Lines in flight per job: one being assembled, one waiting, so no job waits for the reader.
const LINES_PER_JOB: usize = 2;

/// Assemblers for budgets that lines set, per job; forgotten when this many are held, so a
/// file with a different budget on every line cannot grow memory.
const BUDGETS_REMEMBERED: usize = 64;

/// A line handed to a job: its place in the output and the input bytes it accounts for.
struct Job {
    seq: u64,
    number: usize,
    request: Parsed,
    consumed: u64,
}

/// A line as the reader hands it on.
enum Parsed {
    /// Still to parse, by the job.
    Raw(Line),
    /// Parsed by the reader.
    Ready(Result<Request, BadLine>),
}

impl Parsed {
    fn into_request(self) -> Result<Request, BadLine> {
        match self {
            Parsed::Raw(line) => parse_request(&line.bytes),
            Parsed::Ready(request) => request,
        }
    }
}

/// A line's report, ready to write.
struct Done {
    seq: u64,
    output: Output,
    sample: Option<Sample>,
    consumed: u64,
}

/// A line's report: as JSON, or as the context for the writer to write as JSON.
enum Output {
    Json(Vec<u8>),
    Context {
        line: usize,
        id: Option<Box<RawValue>>,
        context: AssembledContext<'static>,
    },
}

impl Output {
    /// The JSON line, and whether it is the report of a context rather than of an error;
    /// `buffer` holds it if it is written now.
    fn json<'b>(&'b self, buffer: &'b mut Vec<u8>) -> (&'b [u8], bool) {
        match self {
            Output::Json(json) => (json, true),
            Output::Context { line, id, context } => {
                buffer.clear();
                let written = write_report(buffer, *line, id.as_deref(), context);
                (buffer, written)
            }
        }
    }
}

/// The report of a line that gave a context: the `assemble --json` report, after `line` and
/// `id`.
#[derive(Serialize)]
struct Report<'a> {
    line: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a RawValue>,
    #[serde(flatten)]
    context: &'a AssembledContext<'a>,
}

/// The report of a line that gave none.
#[derive(Serialize)]
struct ErrorReport<'a> {
    line: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a RawValue>,
    error: &'a str,
}

/// What one job holds: the assembler of the command line, and those for budgets lines set.
struct Worker<'a> {
    assembler: &'a Assembler,
    by_budget: HashMap<usize, Result<Assembler, String>>,
    /// Whether the job writes its reports as JSON, or leaves that to the writer.
    writes_json: bool,
}

impl<'a> Worker<'a> {
    fn new(assembler: &'a Assembler, writes_json: bool) -> Self {
        Worker {
            assembler,
            by_budget: HashMap::new(),
            writes_json,
        }
    }

    /// The assembler for a line that sets `budget`, or why there is none.
    fn assembler_for(&mut self, budget: Option<usize>) -> Result<&Assembler, &str> {
        let Some(budget) = budget.filter(|&b| b != self.assembler.budget()) else {
            return Ok(self.assembler);
        };
        if self.by_budget.len() >= BUDGETS_REMEMBERED && !self.by_budget.contains_key(&budget) {
            self.by_budget.clear();
        }
        let base = self.assembler;
        let built = self.by_budget.entry(budget).or_insert_with(|| {
            base.config()
                .clone()
                .budget(budget)
                .build()
                .map_err(|err| format!("budget {budget}: {err}"))
        });
        built.as_ref().map_err(String::as_str)
    }

    /// Reads, assembles and reports one line.
    fn process(&mut self, job: Job) -> Done {
        let number = job.number;
        let writes_json = self.writes_json;
        let (output, sample) = match job.request.into_request() {
            Err(bad) => (
                Output::Json(error_json(number, bad.id.as_deref(), &bad.problem)),
                None,
            ),
            Ok(request) => match self.assembler_for(request.budget) {
                Err(problem) => (
                    Output::Json(error_json(number, request.id.as_deref(), problem)),
                    None,
                ),
                Ok(assembler) => {
                    let start = Instant::now();
                    let context = assembler.assemble(&request.results);
                    let sample = Sample::new(&context, start.elapsed());
                    if writes_json {
                        let mut json = Vec::new();
                        let written =
                            write_report(&mut json, number, request.id.as_deref(), &context);
                        (Output::Json(json), written.then_some(sample))
                    } else {
                        // Omitted results borrow from the request, which stays here.
                        let context = context.into_owned();
                        let (line, id) = (number, request.id);
                        (Output::Context { line, id, context }, Some(sample))
                    }
                }
            },
        };
        Done {
            seq: job.seq,
            output,
            sample,
            consumed: job.consumed,
        }
    }
}

/// Appends the report of a line that gave `context`, as one line of JSON, to `out`, or the
/// report of an error if it cannot be written: false then.
fn write_report(
    out: &mut Vec<u8>,
    line: usize,
    id: Option<&RawValue>,
    context: &AssembledContext,
) -> bool {
    let start = out.len();
    let report = Report { line, id, context };
    if let Err(err) = serde_json::to_writer(&mut *out, &report) {
        out.truncate(start);
        out.extend(error_json(line, id, &format!("cannot write JSON: {err}")));
        return false;
    }
    out.push(b'\n');
    true
}

/// `value` as one line of JSON, newline included.
fn json_line(value: &impl Serialize) -> Result<Vec<u8>, String> {
    let mut json = serde_json::to_vec(value).map_err(|err| format!("cannot write JSON: {err}"))?;
    json.push(b'\n');
    Ok(json)
}

/// The report of a bad line.
fn error_json(line: usize, id: Option<&RawValue>, problem: &str) -> Vec<u8> {
    let problem = one_line(problem);
    let report = ErrorReport {
        line,
        id,
        error: &problem,
    };
    // Only a number, a parsed JSON value and a string: serializing cannot fail.
    json_line(&report)
        .unwrap_or_else(|_| format!("{{\"line\":{line},\"error\":\"?\"}}\n").into_bytes())
}

/// How a run ended, apart from its summary.
pub(crate) enum Ending {
    /// Every line was read and its report written.
    Complete,
    /// The input could not be read on; the lines before were written.
    InputFailed(Failure),
    /// The output could not be written.
    OutputFailed(Failure),
}

/// Reads every line of `lines`, assembles each with `assembler` on `jobs` threads, and writes
/// the reports to `out` in input order. The reader parses the lines when `jobs` is less than
/// `cores`.
pub(crate) fn run(
    mut lines: Lines,
    jobs: usize,
    cores: usize,
    assembler: &Assembler,
    out: &mut dyn Write,
    progress: &Progress,
) -> (Summary, Ending) {
    let jobs = jobs.max(1);
    // A core without a job: the reader parses and the writer writes JSON.
    let spare_core = jobs < cores;
    let window = jobs * LINES_PER_JOB;
    let stop = AtomicBool::new(false);
    let (work_tx, work_rx) = mpsc::sync_channel::<Job>(jobs);
    let work_rx = Mutex::new(work_rx);
    let (done_tx, done_rx) = mpsc::channel::<Done>();
    let (credit_tx, credit_rx) = mpsc::sync_channel::<()>(window);
    for _ in 0..window {
        // The channel holds `window` credits; these fill it without blocking.
        let _ = credit_tx.send(());
    }
    let mut summary = Summary::default();
    let mut ending = Ending::Complete;
    std::thread::scope(|scope| {
        let stop = &stop;
        let reader = scope.spawn(move || -> Result<(), Failure> {
            let mut seq = 0;
            let mut accounted = 0;
            while let Some(line) = lines.next_line()? {
                if credit_rx.recv().is_err() || stop.load(Ordering::Relaxed) {
                    break;
                }
                let consumed = lines.bytes_read - accounted;
                accounted = lines.bytes_read;
                let number = line.number;
                let request = if spare_core {
                    Parsed::Ready(parse_request(&line.bytes))
                } else {
                    Parsed::Raw(line)
                };
                if work_tx
                    .send(Job {
                        seq,
                        number,
                        request,
                        consumed,
                    })
                    .is_err()
                {
                    break;
                }
                seq += 1;
            }
            Ok(())
        });
        for _ in 0..jobs {
            let (done_tx, work_rx) = (done_tx.clone(), &work_rx);
            scope.spawn(move || {
                let mut worker = Worker::new(assembler, !spare_core);
                loop {
                    // The lock is held while waiting: one idle job waits on the channel, the
                    // others on the lock, and each line goes to exactly one.
                    let job = work_rx
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .recv();
                    let Ok(job) = job else { break };
                    // After a write failure, lines are only drained so the reader can stop.
                    if stop.load(Ordering::Relaxed) {
                        continue;
                    }
                    if done_tx.send(worker.process(job)).is_err() {
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            });
        }
        drop(done_tx);
        let mut pending = BTreeMap::new();
        let mut next = 0;
        let mut buffer = Vec::new();
        'lines: for done in &done_rx {
            pending.insert(done.seq, done);
            while let Some(done) = pending.remove(&next) {
                let (json, is_report) = done.output.json(&mut buffer);
                if let Err(err) = out.write_all(json) {
                    ending = Ending::OutputFailed(Failure::write_failed(format!(
                        "cannot write the output: {err}"
                    )));
                    stop.store(true, Ordering::Relaxed);
                    break 'lines;
                }
                summary.add(done.sample.as_ref().filter(|_| is_report));
                progress.advance(done.consumed, summary.requests());
                next += 1;
                let _ = credit_tx.send(());
            }
        }
        // Wakes a reader waiting for a credit, and jobs waiting to report.
        drop(credit_tx);
        drop(done_rx);
        if let Ok(Err(failure)) = reader.join()
            && matches!(ending, Ending::Complete)
        {
            ending = Ending::InputFailed(failure);
        }
    });
    (summary, ending)
}

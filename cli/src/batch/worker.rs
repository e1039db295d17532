//! A job's work on one line: parse it, assemble it at its budget, and write its report as
//! one line of JSON.

use std::collections::HashMap;
use std::time::Instant;

use mentor_context::{AssembledContext, Assembler};
use serde::Serialize;
use serde_json::value::RawValue;

use super::read::parse_request;
use super::summary::Sample;
use crate::html::text::FIELD_BYTES;
use crate::output::one_line;

/// Assemblers for budgets that lines set, per job; forgotten when this many are held, so a
/// file with a different budget on every line cannot grow memory.
const BUDGETS_REMEMBERED: usize = 64;

/// A line a job has read: its place in the output, its number and the input bytes it
/// accounts for. Its bytes are in the job's buffer.
pub(crate) struct Taken {
    pub(crate) seq: u64,
    pub(crate) number: usize,
    pub(crate) consumed: u64,
}

/// A line's report, ready to write.
pub(crate) struct Done {
    pub(crate) seq: u64,
    pub(crate) json: Vec<u8>,
    pub(crate) sample: Option<Sample>,
    pub(crate) consumed: u64,
    /// What a `--report` page keeps of a line, when there is one to write.
    pub(crate) kept: Option<Kept>,
}

/// A line as a `--report` page may list it: its number, its id (the JSON as given) and, if it
/// failed, its error. Both strings are cut to what a page shows, so a line with a 16 MiB id
/// costs no more than another.
pub(crate) struct Kept {
    pub(crate) line: usize,
    pub(crate) id: Option<Cut>,
    pub(crate) error: Option<Cut>,
}

/// The start of a string a page shows (at most [`FIELD_BYTES`]), with its whole length.
#[derive(Debug, Clone)]
pub(crate) struct Cut {
    pub(crate) start: Box<str>,
    pub(crate) bytes: usize,
}

impl Cut {
    pub(crate) fn of(text: &str) -> Cut {
        let end = text.floor_char_boundary(FIELD_BYTES.min(text.len()));
        Cut {
            start: text[..end].into(),
            bytes: text.len(),
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
pub(crate) struct Worker<'a> {
    assembler: &'a Assembler,
    by_budget: HashMap<usize, Result<Assembler, String>>,
    /// Whether each line's number, id and error are kept for a `--report` page.
    keep: bool,
}

impl<'a> Worker<'a> {
    pub(crate) fn new(assembler: &'a Assembler, keep: bool) -> Self {
        Worker {
            assembler,
            by_budget: HashMap::new(),
            keep,
        }
    }

    /// The assembler for a line that sets `budget`, or why there is none.
    pub(crate) fn assembler_for(&mut self, budget: Option<usize>) -> Result<&Assembler, &str> {
        let Some(budget) = budget.filter(|&b| b != self.assembler.budget()) else {
            return Ok(self.assembler);
        };
        if self.by_budget.len() >= BUDGETS_REMEMBERED && !self.by_budget.contains_key(&budget) {
            self.by_budget.clear();
        }
        let base = self.assembler;
        let built = self.by_budget.entry(budget).or_insert_with(|| {
            base.with_budget(budget)
                .map_err(|err| format!("budget {budget}: {err}"))
        });
        built.as_ref().map_err(String::as_str)
    }

    /// Parses, assembles and reports the line `taken`, whose bytes are `bytes`.
    pub(crate) fn process(&mut self, taken: &Taken, bytes: &[u8]) -> Done {
        let number = taken.number;
        let keep = self.keep;
        let kept = |id: Option<&RawValue>, error: Option<&str>| {
            keep.then(|| Kept {
                line: number,
                id: id.map(|id| Cut::of(id.get())),
                error: error.map(|error| Cut::of(&one_line(error))),
            })
        };
        let (json, sample, kept) = match parse_request(bytes) {
            Err(bad) => (
                error_json(number, bad.id.as_deref(), &bad.problem),
                None,
                kept(bad.id.as_deref(), Some(&bad.problem)),
            ),
            Ok(request) => match self.assembler_for(request.budget) {
                Err(problem) => {
                    let json = error_json(number, request.id.as_deref(), problem);
                    (json, None, kept(request.id.as_deref(), Some(problem)))
                }
                Ok(assembler) => {
                    let start = Instant::now();
                    let context = assembler.assemble(&request.results);
                    let sample = Sample::new(&context, start.elapsed());
                    let mut json = Vec::new();
                    let id = request.id.as_deref();
                    let written = write_report(&mut json, number, id, &context);
                    let error = (!written).then_some("cannot write JSON");
                    (json, written.then_some(sample), kept(id, error))
                }
            },
        };
        Done {
            seq: taken.seq,
            json,
            sample,
            consumed: taken.consumed,
            kept,
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

#[cfg(test)]
mod tests {
    use mentor_context::ContextBuilder;

    use super::{BUDGETS_REMEMBERED, Worker};

    #[test]
    fn assemblers_for_line_budgets_are_kept_but_never_more_than_the_limit() {
        let base = ContextBuilder::new(100).build().unwrap();
        let mut worker = Worker::new(&base, false);
        // The command line's own budget, or none, is the base assembler: nothing is built.
        assert!(std::ptr::eq(worker.assembler_for(None).unwrap(), &base));
        assert!(std::ptr::eq(
            worker.assembler_for(Some(100)).unwrap(),
            &base
        ));
        assert!(worker.by_budget.is_empty());
        for budget in 1..=10 {
            assert_eq!(worker.assembler_for(Some(budget)).unwrap().budget(), budget);
        }
        // Asked again, each is the one already built.
        let first = std::ptr::from_ref(worker.assembler_for(Some(1)).unwrap());
        assert!(std::ptr::eq(worker.assembler_for(Some(1)).unwrap(), first));
        assert_eq!(worker.by_budget.len(), 10);
        for budget in 11..=1000 {
            assert_eq!(worker.assembler_for(Some(budget)).unwrap().budget(), budget);
            assert!(worker.by_budget.len() <= BUDGETS_REMEMBERED);
        }
    }
}

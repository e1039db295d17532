//! A job's work on one line: parse it, assemble it at its budget, and write its report as
//! one line of JSON.

use std::collections::HashMap;
use std::time::Instant;

use mentor_context::{AssembledContext, Assembler};
use serde::Serialize;
use serde_json::value::RawValue;

use super::read::parse_request;
use super::summary::Sample;
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
}

impl<'a> Worker<'a> {
    pub(crate) fn new(assembler: &'a Assembler) -> Self {
        Worker {
            assembler,
            by_budget: HashMap::new(),
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
        let (json, sample) = match parse_request(bytes) {
            Err(bad) => (error_json(number, bad.id.as_deref(), &bad.problem), None),
            Ok(request) => match self.assembler_for(request.budget) {
                Err(problem) => (error_json(number, request.id.as_deref(), problem), None),
                Ok(assembler) => {
                    let start = Instant::now();
                    let context = assembler.assemble(&request.results);
                    let sample = Sample::new(&context, start.elapsed());
                    let mut json = Vec::new();
                    let written = write_report(&mut json, number, request.id.as_deref(), &context);
                    (json, written.then_some(sample))
                }
            },
        };
        Done {
            seq: taken.seq,
            json,
            sample,
            consumed: taken.consumed,
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
        let mut worker = Worker::new(&base);
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

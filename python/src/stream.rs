//! `Resolver` and its `CitationStream`: an answer's markers read against a report's chips,
//! whole or as it streams in, through the library's `Resolver` and `CitationStream`.
//!
//! Offsets (`span`, `at`) are Python string indices of the whole answer, as
//! `resolve_citations` gives them; the library's own are UTF-8 byte offsets.

use mentor_context::ErrorKind;
use mentor_context::citations::{self, CitationEvent, Resolution, Resolver};
use mentor_context::{AssembledContext, Citation};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use serde::Deserialize;

use crate::depythonize::PyDeserializer;
use crate::errors::refused_as;
use crate::pyser::to_python;

/// A resolver for `report`, owning what it reads against: a whole report (a dict from
/// `Assembler.assemble` or its JSON text) checks quotes against the contents read back from it
/// in the layout it records, as `mentor-context cite` does; its `citations` alone (a list, or
/// a dict of nothing else) check none.
pub(crate) fn read_resolver(report: &Bound<'_, PyAny>) -> PyResult<Resolver<'static>> {
    let problem = |err: &dyn std::fmt::Display| {
        refused_as(
            ErrorKind::InvalidReport,
            format!("report: expected a report of Assembler.assemble or its citations: {err}"),
        )
    };
    let whole = |text: &str| -> PyResult<Resolver<'static>> {
        let context: AssembledContext<'static> =
            serde_json::from_str(text).map_err(|err| problem(&err))?;
        Ok(report
            .py()
            .detach(|| Resolver::for_context(&context).into_owned()))
    };
    if let Ok(text) = report.cast::<PyString>() {
        let text = text.to_str()?;
        /// A report's chips, or a list of them, as JSON; a report's text marks a whole one.
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Chips {
            Whole {
                #[allow(dead_code)]
                context: serde::de::IgnoredAny,
            },
            Report {
                citations: Vec<Citation>,
            },
            List(Vec<Citation>),
        }
        return match serde_json::from_str::<Chips>(text) {
            // Read again as a whole report, so that a bad field is named.
            Ok(Chips::Whole { .. }) => whole(text),
            Ok(Chips::Report { citations } | Chips::List(citations)) => {
                Ok(Resolver::new(&citations).into_owned())
            }
            Err(err) => Err(problem(&err)),
        };
    }
    if let Ok(dict) = report.cast::<PyDict>()
        && dict.contains("context")?
    {
        let text: String = report
            .py()
            .import("json")?
            .call_method1("dumps", (report,))
            .map_err(|err| problem(&err.value(report.py())))?
            .extract()?;
        return whole(&text);
    }
    let chips = match report.get_item("citations") {
        Ok(chips) => chips,
        Err(_) => report.clone(),
    };
    let chips =
        Vec::<Citation>::deserialize(PyDeserializer(&chips)).map_err(|err| problem(&err))?;
    Ok(Resolver::new(&chips).into_owned())
}

/// Byte offsets into an answer as offsets in characters, walking forward from the last
/// one asked for (a stream's events come in answer order).
struct Chars<'t> {
    text: &'t str,
    at: (usize, usize),
}

impl Chars<'_> {
    fn of(&mut self, byte: usize) -> usize {
        if byte < self.at.0 {
            self.at = (0, 0);
        }
        let end = byte.min(self.text.len());
        let stretch = self.text.get(self.at.0..end).unwrap_or_default();
        self.at = (end, self.at.1 + stretch.chars().count());
        self.at.1
    }

    fn events(&mut self, events: &mut [CitationEvent]) {
        for event in events {
            match event {
                CitationEvent::Cited { span, .. } => {
                    span.start = self.of(span.start);
                    span.end = self.of(span.end);
                }
                CitationEvent::Unknown(marker) => marker.at = self.of(marker.at),
                // Non-exhaustive: an event of a later version has no offsets known here.
                _ => {}
            }
        }
    }

    /// A resolution's offsets, in characters. Its spans are listed chip by chip, each chip's
    /// in answer order: walking the answer for each chip would cost chips × answer. So every
    /// offset is gathered and sorted, counted in one walk, and looked up.
    fn resolution(&mut self, resolution: &mut Resolution) {
        let spans = resolution.cited.iter().flat_map(|chip| &chip.spans);
        let mut bytes: Vec<usize> = spans
            .flat_map(|span| [span.start, span.end])
            .chain(resolution.unknown.iter().map(|marker| marker.at))
            .collect();
        bytes.sort_unstable();
        bytes.dedup();
        let chars: Vec<usize> = bytes.iter().map(|&byte| self.of(byte)).collect();
        let of = |byte: usize| bytes.binary_search(&byte).map_or(0, |at| chars[at]);
        for chip in &mut resolution.cited {
            for span in &mut chip.spans {
                span.start = of(span.start);
                span.end = of(span.end);
            }
        }
        for marker in &mut resolution.unknown {
            marker.at = of(marker.at);
        }
    }
}

/// Reads answers against the chips of one report. `resolve(answer)` reads a whole answer
/// (what `resolve_citations` does); `stream()` reads one that arrives in chunks. Given a whole
/// report, quotes before `[n]` markers are checked against its contents.
#[pyclass(name = "Resolver", module = "mentor_context", frozen)]
pub(crate) struct PyResolver {
    resolver: Resolver<'static>,
    renumber: bool,
}

#[pymethods]
impl PyResolver {
    #[new]
    #[pyo3(signature = (report, *, renumber=false))]
    fn new(report: &Bound<'_, PyAny>, renumber: bool) -> PyResult<Self> {
        Ok(PyResolver {
            resolver: read_resolver(report)?.renumber(renumber),
            renumber,
        })
    }

    /// What the whole `answer` cites: as `resolve_citations(report, answer, renumber=...)`.
    fn resolve<'py>(&self, py: Python<'py>, answer: &str) -> PyResult<Bound<'py, PyAny>> {
        let mut resolution = py.detach(|| self.resolver.resolve(answer));
        Chars {
            text: answer,
            at: (0, 0),
        }
        .resolution(&mut resolution);
        to_python(py, &resolution)
    }

    /// A stream of one answer, read chunk by chunk.
    fn stream(&self) -> PyCitationStream {
        PyCitationStream {
            stream: Some(self.resolver.stream()),
            answer: String::new(),
            at: (0, 0),
        }
    }

    /// Whether answers are renumbered 1..k in order of first citation.
    #[getter]
    fn renumber(&self) -> bool {
        self.renumber
    }
}

/// The library's stream, `None` once finished. It owns what it reads against.
type Live = Option<citations::CitationStream<'static>>;

/// An answer resolved as it streams in, from `Resolver(report).stream()`.
///
/// `push(chunk)` returns `(text, events)`: the text that is safe to show now (a marker is
/// never shown in part: `[1` at the end of one chunk and `2]` at the start of the next come
/// out together, renumbered if the resolver renumbers) and the citation events found in it.
/// `finish()` returns `((text, events), resolution)`: the rest, and what the whole answer
/// cites. Put together, they are what `Resolver.resolve` gives for the whole answer.
#[pyclass(name = "CitationStream", module = "mentor_context")]
pub(crate) struct PyCitationStream {
    stream: Live,
    /// The answer so far: offsets are counted in it.
    answer: String,
    /// Where the offsets' walk through `answer` is: a byte and its character.
    at: (usize, usize),
}

#[pymethods]
impl PyCitationStream {
    /// Reads the next chunk; returns `(text, events)`.
    fn push<'py>(&mut self, py: Python<'py>, chunk: &str) -> PyResult<Bound<'py, PyTuple>> {
        let pushed = self.stream.as_mut().map(|stream| stream.push(chunk));
        let Some(mut pushed) = pushed else {
            return Err(finished());
        };
        self.answer.push_str(chunk);
        let mut chars = Chars {
            text: &self.answer,
            at: self.at,
        };
        chars.events(&mut pushed.events);
        self.at = chars.at;
        output(py, &pushed.text, &pushed.events)
    }

    /// The answer is complete: returns `((text, events), resolution)`, the rest to show
    /// (an unfinished marker is text after all) and the resolution of the whole answer.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let done = self.stream.take().map(citations::CitationStream::finish);
        let Some((mut rest, mut resolution)) = done else {
            return Err(finished());
        };
        let mut chars = Chars {
            text: &self.answer,
            at: self.at,
        };
        chars.events(&mut rest.events);
        chars.resolution(&mut resolution);
        let rest = output(py, &rest.text, &rest.events)?;
        PyTuple::new(py, [rest.into_any(), to_python(py, &resolution)?])
    }

    /// Characters of the answer read but not yet shown: the start of a marker the next
    /// chunk may finish (0 once finished).
    #[getter]
    fn held_back(&self) -> usize {
        let bytes = self
            .stream
            .as_ref()
            .map_or(0, citations::CitationStream::held_back);
        let tail = self
            .answer
            .get(self.answer.len().saturating_sub(bytes)..)
            .unwrap_or_default();
        tail.chars().count()
    }
}

/// `(text, events)`.
fn output<'py>(
    py: Python<'py>,
    text: &str,
    events: &[CitationEvent],
) -> PyResult<Bound<'py, PyTuple>> {
    let events = to_python(py, events)?.cast_into::<PyList>()?;
    PyTuple::new(py, [PyString::new(py, text).into_any(), events.into_any()])
}

fn finished() -> PyErr {
    refused_as(
        ErrorKind::StreamFinished,
        "the stream is finished: make a new one with Resolver.stream() for another answer",
    )
}

//! The model APIs' dialects from Python: a report's entries, and a provider's response read
//! back against them, whole or event by event, through the library's `Resolver`.

use crate::errors::{from_library, refused_as};
use crate::pyser::to_python;
use mentor_context::ErrorKind;
use mentor_context::citations::{CitationEvent, Resolution, Resolver};
use mentor_context::dialects::{Entry, ResponseStream, mark_turn_cache_control};
use mentor_context::machinery::IndexedText;
use mentor_context::{AssembledContext, Assembler};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// `report` (a dict of `Assembler.assemble`, or its JSON text as a store keeps it) as the
/// library's report, read through its JSON (its reasons and dialect are names).
pub(crate) fn read_report(report: &Bound<'_, PyAny>) -> PyResult<AssembledContext<'static>> {
    let json: String = match report.extract::<String>() {
        Ok(text) => text,
        Err(_) => report
            .py()
            .import("json")?
            .call_method1("dumps", (report,))?
            .extract()?,
    };
    serde_json::from_str(&json).map_err(|err| {
        refused_as(
            ErrorKind::InvalidReport,
            format!("report: expected a report of Assembler.assemble: {err}"),
        )
    })
}

/// The entries of `report` in `assembler`'s dialect, as Python lists and dicts. With
/// `cache_marks`, the turn's prompt-cache breakpoints are marked: the turn before was
/// `previous`, if given.
pub(crate) fn entries<'py>(
    py: Python<'py>,
    assembler: &Assembler,
    report: &Bound<'py, PyAny>,
    previous: Option<&Bound<'py, PyAny>>,
    cache_marks: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let context = read_report(report)?;
    // Read whenever given, so a bad one is an error with or without cache marks.
    let earlier = match previous {
        Some(previous) if !previous.is_none() => read_report(previous)?.citations.len(),
        _ => 0,
    };
    let mut entries = py
        .detach(|| assembler.entries(&context))
        .map_err(|err| from_library(&err))?;
    if cache_marks {
        mark_turn_cache_control(&mut entries, earlier);
    }
    to_python(py, &entries)
}

/// The contents of `report`'s blocks, read back from its text.
pub(crate) fn contents(
    py: Python<'_>,
    assembler: &Assembler,
    report: &Bound<'_, PyAny>,
) -> PyResult<Vec<String>> {
    let context = read_report(report)?;
    py.detach(|| assembler.contents(&context))
        .map_err(|err| from_library(&err))
}

/// A resolver for `report` that owns what it reads against: its citations, contents and
/// entries, read back with `assembler`.
fn resolver(assembler: &Assembler, report: &AssembledContext<'_>) -> PyResult<Resolver<'static>> {
    let contents = assembler
        .contents(report)
        .map_err(|err| from_library(&err))?;
    let entries: Vec<Entry> = match assembler.dialect() {
        Some(_) => assembler
            .entries(report)
            .map_err(|err| from_library(&err))?,
        None => Vec::new(),
    };
    Ok(Resolver::for_context(report)
        .contents(&contents)
        .entries(&entries)
        .into_owned())
}

/// The resolution of a whole response, its offsets counted as Python string indices.
pub(crate) fn resolve_response<'py>(
    py: Python<'py>,
    assembler: &Assembler,
    report: &Bound<'py, PyAny>,
    response: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let context = read_report(report)?;
    let resolution = py.detach(|| -> PyResult<Resolution> {
        let mut resolution = resolver(assembler, &context)?
            .response(response)
            .map_err(|err| from_library(&err))?;
        let answer = resolution.answer.clone().unwrap_or_default();
        to_char_offsets(&mut resolution, &answer);
        Ok(resolution)
    })?;
    to_python(py, &resolution)
}

/// A model API's response read event by event: `push_event(event)` for each event (a JSON
/// string or a dict), or `push_sse(chunk)` for the raw server-sent events; each returns
/// `(text, events)`, the text to show and the citation events it settled. `finish()` returns
/// the rest and the resolution, or raises if the stream was cut off.
#[pyclass(name = "ResponseStream", module = "mentor_context")]
pub(crate) struct PyResponseStream {
    stream: Option<ResponseStream<'static>>,
    /// The answer so far, to count offsets in Python string indices.
    shown: IndexedText,
}

impl PyResponseStream {
    pub(crate) fn new(assembler: &Assembler, report: &Bound<'_, PyAny>) -> PyResult<Self> {
        let context = read_report(report)?;
        let stream = resolver(assembler, &context)?
            .response_stream()
            .map_err(|err| from_library(&err))?;
        Ok(PyResponseStream {
            stream: Some(stream),
            shown: IndexedText::default(),
        })
    }

    fn stream(&mut self) -> PyResult<&mut ResponseStream<'static>> {
        self.stream
            .as_mut()
            .ok_or_else(|| refused_as(ErrorKind::StreamFinished, "the stream is finished"))
    }

    /// `text` and `events` as Python values, the events' offsets in Python string indices.
    fn output<'py>(
        &mut self,
        py: Python<'py>,
        text: String,
        mut events: Vec<CitationEvent>,
    ) -> PyResult<(String, Bound<'py, PyAny>)> {
        self.shown.push(&text);
        for event in &mut events {
            match event {
                CitationEvent::Cited { span, .. } => {
                    span.start = self.shown.chars_at(span.start);
                    span.end = self.shown.chars_at(span.end);
                }
                CitationEvent::Unknown(marker) => marker.at = self.shown.chars_at(marker.at),
                _ => {}
            }
        }
        Ok((text, to_python(py, &events)?))
    }
}

#[pymethods]
impl PyResponseStream {
    /// Reads one event: a JSON string, or a dict.
    fn push_event<'py>(
        &mut self,
        py: Python<'py>,
        event: &Bound<'py, PyAny>,
    ) -> PyResult<(String, Bound<'py, PyAny>)> {
        let text = match event.cast::<PyDict>() {
            Ok(_) => {
                let json = py.import("json")?;
                json.call_method1("dumps", (event,))?.extract::<String>()?
            }
            Err(_) => event.extract::<String>()?,
        };
        let out = self
            .stream()?
            .push_event(&text)
            .map_err(|err| from_library(&err))?;
        self.output(py, out.text, out.events)
    }

    /// Reads a chunk of the raw server-sent events.
    fn push_sse<'py>(
        &mut self,
        py: Python<'py>,
        chunk: &str,
    ) -> PyResult<(String, Bound<'py, PyAny>)> {
        let out = self
            .stream()?
            .push_sse(chunk)
            .map_err(|err| from_library(&err))?;
        self.output(py, out.text, out.events)
    }

    /// The stream is over: `((text, events), resolution)`, the text left to show and the
    /// events settled only now (a Cohere citation whose stretch ends past the text streamed
    /// so far waits for the end), as `CitationStream.finish` gives them.
    #[allow(clippy::type_complexity)]
    fn finish<'py>(
        &mut self,
        py: Python<'py>,
    ) -> PyResult<((String, Bound<'py, PyAny>), Bound<'py, PyAny>)> {
        let stream = self
            .stream
            .take()
            .ok_or_else(|| refused_as(ErrorKind::StreamFinished, "the stream is finished"))?;
        let (out, mut resolution) = stream.finish().map_err(|err| from_library(&err))?;
        let answer = resolution.answer.clone().unwrap_or_default();
        to_char_offsets(&mut resolution, &answer);
        let last = self.output(py, out.text, out.events)?;
        Ok((last, to_python(py, &resolution)?))
    }
}

/// Turns the resolution's byte offsets into `answer` into Python string indices.
pub(crate) fn to_char_offsets(resolution: &mut Resolution, answer: &str) {
    let mut indexed = IndexedText::default();
    indexed.push(answer);
    for chip in &mut resolution.cited {
        for span in &mut chip.spans {
            span.start = indexed.chars_at(span.start);
            span.end = indexed.chars_at(span.end);
        }
    }
    for marker in &mut resolution.unknown {
        marker.at = indexed.chars_at(marker.at);
    }
}

//! `assemble_many`: `threads` threads, the calling one among them, share the requests.
//!
//! Reading Python objects and building the reports' dicts need the GIL, so only the calling
//! thread can do them, and they are a good share of a request's work. Done before and after a
//! parallel assembly they cannot overlap it, which caps what a second thread can add. So the
//! calling thread reads each request and queues it,
//! and when the queue is full it assembles the oldest queued request itself, with the GIL
//! released, instead of waiting; the other threads only assemble. Each thread then does about
//! the same share of the whole work, and `threads=1` is one thread doing all of it.
//!
//! A request is dropped once reported (its context keeps copies of the few strings it
//! borrowed), so memory holds the queue and the reports, not every request read: holding them
//! all made one thread slower than a loop of `assemble`.

use mentor_context::ErrorKind;
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError, mpsc};

use mentor_context::machinery::start_workers;
use mentor_context::wire::ParsedResults;
use mentor_context::{AssembledContext, Assembler, MentorRagResult};
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::errors::refused_as;
use crate::pyser::to_python;
use crate::results::read_request_into;
use crate::reuse::trim;

/// Requests queued per thread at most: one being assembled, one waiting, so that a thread
/// seldom waits for the reading.
const QUEUED_PER_THREAD: usize = 2;

/// Results kept to read requests into, at most. They come back as fast as requests are
/// read, so a few are enough; the rest are freed here, on the thread that allocated them.
const SPARE_RESULTS: usize = 16;

/// A request read: its place in `requests` and its results.
type Request = (usize, Vec<MentorRagResult>);

/// A request assembled: its place, its context (which owns what it borrowed) and its results,
/// handed back to be freed on the thread that allocated them. Freed on the assembling thread,
/// each 2 KiB content (too big for glibc's per-thread cache) goes back to the reading thread's
/// malloc arena under that arena's lock, and the two threads contend for it.
type Finished = (usize, AssembledContext<'static>, Vec<MentorRagResult>);

/// The requests read and not yet taken.
struct Queue {
    waiting: VecDeque<Request>,
    /// Set when no more requests will be queued.
    closed: bool,
}

/// A lock's guard even if a thread panicked holding it: the call then fails with that panic.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The reports of `requests` in their order, assembled by `threads` threads.
pub(crate) fn assemble_many<'py>(
    py: Python<'py>,
    assembler: &Assembler,
    strict: bool,
    requests: &Bound<'py, PyAny>,
    threads: usize,
) -> PyResult<Bound<'py, PyList>> {
    // No more threads than requests, when their number is known: a thread costs its start.
    let threads = match requests.len() {
        Ok(count) => threads.min(count.max(1)),
        Err(_) => threads,
    };
    let queue = Mutex::new(Queue {
        waiting: VecDeque::new(),
        closed: false,
    });
    let queued = Condvar::new();
    let reports = PyList::empty(py);
    let mut in_order = InOrder {
        reports: &reports,
        finished: BTreeMap::new(),
        reported: 0,
        spare: Vec::new(),
    };
    let (queue, queued) = (&queue, &queued);
    let mut read = 0;
    std::thread::scope(|scope| {
        // However this closure is left (an error, a panic), the threads started see the queue
        // closed and empty and stop, so the scope's wait for them ends.
        let _stop_threads = CloseOnDrop { queue, queued };
        let (done_tx, done_rx) = mpsc::channel::<Finished>();
        let make_job = || {
            let done_tx = done_tx.clone();
            move || {
                while let Some((at, results)) = take(queue, queued) {
                    let context = assembler.assemble(&results).into_owned();
                    if done_tx.send((at, context, results)).is_err() {
                        break;
                    }
                }
            }
        };
        if let Err(err) = start_workers(scope, threads, make_job) {
            return Err(refused_as(
                ErrorKind::ThreadsNotStarted,
                format!("threads: {err}"),
            ));
        }
        drop(done_tx);
        // (In a mutex only because waiting on it without the GIL needs a `Sync` receiver.)
        let done_rx = Mutex::new(done_rx);
        let outcome = (|| -> PyResult<()> {
            for (at, request) in requests.try_iter()?.enumerate() {
                // An error of the iterable itself is raised as it is; a bad request is named.
                let mut parsed = in_order.spare.pop().unwrap_or_default();
                read_request_into(&request?, strict, &mut parsed)
                    .map_err(|err| located(py, &err, at))?;
                let results = std::mem::take(&mut parsed.results);
                read += 1;
                let oldest = {
                    let mut queue = lock(queue);
                    queue.waiting.push_back((at, results));
                    if queue.waiting.len() > threads * QUEUED_PER_THREAD {
                        queue.waiting.pop_front()
                    } else {
                        queued.notify_one();
                        None
                    }
                };
                if let Some(oldest) = oldest {
                    in_order.assemble_here(py, assembler, oldest)?;
                }
                in_order.take_finished(py, &done_rx)?;
            }
            Ok(())
        })();
        // After an error the guard drops what is queued. Otherwise there are no more
        // requests: the other threads stop once the queue is empty, and this one assembles
        // what is still queued rather than wait for them.
        outcome?;
        lock(queue).closed = true;
        queued.notify_all();
        loop {
            let oldest = lock(queue).waiting.pop_front();
            let Some(oldest) = oldest else { break };
            in_order.assemble_here(py, assembler, oldest)?;
        }
        while in_order.reported < read {
            let finished = py.detach(|| lock(&done_rx).recv().ok());
            let Some(finished) = finished else {
                return Err(refused_as(
                    ErrorKind::ThreadsNotStarted,
                    "a worker thread stopped before its request was done",
                ));
            };
            in_order.add(py, finished)?;
        }
        Ok(())
    })?;
    Ok(reports)
}

/// Closes the queue and drops what it holds when dropped.
struct CloseOnDrop<'q> {
    queue: &'q Mutex<Queue>,
    queued: &'q Condvar,
}

impl Drop for CloseOnDrop<'_> {
    fn drop(&mut self) {
        {
            let mut queue = lock(self.queue);
            queue.closed = true;
            queue.waiting.clear();
        }
        self.queued.notify_all();
    }
}

/// The next request for an assembling thread, waiting for one; `None` once the queue is
/// closed and empty.
fn take(queue: &Mutex<Queue>, queued: &Condvar) -> Option<Request> {
    let mut queue = lock(queue);
    loop {
        if let Some(request) = queue.waiting.pop_front() {
            return Some(request);
        }
        if queue.closed {
            return None;
        }
        queue = queued.wait(queue).unwrap_or_else(PoisonError::into_inner);
    }
}

/// Finished contexts, reported in the order of the requests whatever order they finish in.
struct InOrder<'l, 'py> {
    reports: &'l Bound<'py, PyList>,
    finished: BTreeMap<usize, AssembledContext<'static>>,
    reported: usize,
    /// Results of requests reported, to read the next requests into (see `reuse`): each
    /// request's strings are then allocated once per queue slot, not once per request.
    spare: Vec<ParsedResults>,
}

impl<'py> InOrder<'_, 'py> {
    /// Assembles `request` on this thread, with the GIL released, and files it.
    fn assemble_here(
        &mut self,
        py: Python<'py>,
        assembler: &Assembler,
        (at, results): Request,
    ) -> PyResult<()> {
        let context = py.detach(|| assembler.assemble(&results).into_owned());
        self.add(py, (at, context, results))
    }

    /// Files what the other threads have finished so far, without waiting.
    fn take_finished(
        &mut self,
        py: Python<'py>,
        done: &Mutex<mpsc::Receiver<Finished>>,
    ) -> PyResult<()> {
        loop {
            let finished = lock(done).try_recv();
            let Ok(finished) = finished else {
                return Ok(());
            };
            self.add(py, finished)?;
        }
    }

    /// Files one finished context, and reports every context that is now next in order.
    fn add(&mut self, py: Python<'py>, (at, context, results): Finished) -> PyResult<()> {
        if self.spare.len() < SPARE_RESULTS {
            let mut parsed = ParsedResults::default();
            parsed.results = results;
            trim(&mut parsed);
            self.spare.push(parsed);
        }
        self.finished.insert(at, context);
        while let Some(context) = self.finished.remove(&self.reported) {
            self.reports.append(to_python(py, &context)?)?;
            self.reported += 1;
        }
        Ok(())
    }
}

/// `err`, about request `at` of `requests`: its message says which request.
pub(crate) fn located(py: Python<'_>, err: &PyErr, at: usize) -> PyErr {
    let message = err.value(py).to_string();
    let located = format!("requests[{at}]: {message}");
    if err.is_instance_of::<crate::errors::MentorContextError>(py) {
        crate::errors::like(py, err, located)
    } else {
        pyo3::exceptions::PyTypeError::new_err(located)
    }
}

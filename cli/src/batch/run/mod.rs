//! Running a batch: `jobs` threads each read a line, assemble it and write its report, and the
//! reports go out in input order, whatever order they finish in.
//!
//! Each job does the whole of a line's work on its own thread. Handing lines from a reader
//! thread to the jobs, and reports on to a writer thread, cost a sleeping thread's wake-up for
//! every line and freed each request on another thread than the one that allocated it; and it
//! let `--jobs 1` take a second core for the reading and writing. So `--jobs N` means N
//! threads, and nothing else works beside them.
//!
//! Reading is shared under a lock: a job reads its next line into a buffer it keeps. Writing is
//! shared the same way: the job that finishes the line due next writes it, then every later
//! line already finished; a job that finishes early leaves its report in a queue.
//!
//! At most `2 x jobs` lines are in flight (read, not yet written): a job waits before reading
//! a line that far ahead of the writing. So memory follows the number of jobs times the largest
//! request, never the length of the input, and a slow line holds up the reading, not the
//! memory.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use mentor_context::Assembler;
use mentor_context::machinery::start_workers;

use super::progress::Progress;
use super::read::Lines;
use super::report::RunReport;
use super::summary::Summary;
use super::worker::{Done, Taken, Worker};
use crate::output::Failure;

/// Lines in flight per job: one being assembled, one finished early or just read, so a job
/// seldom waits for another's line to be written.
const LINES_PER_JOB: u64 = 2;

/// How a run ended, apart from its summary.
pub(crate) enum Ending {
    /// Every line was read and its report written.
    Complete,
    /// The input could not be read on; the lines before were written.
    InputFailed(Failure),
    /// The output could not be written.
    OutputFailed(Failure),
    /// Not all the jobs could be started (a limit on threads or memory); nothing was read.
    NotStarted(Failure),
}

/// The input side, under its lock.
struct Reading {
    lines: Lines,
    /// The place in the output of the next line read.
    seq: u64,
    /// Set at the end of the input, or when it cannot be read on.
    ended: bool,
    failure: Option<Failure>,
    /// The most lines that were in flight at once, for the tests of the window.
    most_in_flight: u64,
}

/// The output side, under its lock.
struct Writing<'o> {
    out: &'o mut (dyn Write + Send),
    /// The place of the next line to write.
    next: u64,
    /// Lines finished before their turn.
    pending: BTreeMap<u64, Done>,
    summary: Summary,
    /// The `--report` page, counted as lines are written and written again now and then.
    report: Option<RunReport>,
    /// Jobs waiting for room in the window; woken only when there are some, since a wake-up
    /// is a system call.
    waiting: usize,
    failure: Option<Failure>,
}

/// What the jobs share.
struct Shared<'o, 'p> {
    reading: Mutex<Reading>,
    writing: Mutex<Writing<'o>>,
    /// Signalled, with `writing`, when lines are written or the run stops.
    room: Condvar,
    /// Set when the output fails or a job panics: no more lines are read.
    stop: AtomicBool,
    /// The most lines in flight.
    window: u64,
    progress: &'p Progress,
    /// Whether lines keep what a `--report` page lists (their number, id and error).
    keep: bool,
}

/// A lock's guard even if another job panicked while holding it: the run then stops, and its
/// state is only read to end it.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared<'_, '_> {
    /// Reads the next line into `bytes`, once it is within the window of the writing; `None`
    /// when there are no more or the run stops.
    fn take(&self, bytes: &mut Vec<u8>) -> Option<Taken> {
        let mut reading = lock(&self.reading);
        if reading.ended {
            return None;
        }
        {
            let mut writing = lock(&self.writing);
            while reading.seq >= writing.next + self.window && !self.stopped() {
                writing.waiting += 1;
                writing = self
                    .room
                    .wait(writing)
                    .unwrap_or_else(PoisonError::into_inner);
                writing.waiting -= 1;
            }
            let in_flight = reading.seq + 1 - writing.next;
            reading.most_in_flight = reading.most_in_flight.max(in_flight);
        }
        if self.stopped() {
            return None;
        }
        match reading.lines.next_line_into(bytes) {
            Ok(Some((number, consumed))) => {
                let seq = reading.seq;
                reading.seq += 1;
                Some(Taken {
                    seq,
                    number,
                    consumed,
                })
            }
            Ok(None) => {
                reading.ended = true;
                None
            }
            Err(failure) => {
                reading.ended = true;
                reading.failure = Some(failure);
                None
            }
        }
    }

    /// Writes `done` if it is due, then every later line already finished; otherwise queues
    /// it. False when the output cannot be written.
    fn put(&self, done: Done) -> bool {
        let mut writing = lock(&self.writing);
        if writing.failure.is_some() {
            return false;
        }
        let next = writing.next;
        let mut due = if done.seq == next {
            Some(done)
        } else {
            writing.pending.insert(done.seq, done);
            None
        };
        let mut wrote = false;
        while let Some(done) = due {
            if let Err(err) = writing.out.write_all(&done.json) {
                writing.failure = Some(Failure::write_failed(format!(
                    "cannot write the output: {err}"
                )));
                drop(writing);
                self.halt();
                return false;
            }
            writing.summary.add(done.sample.as_ref());
            if let Some(report) = &mut writing.report {
                report.add(&done);
            }
            self.progress
                .advance(done.consumed, writing.summary.requests());
            writing.next += 1;
            wrote = true;
            let next = writing.next;
            due = writing.pending.remove(&next);
        }
        if wrote && writing.waiting > 0 {
            self.room.notify_all();
        }
        // Under the lock, so that pages are written one at a time and in order; a page is
        // due every few seconds and takes a few milliseconds.
        let writing = &mut *writing;
        if let (true, Some(report)) = (wrote, &mut writing.report) {
            report.refresh(&writing.summary);
        }
        true
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Stops the run: no more lines are read, and jobs waiting for room wake to see it.
    fn halt(&self) {
        self.stop.store(true, Ordering::Relaxed);
        // Taken so that a job between its check and its wait cannot miss the wake-up.
        let _writing = lock(&self.writing);
        self.room.notify_all();
    }

    /// One job: lines until there are none, or the run stops.
    fn work(&self, assembler: &Assembler) {
        // A job that panics stops the others, which might otherwise wait for its line.
        struct HaltOnPanic<'s, 'o, 'p>(&'s Shared<'o, 'p>);
        impl Drop for HaltOnPanic<'_, '_, '_> {
            fn drop(&mut self) {
                if std::thread::panicking() {
                    self.0.halt();
                }
            }
        }
        let _guard = HaltOnPanic(self);
        // Nothing is allocated before `take`, which waits for the reading lock that the calling
        // thread holds while the jobs start: a job that has started takes no address space
        // until they all have (see `mentor_context_threads`).
        let mut worker = Worker::new(assembler, self.keep);
        let mut bytes = Vec::new();
        while let Some(taken) = self.take(&mut bytes) {
            if !self.put(worker.process(&taken, &bytes)) {
                break;
            }
        }
    }
}

/// What a run gives back.
pub(crate) struct Finished {
    pub(crate) summary: Summary,
    /// The `--report` page's state, to write it a last time.
    pub(crate) report: Option<RunReport>,
    pub(crate) ending: Ending,
    /// The most lines that were read and not yet written at one time: what the window bounds.
    /// Only the tests read it; keeping it costs a comparison per line.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) most_in_flight: u64,
}

/// Reads every line of `lines`, assembles each with `assembler` on `jobs` threads (the calling
/// thread among them), and writes the reports to `out` in input order, counting each in
/// `report` too if there is one.
pub(crate) fn run(
    lines: Lines,
    jobs: usize,
    assembler: &Assembler,
    out: &mut (dyn Write + Send),
    progress: &Progress,
    report: Option<RunReport>,
) -> Finished {
    let jobs = jobs.max(1);
    let keep = report.is_some();
    let shared = Shared {
        reading: Mutex::new(Reading {
            lines,
            seq: 0,
            ended: false,
            failure: None,
            most_in_flight: 0,
        }),
        writing: Mutex::new(Writing {
            out,
            next: 0,
            pending: BTreeMap::new(),
            summary: Summary::default(),
            report,
            waiting: 0,
            failure: None,
        }),
        room: Condvar::new(),
        stop: AtomicBool::new(false),
        window: jobs as u64 * LINES_PER_JOB,
        progress,
        keep,
    };
    let mut not_started = None;
    std::thread::scope(|scope| {
        let shared = &shared;
        {
            // Held while the jobs start: each waits for it to read its first line, so either
            // every job starts or none reads anything.
            let mut reading = lock(&shared.reading);
            let make_job = || move || shared.work(assembler);
            if let Err(err) = start_workers(scope, jobs, make_job) {
                reading.ended = true;
                not_started = Some(Failure::bad_input(format!("--jobs {jobs}: {err}")));
                return;
            }
        }
        shared.work(assembler);
    });
    if let Some(failure) = not_started {
        return Finished {
            summary: Summary::default(),
            report: None,
            ending: Ending::NotStarted(failure),
            most_in_flight: 0,
        };
    }
    let reading = shared
        .reading
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    let writing = shared
        .writing
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    let ending = match (writing.failure, reading.failure) {
        (Some(failure), _) => Ending::OutputFailed(failure),
        (None, Some(failure)) => Ending::InputFailed(failure),
        (None, None) => Ending::Complete,
    };
    Finished {
        summary: writing.summary,
        report: writing.report,
        ending,
        most_in_flight: reading.most_in_flight,
    }
}

#[cfg(test)]
mod tests;

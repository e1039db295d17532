//! Starting worker threads so that a machine that cannot start them all gives an error, not
//! an abort. Shared by the command's `batch --jobs` and the Python bindings' `assemble_many`.
//!
//! Under a limit on address space (`ulimit -v`, `RLIMIT_AS`), starting threads until one fails
//! leaves the process with nearly none: each stack takes its share, and with glibc each new
//! thread's first allocation maps an arena of its own (64 MiB of address space, for the
//! first 8 threads per core). The next
//! small allocation, in the standard library's thread start, in glibc's list of thread-local
//! destructors or in the error message, then fails, and the process aborts rather than return
//! an error. A sweep of limits aborted `batch --jobs 1024` at 16 limits in 601, and Python's
//! `assemble_many(threads=1024)` at 6 in 400.
//!
//! So [`start`] starts the threads one at a time. Before each, it checks for the stack and a
//! margin (an mmap of no access, unmapped at once); after each, it waits until the new
//! thread has done the allocations of its start, so that nothing takes address space behind
//! the next check. It stops when the margin is not there, and says how many started. The
//! jobs it runs must not allocate until all have started (each of its callers makes them
//! wait on a lock or a queue first): their allocations too would race the check.
//!
//! Not yet covered: a new thread's arena is mapped after the check. When the free address
//! space was just over a stack and an arena, the arena takes the margin, and the standard
//! library's signal stack for that thread can then fail and abort the process. A reviewer
//! found such limits 12 KiB wide, about every 67 MB, for `batch --jobs 1024`. Counting an
//! arena in the check, while glibc still makes new ones, would close them.

#![deny(missing_docs)]

use std::fmt;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::Scope;

/// The stack of each thread: the standard library's default, set on each thread so that the
/// check knows it (`RUST_MIN_STACK` would otherwise change it).
pub const STACK: usize = 2 << 20;

/// The address space kept free beyond a new thread's stack: for starting the thread (its
/// guard page, thread-local storage, the standard library's handles), and for ending with an
/// error. With none, the command's test sweep of limits aborted at some; 4 MiB passed it.
/// 16 MiB leaves room to spare, and is small beside a stack per thread.
pub const MARGIN: usize = 16 << 20;

/// Why not every thread could start: the threads that did have been told nothing, and stop
/// only as their jobs do (callers close what the jobs wait on).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotStarted {
    /// The threads asked for, the calling thread among them.
    pub wanted: usize,
    /// The threads running when the start stopped, the calling thread among them.
    pub started: usize,
    /// Why the next could not start.
    pub reason: String,
}

impl fmt::Display for NotStarted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let NotStarted {
            wanted,
            started,
            reason,
        } = self;
        write!(
            f,
            "cannot start {wanted} threads (started {started}): {reason}"
        )
    }
}

impl std::error::Error for NotStarted {}

/// Starts `count - 1` threads in `scope`, the calling thread being the `count`th: each runs
/// the job that `make_job` gives it. They start one at a time, each only while there is room
/// for its stack and [`MARGIN`] more, and each after the last has done its start.
///
/// # Errors
/// [`NotStarted`] when the address space has too little room for the next thread, or the
/// system refuses it (a limit on processes). The threads already started keep running their
/// jobs; the caller must make those jobs end, as it would at the end of the work.
pub fn start<'scope, 'env, J>(
    scope: &'scope Scope<'scope, 'env>,
    count: usize,
    mut make_job: impl FnMut() -> J,
) -> Result<(), NotStarted>
where
    J: FnOnce() + Send + 'scope,
{
    let arrivals = Arc::new(Arrivals::default());
    for started in 1..count.max(1) {
        let not_started = |reason: String| NotStarted {
            wanted: count,
            started,
            reason,
        };
        if !room_for(STACK + MARGIN) {
            return Err(not_started(
                "too little address space is left for another thread's stack".to_string(),
            ));
        }
        let job = make_job();
        let arrived = Arc::clone(&arrivals);
        let spawned =
            std::thread::Builder::new()
                .stack_size(STACK)
                .spawn_scoped(scope, move || {
                    arrived.arrive();
                    job();
                });
        // The scope joins the thread; its handle is not needed.
        if let Err(err) = spawned {
            return Err(not_started(err.to_string()));
        }
        arrivals.wait_for(started);
    }
    Ok(())
}

/// True when `len` bytes of address space can be mapped now.
///
/// The mapping has no access and is unmapped at once: it touches no memory and is not counted
/// against the memory the system commits to, only against the address space, which is what a
/// stack takes.
#[cfg(unix)]
#[must_use]
fn room_for(len: usize) -> bool {
    // SAFETY: mmap with a null hint chooses fresh addresses, so the mapping overlaps nothing
    // the program uses; it is private, anonymous and inaccessible, and is unmapped before
    // returning with the length it was mapped with.
    unsafe {
        let at = libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANON,
            -1,
            0,
        );
        if at == libc::MAP_FAILED {
            return false;
        }
        libc::munmap(at, len);
    }
    true
}

/// Elsewhere no check: a thread that cannot start is still an error, from the spawn itself.
#[cfg(not(unix))]
#[must_use]
fn room_for(_len: usize) -> bool {
    true
}

/// How many threads have started.
#[derive(Default)]
struct Arrivals {
    count: Mutex<usize>,
    arrived: Condvar,
}

impl Arrivals {
    /// Called by each new thread first: its start is done.
    fn arrive(&self) {
        *self.count.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        self.arrived.notify_one();
    }

    /// Waits until `count` threads have arrived.
    fn wait_for(&self, count: usize) {
        let mut arrived = self.count.lock().unwrap_or_else(PoisonError::into_inner);
        while *arrived < count {
            arrived = self
                .arrived
                .wait(arrived)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

#[cfg(test)]
mod tests;

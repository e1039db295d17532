//! Starting the jobs' threads so that running out of address space is an error, not an abort.
//!
//! Under a limit on address space (`ulimit -v`), starting threads until one fails leaves the
//! process with nearly none: each stack takes its share, and with glibc each new thread's
//! first allocation maps an arena of its own (64 MiB of address space). The next small
//! allocation, in the standard library's thread start or in the error message, then fails,
//! and Rust aborts the process rather than return an error.
//!
//! So the jobs start one at a time. Before each, [`room_for_another_job`] checks for its
//! stack and a margin; after each, [`Arrivals`] waits until the new thread has done the
//! allocations of its start and stopped, so that nothing takes address space behind the
//! next check. The run stops starting jobs while the margin is still there.

use std::sync::{Condvar, Mutex, PoisonError};

/// The stack of each job's thread: the standard library's default, set on each thread so
/// that the check knows it (`RUST_MIN_STACK` would otherwise change it).
pub(super) const JOB_STACK: usize = 2 << 20;

/// The address space kept free beyond a new thread's stack: for starting the thread (its
/// guard page, thread-local storage, the standard library's handles), and for ending the run
/// with its one error line. With none, the CLI test's sweep of limits aborted at some; 4 MiB
/// passed it. 16 MiB leaves room to spare, and is small beside a stack per job.
const MARGIN: usize = 16 << 20;

/// True when `JOB_STACK + MARGIN` bytes of address space can be mapped now.
///
/// The mapping has no access and is unmapped at once: it reserves nothing and touches no
/// memory, so it is not counted against the memory the system commits to, only against the
/// address space, which is what a stack takes.
#[cfg(unix)]
pub(super) fn room_for_another_job() -> bool {
    let len = JOB_STACK + MARGIN;
    // SAFETY: mmap with a null hint chooses fresh addresses, so the mapping overlaps nothing
    // the program uses; it is private, anonymous and inaccessible, and unmapped before
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
pub(super) fn room_for_another_job() -> bool {
    true
}

/// How many jobs' threads have started and stopped to wait for the run to begin.
#[derive(Default)]
pub(super) struct Arrivals {
    count: Mutex<usize>,
    arrived: Condvar,
}

impl Arrivals {
    /// Called by each new job's thread first: its start is done.
    pub(super) fn arrive(&self) {
        *self.count.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        self.arrived.notify_one();
    }

    /// Waits until `count` threads have arrived.
    pub(super) fn wait_for(&self, count: usize) {
        let mut arrived = self.count.lock().unwrap_or_else(PoisonError::into_inner);
        while *arrived < count {
            arrived = self
                .arrived
                .wait(arrived)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

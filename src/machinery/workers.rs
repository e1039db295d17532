//! Starting the worker threads of the command's `batch --jobs` and of the Python bindings'
//! `assemble_many`, with one policy for both: a fixed stack, a cap relative to the cores, and
//! a thread that cannot start reported as an error naming how many did, never a panic.
//!
//! Assembling is bound by the processor, so threads beyond a few per core only wait, and each
//! costs a stack of address space: the cap keeps a mistyped count (`--jobs 10000`) from
//! asking the system for gigabytes of stacks. A system that refuses a thread (a limit on
//! processes or threads, as a container's `pids.max` or `ulimit -u` sets) makes the spawn
//! fail, and that failure is what [`start_workers`] reports.

use std::fmt;
use std::thread::Scope;

/// The stack of each worker thread: the standard library's default, set on each thread so
/// that `RUST_MIN_STACK` does not change what a job may use.
pub const WORKER_STACK: usize = 2 << 20;

/// Worker threads per core at most.
pub const MAX_WORKERS_PER_CORE: usize = 8;

/// The most worker threads on this machine: [`MAX_WORKERS_PER_CORE`] per core the process may
/// use (`std::thread::available_parallelism`, which follows a CPU quota or affinity), and at
/// least that many if the number of cores cannot be found.
#[must_use]
pub fn max_workers() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    cores.saturating_mul(MAX_WORKERS_PER_CORE)
}

/// Why not every worker could start. The ones that did are running their jobs; the caller
/// makes those jobs end (it closes what they wait on), as at the end of the work.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WorkersNotStarted {
    /// The threads asked for, the calling thread among them.
    pub wanted: usize,
    /// The threads running when the start stopped, the calling thread among them.
    pub started: usize,
    /// The system's reason.
    pub reason: String,
}

impl fmt::Display for WorkersNotStarted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let WorkersNotStarted {
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

impl std::error::Error for WorkersNotStarted {}

/// Starts `count - 1` threads in `scope`, the calling thread being the `count`th, each with a
/// stack of [`WORKER_STACK`] running the job `make_job` gives it.
///
/// # Errors
///
/// [`WorkersNotStarted`] when the system refuses a thread. The threads already started keep
/// running their jobs.
pub fn start_workers<'scope, 'env, J>(
    scope: &'scope Scope<'scope, 'env>,
    count: usize,
    mut make_job: impl FnMut() -> J,
) -> Result<(), WorkersNotStarted>
where
    J: FnOnce() + Send + 'scope,
{
    for started in 1..count.max(1) {
        let spawned = std::thread::Builder::new()
            .stack_size(WORKER_STACK)
            .spawn_scoped(scope, make_job());
        // The scope joins the thread; its handle is not needed.
        if let Err(err) = spawned {
            return Err(WorkersNotStarted {
                wanted: count,
                started,
                reason: err.to_string(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    #[test]
    fn each_job_runs_once_on_a_thread_of_its_own() {
        for count in [0, 1, 2, 5] {
            let threads = Mutex::new(Vec::new());
            std::thread::scope(|scope| {
                let threads = &threads;
                start_workers(scope, count, || {
                    move || threads.lock().unwrap().push(std::thread::current().id())
                })
                .unwrap();
            });
            let mut ran = threads.into_inner().unwrap();
            assert_eq!(ran.len(), count.saturating_sub(1), "count {count}");
            assert!(!ran.contains(&std::thread::current().id()));
            ran.sort_unstable_by_key(|id| format!("{id:?}"));
            ran.dedup();
            assert_eq!(ran.len(), count.saturating_sub(1), "count {count}");
        }
    }

    #[test]
    fn the_cap_is_a_whole_number_of_workers_per_core() {
        assert!(max_workers() >= MAX_WORKERS_PER_CORE);
        assert_eq!(max_workers() % MAX_WORKERS_PER_CORE, 0);
    }

    #[test]
    fn the_message_names_what_was_wanted_and_what_started() {
        let err = WorkersNotStarted {
            wanted: 8,
            started: 3,
            reason: "Resource temporarily unavailable (os error 11)".to_string(),
        };
        assert_eq!(
            err.to_string(),
            "cannot start 8 threads (started 3): Resource temporarily unavailable (os error 11)"
        );
    }
}

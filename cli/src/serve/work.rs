//! A request's work on a worker thread: one per core at a time (assembling is work for the
//! processor, so more at once only wait on each other), started only before the request's
//! deadline and told to stop at it.
//!
//! A request past its deadline is answered only once its work has stopped and given its
//! worker back: the work checks the deadline between its renders and counts (a whole
//! prompt's, through the library's `Deadline`), so a 503 `TIMEOUT` means the processor is free
//! again, and a service full of late requests frees itself instead of answering every next one
//! 503 as well. A request whose client goes away has its deadline cancelled the same way.

use std::sync::Arc;

use axum::http::StatusCode;
use mentor_context::prompt::Deadline;
use tokio::sync::Semaphore;

use super::problem::Problem;
use super::reading::tokio_instant;

/// The worker threads' permits.
pub(crate) struct Workers {
    permits: Arc<Semaphore>,
    size: usize,
}

impl Workers {
    /// `size` workers (at least one).
    pub(crate) fn new(size: usize) -> Workers {
        let size = size.max(1);
        Workers {
            permits: Arc::new(Semaphore::new(size)),
            size,
        }
    }

    /// How many workers are at work now.
    pub(crate) fn busy(&self) -> usize {
        self.size - self.permits.available_permits()
    }

    /// Runs `job` on a worker once one is free, by `deadline`: past it, the job is told to
    /// stop (its deadline cancelled), and the answer waits until it has, so its worker is
    /// free again when the 503 is sent.
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        deadline: &Deadline,
        job: impl FnOnce(&Deadline) -> Result<T, Problem> + Send + 'static,
    ) -> Result<T, Problem> {
        let until = tokio_instant(deadline);
        let acquire = self.permits.clone().acquire_owned();
        let permit = match until {
            Some(until) => tokio::time::timeout_at(until, acquire)
                .await
                .map_err(|_| timed_out())?,
            None => acquire.await,
        }
        .map_err(|_| {
            Problem::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "OVERLOADED",
                "the service is stopping",
            )
        })?;
        // Dropped unfinished (the client went away, the service stops): the job stops too.
        let _stop = CancelOnDrop(deadline.clone());
        let given = deadline.clone();
        let mut handle = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            if given.has_passed() {
                return Err(timed_out());
            }
            job(&given)
        });
        let joined = match until {
            Some(until) => match tokio::time::timeout_at(until, &mut handle).await {
                Ok(joined) => joined,
                Err(_) => {
                    deadline.cancel();
                    // The answer is the work's if it finished after all; else the timeout.
                    return match handle.await {
                        Ok(Ok(done)) => Ok(done),
                        _ => Err(timed_out()),
                    };
                }
            },
            None => handle.await,
        };
        joined.map_err(|err| {
            Problem::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "INTERNAL",
                format!("the request's work stopped: {err}"),
            )
        })?
    }
}

/// A request past its timeout: its work has stopped.
pub(crate) fn timed_out() -> Problem {
    Problem::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "TIMEOUT",
        "the request took longer than the timeout (server.timeout_seconds); its work was stopped",
    )
}

/// Cancels its deadline when dropped.
struct CancelOnDrop(Deadline);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use mentor_context::prompt::Deadline;

    use super::Workers;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap()
    }

    /// A job that would run for ever but checks whether its deadline was cancelled, and then
    /// gives up, as a whole prompt's fitting does: when its 503 comes, it has stopped and its
    /// worker is free.
    #[test]
    fn a_job_past_its_deadline_has_stopped_and_freed_its_worker_when_answered() {
        let runtime = runtime();
        let workers = Workers::new(2);
        let checks = Arc::new(AtomicUsize::new(0));
        let stopped = Arc::new(AtomicUsize::new(0));
        let job = |checks: Arc<AtomicUsize>, stopped: Arc<AtomicUsize>| {
            move |deadline: &Deadline| {
                while !deadline.is_cancelled() {
                    checks.fetch_add(1, Ordering::SeqCst);
                    std::thread::yield_now();
                }
                stopped.fetch_add(1, Ordering::SeqCst);
                Err::<(), _>(super::timed_out())
            }
        };
        runtime.block_on(async {
            let (first, second) = (
                Deadline::after(Duration::from_millis(50)),
                Deadline::after(Duration::from_millis(50)),
            );
            let answers = tokio::join!(
                workers.run(&first, job(checks.clone(), stopped.clone())),
                workers.run(&second, job(checks.clone(), stopped.clone())),
            );
            for answer in [answers.0, answers.1] {
                let problem = answer.expect_err("past its deadline");
                assert_eq!(problem.status().as_u16(), 503);
            }
            // Both jobs saw their deadline and ended before their answers came.
            assert_eq!(stopped.load(Ordering::SeqCst), 2);
            assert_eq!(workers.busy(), 0);
            // The next job finds a worker, whatever the two before it did.
            let next = workers
                .run(&Deadline::after(Duration::from_secs(60)), |_| Ok(7))
                .await;
            assert_eq!(next.ok(), Some(7));
        });
        assert!(checks.load(Ordering::SeqCst) > 0);
    }

    /// A job at work holds its worker: `busy` counts it while it runs, and not after.
    #[test]
    fn a_running_job_is_counted_busy_until_it_ends() {
        let runtime = runtime();
        let workers = Workers::new(2);
        assert_eq!(workers.busy(), 0);
        let (started, running) = std::sync::mpsc::channel();
        let (release, released) = std::sync::mpsc::channel::<()>();
        let never = Deadline::never();
        runtime.block_on(async {
            let job = workers.run(&never, move |_| {
                started.send(()).unwrap();
                released.recv().unwrap();
                Ok(1)
            });
            let watch = async {
                tokio::task::spawn_blocking(move || running.recv().unwrap())
                    .await
                    .unwrap();
                let busy = workers.busy();
                release.send(()).unwrap();
                busy
            };
            let (answer, busy) = tokio::join!(job, watch);
            assert_eq!((answer.ok(), busy), (Some(1), 1));
        });
        assert_eq!(workers.busy(), 0);
    }

    /// A job that goes on past its deadline but finishes once told to stop gave an answer
    /// after all: that answer is sent, not a 503.
    #[test]
    fn a_job_that_finishes_once_told_to_stop_is_answered_with_its_work() {
        let runtime = runtime();
        let workers = Workers::new(1);
        let answer = runtime.block_on(workers.run(
            &Deadline::after(Duration::from_millis(20)),
            |deadline: &Deadline| {
                while !deadline.is_cancelled() {
                    std::thread::yield_now();
                }
                Ok(7)
            },
        ));
        assert_eq!(answer.ok(), Some(7));
    }

    /// A request dropped unanswered (its client went away) cancels its job's deadline: a job
    /// with no instant to stop at stops all the same.
    #[test]
    fn a_request_dropped_unanswered_stops_its_job() {
        let runtime = runtime();
        let workers = Workers::new(1);
        let (started, running) = tokio::sync::oneshot::channel();
        // The job looks for its cancellation a bounded number of times, then gives up.
        let (seen, saw) = std::sync::mpsc::channel();
        let never = Deadline::never();
        runtime.block_on(async {
            let job = workers.run(&never, move |deadline: &Deadline| {
                started.send(()).unwrap();
                let mut looks = 0;
                while !deadline.is_cancelled() && looks < 100_000 {
                    looks += 1;
                    std::thread::sleep(Duration::from_micros(100));
                }
                seen.send(deadline.is_cancelled()).unwrap();
                Ok(())
            });
            tokio::select! {
                _ = job => unreachable!("the job ends only when cancelled"),
                _ = running => {}
            }
        });
        assert_eq!(saw.recv().ok(), Some(true));
    }

    /// A deadline already passed: no worker is taken, nothing runs.
    #[test]
    fn a_deadline_already_passed_runs_nothing() {
        let runtime = runtime();
        let workers = Workers::new(1);
        let ran = Arc::new(AtomicUsize::new(0));
        let counted = ran.clone();
        let passed = Deadline::never();
        passed.cancel();
        let answer = runtime.block_on(workers.run(&passed, move |_| {
            counted.fetch_add(1, Ordering::SeqCst);
            Ok(())
        }));
        assert_eq!(answer.unwrap_err().status().as_u16(), 503);
        assert_eq!(ran.load(Ordering::SeqCst), 0);
        assert_eq!(workers.busy(), 0);
    }
}

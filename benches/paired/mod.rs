//! Two workloads timed in alternation, each sample keeping both times, for a ratio that
//! survives a noisy, shared machine: the benches that state figures against a floor share it
//! (each declares `mod paired;`).
//!
//! Each sample keeps the wall time and the thread's CPU time of both. On a machine whose
//! load is several times its cores, the wall time of a sample includes the time the thread
//! waited for a core, which falls on one workload or the other at random; the CPU time does
//! not, so its ratio is the steadier one there.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// The CPU time this thread has used (Linux's `CLOCK_THREAD_CPUTIME_ID`).
fn thread_cpu() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid `timespec` to write to, and the clock exists on Linux.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &raw mut now) };
    assert_eq!(status, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// A wall time and a CPU time, read together.
#[derive(Clone, Copy)]
struct Stamp(Instant, Duration);

impl Stamp {
    fn now() -> Stamp {
        Stamp(Instant::now(), thread_cpu())
    }

    /// The wall and CPU time from `self` to `later`.
    fn to(self, later: Stamp) -> (Duration, Duration) {
        (later.0 - self.0, later.1.saturating_sub(self.1))
    }
}

/// Which of a pair of workloads a benchmark function times.
#[derive(Clone, Copy)]
enum Timed {
    Ours,
    Floor,
}

/// The times of `ours` and of its floor in every sample of a pair of benchmark functions
/// that run both in turn. Criterion times the two functions seconds apart, and on a shared
/// machine the load changes in between; the ratio of each sample's own pair of times, both
/// taken over the same iterations, is free of that.
/// Per sample: (ours, floor) by the wall clock, then by the thread's CPU clock.
#[derive(Default)]
pub(crate) struct Pairs(std::cell::RefCell<Vec<[(f64, f64); 2]>>);

impl Pairs {
    /// Runs `ours` and `floor` in turn `iters` times, the `timed` one first; keeps both
    /// times and returns the timed one's. What each returns is dropped after both clocks
    /// have stopped: freeing a context or a token vector is the caller's work, as in
    /// `mentor-context bench`.
    fn run<A, B>(
        &self,
        iters: u64,
        timed: Timed,
        ours: &mut impl FnMut() -> A,
        floor: &mut impl FnMut() -> B,
    ) -> Duration {
        // (wall, CPU) of the workload run first and of the one run second.
        let mut first = (Duration::ZERO, Duration::ZERO);
        let mut second = first;
        for _ in 0..iters {
            let (a, b);
            let start = Stamp::now();
            let middle = match timed {
                Timed::Ours => {
                    a = black_box(ours());
                    let middle = Stamp::now();
                    b = black_box(floor());
                    middle
                }
                Timed::Floor => {
                    b = black_box(floor());
                    let middle = Stamp::now();
                    a = black_box(ours());
                    middle
                }
            };
            let end = Stamp::now();
            let (wall, cpu) = start.to(middle);
            first = (first.0 + wall, first.1 + cpu);
            let (wall, cpu) = middle.to(end);
            second = (second.0 + wall, second.1 + cpu);
            drop((a, b));
        }
        let (ours_time, floor_time) = match timed {
            Timed::Ours => (first, second),
            Timed::Floor => (second, first),
        };
        self.0.borrow_mut().push([
            (ours_time.0.as_secs_f64(), floor_time.0.as_secs_f64()),
            (ours_time.1.as_secs_f64(), floor_time.1.as_secs_f64()),
        ]);
        first.0
    }

    /// Benchmarks `ours` and `floor` as the functions `ours_name` and `floor_name` of `group`,
    /// then prints the median of the per-sample ratios and writes it to `paired.json` in
    /// criterion's directory for the group, for `report.py`.
    pub(crate) fn bench<A, B>(
        group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
        group_id: &str,
        (ours_name, mut ours): (&str, impl FnMut() -> A),
        (floor_name, mut floor): (&str, impl FnMut() -> B),
    ) {
        let pairs = Pairs::default();
        group.bench_function(ours_name, |b| {
            b.iter_custom(|iters| pairs.run(iters, Timed::Ours, &mut ours, &mut floor));
        });
        group.bench_function(floor_name, |b| {
            b.iter_custom(|iters| pairs.run(iters, Timed::Floor, &mut ours, &mut floor));
        });
        let samples = pairs.0.into_inner();
        if samples.is_empty() {
            // Filtered out: neither function ran.
            return;
        }
        // Median, 10th and 90th percentile of the per-sample ratios by one clock.
        let spread = |clock: usize| {
            let mut ratios: Vec<f64> = samples.iter().map(|s| s[clock].0 / s[clock].1).collect();
            ratios.sort_by(f64::total_cmp);
            let n = ratios.len();
            (ratios[n / 2], ratios[n / 10], ratios[n * 9 / 10])
        };
        let (median, low, high) = spread(0);
        let (cpu, cpu_low, cpu_high) = spread(1);
        eprintln!(
            "{group_id}: {ours_name} / {floor_name} paired over {} samples: median {median:.3} \
             (10th to 90th percentile {low:.3} to {high:.3}); by CPU time {cpu:.3} ({cpu_low:.3} \
             to {cpu_high:.3})",
            samples.len()
        );
        let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
            || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target"),
            std::path::PathBuf::from,
        );
        let dir = target.join("criterion").join(group_id.replace('/', "_"));
        let json = serde_json::json!({
            "ours": ours_name, "floor": floor_name, "samples": samples.len(),
            "median": median, "p10": low, "p90": high,
            "median_cpu": cpu, "p10_cpu": cpu_low, "p90_cpu": cpu_high,
        })
        .to_string();
        if let Err(e) = std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(dir.join("paired.json"), json))
        {
            eprintln!("{group_id}: paired.json not written: {e}");
        }
    }
}

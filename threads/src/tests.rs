use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::ThreadId;

use super::{NotStarted, room_for, start};

#[test]
fn starts_count_less_one_threads_each_running_its_own_job() {
    for count in [0, 1, 2, 5] {
        let made = AtomicUsize::new(0);
        let ran_on: Mutex<Vec<(usize, ThreadId)>> = Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            let outcome = start(scope, count, || {
                let job = made.fetch_add(1, Ordering::Relaxed);
                let ran_on = &ran_on;
                move || {
                    let me = std::thread::current().id();
                    ran_on.lock().unwrap().push((job, me));
                }
            });
            assert_eq!(outcome, Ok(()));
        });
        let mut ran_on = ran_on.into_inner().unwrap();
        ran_on.sort_unstable_by_key(|&(job, _)| job);
        let wanted = count.saturating_sub(1);
        assert_eq!(made.load(Ordering::Relaxed), wanted, "count {count}");
        let jobs: Vec<usize> = ran_on.iter().map(|&(job, _)| job).collect();
        assert_eq!(jobs, (0..wanted).collect::<Vec<_>>(), "each job ran once");
        let mut threads: HashSet<ThreadId> = ran_on.iter().map(|&(_, id)| id).collect();
        threads.insert(std::thread::current().id());
        assert_eq!(threads.len(), wanted + 1, "each on a thread of its own");
    }
}

#[test]
fn room_is_found_for_a_stack_and_not_for_more_than_the_address_space() {
    assert!(room_for(super::STACK + super::MARGIN));
    // No machine maps half of a 64-bit address space.
    #[cfg(all(unix, target_pointer_width = "64"))]
    assert!(!room_for(usize::MAX / 2));
}

#[test]
fn the_error_says_how_many_started_of_how_many_and_why() {
    let error = NotStarted {
        wanted: 1024,
        started: 31,
        reason: "too little address space is left for another thread's stack".to_string(),
    };
    assert_eq!(
        error.to_string(),
        "cannot start 1024 threads (started 31): too little address space is left for another \
         thread's stack"
    );
}

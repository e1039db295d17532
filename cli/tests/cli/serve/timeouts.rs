//! A request past its timeout stops its work: its worker is free when its 503 comes, so the
//! next request is served, and SIGTERM does not wait for work nobody will read.
//!
//! The heavy work is a whole prompt of 40,000 turns through a template that rewrites every
//! message (so each message's share is estimated from its own count): about 8 s to fit in a
//! debug build, sixteen times the longest timeout here, in counts that each check the deadline.
//! What is asserted is state: the answers' statuses, the workers at work as `/metrics` counts
//! them, how the stop went; the read timeouts only catch a hang.

use super::super::TempFile;
use super::{Service, curl, post, terminate};
use crate::prompt::chatml_tokenizer;

/// A template that writes every message in capitals: the fitting cannot find the messages'
/// own text in the prompt, and counts each message to estimate its share.
const SHOUTING: &str = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content | upper }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

/// Turns of a heavy request: seconds of work, far past the timeouts, in a debug build.
const HEAVY_TURNS: usize = 40_000;

/// The files a heavy profile reads, kept while the service runs.
struct Heavy {
    template: TempFile,
    tokenizer: TempFile,
}

impl Heavy {
    fn new() -> Heavy {
        Heavy {
            template: TempFile::new("chat_template.jinja", SHOUTING.as_bytes()),
            tokenizer: chatml_tokenizer(),
        }
    }

    /// A service with `server` as its `[server]` table, a heavy profile `chat` and a light
    /// one, `docs`.
    fn service(&self, server: &str) -> Service {
        Service::configured(
            format!(
                "[server]\n{server}\n\n[profiles.chat]\nwindow = 8192\nchat_template = \"{}\"\n\
                 tokenizer_file = \"{}\"\n\n[profiles.docs]\nbudget = 300\n",
                self.template.path(),
                self.tokenizer.path()
            )
            .as_bytes(),
        )
    }
}

/// A `prompt` body of `turns` turns of history and one result.
fn heavy_body(turns: usize) -> String {
    let mut conversation = Vec::new();
    for turn in 0..turns {
        conversation.push(serde_json::json!({"role": "user",
            "content": format!("question {turn} about feature {} and plan {}", turn % 50, turn % 7)}));
        conversation.push(serde_json::json!({"role": "assistant",
            "content": format!("feature {turn} works on every plan, syncs every {} minutes [1]", turn % 60)}));
    }
    conversation.push(serde_json::json!({"role": "user", "content": "and the cost?"}));
    serde_json::json!({"conversation": conversation,
        "results": [{"content": "Plan B costs 12 EUR a month.", "score": 0.9}]})
    .to_string()
}

/// The value of the gauge `name` in the service's metrics.
fn gauge(service: &Service, name: &str) -> usize {
    let metrics = curl(&[&service.url("/metrics")]);
    metrics
        .body
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{name} ")))
        .unwrap_or_else(|| panic!("no {name} in {}", metrics.body))
        .parse()
        .unwrap()
}

#[test]
fn after_requests_past_the_timeout_their_workers_are_free_and_the_next_is_served() {
    let heavy = Heavy::new();
    let service = heavy.service("timeout_seconds = 0.5");
    // Seconds of work if it were not stopped; curl's 30 s only catch a hang.
    let body = TempFile::new("heavy.json", heavy_body(HEAVY_TURNS).as_bytes());
    // As many heavy requests as the service has workers (one per core): every worker busy.
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let url = service.url("/v1/chat/prompt");
    let late: Vec<_> = (0..cores)
        .map(|_| {
            let (url, path) = (url.clone(), body.path().to_string());
            std::thread::spawn(move || super::post_file(&url, &path))
        })
        .collect();
    for answer in late {
        answer.join().unwrap().problem(503, "TIMEOUT");
    }
    // Each 503 came once its work had stopped: no worker is still at it.
    assert_eq!(gauge(&service, "mentor_context_workers_busy"), 0);
    assert_eq!(gauge(&service, "mentor_context_requests_in_flight"), 0);
    // So a light request on another profile finds a worker within its own timeout.
    let light = post(
        &service.url("/v1/docs/assemble"),
        "[{\"content\": \"Plan B costs 12 EUR a month.\", \"score\": 0.9}]",
    );
    assert_eq!(light.status, 200, "{light:#?}");
}

#[test]
fn sigterm_with_heavy_work_in_flight_answers_it_and_exits_within_the_drain() {
    let heavy = Heavy::new();
    // The drain after SIGTERM lasts header_timeout_seconds + timeout_seconds, so the 503 due
    // one second after the request started has header_timeout_seconds to spare: five, for a
    // machine so loaded that the service's threads wait for a core (one second was not always
    // enough with five builds beside it). The process still exits as soon as it is answered.
    let mut service = heavy.service("timeout_seconds = 1\nheader_timeout_seconds = 5");
    // Seconds of work if it were not stopped.
    let body = TempFile::new("heavy.json", heavy_body(HEAVY_TURNS).as_bytes());
    let url = service.url("/v1/chat/prompt");
    let path = body.path().to_string();
    let in_flight = std::thread::spawn(move || super::post_file(&url, &path));
    // Wait until the work has a worker (a hang bound, not a measure).
    let mut busy = false;
    for _ in 0..1500 {
        if gauge(&service, "mentor_context_workers_busy") > 0 {
            busy = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(busy, "the heavy request never reached a worker");
    terminate(&service.child);
    in_flight.join().unwrap().problem(503, "TIMEOUT");
    // The work stopped at the deadline, so the drain (header_timeout_seconds +
    // timeout_seconds) saw every request answered, and the process did not wait for work
    // nobody reads. 60 s only catches a hang.
    let hang = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(status) = service.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            std::time::Instant::now() < hang,
            "still running 60 s after SIGTERM: the work was not stopped"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(0));
    let log: Vec<String> = service.log.try_iter().collect();
    assert!(
        log.iter()
            .any(|line| line.contains("every request in flight was answered")),
        "{log:#?}"
    );
}

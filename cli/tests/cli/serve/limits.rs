//! The service at its limits: full, past its timeout, stopped with a request in flight or with
//! a client that never finishes its request's head, badly configured, or listening beyond
//! loopback.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, ExitStatus, Stdio};
use std::time::Duration;

use super::super::{TempFile, run};
use super::{Service, curl, fixture, post, terminate};

/// Sends a request's head and half its body, and holds the rest: a slow client in flight.
fn half_sent(service: &Service, body: &str) -> TcpStream {
    let mut stream = TcpStream::connect(&service.address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let head = format!(
        "POST /v1/default/assemble HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream
        .write_all(&body.as_bytes()[..body.len() / 2])
        .unwrap();
    stream.flush().unwrap();
    stream
}

/// Sends the rest of `body` and reads the whole answer.
fn finish(mut stream: TcpStream, body: &str) -> String {
    stream
        .write_all(&body.as_bytes()[body.len() / 2..])
        .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}

/// The service stopped (with `status`) as SIGTERM should stop it: exit 0, saying so.
fn assert_stopped_cleanly(service: &Service, status: ExitStatus) {
    assert_eq!(status.code(), Some(0));
    let log: Vec<String> = service.log.try_iter().collect();
    assert!(
        log.iter()
            .any(|line| line.contains("every request in flight was answered")),
        "{log:#?}"
    );
}

#[test]
fn a_full_service_answers_503_at_once_and_sigterm_answers_what_is_in_flight() {
    let service =
        Service::configured(b"[server]\nconcurrency = 1\n\n[profiles.default]\nbudget = 300\n");
    let body = std::fs::read_to_string(fixture("pricing.json")).unwrap();
    let held = half_sent(&service, &body);
    // Wait until the held request is in flight: the next one then finds the service full.
    let mut full = None;
    for _ in 0..100 {
        let answer = post(&service.url("/v1/default/assemble"), &body);
        if answer.status == 503 {
            full = Some(answer);
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let full = full.expect("a second request finds the service full");
    full.problem(503, "OVERLOADED");
    // SIGTERM with the held request in flight: it is still answered, whole.
    terminate(&service.child);
    std::thread::sleep(Duration::from_millis(200));
    let answer = finish(held, &body);
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
    let expected = run(&[
        "assemble",
        "--json",
        "--budget",
        "300",
        &fixture("pricing.json"),
    ])
    .stdout;
    assert!(answer.ends_with(&expected), "{answer}");
    let mut service = service;
    let status = service.child.wait().unwrap();
    assert_stopped_cleanly(&service, status);
}

/// `concurrency` counts the endpoints' requests together: a request in flight on `assemble`
/// fills a service of one for `cite` and `prompt` too, while the probes still answer.
#[test]
fn concurrency_counts_the_requests_of_every_endpoint_together() {
    let service =
        Service::configured(b"[server]\nconcurrency = 1\n\n[profiles.default]\nbudget = 300\n");
    let body = std::fs::read_to_string(fixture("pricing.json")).unwrap();
    let held = half_sent(&service, &body);
    let mut full = None;
    for _ in 0..100 {
        let answer = post(&service.url("/v1/default/cite"), "{}");
        if answer.status == 503 {
            full = Some(answer);
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    full.expect("cite finds the service full while assemble holds its one place")
        .problem(503, "OVERLOADED");
    post(&service.url("/v1/default/prompt"), "{}").problem(503, "OVERLOADED");
    assert_eq!(curl(&[&service.url("/healthz")]).status, 200);
    let answer = finish(held, &body);
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
}

/// A body still arriving when the timeout is up is the client's: 408, not the service's 503.
#[test]
fn a_body_that_does_not_arrive_within_the_timeout_is_408() {
    let service = Service::configured(
        b"[server]\ntimeout_seconds = 0.05\n\n[profiles.default]\nbudget = 300\n",
    );
    let body = std::fs::read_to_string(fixture("pricing.json")).unwrap();
    let held = half_sent(&service, &body);
    std::thread::sleep(Duration::from_millis(300));
    let answer = finish(held, &body);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("\"code\":\"TIMEOUT\""), "{answer}");
}

#[test]
fn sigterm_does_not_wait_for_a_client_that_never_finishes_its_head() {
    let mut service = Service::configured(
        b"[server]\nheader_timeout_seconds = 0.5\n\n[profiles.default]\nbudget = 300\n",
    );
    let mut stalled = TcpStream::connect(&service.address).unwrap();
    stalled
        .write_all(b"POST /v1/default/assemble HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    terminate(&service.child);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = service.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "still running 10 s after SIGTERM, held by a half-sent head"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_stopped_cleanly(&service, status);
}

#[test]
fn a_bad_configuration_stops_the_start_naming_the_file_profile_and_key() {
    let config = TempFile::new(
        "serve.toml",
        b"[profiles.support]\nbudget = 300\nmax_block = 3\n",
    );
    run(&["serve", "--config", config.path()]).bad(&[
        "error[UNKNOWN_SETTING]",
        config.path(),
        "profiles.support",
        "unknown setting `max_block` (did you mean `max_blocks`?)",
    ]);
    let config = TempFile::new(
        "serve.toml",
        b"[profiles.support]\nbudget = 3\nheader = \"A header far longer than three tokens.\"\n",
    );
    run(&["serve", "--config", config.path()])
        .bad(&["error[HEADER_OVER_BUDGET]", "profiles.support: header:"]);
    let config = TempFile::new(
        "serve.toml",
        b"[server]\nport = 80\n[profiles.a]\nbudget = 3\n",
    );
    run(&["serve", "--config", config.path()]).bad(&["line 2", "unknown field `port`"]);
    let config = TempFile::new(
        "serve.toml",
        b"[server]\nheader_timeout_seconds = 0\n[profiles.a]\nbudget = 3\n",
    );
    run(&["serve", "--config", config.path()])
        .bad(&["server.header_timeout_seconds: 0; expected a number above 0"]);
}

#[test]
fn listening_beyond_loopback_is_warned_about() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mentor-context"))
        .args(["serve", "--listen", "0.0.0.0:0", "--budget", "100"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let first = BufReader::new(child.stderr.take().unwrap())
        .lines()
        .next()
        .unwrap()
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        first.starts_with("mentor-context: warning: listening on 0.0.0.0:"),
        "{first}"
    );
    assert!(first.contains("not loopback"), "{first}");
}

//! The service at the edges of HTTP: every refusal a problem document with a 4xx status,
//! hyper's own included; a body that cannot be read refused from its head at once; a body
//! cut short a 400; a refused body read and thrown away, so a client that writes it whole
//! before reading reads its refusal.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::Duration;

use serde_json::Value;

use super::Service;

/// A service whose body limit is 4096 bytes and whose timeout (60 s) only catches a hang.
fn service() -> Service {
    Service::configured(
        b"[server]\nbody_limit = 4096\ntimeout_seconds = 60\n\n[profiles.small]\nbudget = 300\n",
    )
}

/// Sends `request` (closing the sending half when `close` says so) and reads the answer's
/// status and problem document, without waiting for the connection to close.
fn exchange(service: &Service, request: &[u8], close: bool) -> (u16, Value) {
    let mut stream = TcpStream::connect(&service.address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stream.write_all(request).unwrap();
    if close {
        stream.shutdown(Shutdown::Write).unwrap();
    }
    answer(&mut stream)
}

/// Reads one answer with a `content-length` from `stream`: its status and JSON body.
fn answer(stream: &mut TcpStream) -> (u16, Value) {
    let mut read = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        let n = stream
            .read(&mut buffer)
            .expect("an answer within the hang bound");
        assert!(
            n > 0,
            "closed without a whole answer: {}",
            String::from_utf8_lossy(&read)
        );
        read.extend_from_slice(&buffer[..n]);
        let text = String::from_utf8_lossy(&read).into_owned();
        let Some((head, body)) = text.split_once("\r\n\r\n") else {
            continue;
        };
        let length: usize = head
            .lines()
            .find_map(|line| {
                line.to_ascii_lowercase()
                    .strip_prefix("content-length: ")
                    .map(|n| n.trim().parse().unwrap())
            })
            .expect("a content-length");
        if body.len() < length {
            continue;
        }
        assert!(
            head.to_ascii_lowercase()
                .contains("\r\ncontent-type: application/problem+json\r\n"),
            "{head}"
        );
        let status = head[9..12].parse().unwrap();
        let problem: Value = serde_json::from_str(&body[..length]).expect("a problem is JSON");
        assert_eq!(problem["status"], status, "{problem}");
        return (status, problem);
    }
}

const HEAD: &str =
    "POST /v1/small/assemble HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n";

#[test]
fn a_body_its_head_says_cannot_be_read_is_refused_before_it_is_sent() {
    let service = service();
    // Nothing of the body is sent: the answer cannot wait for it.
    let cases = [
        ("Content-Length: 100000\r\n", 413, "PAYLOAD_TOO_LARGE"),
        (
            "Content-Encoding: gzip\r\nContent-Length: 100\r\n",
            415,
            "UNSUPPORTED_MEDIA_TYPE",
        ),
    ];
    for (fields, status, code) in cases {
        let (got, problem) = exchange(&service, format!("{HEAD}{fields}\r\n").as_bytes(), false);
        assert_eq!(
            (got, problem["code"].as_str()),
            (status, Some(code)),
            "{problem}"
        );
    }
    let utf16 = "POST /v1/small/assemble HTTP/1.1\r\nHost: x\r\nContent-Type: application/json; charset=utf-16\r\nContent-Length: 4\r\n\r\n[\0]\0";
    let (status, problem) = exchange(&service, utf16.as_bytes(), false);
    assert_eq!(
        (status, problem["code"].as_str()),
        (415, Some("UNSUPPORTED_MEDIA_TYPE"))
    );
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("charset=utf-16"),
        "{problem}"
    );
}

#[test]
fn a_body_cut_short_is_a_400_naming_what_came() {
    let service = service();
    let request = format!("{HEAD}Content-Length: 100\r\n\r\n[{{\"content\"");
    let (status, problem) = exchange(&service, request.as_bytes(), true);
    assert_eq!(
        (status, problem["code"].as_str()),
        (400, Some("INVALID_ARGUMENT"))
    );
    assert_eq!(
        problem["detail"],
        "the body ended after 11 of the 100 bytes its Content-Length declares"
    );
}

#[test]
fn hyper_s_own_refusals_are_problem_documents() {
    let service = service();
    let cases = [
        (
            format!("{HEAD}Content-Length: 2\r\nContent-Length: 3\r\n\r\n[]"),
            400,
            "INVALID_ARGUMENT",
        ),
        (
            format!(
                "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
                "a".repeat(1 << 20)
            ),
            431,
            "HEADERS_TOO_LARGE",
        ),
        (
            format!("GET /{} HTTP/1.1\r\nHost: x\r\n\r\n", "a".repeat(70_000)),
            414,
            "URI_TOO_LONG",
        ),
    ];
    for (request, status, code) in cases {
        let (got, problem) = exchange(&service, request.as_bytes(), false);
        assert_eq!(
            (got, problem["code"].as_str()),
            (status, Some(code)),
            "{problem}"
        );
    }
}

/// As Python's `urllib` does: the whole body written before anything is read. The service
/// refuses it (from its `Content-Length` at once, or after 4096 bytes of a chunked body) and
/// reads the rest (8 MB) so the client can finish writing and read the refusal.
#[test]
fn a_client_that_writes_an_oversize_body_whole_before_reading_reads_its_413() {
    let service = service();
    let body = vec![b' '; 8 << 20];
    let framings = [
        (
            format!("Content-Length: {}\r\n\r\n", body.len()),
            String::new(),
        ),
        (
            format!("Transfer-Encoding: chunked\r\n\r\n{:x}\r\n", body.len()),
            "\r\n0\r\n\r\n".to_string(),
        ),
    ];
    for (head, tail) in framings {
        let mut stream = TcpStream::connect(&service.address).unwrap();
        stream
            .set_write_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        stream
            .write_all(format!("{HEAD}{head}").as_bytes())
            .unwrap();
        stream
            .write_all(&body)
            .unwrap_or_else(|err| panic!("{head}: the service stopped reading: {err}"));
        stream.write_all(tail.as_bytes()).unwrap();
        let (status, problem) = answer(&mut stream);
        assert_eq!(
            (status, problem["code"].as_str()),
            (413, Some("PAYLOAD_TOO_LARGE")),
            "{head}"
        );
    }
}

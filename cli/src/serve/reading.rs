//! A request's body, read whole within the limits before any endpoint sees it: refused at
//! once when its head already says it cannot be read (a `Content-Length` over the limit, a
//! `Content-Encoding`, a charset other than UTF-8), refused when it ends before its declared
//! length or does not arrive within the timeout; and what a refused body still sends is read
//! and thrown away, up to a bound, so a client that writes its whole body before reading
//! (Python's `urllib`) reads its refusal instead of a reset connection.

use std::pin::Pin;

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::Request;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use mentor_context::ErrorKind;
use mentor_context::prompt::Deadline;

use super::problem::Problem;

/// The most bytes of a refused body read and thrown away after the refusal: past it, the
/// connection is closed (and a client still writing sees it reset).
pub(crate) const DISCARD_BYTES: u64 = 64 << 20;

/// `request` with its body read whole (at most `limit` bytes) by `deadline`, or the refusal.
pub(crate) async fn read(
    request: Request,
    limit: usize,
    deadline: &Deadline,
) -> Result<Request, Response> {
    let (parts, body) = request.into_parts();
    if let Some(problem) = unreadable(&parts.headers, limit) {
        return Err(refuse(problem, body, &parts.headers, deadline));
    }
    let declared = declared_length(&parts.headers);
    let mut body = body;
    let mut bytes: Vec<u8> =
        Vec::with_capacity(declared.map_or(0, |n| n.min(limit as u64)) as usize);
    let until = tokio_instant(deadline);
    loop {
        let frame = match until {
            Some(until) => match tokio::time::timeout_at(until, next_data(&mut body)).await {
                Ok(frame) => frame,
                Err(_) => return Err(too_slow(bytes.len(), declared).into_response()),
            },
            None => next_data(&mut body).await,
        };
        match frame {
            None => break,
            Some(Ok(data)) => {
                if bytes.len() + data.len() > limit {
                    return Err(refuse(over_limit(limit), body, &parts.headers, deadline));
                }
                bytes.extend_from_slice(&data);
            }
            Some(Err(err)) => return Err(cut_short(bytes.len(), declared, &err).into_response()),
        }
    }
    Ok(Request::from_parts(parts, Body::from(Bytes::from(bytes))))
}

/// What the head alone says cannot be read: a declared length over the limit (413), a body
/// encoded (415) or in a charset other than UTF-8 (415).
fn unreadable(headers: &HeaderMap, limit: usize) -> Option<Problem> {
    if declared_length(headers).is_some_and(|length| length > limit as u64) {
        return Some(over_limit(limit));
    }
    for encoding in headers.get_all(header::CONTENT_ENCODING) {
        let encoding = String::from_utf8_lossy(encoding.as_bytes());
        if encoding
            .split(',')
            .any(|coding| !coding.trim().eq_ignore_ascii_case("identity"))
        {
            return Some(Problem::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "UNSUPPORTED_MEDIA_TYPE",
                format!(
                    "Content-Encoding: {}: the body must be sent as it is, not encoded",
                    encoding.trim()
                ),
            ));
        }
    }
    let charset = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(charset);
    match charset {
        Some(charset) if !charset.eq_ignore_ascii_case("utf-8") => Some(Problem::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "UNSUPPORTED_MEDIA_TYPE",
            format!("charset={charset}: the body must be UTF-8 (charset=utf-8, or none)"),
        )),
        _ => None,
    }
}

/// The `charset` parameter of a `Content-Type`, without its quotes.
fn charset(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|parameter| {
        let (name, value) = parameter.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches('"'))
    })
}

/// The `Content-Length` the head declares (hyper has refused a head with two that differ).
fn declared_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse().ok())
}

fn over_limit(limit: usize) -> Problem {
    Problem::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "PAYLOAD_TOO_LARGE",
        format!("the body is over the limit of {limit} bytes (server.body_limit)"),
    )
}

/// The connection ended (or broke) inside the body: a client's mistake, 400.
fn cut_short(read: usize, declared: Option<u64>, err: &axum::Error) -> Problem {
    let detail = match declared {
        Some(declared) => format!(
            "the body ended after {read} of the {declared} bytes its Content-Length declares"
        ),
        None => format!("the body cannot be read after {read} bytes: {err}"),
    };
    Problem::bad_request(ErrorKind::InvalidArgument, detail)
}

/// The body still arriving when the time is up: the client's, 408, and the connection closed.
fn too_slow(read: usize, declared: Option<u64>) -> Problem {
    let of = declared.map_or(String::new(), |declared| format!(" of {declared}"));
    Problem::new(
        StatusCode::REQUEST_TIMEOUT,
        "TIMEOUT",
        format!(
            "the body did not arrive within the timeout (server.timeout_seconds): {read}{of} bytes came"
        ),
    )
}

/// `problem` answered now, and the rest of `body` read and thrown away behind it (up to
/// [`DISCARD_BYTES`], by `deadline`) so that the connection is not closed under a client still
/// writing. A client that asked to be told before sending (`Expect: 100-continue`) sends
/// nothing more: its body is left unread, and hyper closes the connection.
fn refuse(problem: Problem, body: Body, headers: &HeaderMap, deadline: &Deadline) -> Response {
    let expects = headers
        .get(header::EXPECT)
        .is_some_and(|value| value.as_bytes().eq_ignore_ascii_case(b"100-continue"));
    if !expects {
        tokio::spawn(discard(body, tokio_instant(deadline)));
    }
    let mut response = problem.into_response();
    response.headers_mut().insert(
        header::CONNECTION,
        axum::http::HeaderValue::from_static("close"),
    );
    response
}

/// Reads `body` to its end and drops it, giving up past [`DISCARD_BYTES`] or `until`.
async fn discard(mut body: Body, until: Option<tokio::time::Instant>) {
    let drain = async {
        let mut thrown = 0u64;
        while let Some(Ok(data)) = next_data(&mut body).await {
            thrown += data.len() as u64;
            if thrown > DISCARD_BYTES {
                break;
            }
        }
    };
    match until {
        Some(until) => {
            let _ = tokio::time::timeout_at(until, drain).await;
        }
        None => drain.await,
    }
}

/// The next piece of `body`'s data (trailers are none of it), `None` at its end.
async fn next_data(body: &mut Body) -> Option<Result<Bytes, axum::Error>> {
    std::future::poll_fn(|cx| Pin::new(&mut *body).poll_frame(cx))
        .await
        .map(|frame| frame.map(|frame| frame.into_data().unwrap_or_default()))
}

/// The deadline's instant on tokio's clock.
pub(crate) fn tokio_instant(deadline: &Deadline) -> Option<tokio::time::Instant> {
    deadline.instant().map(tokio::time::Instant::from_std)
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.append(name, HeaderValue::from_str(value).unwrap());
        }
        headers
    }

    fn status(pairs: &[(header::HeaderName, &str)]) -> Option<u16> {
        unreadable(&headers(pairs), 100).map(|problem| problem.status().as_u16())
    }

    /// A body `left` chunks long, counting the bytes taken from it.
    struct Chunks {
        left: usize,
        chunk: Bytes,
        taken: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    }

    impl HttpBody for Chunks {
        type Data = Bytes;
        type Error = std::convert::Infallible;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, Self::Error>>> {
            if self.left == 0 {
                return std::task::Poll::Ready(None);
            }
            self.left -= 1;
            let chunk = self.chunk.clone();
            self.taken
                .fetch_add(chunk.len(), std::sync::atomic::Ordering::SeqCst);
            std::task::Poll::Ready(Some(Ok(hyper::body::Frame::data(chunk))))
        }
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    /// A body that declares no length is held to the limit as it comes: `limit` bytes are
    /// read, one more is a 413.
    #[test]
    fn a_body_without_a_length_is_read_up_to_the_limit_and_no_further() {
        let runtime = runtime();
        let read_of = |size: usize| {
            let request = Request::builder()
                .body(Body::from(vec![b'x'; size]))
                .unwrap();
            runtime
                .block_on(read(request, 100, &Deadline::never()))
                .map(Request::into_body)
                .map_err(|response| response.status().as_u16())
        };
        let whole = read_of(100).expect("at the limit");
        let bytes = runtime.block_on(axum::body::to_bytes(whole, 1000)).unwrap();
        assert_eq!(bytes.len(), 100);
        assert_eq!(read_of(101).err(), Some(413));
    }

    /// A refused body is thrown away up to the bound and no further: reading stops at the
    /// first chunk past [`DISCARD_BYTES`], of a body twice as long.
    #[test]
    fn a_refused_body_is_thrown_away_only_up_to_the_bound() {
        const CHUNK: usize = 1 << 20;
        let taken = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let body = Body::new(Chunks {
            left: 2 * usize::try_from(DISCARD_BYTES).unwrap() / CHUNK,
            chunk: Bytes::from(vec![0; CHUNK]),
            taken: taken.clone(),
        });
        runtime().block_on(discard(body, None));
        let taken = taken.load(std::sync::atomic::Ordering::SeqCst);
        assert_eq!(taken, usize::try_from(DISCARD_BYTES).unwrap() + CHUNK);
    }

    /// Behind a refusal, the body is read away (a client writing it whole before reading then
    /// reads its answer), unless the client asked to be told first (`Expect: 100-continue`):
    /// then it sends no more, and nothing is read. The refusal closes the connection.
    #[test]
    fn a_refused_body_is_read_away_unless_the_client_waits_to_be_told() {
        let runtime = runtime();
        let taken_behind = |pairs: &[(header::HeaderName, &str)]| {
            let taken = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let body = Body::new(Chunks {
                left: 3,
                chunk: Bytes::from_static(b"0123456789"),
                taken: taken.clone(),
            });
            runtime.block_on(async {
                let response = refuse(over_limit(1), body, &headers(pairs), &Deadline::never());
                assert_eq!(response.status().as_u16(), 413);
                assert_eq!(response.headers()[header::CONNECTION], "close");
                // The discard runs on this thread: a bounded number of turns lets it finish.
                for _ in 0..100 {
                    tokio::task::yield_now().await;
                }
            });
            taken.load(std::sync::atomic::Ordering::SeqCst)
        };
        assert_eq!(taken_behind(&[]), 30);
        assert_eq!(taken_behind(&[(header::EXPECT, "100-Continue")]), 0);
    }

    #[test]
    fn a_head_that_says_the_body_cannot_be_read_is_refused_before_it() {
        assert_eq!(status(&[(header::CONTENT_LENGTH, "101")]), Some(413));
        assert_eq!(status(&[(header::CONTENT_LENGTH, "100")]), None);
        assert_eq!(status(&[(header::CONTENT_ENCODING, "gzip")]), Some(415));
        assert_eq!(
            status(&[(header::CONTENT_ENCODING, "identity, br")]),
            Some(415)
        );
        assert_eq!(status(&[(header::CONTENT_ENCODING, "Identity")]), None);
        let utf16 = (header::CONTENT_TYPE, "application/json; charset=utf-16");
        assert_eq!(status(&[utf16]), Some(415));
        let quoted = (header::CONTENT_TYPE, "application/json;Charset=\"UTF-8\"");
        assert_eq!(status(&[quoted]), None);
        assert_eq!(status(&[(header::CONTENT_TYPE, "application/json")]), None);
    }
}

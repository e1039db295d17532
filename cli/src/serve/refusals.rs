//! hyper's own refusals as problem documents.
//!
//! hyper answers a request head it cannot parse by itself, before any service sees it: 400
//! (a malformed line, `Content-Length` given twice), 431 (a head over its buffer or of more
//! than 100 fields), 414 (a URI over 65,534 bytes), each with an empty body, and then closes
//! the connection. It has no hook for those answers, so a connection's writes pass through
//! [`Refusals`], which gives such an answer (a 4xx or 5xx head with `content-length: 0` and
//! no content type, which the service itself never sends) the problem document every other
//! refusal has.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use axum::http::StatusCode;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::problem::Problem;

/// A connection whose hyper-written refusals are rewritten as problem documents.
pub(crate) struct Refusals<S> {
    inner: S,
    /// A rewritten refusal not yet written whole.
    pending: Vec<u8>,
    sent: usize,
}

impl<S> Refusals<S> {
    pub(crate) fn new(inner: S) -> Refusals<S> {
        Refusals {
            inner,
            pending: Vec::new(),
            sent: 0,
        }
    }
}

impl<S: AsyncWrite + Unpin> Refusals<S> {
    /// Writes what is pending of a rewritten refusal.
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.sent < self.pending.len() {
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &self.pending[self.sent..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.sent += n;
        }
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Refusals<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Refusals<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_pending(cx))?;
        if let Some(rewritten) = rewritten(buf) {
            this.pending = rewritten;
            this.sent = 0;
            // The caller's bytes are taken; the rest goes out on the next write or flush.
            if let Poll::Ready(Err(err)) = this.poll_pending(cx) {
                return Poll::Ready(Err(err));
            }
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_pending(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_pending(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }

    // One buffer per write, so that a refusal's head is seen whole in one.
    fn is_write_vectored(&self) -> bool {
        false
    }
}

/// The longest head taken for one of hyper's refusals (they are about 100 bytes).
const REFUSAL_BYTES: usize = 1024;

/// `written` as a problem document, when it is one of hyper's own refusals: a whole head of a
/// 4xx or 5xx status, `content-length: 0`, no content type.
fn rewritten(written: &[u8]) -> Option<Vec<u8>> {
    // hyper's refusals are a short head alone; a response's body is never looked through.
    if written.len() > REFUSAL_BYTES || !written.starts_with(b"HTTP/1.1 ") {
        return None;
    }
    let head = std::str::from_utf8(written).ok()?;
    let rest = head.strip_prefix("HTTP/1.1 ")?;
    let status: u16 = rest.get(..3)?.parse().ok()?;
    let lines = head.strip_suffix("\r\n\r\n")?;
    if !(400..600).contains(&status) || lines.contains("\r\n\r\n") {
        return None;
    }
    let mut fields = lines.split("\r\n").skip(1);
    let lower = |line: &str| line.to_ascii_lowercase();
    if fields
        .clone()
        .any(|line| lower(line).starts_with("content-type:"))
        || !fields.any(|line| lower(line) == "content-length: 0")
    {
        return None;
    }
    let status = StatusCode::from_u16(status).ok()?;
    let (code, detail) = match status.as_u16() {
        400 => (
            "INVALID_ARGUMENT",
            "the request's head is not HTTP/1.1 that can be read (a malformed line, or a \
             Content-Length given twice)",
        ),
        408 => (
            "TIMEOUT",
            "the request's head did not arrive within server.header_timeout_seconds",
        ),
        414 => ("URI_TOO_LONG", "the request's URI is over 65,534 bytes"),
        431 => (
            "HEADERS_TOO_LARGE",
            "the request's head is too large: over 100 header fields, or over 400 KiB",
        ),
        _ => ("INVALID_ARGUMENT", "the request cannot be read as HTTP/1.1"),
    };
    let body = serde_json::to_vec(&Problem::new(status, code, detail)).ok()?;
    let mut out = String::with_capacity(lines.len() + 64);
    for (at, line) in lines.split("\r\n").enumerate() {
        if at > 0 && line.eq_ignore_ascii_case("content-length: 0") {
            out.push_str("content-type: application/problem+json\r\n");
            out.push_str(&format!("content-length: {}", body.len()));
        } else {
            out.push_str(line);
        }
        out.push_str("\r\n");
    }
    out.push_str("\r\n");
    let mut out = out.into_bytes();
    out.extend_from_slice(&body);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::rewritten;

    /// A writer that takes at most 7 bytes a call, or none.
    struct Narrow {
        written: Vec<u8>,
        takes: usize,
    }

    impl tokio::io::AsyncWrite for Narrow {
        fn poll_write(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
            buf: &[u8],
        ) -> std::task::Poll<std::io::Result<usize>> {
            let n = buf.len().min(self.takes);
            self.written.extend_from_slice(&buf[..n]);
            std::task::Poll::Ready(Ok(n))
        }
        fn poll_flush(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            std::task::Poll::Ready(Ok(()))
        }
        fn poll_shutdown(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            std::task::Poll::Ready(Ok(()))
        }
    }

    /// A refusal is taken whole in one write and goes out in as many writes as the
    /// connection needs, all of it; a connection that takes nothing is an error, not a loop.
    #[test]
    fn a_rewritten_refusal_is_written_whole_through_short_writes() {
        use tokio::io::AsyncWrite;
        let head = b"HTTP/1.1 414 URI Too Long\r\ncontent-length: 0\r\n\r\n";
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        let mut connection = super::Refusals::new(Narrow {
            written: Vec::new(),
            takes: 7,
        });
        let taken = std::pin::Pin::new(&mut connection).poll_write(&mut cx, head);
        assert!(matches!(taken, std::task::Poll::Ready(Ok(n)) if n == head.len()));
        let flushed = std::pin::Pin::new(&mut connection).poll_flush(&mut cx);
        assert!(matches!(flushed, std::task::Poll::Ready(Ok(()))));
        assert_eq!(Some(connection.inner.written), rewritten(head));

        let mut closed = super::Refusals::new(Narrow {
            written: Vec::new(),
            takes: 0,
        });
        let taken = std::pin::Pin::new(&mut closed).poll_write(&mut cx, head);
        assert!(
            matches!(taken, std::task::Poll::Ready(Err(e)) if e.kind() == std::io::ErrorKind::WriteZero)
        );
    }

    /// A writer that is not ready every other call, and takes at most 7 bytes when it is;
    /// it records how much it held when it was flushed or shut down.
    #[derive(Default)]
    struct Stuttering {
        written: Vec<u8>,
        calls: usize,
        flushed_at: Option<usize>,
        shut_at: Option<usize>,
    }

    impl Stuttering {
        /// Whether this call is one the writer is not ready for (every second one).
        fn stutters(&mut self) -> bool {
            self.calls += 1;
            self.calls.is_multiple_of(2)
        }
    }

    impl tokio::io::AsyncWrite for Stuttering {
        fn poll_write(
            mut self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
            buf: &[u8],
        ) -> std::task::Poll<std::io::Result<usize>> {
            if self.stutters() {
                cx.waker().wake_by_ref();
                return std::task::Poll::Pending;
            }
            let n = buf.len().min(7);
            self.written.extend_from_slice(&buf[..n]);
            std::task::Poll::Ready(Ok(n))
        }
        fn poll_flush(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            self.flushed_at = Some(self.written.len());
            std::task::Poll::Ready(Ok(()))
        }
        fn poll_shutdown(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            self.shut_at = Some(self.written.len());
            std::task::Poll::Ready(Ok(()))
        }
    }

    /// A connection that is not ready partway through a rewritten refusal: the write is taken
    /// whole, and a flush or a shutdown first writes the rest of the refusal (polled again
    /// while the connection is not ready, never more often than there are bytes), then
    /// flushes or shuts down the connection itself.
    #[test]
    fn a_flush_or_shutdown_writes_the_rest_of_a_refusal_first() {
        use std::pin::Pin;
        use std::task::Poll;
        use tokio::io::AsyncWrite;
        let head = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n";
        let whole = rewritten(head).expect("rewritten");
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        for shutdown in [false, true] {
            let mut connection = super::Refusals::new(Stuttering::default());
            let taken = Pin::new(&mut connection).poll_write(&mut cx, head);
            assert!(matches!(taken, Poll::Ready(Ok(n)) if n == head.len()));
            assert!(connection.inner.written.len() < whole.len());
            let mut polls = 0;
            loop {
                let done = if shutdown {
                    Pin::new(&mut connection).poll_shutdown(&mut cx)
                } else {
                    Pin::new(&mut connection).poll_flush(&mut cx)
                };
                polls += 1;
                match done {
                    Poll::Ready(done) => break done.unwrap(),
                    Poll::Pending => assert!(polls <= whole.len(), "never done"),
                }
            }
            let inner = &connection.inner;
            assert_eq!(inner.written, whole, "shutdown: {shutdown}");
            let (done_at, other) = if shutdown {
                (inner.shut_at, inner.flushed_at)
            } else {
                (inner.flushed_at, inner.shut_at)
            };
            assert_eq!((done_at, other), (Some(whole.len()), None));
        }
    }

    /// Each of hyper's refusals gets its own code and a detail naming its cause; a status
    /// hyper has no cause for here is a request that cannot be read.
    #[test]
    fn each_refusal_names_its_cause() {
        for (status, code, cause) in [
            (400, "INVALID_ARGUMENT", "Content-Length given twice"),
            (408, "TIMEOUT", "header_timeout_seconds"),
            (414, "URI_TOO_LONG", "65,534 bytes"),
            (431, "HEADERS_TOO_LARGE", "100 header fields"),
            (505, "INVALID_ARGUMENT", "cannot be read as HTTP/1.1"),
        ] {
            let head = format!("HTTP/1.1 {status} X\r\ncontent-length: 0\r\n\r\n");
            let out = String::from_utf8(rewritten(head.as_bytes()).expect("rewritten")).unwrap();
            let body = out.split_once("\r\n\r\n").unwrap().1;
            let problem: serde_json::Value = serde_json::from_str(body).unwrap();
            assert_eq!(problem["code"].as_str(), Some(code), "{status}");
            let detail = problem["detail"].as_str().unwrap_or_default();
            assert!(detail.contains(cause), "{status}: {detail}");
        }
    }

    /// Only a head alone, of at most `REFUSAL_BYTES`, is looked at: a longer write, or one
    /// with anything after its head, is passed on as it is.
    #[test]
    fn a_long_write_or_one_past_its_head_is_not_looked_through() {
        let refusal = "HTTP/1.1 431 X\r\ncontent-length: 0\r\n";
        let padding = format!("x-pad: {}\r\n", "a".repeat(super::REFUSAL_BYTES));
        let long = format!("{refusal}{padding}\r\n");
        assert_eq!(rewritten(long.as_bytes()), None);
        let at_bound = format!(
            "{refusal}x-pad: {}\r\n\r\n",
            "a".repeat(super::REFUSAL_BYTES - refusal.len() - 11)
        );
        assert_eq!(at_bound.len(), super::REFUSAL_BYTES);
        assert!(rewritten(at_bound.as_bytes()).is_some());
        let past_head = format!("{refusal}\r\nX\r\n\r\n");
        assert_eq!(rewritten(past_head.as_bytes()), None);
    }

    #[test]
    fn only_hyper_s_empty_refusals_are_rewritten() {
        let refusal = b"HTTP/1.1 431 Request Header Fields Too Large\r\nconnection: close\r\ncontent-length: 0\r\ndate: Sun, 06 Dec 2026 05:24:58 GMT\r\n\r\n";
        let out = String::from_utf8(rewritten(refusal).expect("rewritten")).unwrap();
        let (head, body) = out.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"));
        assert!(head.contains("\r\ncontent-type: application/problem+json\r\n"));
        assert!(head.contains(&format!("\r\ncontent-length: {}\r\n", body.len())));
        assert!(head.ends_with("date: Sun, 06 Dec 2026 05:24:58 GMT"));
        let problem: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(
            (problem["status"].as_u64(), problem["code"].as_str()),
            (Some(431), Some("HEADERS_TOO_LARGE"))
        );
        for kept in [
            &b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"[..],
            b"HTTP/1.1 413 Payload Too Large\r\ncontent-type: application/problem+json\r\ncontent-length: 0\r\n\r\n",
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 10\r\n\r\n",
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n{}",
            b"{\"type\":\"HTTP/1.1 400\"}",
        ] {
            assert_eq!(rewritten(kept), None, "{}", String::from_utf8_lossy(kept));
        }
    }
}

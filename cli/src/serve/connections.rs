//! Taking connections: HTTP/1.1 over TCP, each connection bounded in how long it may take to
//! send a request's head, and a stop that drains what is in flight within a bound.
//!
//! `axum::serve` sets no timer on its connections, so a client that sends half a request
//! head and waits holds its connection for ever, and a stop waits for it for ever too. Here
//! each connection gets `header_timeout` to send a whole head; a request's work is bounded by
//! the router's own timeout; and a stop gives the connections in flight the sum of the two to
//! finish (a client that does not read its answer could hold one longer), then closes them.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;

use super::refusals::Refusals;

/// How a stop went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Drained {
    /// Every connection finished what it was doing.
    Whole,
    /// Connections still open when the drain's time was up, closed unfinished.
    Cut(usize),
}

/// Serves `router` on `listener` until `stop` resolves, then drains.
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    header_timeout: Duration,
    drain: Duration,
    stop: impl Future<Output = ()>,
) -> Drained {
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    let graceful = GracefulShutdown::new();
    let open = Arc::new(AtomicUsize::new(0));
    let mut stop = std::pin::pin!(stop);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(err) => {
                    // Out of file descriptors and the like: wait, rather than spin.
                    tracing::warn!("cannot accept a connection: {err}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(router.clone());
        let connection = builder.serve_connection(TokioIo::new(Refusals::new(stream)), service);
        let watched = graceful.watch(connection);
        open.fetch_add(1, Ordering::SeqCst);
        let open = open.clone();
        tokio::spawn(async move {
            if let Err(err) = watched.await {
                tracing::debug!("connection ended: {err}");
            }
            open.fetch_sub(1, Ordering::SeqCst);
        });
    }
    drop(listener);
    match tokio::time::timeout(drain, graceful.shutdown()).await {
        Ok(()) => Drained::Whole,
        // The runtime ends with `serve`'s caller, and the connections' tasks with it.
        Err(_) => Drained::Cut(open.load(Ordering::SeqCst)),
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::time::{Duration, Instant};

    use axum::Router;
    use axum::routing::get;
    use tokio::net::TcpListener;
    use tokio::sync::oneshot;

    use super::{Drained, serve};

    /// A service on a free port with a 0.2 s head timeout and `drain`, a route that answers
    /// 64 MB, and a way to stop it; the answer is how its stop went.
    fn service(
        drain: Duration,
    ) -> (
        String,
        oneshot::Sender<()>,
        std::thread::JoinHandle<Drained>,
    ) {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let listener = runtime.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let router = Router::new().route("/big", get(|| async { vec![b'x'; 64 << 20] }));
        let (stop, stopped) = oneshot::channel::<()>();
        let head = Duration::from_millis(200);
        let done = std::thread::spawn(move || {
            runtime.block_on(serve(listener, router, head, drain, async {
                let _ = stopped.await;
            }))
        });
        (address, stop, done)
    }

    #[test]
    fn a_connection_that_never_finishes_its_head_is_closed() {
        let (address, stop, done) = service(Duration::from_secs(5));
        let mut client = TcpStream::connect(&address).unwrap();
        client
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        client
            .write_all(b"GET /big HTTP/1.1\r\nHost: x\r\n")
            .unwrap();
        let started = Instant::now();
        let mut rest = Vec::new();
        // Closed by the service: the read ends (with nothing, or a 408) instead of waiting.
        let _ = client.read_to_end(&mut rest);
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        assert!(
            !rest.starts_with(b"HTTP/1.1 200"),
            "{}",
            String::from_utf8_lossy(&rest)
        );
        stop.send(()).unwrap();
        assert_eq!(done.join().unwrap(), Drained::Whole);
    }

    #[test]
    fn a_stop_does_not_wait_for_a_head_that_never_ends() {
        let (address, stop, done) = service(Duration::from_secs(30));
        let mut client = TcpStream::connect(&address).unwrap();
        client
            .write_all(b"GET /big HTTP/1.1\r\nHost: x\r\n")
            .unwrap();
        std::thread::sleep(Duration::from_millis(50));
        let started = Instant::now();
        stop.send(()).unwrap();
        assert_eq!(done.join().unwrap(), Drained::Whole);
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn a_stop_closes_what_is_still_open_when_the_drain_is_over() {
        let (address, stop, done) = service(Duration::from_millis(300));
        // Asks for 64 MB and reads none of it: the answer cannot be written out.
        let mut client = TcpStream::connect(&address).unwrap();
        client
            .write_all(b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        std::thread::sleep(Duration::from_millis(300));
        let started = Instant::now();
        stop.send(()).unwrap();
        assert_eq!(done.join().unwrap(), Drained::Cut(1));
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        drop(client);
    }
}

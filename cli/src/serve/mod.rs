//! `serve`: the library over HTTP, for backends in other languages (.NET, Go, Java). One
//! process beside the backend, stateless, its profiles checked once at start.
//!
//! [`profiles`] reads the configuration; [`app`] is the routes and their layers; [`endpoints`]
//! does each endpoint's work, the command's own (`assemble --json`, `cite`, `prompt --json`);
//! [`connections`] takes connections and drains them on stop, their refusals by hyper made
//! problem documents by [`refusals`]; [`reading`] reads a request's
//! body within the limits and [`body`] its JSON parts; [`work`] runs a request's work by its
//! deadline;
//! [`problem`] writes errors as problem details; [`metrics`] counts; [`openapi`] describes it
//! all.

mod app;
mod body;
mod connections;
mod endpoints;
mod metrics;
mod openapi;
mod problem;
mod profiles;
mod reading;
mod refusals;
mod schemas;
mod work;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::options::BuildArgs;
use crate::output::{Failure, error_line, warning_line};
use crate::prompt::PromptSettings;
use connections::Drained;
use profiles::Config;

/// `serve`'s flags.
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// The address to listen on; port 0 takes a free one, which the first line says
    /// [default: 127.0.0.1:8080, or the configuration's server.listen].
    #[arg(long, value_name = "ADDRESS")]
    listen: Option<SocketAddr>,

    /// The service's configuration: a TOML file of `[profiles.NAME]` tables, each the
    /// settings of one profile (the names of `--settings`), and an optional `[server]` table
    /// (listen, body_limit, concurrency, timeout_seconds, header_timeout_seconds). Without it,
    /// the options below make one profile, `default`.
    #[arg(long, value_name = "FILE", conflicts_with = "settings_file")]
    config: Option<PathBuf>,

    #[command(flatten)]
    build: BuildArgs,

    #[command(flatten)]
    prompt: PromptSettings,
}

/// Runs the service until SIGTERM or Ctrl-C; requests in flight are answered first.
pub(crate) fn run(args: &ServeArgs) -> ExitCode {
    match start(args) {
        Ok(code) => code,
        Err(failure) => failure.report(),
    }
}

fn start(args: &ServeArgs) -> Result<ExitCode, Failure> {
    let config = match &args.config {
        Some(path) => Config::read(path)?,
        None => Config::of_settings(args.prompt.over(args.build.settings()?))?,
    };
    let listen = match (args.listen, &config.listen) {
        (Some(address), _) => address,
        (None, Some(text)) => text.parse().map_err(|_| {
            Failure::bad_input(format!(
                "server.listen: `{text}` is not an address (HOST:PORT, as 127.0.0.1:8080)"
            ))
        })?,
        (None, None) => SocketAddr::from(([127, 0, 0, 1], 8080)),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|err| Failure::bad_input(format!("cannot start the runtime: {err}")))?;
    let stopped = runtime.block_on(serve(listen, config));
    // A request's work outlives the drain only when its connection was cut (its client not
    // reading the answer) and the work cannot be stopped midway (a context, not a whole
    // prompt): it is not waited for, so the process exits within the drain, as documented.
    runtime.shutdown_background();
    stopped
}

async fn serve(listen: SocketAddr, config: Config) -> Result<ExitCode, Failure> {
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|err| Failure::bad_input(format!("--listen {listen}: cannot listen: {err}")))?;
    let bound = listener.local_addr().unwrap_or(listen);
    if !bound.ip().is_loopback() {
        warning_line(&format!(
            "listening on {bound}, not loopback: anyone who reaches this address can use the service"
        ));
    }
    let names: Vec<&str> = config.profiles.keys().map(String::as_str).collect();
    error_line(&format!(
        "listening on http://{bound} with the profiles {}",
        names.join(", ")
    ));
    let _ = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_target(false)
        .with_writer(std::io::stderr)
        .try_init();
    let limits = config.limits;
    let description = openapi::document(config.profiles.keys().map(String::as_str));
    let shared = app::Shared::new(config.profiles, limits, description);
    let drained = connections::serve(
        listener,
        app::router(shared),
        limits.header_timeout,
        limits.drain(),
        stop_signal(),
    )
    .await;
    match drained {
        Drained::Whole => error_line("stopped: every request in flight was answered"),
        Drained::Cut(open) => error_line(&format!(
            "stopped: {open} connection(s) still open after {:.1} s (header_timeout_seconds + timeout_seconds) were closed",
            limits.drain().as_secs_f64()
        )),
    }
    Ok(ExitCode::SUCCESS)
}

/// SIGTERM or Ctrl-C: stop taking connections, answer the requests in flight, exit 0.
async fn stop_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = interrupt => {}
                    _ = terminate.recv() => {}
                }
            }
            Err(_) => {
                let _ = interrupt.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}

//! The routes and the layers around them: every answer observed (one log line, the metrics);
//! for the endpoints, a full service (`concurrency` requests in flight across them) answered
//! 503 at once, the body read within its limits (`reading.rs`) and the work done by the
//! request's deadline (`work.rs`); every error a problem document.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{DefaultBodyLimit, MatchedPath, Path, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Router};
use mentor_context::prompt::Deadline;
use tokio::sync::Semaphore;

use super::endpoints;
use super::metrics::{Metrics, gauge};
use super::problem::Problem;
use super::profiles::{Limits, Profile};
use super::reading;
use super::schemas;
use super::work::Workers;

/// What every request shares.
pub(crate) struct Shared {
    pub(crate) profiles: BTreeMap<String, Profile>,
    pub(crate) limits: Limits,
    pub(crate) metrics: Metrics,
    /// `GET /openapi.json`'s answer, shared by every request that asks for it.
    description: Bytes,
    /// One permit per request in flight on the endpoints, `concurrency` in all.
    in_flight: Arc<Semaphore>,
    /// One worker per core (the rest wait, within the timeout).
    workers: Workers,
}

impl Shared {
    pub(crate) fn new(
        profiles: BTreeMap<String, Profile>,
        limits: Limits,
        description: Vec<u8>,
    ) -> Arc<Shared> {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        Arc::new(Shared {
            profiles,
            limits,
            metrics: Metrics::default(),
            description: Bytes::from(description),
            in_flight: Arc::new(Semaphore::new(limits.concurrency)),
            workers: Workers::new(cores),
        })
    }
}

/// The service's router.
pub(crate) fn router(shared: Arc<Shared>) -> Router {
    // One layer for the three endpoints, so `concurrency` counts their requests together;
    // the probes (`/healthz`, `/metrics`) answer even when the service is full.
    let work = Router::new()
        .route("/v1/{profile}/assemble", post(assemble))
        .route("/v1/{profile}/cite", post(cite))
        .route("/v1/{profile}/prompt", post(prompt))
        .route_layer(middleware::from_fn_with_state(shared.clone(), admit));
    Router::new()
        .merge(work)
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .route("/openapi.json", get(openapi_json))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        // The body was read whole by `admit`, within `body_limit`: no second limit.
        .layer(DefaultBodyLimit::disable())
        .layer(middleware::from_fn_with_state(shared.clone(), observe))
        .with_state(shared)
}

/// What an endpoint does with its profile's name, its profile and the body, by the deadline.
type Endpoint = fn(&str, &Profile, &[u8], &Deadline) -> Result<Vec<u8>, Problem>;

/// Admits a request to an endpoint: a place among the `concurrency` in flight (else 503 at
/// once), a deadline `timeout_seconds` from now, and its body read whole within the limits.
async fn admit(State(shared): State<Arc<Shared>>, request: Request, next: Next) -> Response {
    let Ok(_place) = shared.in_flight.clone().try_acquire_owned() else {
        return Problem::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "OVERLOADED",
            "the service is at its limit of requests in flight (server.concurrency): try again",
        )
        .into_response();
    };
    let deadline = Deadline::after(shared.limits.timeout);
    let mut request = match reading::read(request, shared.limits.body_bytes, &deadline).await {
        Ok(request) => request,
        Err(refused) => return refused,
    };
    request.extensions_mut().insert(deadline);
    next.run(request).await
}

#[utoipa::path(post, path = "/v1/{profile}/assemble",
    params(("profile" = String, Path, description = "A profile of the configuration")),
    request_body(content = schemas::AssembleBody, description = "The results, as .NET or JavaScript writes them, and the report of the turn before for a follow-up turn"),
    responses((status = 200, description = "The report, as `assemble --json` writes it; a dialect profile's with its `entries`", body = schemas::AssembleAnswer),
        (status = 404, description = "No such profile, or it fits whole prompts", body = Problem, content_type = "application/problem+json"),
        schemas::Refused))]
async fn assemble(
    state: State<Arc<Shared>>,
    Extension(deadline): Extension<Deadline>,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    endpoint(state, deadline, path, &headers, body, endpoints::assemble).await
}

#[utoipa::path(post, path = "/v1/{profile}/cite",
    params(("profile" = String, Path, description = "A profile of the configuration")),
    request_body(content = schemas::CiteRequest, description = "A report and the model's answer (text), or the API's response (a dialect's)"),
    responses((status = 200, description = "What `cite` writes", body = mentor_context::citations::Resolution),
        (status = 404, description = "No such profile", body = Problem, content_type = "application/problem+json"),
        schemas::Refused))]
async fn cite(
    state: State<Arc<Shared>>,
    Extension(deadline): Extension<Deadline>,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    endpoint(
        state,
        deadline,
        path,
        &headers,
        body,
        |_, profile, bytes, _| endpoints::cite(profile, bytes),
    )
    .await
}

#[utoipa::path(post, path = "/v1/{profile}/prompt",
    params(("profile" = String, Path, description = "A profile of the configuration")),
    request_body(content = schemas::PromptRequest, description = "The conversation (OpenAI-style messages, the user's question last) and the results"),
    responses((status = 200, description = "The whole prompt, as `prompt --json` writes it", body = mentor_context::prompt::Prompt),
        (status = 404, description = "No such profile, or it fits a context alone", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The profile's chat template failed on this request: it raised (`templateKind` `RAISED`), met a bound (`OUT_OF_FUEL`, `TOO_DEEP`, `OUTPUT_TOO_LARGE`), or left the context out (`CONTEXT_NOT_WRITTEN`); `code` is `CHAT_TEMPLATE`", body = Problem, content_type = "application/problem+json"),
        schemas::Refused))]
async fn prompt(
    state: State<Arc<Shared>>,
    Extension(deadline): Extension<Deadline>,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    endpoint(state, deadline, path, &headers, body, endpoints::prompt).await
}

#[utoipa::path(get, path = "/healthz", responses((status = 200, description = "The service is up", body = schemas::Health)))]
async fn healthz() -> Response {
    json_response(Bytes::from_static(b"{\"status\":\"ok\"}\n"))
}

#[utoipa::path(get, path = "/metrics", responses((status = 200, description = "Requests by endpoint and status, their latency, the requests in flight and the workers busy, in Prometheus's text format", body = String, content_type = "text/plain")))]
async fn metrics(State(shared): State<Arc<Shared>>) -> Response {
    let mut text = shared.metrics.render();
    let in_flight = shared.limits.concurrency - shared.in_flight.available_permits();
    gauge(
        &mut text,
        "mentor_context_requests_in_flight",
        "Requests to the endpoints in flight (server.concurrency at most).",
        in_flight,
    );
    gauge(
        &mut text,
        "mentor_context_workers_busy",
        "Worker threads at work on a request (one per core at most).",
        shared.workers.busy(),
    );
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response()
}

#[utoipa::path(get, path = "/openapi.json", responses((status = 200, description = "This description", body = Object)))]
async fn openapi_json(State(shared): State<Arc<Shared>>) -> Response {
    json_response(shared.description.clone())
}

/// Checks what every POST needs (JSON, a profile), then does the work on a worker by the
/// deadline.
async fn endpoint(
    State(shared): State<Arc<Shared>>,
    deadline: Deadline,
    path: Result<Path<String>, PathRejection>,
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
    work: Endpoint,
) -> Response {
    let body = match body {
        Ok(body) => body,
        Err(rejection) => {
            return body_problem(&rejection, shared.limits.body_bytes).into_response();
        }
    };
    if !is_json(headers) {
        return Problem::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "UNSUPPORTED_MEDIA_TYPE",
            "the body must be JSON: send it with Content-Type: application/json",
        )
        .into_response();
    }
    let name = match path {
        Ok(Path(name)) => name,
        Err(rejection) => {
            return Problem::new(
                StatusCode::BAD_REQUEST,
                "INVALID_ARGUMENT",
                rejection.body_text(),
            )
            .into_response();
        }
    };
    if !shared.profiles.contains_key(&name) {
        let known: Vec<&str> = shared.profiles.keys().map(String::as_str).collect();
        return Problem::new(
            StatusCode::NOT_FOUND,
            "NOT_FOUND",
            format!("no profile `{name}` (the profiles: {})", known.join(", ")),
        )
        .into_response();
    }
    let job = shared.clone();
    let done = shared
        .workers
        .run(&deadline, move |deadline| {
            work(&name, &job.profiles[&name], &body, deadline)
        })
        .await;
    match done {
        Ok(bytes) => json_response(bytes),
        Err(problem) => problem.into_response(),
    }
}

/// Whether the body is declared JSON (`application/json`, or any `+json` type).
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .map(|kind| kind.trim().to_ascii_lowercase())
        .is_some_and(|kind| kind == "application/json" || kind.ends_with("+json"))
}

/// A body that could not be read: over the limit (413), or cut off.
fn body_problem(rejection: &BytesRejection, limit: usize) -> Problem {
    if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
        Problem::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "PAYLOAD_TOO_LARGE",
            format!("the body is over the limit of {limit} bytes (server.body_limit)"),
        )
    } else {
        Problem::new(
            StatusCode::BAD_REQUEST,
            "INVALID_ARGUMENT",
            format!("the body cannot be read: {}", rejection.body_text()),
        )
    }
}

fn json_response(bytes: impl Into<Bytes>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], bytes.into()).into_response()
}

async fn not_found(request: Request) -> Problem {
    Problem::new(
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
        format!("no such endpoint: {}", request.uri().path()),
    )
}

async fn method_not_allowed(request: Request) -> Problem {
    Problem::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "METHOD_NOT_ALLOWED",
        format!(
            "{} does not take {}",
            request.uri().path(),
            request.method()
        ),
    )
}

/// Times each request, counts it by endpoint and status, and logs one line of it.
async fn observe(State(shared): State<Arc<Shared>>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let endpoint = request
        .extensions()
        .get::<MatchedPath>()
        .map_or("other", |matched| endpoint_name(matched.as_str()));
    let response = next.run(request).await;
    let seconds = started.elapsed().as_secs_f64();
    let status = response.status();
    shared.metrics.record(endpoint, status.as_u16(), seconds);
    tracing::info!(
        "{method} {path} {} {:.3} ms",
        status.as_u16(),
        seconds * 1000.0
    );
    response
}

/// The metrics' name of a route.
fn endpoint_name(route: &str) -> &'static str {
    match route {
        "/v1/{profile}/assemble" => "assemble",
        "/v1/{profile}/cite" => "cite",
        "/v1/{profile}/prompt" => "prompt",
        "/healthz" => "healthz",
        "/metrics" => "metrics",
        "/openapi.json" => "openapi",
        _ => "other",
    }
}

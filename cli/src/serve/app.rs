//! The routes and the layers around them: every answer observed (one log line, the metrics),
//! a full service answered 503 at once, a request past the timeout answered 503, a body over
//! the limit 413, and every error a problem document.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use axum::body::Bytes;
use axum::error_handling::HandleErrorLayer;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{DefaultBodyLimit, MatchedPath, Path, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{BoxError, Router};
use tokio::sync::Semaphore;
use tower::ServiceBuilder;

use super::endpoints;
use super::metrics::Metrics;
use super::problem::Problem;
use super::profiles::{Limits, Profile};
use super::schemas;

/// What every request shares.
pub(crate) struct Shared {
    pub(crate) profiles: BTreeMap<String, Profile>,
    pub(crate) limits: Limits,
    pub(crate) metrics: Metrics,
    /// `GET /openapi.json`'s answer, shared by every request that asks for it.
    description: Bytes,
    /// One permit per core: assembling is work for the processor, so more at once only wait
    /// on each other (the rest wait here, within the timeout).
    workers: Arc<Semaphore>,
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
            workers: Arc::new(Semaphore::new(cores)),
        })
    }
}

/// The service's router.
pub(crate) fn router(shared: Arc<Shared>) -> Router {
    let limits = shared.limits;
    let guarded = ServiceBuilder::new()
        .layer(HandleErrorLayer::new(overloaded))
        .load_shed()
        .concurrency_limit(limits.concurrency)
        .timeout(limits.timeout);
    Router::new()
        .route("/v1/{profile}/assemble", post(assemble))
        .route("/v1/{profile}/cite", post(cite))
        .route("/v1/{profile}/prompt", post(prompt))
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .route("/openapi.json", get(openapi_json))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(limits.body_bytes))
        .layer(guarded)
        .layer(middleware::from_fn_with_state(shared.clone(), observe))
        .with_state(shared)
}

/// What an endpoint does with its profile's name, its profile and the body.
type Endpoint = fn(&str, &Profile, &[u8]) -> Result<Vec<u8>, Problem>;

#[utoipa::path(post, path = "/v1/{profile}/assemble",
    params(("profile" = String, Path, description = "A profile of the configuration")),
    request_body(content = schemas::AssembleBody, description = "The results, as .NET or JavaScript writes them, and the report of the turn before for a follow-up turn"),
    responses((status = 200, description = "The report, as `assemble --json` writes it", body = mentor_context::AssembledContext),
        (status = 404, description = "No such profile, or it fits whole prompts", body = Problem, content_type = "application/problem+json"),
        schemas::Refused))]
async fn assemble(
    state: State<Arc<Shared>>,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    endpoint(state, path, &headers, body, endpoints::assemble).await
}

#[utoipa::path(post, path = "/v1/{profile}/cite",
    params(("profile" = String, Path, description = "A profile of the configuration")),
    request_body(content = schemas::CiteRequest, description = "A report and the model's answer (text), or the API's response (a dialect's)"),
    responses((status = 200, description = "What `cite` writes", body = crate::cite::CiteReport),
        (status = 404, description = "No such profile", body = Problem, content_type = "application/problem+json"),
        schemas::Refused))]
async fn cite(
    state: State<Arc<Shared>>,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    endpoint(state, path, &headers, body, |_, profile, bytes| {
        endpoints::cite(profile, bytes)
    })
    .await
}

#[utoipa::path(post, path = "/v1/{profile}/prompt",
    params(("profile" = String, Path, description = "A profile of the configuration")),
    request_body(content = schemas::PromptRequest, description = "The conversation (OpenAI-style messages, the user's question last) and the results"),
    responses((status = 200, description = "The whole prompt, as `prompt --json` writes it", body = mentor_context::prompt::Prompt),
        (status = 404, description = "No such profile, or it fits a context alone", body = Problem, content_type = "application/problem+json"),
        schemas::Refused))]
async fn prompt(
    state: State<Arc<Shared>>,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    endpoint(state, path, &headers, body, endpoints::prompt).await
}

#[utoipa::path(get, path = "/healthz", responses((status = 200, description = "The service is up", body = schemas::Health)))]
async fn healthz() -> Response {
    json_response(Bytes::from_static(b"{\"status\":\"ok\"}\n"))
}

#[utoipa::path(get, path = "/metrics", responses((status = 200, description = "Requests by endpoint and status, and their latency, in Prometheus's text format", body = String, content_type = "text/plain")))]
async fn metrics(State(shared): State<Arc<Shared>>) -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        shared.metrics.render(),
    )
        .into_response()
}

#[utoipa::path(get, path = "/openapi.json", responses((status = 200, description = "This description", body = Object)))]
async fn openapi_json(State(shared): State<Arc<Shared>>) -> Response {
    json_response(shared.description.clone())
}

/// Checks what every POST needs (a body within the limit, JSON, a profile), then does the
/// work on a blocking thread, one per core at a time.
async fn endpoint(
    State(shared): State<Arc<Shared>>,
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
    let Ok(permit) = shared.workers.clone().acquire_owned().await else {
        return Problem::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "OVERLOADED",
            "the service is stopping",
        )
        .into_response();
    };
    let job = shared.clone();
    let done = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        work(&name, &job.profiles[&name], &body)
    })
    .await;
    match done {
        Ok(Ok(bytes)) => json_response(bytes),
        Ok(Err(problem)) => problem.into_response(),
        Err(err) => Problem::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "INTERNAL",
            format!("the request's work stopped: {err}"),
        )
        .into_response(),
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

/// The layers' errors: the service full (load shed) or the request past its timeout.
async fn overloaded(err: BoxError) -> Problem {
    if err.is::<tower::timeout::error::Elapsed>() {
        Problem::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "TIMEOUT",
            "the request took longer than the timeout (server.timeout_seconds)",
        )
    } else if err.is::<tower::load_shed::error::Overloaded>() {
        Problem::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "OVERLOADED",
            "the service is at its limit of requests in flight (server.concurrency): try again",
        )
    } else {
        Problem::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "INTERNAL",
            err.to_string(),
        )
    }
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

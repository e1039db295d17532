//! Errors as RFC 9457 problem details (`application/problem+json`): the status, the library's
//! stable code, and the same words the command writes in its one line. A chat template's
//! error is a 422 naming its kind (`templateKind`): the request was read, and the profile's
//! template failed on it (profiles' templates are compiled at start, so none fails to
//! compile here). The one kind no request causes, `ENGINE_FAILED`, is a 503.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use mentor_context::{ErrorKind, TemplateErrorKind};
use serde::Serialize;
use utoipa::ToSchema;

/// A problem, as the response describes it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub(crate) struct Problem {
    /// Always `about:blank`: the status and the code say what kind of problem it is.
    #[serde(rename = "type")]
    kind: &'static str,
    /// The status's reason phrase.
    title: &'static str,
    /// The HTTP status.
    status: u16,
    /// What is wrong, and where, in the command's words.
    detail: String,
    /// The library's stable code of the error's kind (`INVALID_JSON`, `UNKNOWN_SETTING`, ...),
    /// or the service's own: `NOT_FOUND`, `METHOD_NOT_ALLOWED`, `PAYLOAD_TOO_LARGE`,
    /// `UNSUPPORTED_MEDIA_TYPE`, `URI_TOO_LONG`, `HEADERS_TOO_LARGE`, `OVERLOADED`, `TIMEOUT`,
    /// `INTERNAL`.
    code: &'static str,
    /// For a `CHAT_TEMPLATE` problem (422; 503 for `ENGINE_FAILED`), the template's error kind: `RAISED` (the template
    /// raised on the request's conversation), a bound it met (`OUT_OF_FUEL`, `TOO_DEEP`,
    /// `OUTPUT_TOO_LARGE`), `CONTEXT_NOT_WRITTEN`, `UNSUPPORTED`, ... (the library's
    /// `TemplateErrorKind` codes). Absent from every other problem.
    #[serde(rename = "templateKind", skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    template_kind: Option<&'static str>,
}

impl Problem {
    pub(crate) fn new(
        status: StatusCode,
        code: &'static str,
        detail: impl Into<String>,
    ) -> Problem {
        Problem {
            kind: "about:blank",
            title: status.canonical_reason().unwrap_or("Error"),
            status: status.as_u16(),
            detail: detail.into(),
            code,
            template_kind: None,
        }
    }

    /// A 400 of the library's `kind`.
    pub(crate) fn bad_request(kind: ErrorKind, detail: impl Into<String>) -> Problem {
        Problem::new(StatusCode::BAD_REQUEST, kind.code(), detail)
    }

    /// A library error, with its words and code: a 400, or for a chat template's error a 422
    /// naming its kind (a 503 where the engine could not run).
    pub(crate) fn library(err: &mentor_context::Error) -> Problem {
        Problem::of_library(err, err.to_string())
    }

    /// A library error in `what` (`previous`, `report`), as [`library`](Self::library).
    pub(crate) fn library_in(what: &str, err: &mentor_context::Error) -> Problem {
        Problem::of_library(err, in_part(what, &err.to_string()))
    }

    fn of_library(err: &mentor_context::Error, detail: String) -> Problem {
        match err.template_error() {
            // The request is what the template failed on: a 422. But `ENGINE_FAILED` is the
            // server's (no thread to render on, or a fault in the engine), never the
            // request's: a 503, which a client may retry.
            Some(template) => {
                let status = if template.kind() == TemplateErrorKind::EngineFailed {
                    StatusCode::SERVICE_UNAVAILABLE
                } else {
                    StatusCode::UNPROCESSABLE_ENTITY
                };
                Problem {
                    template_kind: Some(template.kind().code()),
                    ..Problem::new(status, err.kind().code(), detail)
                }
            }
            None => Problem::bad_request(err.kind(), detail),
        }
    }

    pub(crate) fn status(&self) -> StatusCode {
        StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }
}

/// `detail` said of the body's part `part`: `part: detail`, unless the detail names the part
/// already (the library's errors of a conversation begin `conversation:`), so that no word
/// is said twice.
pub(crate) fn in_part(part: &str, detail: &str) -> String {
    match detail.strip_prefix(part) {
        Some(rest) if rest.starts_with(':') => detail.to_string(),
        _ => format!("{part}: {detail}"),
    }
}

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        let status = self.status();
        let body = serde_json::to_vec(&self).unwrap_or_else(|_| b"{}".to_vec());
        let mut response = (status, body).into_response();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        );
        response
    }
}

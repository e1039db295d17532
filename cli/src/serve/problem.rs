//! Errors as RFC 9457 problem details (`application/problem+json`): the status, the library's
//! stable code, and the same words the command writes in its one line.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use mentor_context::ErrorKind;
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
        }
    }

    /// A 400 of the library's `kind`.
    pub(crate) fn bad_request(kind: ErrorKind, detail: impl Into<String>) -> Problem {
        Problem::new(StatusCode::BAD_REQUEST, kind.code(), detail)
    }

    /// A 400 of a library error, with its words and code.
    pub(crate) fn library(err: &mentor_context::Error) -> Problem {
        Problem::bad_request(err.kind(), err.to_string())
    }

    /// A 400 of a library error in `what` (`previous`, `report`).
    pub(crate) fn library_in(what: &str, err: &mentor_context::Error) -> Problem {
        Problem::bad_request(err.kind(), in_part(what, &err.to_string()))
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

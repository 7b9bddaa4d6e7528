//! REST errors: an HTTP status plus `{"error": {"code": "...", "message": "..."}}` (PROTOCOL.md),
//! with `"retry_after"` (whole seconds, as the `Retry-After` header) on a 429 that knows it.

use axum::Json;
use std::time::Duration;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use tracing::warn;

use crate::store::StoreError;

/// An error answer of the REST API.
#[derive(Debug)]
pub struct ApiError {
    /// The HTTP status, e.g. 409 for `room_full`.
    pub status: StatusCode,
    /// Stable machine code, e.g. `room_full`.
    pub code: &'static str,
    /// A sentence for people.
    pub message: String,
    /// Sent as `Retry-After` (whole seconds, at least 1) when set.
    pub retry_after: Option<Duration>,
}

impl ApiError {
    /// An error with any status and code; the named constructors below cover the common ones.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: message.into(),
            retry_after: None,
        }
    }

    /// 429 `rate_limited`, to be retried after `retry_after`.
    pub fn rate_limited(message: impl Into<String>, retry_after: Duration) -> Self {
        ApiError {
            retry_after: Some(retry_after),
            ..ApiError::new(StatusCode::TOO_MANY_REQUESTS, "rate_limited", message)
        }
    }

    /// 400 `bad_request`.
    pub fn bad_request(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    /// 404 `not_found`.
    pub fn not_found(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    /// 503 `unavailable`: the server is shutting down; nothing was done.
    pub fn shutting_down() -> Self {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            "the server is shutting down",
        )
    }

    /// 429 `rate_limited`: `limit` WebSockets from one address are open already.
    pub fn too_many_sockets(limit: usize) -> Self {
        ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            format!("at most {limit} open WebSockets from one address"),
        )
    }

    /// 503 `unavailable`: the store could not answer; nothing changed.
    pub fn unavailable() -> Self {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            "the database is unavailable; try again",
        )
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        warn!(error = %e, "store error answering a request");
        ApiError::unavailable()
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = json!({"error": {"code": self.code, "message": self.message}});
        if let Some(wait) = self.retry_after {
            body["error"]["retry_after"] = json!(retry_after_secs(wait));
        }
        let mut response = (self.status, Json(body)).into_response();
        if let Some(wait) = self.retry_after {
            response.headers_mut().insert(
                header::RETRY_AFTER,
                HeaderValue::from(retry_after_secs(wait)),
            );
        }
        response
    }
}

/// A wait as the whole seconds of a `Retry-After` header and of the messages that name it:
/// rounded up (a client retrying then is never early), at least 1.
pub fn retry_after_secs(wait: Duration) -> u64 {
    (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1)
}

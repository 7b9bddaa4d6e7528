//! REST errors: an HTTP status plus `{"error": {"code": "...", "message": "..."}}` (PROTOCOL.md).

use axum::Json;
use axum::http::StatusCode;
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
}

impl ApiError {
    /// An error with any status and code; the named constructors below cover the common ones.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: message.into(),
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
        let body = json!({"error": {"code": self.code, "message": self.message}});
        (self.status, Json(body)).into_response()
    }
}

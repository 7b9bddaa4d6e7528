//! Request extractors whose refusals are the API's typed errors: axum's own answer in plain
//! text (a path that does not decode, a body over the limit, a `GET /ws` without an upgrade),
//! which a client of a JSON API cannot read.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use serde::de::DeserializeOwned;

use super::error::ApiError;

/// A path parameter; a path that does not decode (`/r/%ff%fe`, not UTF-8) names nothing here:
/// 404 `not_found`.
pub struct ApiPath<T>(pub T);

impl<T, S> FromRequestParts<S> for ApiPath<T>
where
    T: DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        Path::<T>::from_request_parts(parts, state)
            .await
            .map(|Path(value)| ApiPath(value))
            .map_err(|e| ApiError::not_found(format!("no such path: {}", e.body_text())))
    }
}

/// The bytes of a JSON request body: `Content-Type: application/json` is required (415
/// `unsupported_media_type` otherwise, so a cross-site page cannot send it as a "simple"
/// request), and a body over the limit is 413 `body_too_large`. [`JsonBytes::parse`] reads it.
pub struct JsonBytes(Bytes);

impl<S: Send + Sync> FromRequest<S> for JsonBytes {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        let json = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"));
        if !json {
            return Err(ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "send the body as JSON, with Content-Type: application/json",
            ));
        }
        Bytes::from_request(request, state)
            .await
            .map(JsonBytes)
            .map_err(|e| match e.status() {
                StatusCode::PAYLOAD_TOO_LARGE => body_too_large(),
                status => ApiError::new(status, "bad_request", e.body_text()),
            })
    }
}

/// 413 `body_too_large`.
pub fn body_too_large() -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "body_too_large",
        format!("a request body is at most {} bytes", super::MAX_BODY_BYTES),
    )
}

impl JsonBytes {
    /// The body as it came (to forward it to another node).
    pub fn into_bytes(self) -> Bytes {
        self.0
    }

    /// The body read as `T`, refusing a key given twice (see [`crate::json`]); an empty body
    /// reads as `empty` when one is given. Errors are 400 `bad_request`.
    pub fn parse<T: DeserializeOwned>(&self, empty: Option<T>) -> Result<T, ApiError> {
        if self.0.iter().all(u8::is_ascii_whitespace) {
            return empty.ok_or_else(|| ApiError::bad_request("the request needs a JSON body"));
        }
        crate::json::from_slice_as(&self.0)
            .map_err(|e| ApiError::bad_request(format!("bad JSON body: {e}")))
    }
}

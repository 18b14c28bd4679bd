//! `/media/{id}`: an uploaded image, only to its learner (anyone else gets the same 404 as for
//! an id that does not exist), with its own media type and never as anything a browser would
//! run: `nosniff`, and a sandboxing content security policy.

use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::viewer::CurrentViewer;
use crate::store::Store;

pub async fn image(
    State(store): State<Store>,
    CurrentViewer(viewer): CurrentViewer,
    Path(id): Path<String>,
) -> Response {
    let Some(viewer) = viewer else { return StatusCode::NOT_FOUND.into_response() };
    match store.resource_image(&viewer.learner, &id).await {
        Ok(Some((mime, bytes))) => (
            [
                (header::CONTENT_TYPE, mime),
                (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_string()),
                (
                    header::CONTENT_SECURITY_POLICY,
                    "default-src 'none'; sandbox; frame-ancestors 'none'".to_string(),
                ),
                (header::CACHE_CONTROL, "private, max-age=86400".to_string()),
                (header::CONTENT_DISPOSITION, "inline".to_string()),
            ],
            bytes,
        )
            .into_response(),
        Ok(None) => StatusCode::NOT_FOUND.into_response(),
        Err(err) => {
            tracing::error!("cannot read an image: {err}");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}

//! History's forms and files: labels set and cleared with a plain form post, Retry on a
//! summary that could not be written, and a session's downloads (versioned JSONL, one
//! self-contained HTML page) and JSONL import.

use std::time::Duration;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;

use super::forms::{Posted, not_found, see_other, storage_failed};
use super::viewer::CurrentViewer;
use super::{AppState, download, export_page};
use warren_app::summary::SummaryStatus;
use warren_app::url::query_value;

use crate::engine::EngineError;
use crate::store::StoreError;
use crate::transfer::session as session_file;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/history/{id}/label", post(label))
        .route("/history/{id}/summary", get(summary_status).post(retry_summary))
        .route("/history/{id}/disputes", post(dispute))
        .route("/history/{id}/export.jsonl", get(export_jsonl))
        .route("/history/{id}/export.html", get(export_html))
}

#[derive(Deserialize)]
struct LabelForm {
    target: String,
    #[serde(default)]
    label: String,
    /// Present when "Remove" was pressed.
    #[serde(default)]
    clear: Option<String>,
    /// The page to go back to; only this session's own page is followed.
    #[serde(default)]
    back: String,
}

async fn label(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Posted { parts, viewer, fields }: Posted<LabelForm>,
) -> Response {
    let typed = warren_app::clean::line(&fields.label);
    let label = if fields.clear.is_some() { None } else { Some(&*typed) };
    match state.store.set_label(&viewer.learner, &id, &fields.target, label).await {
        Ok(true) => {
            let own = format!("/history/{id}");
            let back = if fields.back == own || fields.back.starts_with(&format!("{own}?")) {
                fields.back
            } else {
                own
            };
            see_other(&format!("{back}#entry-{}", fields.target))
        }
        Ok(false) => not_found(&state, parts).await,
        Err(err) => storage_failed(err),
    }
}

/// Where a session's summary stands, for pages waiting for it: 202 while it is being
/// written, otherwise 200 with `ready`, `failed` or `none`.
async fn summary_status(
    State(state): State<AppState>,
    CurrentViewer(viewer): CurrentViewer,
    Path(id): Path<String>,
) -> Response {
    let Some(viewer) = viewer else { return StatusCode::NOT_FOUND.into_response() };
    let (status, name) = match state.store.summary_link(&viewer.learner, &id).await {
        Ok(Some((Some(SummaryStatus::Pending), _))) => (StatusCode::ACCEPTED, "pending"),
        Ok(Some((Some(status @ (SummaryStatus::Ready | SummaryStatus::Failed)), _))) => {
            (StatusCode::OK, status.as_str())
        }
        Ok(Some((None, _))) => (StatusCode::OK, "none"),
        Ok(None) => return StatusCode::NOT_FOUND.into_response(),
        Err(err) => return storage_failed(err),
    };
    (status, [(header::CACHE_CONTROL, "no-store")], name).into_response()
}

/// How long Retry waits for the summary before showing the page (still "being written" then).
const RETRY_WAIT: Duration = Duration::from_secs(10);

#[derive(Deserialize)]
struct RetryForm {}

async fn retry_summary(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Posted { parts, viewer, .. }: Posted<RetryForm>,
) -> Response {
    match state.engine.retry_summary(&viewer.learner, &id, RETRY_WAIT).await {
        Ok(()) => see_other(&format!("/history/{id}#summary")),
        Err(EngineError::Store(err)) => storage_failed(err),
        Err(_) => not_found(&state, parts).await,
    }
}

#[derive(Deserialize)]
struct DisputeForm {
    point_id: String,
    /// The message the recall was marked on, to come back to.
    #[serde(default)]
    entry_id: String,
}

/// "Not a recall": the recall's review leaves the log and the point's schedule is replayed
/// (see `Store::dispute_recall`). A recall that is not the learner's, or not there, is not
/// found, and nothing changes. A session already summarised has its summary written again, in
/// the background, so that it counts the recalls as every other page now does.
async fn dispute(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Posted { parts, viewer, fields }: Posted<DisputeForm>,
) -> Response {
    match state.store.dispute_recall(&viewer.learner, &id, &fields.point_id).await {
        Ok(true) => {
            state.engine.changed(&id).await;
            let summarised =
                matches!(state.store.summary_link(&viewer.learner, &id).await, Ok(Some((Some(_), _))));
            if summarised
                && let Err(err) = state.engine.retry_summary(&viewer.learner, &id, Duration::ZERO).await
            {
                // The dispute stands; the old summary stays until it is asked for again.
                tracing::warn!(session = id, "the summary was not asked for again after a dispute: {err}");
            }
            // Back to the message, when its id is one (it goes into the Location header).
            let id_like = |s: &str| {
                !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            };
            let anchor =
                if id_like(&fields.entry_id) { format!("#entry-{}", fields.entry_id) } else { String::new() };
            see_other(&format!("/history/{}{anchor}", query_value(&id)))
        }
        Ok(false) => not_found(&state, parts).await,
        Err(err) => storage_failed(err),
    }
}

async fn export_jsonl(
    State(state): State<AppState>,
    CurrentViewer(viewer): CurrentViewer,
    Path(id): Path<String>,
) -> Response {
    let Some(viewer) = viewer else { return StatusCode::NOT_FOUND.into_response() };
    match session_file::export(&state.store, &viewer.learner, &id).await {
        Ok(Some(file)) => download::file("application/x-ndjson; charset=utf-8", &file.file_name, file.text),
        Ok(None) => StatusCode::NOT_FOUND.into_response(),
        Err(err) => storage_failed(err),
    }
}

async fn export_html(
    State(state): State<AppState>,
    CurrentViewer(viewer): CurrentViewer,
    Path(id): Path<String>,
) -> Response {
    let Some(viewer) = viewer else { return StatusCode::NOT_FOUND.into_response() };
    let learner = &viewer.learner;
    let loaded = async {
        let Some((row, tree)) = state.store.tree(learner, &id).await? else { return Ok(None) };
        let set = state.store.session_title(learner, &row).await?;
        Ok::<_, StoreError>(Some((row, tree, set)))
    };
    match loaded.await {
        Ok(Some((row, tree, set))) => {
            let site_root = std::path::Path::new(&*state.leptos_options.site_root);
            let html = export_page::page(&row, &set, &tree, site_root).await;
            let day = chrono::DateTime::from_timestamp_millis(row.started_at)
                .map(|d| d.format("%Y-%m-%d").to_string())
                .unwrap_or_default();
            download::file("text/html; charset=utf-8", &format!("session-{day}-{}.html", row.id), html)
        }
        Ok(None) => StatusCode::NOT_FOUND.into_response(),
        Err(err) => storage_failed(err),
    }
}

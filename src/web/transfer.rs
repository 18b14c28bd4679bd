//! Import and export over HTTP: a file is uploaded and kept as a draft, its preview shown,
//! and the set created only when the learner confirms (one transaction). Exports are
//! downloads, only of the learner's own sets.

use std::collections::HashMap;

use axum::Router;
use axum::extract::{FromRequest, Multipart, Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use warren_app::api::Viewer;
use warren_app::forms::FieldErrors;

use super::forms::{echo, not_found, render, see_other, storage_failed};
use super::{AppState, download};
use crate::transfer::session as session_file;
use crate::transfer::{self, Format, Upload, archive, export};

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/import", post(upload))
        .route("/import/{id}", post(confirm))
        .route("/import/{id}/cancel", post(cancel))
        .route("/sets/{id}/export.json", get(|s, v, p| download(s, v, p, Format::Json)))
        .route("/sets/{id}/export.csv", get(|s, v, p| download(s, v, p, Format::Csv)))
        .route("/sets/{id}/export.md", get(|s, v, p| download(s, v, p, Format::Markdown)))
}

#[derive(serde::Serialize)]
struct NoFields {}

/// Sends the upload page back with `why` beside the file field.
async fn refuse(state: &AppState, parts: axum::http::request::Parts, why: String) -> Response {
    let mut errors = FieldErrors::default();
    errors.add("file", why);
    render(state, parts, Some(echo("import", &NoFields {}, errors, None)), StatusCode::UNPROCESSABLE_ENTITY)
        .await
}

async fn upload(State(state): State<AppState>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let Some(viewer) = parts.extensions.get::<Viewer>().cloned() else { return see_other("/signin") };
    let mut multipart = match Multipart::from_request(Request::from_parts(parts.clone(), body), &state).await
    {
        Ok(multipart) => multipart,
        Err(rejection) => return (StatusCode::BAD_REQUEST, rejection.body_text()).into_response(),
    };
    let mut file = None;
    loop {
        match multipart.next_field().await {
            Ok(Some(field)) if field.name() == Some("file") => {
                let name = field.file_name().unwrap_or("upload").to_string();
                match field.bytes().await {
                    Ok(bytes) => file = Some((name, bytes)),
                    Err(err) => {
                        return refuse(&state, parts, format!("The upload broke off ({}).", err.body_text()))
                            .await;
                    }
                }
            }
            Ok(Some(_)) => {}
            Ok(None) => break,
            Err(err) => {
                return refuse(&state, parts, format!("The upload broke off ({}).", err.body_text())).await;
            }
        }
    }
    let Some((name, bytes)) = file else {
        return refuse(&state, parts, "Choose a file to import.".into()).await;
    };
    // An account archive brings back everything in it at once, as does a session (JSONL),
    // which goes straight into history: there is nothing to choose about either. A set is
    // kept as a draft for its preview; one that cannot be read at all is refused here.
    match transfer::read_upload(&name, &bytes).await {
        Err(why) => return refuse(&state, parts, why.to_string()).await,
        Ok(Upload::Archive(read)) => {
            return match archive::import(&state.store, &viewer.learner, read).await {
                Ok(done) => see_other(&format!("/sets?imported={}&sessions={}", done.sets, done.sessions)),
                Err(err) => {
                    tracing::error!("cannot import an account archive: {err}");
                    refuse(&state, parts, "The archive could not be imported in full: the server could not store it. What came back is on your Sets page.".into()).await
                }
            };
        }
        Ok(Upload::Session(file)) => {
            return match session_file::import(&state.store, &viewer.learner, *file).await {
                Ok(id) => see_other(&format!("/history/{id}")),
                Err(err) => {
                    tracing::error!("cannot import a session: {err}");
                    refuse(&state, parts, "The session could not be imported; nothing was kept.".into()).await
                }
            };
        }
        Ok(Upload::Sets(..)) => {}
    }
    match state.store.create_draft(&viewer.learner, &name, &bytes).await {
        Ok(id) => see_other(&format!("/import/{id}")),
        Err(err) => {
            tracing::error!("cannot keep an upload: {err}");
            refuse(&state, parts, "The server could not keep the file; try again.".into()).await
        }
    }
}

/// Creates the previewed sets: every one, or (an Anki package's decks) the ticked ones, in
/// one transaction with the draft's deletion; suspended cards' points only when ticked in.
async fn confirm(State(state): State<AppState>, Path(id): Path<String>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let Some(viewer) = parts.extensions.get::<Viewer>().cloned() else { return see_other("/signin") };
    let fields = match axum::Form::<HashMap<String, String>>::from_request(
        Request::from_parts(parts.clone(), body),
        &state,
    )
    .await
    {
        Ok(axum::Form(fields)) => fields,
        Err(rejection) => return (StatusCode::BAD_REQUEST, rejection.body_text()).into_response(),
    };
    let learner = &viewer.learner;
    let draft = match state.store.draft(learner, &id).await {
        Ok(Some(draft)) => draft,
        Ok(None) => return not_found(&state, parts).await,
        Err(err) => return storage_failed(err),
    };
    let (_, previews) = match transfer::read(&draft.0, &draft.1).await {
        Ok(read) => read,
        // The preview page already says why; show it again.
        Err(_) => return render(&state, parts, None, StatusCode::UNPROCESSABLE_ENTITY).await,
    };
    let choosing = fields.contains_key("choose");
    let with_suspended = fields.contains_key("suspended");
    let chosen: Vec<_> = previews
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !choosing || fields.contains_key(&format!("deck-{i}")))
        .map(|(_, preview)| if with_suspended { preview } else { preview.without_suspended() })
        .filter(|preview| !preview.set.points.is_empty())
        .collect();
    if chosen.is_empty() {
        // Nothing ticked: the preview again, nothing written.
        return see_other(&format!("/import/{id}"));
    }
    let mut sets: Vec<_> = chosen.into_iter().map(|preview| preview.set).collect();
    match state.store.import_sets(learner, &mut sets, Some(&id)).await {
        Ok(ids) if ids.len() == 1 => see_other(&format!("/sets/{}", ids[0])),
        Ok(ids) => see_other(&format!("/sets?imported={}", ids.len())),
        Err(err) => storage_failed(err),
    }
}

async fn cancel(State(state): State<AppState>, Path(id): Path<String>, request: Request) -> Response {
    let (parts, _) = request.into_parts();
    let Some(viewer) = parts.extensions.get::<Viewer>().cloned() else { return see_other("/signin") };
    match state.store.delete_draft(&viewer.learner, &id).await {
        Ok(true) => see_other("/import"),
        Ok(false) => not_found(&state, parts).await,
        Err(err) => storage_failed(err),
    }
}

async fn download(
    State(state): State<AppState>,
    super::viewer::CurrentViewer(viewer): super::viewer::CurrentViewer,
    Path(id): Path<String>,
    format: Format,
) -> Response {
    let Some(viewer) = viewer else { return StatusCode::NOT_FOUND.into_response() };
    match export::export(&state.store, &viewer.learner, &id, format).await {
        Ok(Some(file)) => download::file(file.content_type, &file.file_name, file.bytes),
        Ok(None) => StatusCode::NOT_FOUND.into_response(),
        Err(err) => storage_failed(err),
    }
}

//! Points from a source, as plain forms: the source sent (pasted, or a file: multipart) for a
//! new set or a set of the learner's, drafted in the background while its page shows the
//! progress (`GET /sources/{id}/progress` for the page's script; the page refreshes itself
//! without one), then the drafts kept as the learner left them, or dropped. Another learner's
//! source is as unknown as one that does not exist.

use std::collections::HashMap;

use axum::extract::{FromRequest, Multipart, Path, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Form, Router};
use serde::Serialize;
use warren_app::api::Viewer;
use warren_app::clean;
use warren_app::forms::{FieldErrors, limits};

use super::AppState;
use super::forms::{echo, not_found, render, see_other, storage_failed};
use crate::drafting::{self, SourceError, passages};
use crate::store::{FIRST_RUN, KeptDraft, SOURCE_LAPSE_MS, SourceStatus, now_ms};

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/sets/new/source", post(new_set))
        .route("/sets/{id}/source", post(into_set))
        .route("/sources/{id}", post(keep))
        .route("/sources/{id}/progress", get(progress))
        .route("/sources/{id}/again", post(again))
        .route("/sources/{id}/cancel", post(cancel))
}

/// What the form sent, echoed back with its errors.
#[derive(Serialize, Default)]
struct SourceFields {
    name: String,
    text: String,
}

/// The form's fields: the new set's name, pasted text, and a file (its name and bytes).
async fn fields(multipart: &mut Multipart) -> Result<(SourceFields, Option<(String, Vec<u8>)>), String> {
    let mut fields = SourceFields::default();
    let mut file = None;
    loop {
        let field = match multipart.next_field().await {
            Ok(Some(field)) => field,
            Ok(None) => break,
            Err(err) => return Err(format!("The form broke off ({}).", err.body_text())),
        };
        let name = field.name().unwrap_or_default().to_string();
        match name.as_str() {
            "file" => {
                let file_name = field.file_name().unwrap_or_default().to_string();
                let bytes =
                    field.bytes().await.map_err(|e| format!("The upload broke off ({}).", e.body_text()))?;
                if !file_name.is_empty() && !bytes.is_empty() {
                    file = Some((file_name, bytes.to_vec()));
                }
            }
            "name" | "text" => {
                let text =
                    field.text().await.map_err(|e| format!("The form broke off ({}).", e.body_text()))?;
                if name == "name" {
                    fields.name = clean::line(text.trim()).into_owned();
                } else {
                    fields.text = text;
                }
            }
            _ => {}
        }
    }
    Ok((fields, file))
}

/// Sends the form back with `why` beside the field it is about.
async fn refuse(
    state: &AppState,
    parts: axum::http::request::Parts,
    fields: &SourceFields,
    field: &str,
    why: String,
) -> Response {
    let mut errors = FieldErrors::default();
    errors.add(field, why);
    let shown = SourceFields {
        name: fields.name.clone(),
        text: fields.text.chars().take(limits::SOURCE_CHARS).collect(),
    };
    render(state, parts, Some(echo("source", &shown, errors, None)), StatusCode::UNPROCESSABLE_ENTITY).await
}

/// Reads the form, checks it, and starts drafting into `set` (its id and name), or a new set
/// named by the form.
async fn start(state: AppState, request: Request, set: Option<(String, String)>) -> Response {
    let (parts, body) = request.into_parts();
    let Some(viewer) = parts.extensions.get::<Viewer>().cloned() else { return see_other("/signin") };
    let mut multipart = match Multipart::from_request(Request::from_parts(parts.clone(), body), &state).await
    {
        Ok(multipart) => multipart,
        Err(rejection) => return (StatusCode::BAD_REQUEST, rejection.body_text()).into_response(),
    };
    let (fields, file) = match fields(&mut multipart).await {
        Ok(read) => read,
        Err(why) => return refuse(&state, parts, &SourceFields::default(), "text", why).await,
    };
    let set_name = match &set {
        Some((_, name)) => name.clone(),
        None if fields.name.is_empty() => {
            return refuse(&state, parts, &fields, "name", "Give the new set a name.".into()).await;
        }
        None if fields.name.chars().count() > limits::SET_NAME => {
            let why = format!("A name has at most {} characters.", limits::SET_NAME);
            return refuse(&state, parts, &fields, "name", why).await;
        }
        None => fields.name.clone(),
    };
    let (title, read) = match (&file, fields.text.trim().is_empty()) {
        (Some((name, bytes)), _) => (name.clone(), drafting::read(Some(name), bytes.clone()).await),
        (None, false) => (
            pasted_title(&fields.text, &set_name),
            drafting::read(None, fields.text.clone().into_bytes()).await,
        ),
        (None, true) => ("".to_string(), Err(SourceError::Empty)),
    };
    let text = match read {
        Ok(text) => clean::text(&text).into_owned(),
        Err(why) => {
            let field = if file.is_some() { "file" } else { "text" };
            return refuse(&state, parts, &fields, field, why.to_string()).await;
        }
    };
    let passages = passages(&text);
    let learner = &viewer.learner;
    let set_id = set.as_ref().map(|(id, _)| id.as_str());
    match state.store.create_source(learner, set_id, &set_name, &title, &passages).await {
        Ok(id) => {
            state.drafting.spawn(learner.clone(), id.clone(), FIRST_RUN);
            see_other(&format!("/sources/{id}"))
        }
        Err(err) => storage_failed(err),
    }
}

/// What pasted notes are called where the tutor and the set's page name them: their opening
/// Markdown heading, else the set's name ("Think back to your notes, "Photosynthesis"").
fn pasted_title(text: &str, set_name: &str) -> String {
    let first = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or_default();
    let heading = first.strip_prefix('#').map(|h| h.trim_start_matches('#').trim()).filter(|h| !h.is_empty());
    heading.map_or_else(|| set_name.to_string(), |h| h.chars().take(limits::SET_NAME).collect())
}

async fn new_set(State(state): State<AppState>, request: Request) -> Response {
    start(state, request, None).await
}

async fn into_set(State(state): State<AppState>, Path(id): Path<String>, request: Request) -> Response {
    let learner = request.extensions().get::<Viewer>().map(|v| v.learner.clone());
    let Some(learner) = learner else { return see_other("/signin") };
    match state.store.set(&learner, &id).await {
        Ok(Some(set)) => start(state, request, Some((set.id, set.name))).await,
        Ok(None) => {
            let (parts, _) = request.into_parts();
            not_found(&state, parts).await
        }
        Err(err) => storage_failed(err),
    }
}

/// Where the drafting stands, for the page's script: 202 with `done/total` passages while it
/// runs, otherwise 200 with `ready`, `failed` or `stopped`.
async fn progress(
    State(state): State<AppState>,
    super::viewer::CurrentViewer(viewer): super::viewer::CurrentViewer,
    Path(id): Path<String>,
) -> Response {
    let Some(viewer) = viewer else { return StatusCode::NOT_FOUND.into_response() };
    let source = match state.store.source(&viewer.learner, &id).await {
        Ok(Some(source)) => source,
        Ok(None) => return StatusCode::NOT_FOUND.into_response(),
        Err(err) => return storage_failed(err),
    };
    let lapsed = source.heartbeat_at < now_ms() - SOURCE_LAPSE_MS;
    let (status, body) = match source.status {
        SourceStatus::Drafting if lapsed => (StatusCode::OK, "stopped".to_string()),
        SourceStatus::Drafting => {
            (StatusCode::ACCEPTED, format!("{}/{}", source.passages_done, source.passages.len()))
        }
        SourceStatus::Ready | SourceStatus::Failed => (StatusCode::OK, source.status.to_string()),
    };
    (status, [(header::CACHE_CONTROL, "no-store")], body).into_response()
}

/// Keeps the ticked drafts, as the learner edited them (and each merged with the next where
/// asked), in one transaction; then the set's page.
async fn keep(State(state): State<AppState>, Path(id): Path<String>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let Some(viewer) = parts.extensions.get::<Viewer>().cloned() else { return see_other("/signin") };
    let learner = &viewer.learner;
    let form =
        match Form::<HashMap<String, String>>::from_request(Request::from_parts(parts.clone(), body), &state)
            .await
        {
            Ok(Form(form)) => form,
            Err(rejection) => return (StatusCode::BAD_REQUEST, rejection.body_text()).into_response(),
        };
    let drafts = match state.store.source(learner, &id).await {
        Ok(Some(source)) if source.status == SourceStatus::Ready => {
            match state.store.source_drafts(learner, &id).await {
                Ok(drafts) => drafts,
                Err(err) => return storage_failed(err),
            }
        }
        Ok(Some(_)) => return see_other(&format!("/sources/{id}")),
        Ok(None) => return not_found(&state, parts).await,
        Err(err) => return storage_failed(err),
    };
    let mut kept: Vec<KeptDraft> = Vec::new();
    let mut errors = FieldErrors::default();
    let mut merge_next = false;
    for (i, draft) in drafts.iter().enumerate() {
        let value = |name: &str| form.get(&format!("{name}-{i}")).cloned();
        let ticked = value("keep").is_some();
        let content =
            clean::text(value("content").unwrap_or_else(|| draft.content.clone()).trim()).into_owned();
        let cue = clean::text(value("cue").unwrap_or_else(|| draft.cue.clone()).trim()).into_owned();
        let merging = std::mem::replace(&mut merge_next, ticked && value("merge").is_some());
        if !ticked {
            continue;
        }
        if content.is_empty() {
            errors.add(&format!("content-{i}"), "A point you keep needs words.".to_string());
        }
        match kept.last_mut() {
            // Merged into the one before it: one point, the earlier cue, the earlier passage.
            Some(last) if merging => {
                let joint = if last.content.ends_with(['.', '!', '?']) { " " } else { ". " };
                last.content = format!("{}{joint}{content}", last.content);
            }
            Some(_) | None => {
                kept.push(KeptDraft { content, cue, passage: usize::try_from(draft.passage).unwrap_or(0) })
            }
        }
    }
    for (i, point) in kept.iter().enumerate() {
        if point.content.chars().count() > limits::POINT {
            errors.add("kept", format!("Point {} has more than {} characters.", i + 1, limits::POINT));
        }
        if point.cue.chars().count() > limits::CUE {
            errors
                .add("kept", format!("The cue of point {} has more than {} characters.", i + 1, limits::CUE));
        }
    }
    if kept.is_empty() {
        errors.add("kept", "Tick at least one point to keep, or choose Drop them all.".to_string());
    }
    if !errors.is_empty() {
        let shown: HashMap<String, String> = form.into_iter().collect();
        return render(
            &state,
            parts,
            Some(echo("drafts", &shown, errors, None)),
            StatusCode::UNPROCESSABLE_ENTITY,
        )
        .await;
    }
    match state.store.keep_drafts(learner, &id, &kept).await {
        Ok(Some(set_id)) => see_other(&format!("/sets/{set_id}?drafted={}", kept.len())),
        Ok(None) => not_found(&state, parts).await,
        Err(err) => storage_failed(err),
    }
}

/// Drafts a source again (its instance stopped, or the drafting failed).
async fn again(State(state): State<AppState>, Path(id): Path<String>, request: Request) -> Response {
    let (parts, _) = request.into_parts();
    let Some(viewer) = parts.extensions.get::<Viewer>().cloned() else { return see_other("/signin") };
    match state.store.source(&viewer.learner, &id).await {
        Ok(Some(_)) => {}
        Ok(None) => return not_found(&state, parts).await,
        Err(err) => return storage_failed(err),
    }
    match state.store.claim_source(&viewer.learner, &id).await {
        Ok(Some(run)) => state.drafting.spawn(viewer.learner.clone(), id.clone(), run),
        // Being drafted already: its page shows how far it is.
        Ok(None) => {}
        Err(err) => return storage_failed(err),
    }
    see_other(&format!("/sources/{id}"))
}

/// Drops a source and its drafts; back to where the learner came from.
async fn cancel(State(state): State<AppState>, Path(id): Path<String>, request: Request) -> Response {
    let (parts, _) = request.into_parts();
    let Some(viewer) = parts.extensions.get::<Viewer>().cloned() else { return see_other("/signin") };
    let back = match state.store.source(&viewer.learner, &id).await {
        Ok(Some(source)) => {
            source.set_id.map_or_else(|| "/sets?dropped=1".to_string(), |s| format!("/sets/{s}?dropped=1"))
        }
        Ok(None) => return not_found(&state, parts).await,
        Err(err) => return storage_failed(err),
    };
    match state.store.delete_source(&viewer.learner, &id).await {
        Ok(_) => see_other(&back),
        Err(err) => storage_failed(err),
    }
}

#[cfg(test)]
mod tests {
    use super::pasted_title;

    #[test]
    fn pasted_notes_are_named_by_their_heading_or_their_set() {
        assert_eq!(
            pasted_title("\n## Light reactions\n\nChlorophyll absorbs light.", "Plants"),
            "Light reactions"
        );
        assert_eq!(pasted_title("Chlorophyll absorbs light.\n# Later", "Plants"), "Plants");
        assert_eq!(pasted_title("#\nText", "Plants"), "Plants");
    }
}

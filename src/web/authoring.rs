//! Authoring: the form posts that create, change, archive and delete sets, points and
//! resources. Each checks its fields with the rules in `warren_app::forms`, writes, and
//! redirects to where the change shows; a form at fault comes back with what was typed.

use axum::Router;
use axum::extract::{Multipart, Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde::Deserialize;
use warren_app::api::ResourceKind;
use warren_app::forms::{FieldErrors, PointFields, ResourceFields, SetFields, limits};
use warren_app::learner::LearnerId;

use super::AppState;
use super::forms::{self, Posted, echo, failed, not_found, render, render_at, see_other};
use crate::store::{NewResource, NewSet, ResourceEdit, StoreError, image_type};

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/sets/new", post(create_set))
        .route("/sets/{id}/edit", post(edit_set))
        .route("/sets/{id}/archive", post(archive_set))
        .route("/sets/{id}/unarchive", post(unarchive_set))
        .route("/sets/{id}/delete", post(delete_set))
        .route("/sets/{id}/points", post(add_point))
        .route("/sets/{id}/points/{point}/edit", post(edit_point))
        .route("/sets/{id}/points/{point}/move", post(move_point))
        .route("/sets/{id}/points/{point}/delete", post(delete_point))
        .route("/sets/{id}/resources", post(add_resource))
        .route("/sets/{id}/resources/{resource}/edit", post(edit_resource))
        .route("/sets/{id}/resources/{resource}/delete", post(delete_resource))
}

/// A set's name clash, worded for its field.
fn name_taken(name: &str) -> FieldErrors {
    let mut errors = FieldErrors::default();
    errors.add("name", format!("You already have a set called “{name}”. Choose another name."));
    errors
}

async fn create_set(State(state): State<AppState>, request: Request) -> Response {
    let (Posted { parts, viewer, fields }, checked) =
        match forms::read_checked(&state, request, "set", None, SetFields::check).await {
            Ok(read) => read,
            Err(response) => return response,
        };
    let new = NewSet {
        name: checked.name.clone(),
        description: checked.description,
        guidelines: checked.guidelines,
        ..NewSet::default()
    };
    match state.store.create_set(&viewer.learner, &new).await {
        Ok(id) => see_other(&format!("/sets/{id}")),
        Err(StoreError::NameTaken(name)) => {
            let echo = echo("set", &fields, name_taken(&name), None);
            render(&state, parts, Some(echo), StatusCode::UNPROCESSABLE_ENTITY).await
        }
        Err(err) => failed(&state, parts, None, "set", &fields, err).await,
    }
}

async fn edit_set(State(state): State<AppState>, Path(set): Path<String>, request: Request) -> Response {
    let (Posted { parts, viewer, fields }, checked) =
        match forms::read_checked(&state, request, "set", None, SetFields::check).await {
            Ok(read) => read,
            Err(response) => return response,
        };
    let learner = &viewer.learner;
    match state
        .store
        .update_set(learner, &set, &checked.name, &checked.description, &checked.guidelines)
        .await
    {
        Ok(true) => see_other(&format!("/sets/{set}")),
        Ok(false) => not_found(&state, parts).await,
        Err(StoreError::NameTaken(name)) => {
            let echo = echo("set", &fields, name_taken(&name), None);
            render(&state, parts, Some(echo), StatusCode::UNPROCESSABLE_ENTITY).await
        }
        Err(err) => failed(&state, parts, None, "set", &fields, err).await,
    }
}

/// Forms with nothing to fill in (buttons): any fields are ignored.
#[derive(Deserialize, serde::Serialize)]
struct Nothing {}

async fn archive_set(state: State<AppState>, set: Path<String>, posted: Posted<Nothing>) -> Response {
    archive(state, set, posted, true).await
}

async fn unarchive_set(state: State<AppState>, set: Path<String>, posted: Posted<Nothing>) -> Response {
    archive(state, set, posted, false).await
}

async fn archive(
    State(state): State<AppState>,
    Path(set): Path<String>,
    Posted { parts, viewer, fields }: Posted<Nothing>,
    archived: bool,
) -> Response {
    match state.store.set_archived(&viewer.learner, &set, archived).await {
        Ok(true) => see_other(&format!("/sets/{set}")),
        Ok(false) => not_found(&state, parts).await,
        Err(err) => failed(&state, parts, Some(&format!("/sets/{set}")), "archive", &fields, err).await,
    }
}

async fn delete_set(
    State(state): State<AppState>,
    Path(set): Path<String>,
    Posted { parts, viewer, fields }: Posted<Nothing>,
) -> Response {
    match state.store.delete_set(&viewer.learner, &set).await {
        Ok(true) => see_other("/sets"),
        Ok(false) => not_found(&state, parts).await,
        Err(err) => failed(&state, parts, None, "delete", &fields, err).await,
    }
}

async fn add_point(State(state): State<AppState>, Path(set): Path<String>, request: Request) -> Response {
    let page = format!("/sets/{set}");
    let (Posted { parts, viewer, fields }, checked) =
        match forms::read_checked(&state, request, "add-point", Some(&page), PointFields::check).await {
            Ok(read) => read,
            Err(response) => return response,
        };
    match state.store.add_point(&viewer.learner, &set, &checked.content, &checked.context).await {
        // Without a fragment, so the form's first field can take the focus for the next point
        // (Chromium passes `autofocus` over on a page opened at a fragment).
        Ok(Some(_)) => see_other(&format!("/sets/{set}?added=1")),
        Ok(None) => not_found(&state, parts).await,
        Err(err) => failed(&state, parts, Some(&format!("/sets/{set}")), "add-point", &fields, err).await,
    }
}

async fn edit_point(
    State(state): State<AppState>,
    Path((set, point)): Path<(String, String)>,
    request: Request,
) -> Response {
    let (Posted { parts, viewer, fields }, checked) =
        match forms::read_checked(&state, request, "point", None, PointFields::check).await {
            Ok(read) => read,
            Err(response) => return response,
        };
    let learner = &viewer.learner;
    if !owns_point(&state, learner, &set, &point).await {
        return not_found(&state, parts).await;
    }
    let reset = checked.resets_schedule();
    match state.store.update_point(learner, &point, &checked.content, &checked.context, reset).await {
        Ok(true) => see_other(&format!("/sets/{set}#point-{point}")),
        Ok(false) => not_found(&state, parts).await,
        Err(err) => failed(&state, parts, None, "point", &fields, err).await,
    }
}

#[derive(Deserialize, serde::Serialize)]
struct Move {
    /// `up` or `down`.
    direction: String,
}

async fn move_point(
    State(state): State<AppState>,
    Path((set, point)): Path<(String, String)>,
    Posted { parts, viewer, fields }: Posted<Move>,
) -> Response {
    let learner = &viewer.learner;
    if !owns_point(&state, learner, &set, &point).await {
        return not_found(&state, parts).await;
    }
    let up = fields.direction == "up";
    match state.store.move_point(learner, &point, up).await {
        // At an end already: nothing to do, and nothing wrong. The set page gives the focus
        // back to the arrow pressed (with no fragment: Chromium skips `autofocus` on a page
        // opened at one).
        Ok(_) => {
            let to = if up { "up" } else { "down" };
            see_other(&format!("/sets/{set}?moved={point}&to={to}"))
        }
        Err(err) => failed(&state, parts, Some(&format!("/sets/{set}")), "move", &fields, err).await,
    }
}

async fn delete_point(
    State(state): State<AppState>,
    Path((set, point)): Path<(String, String)>,
    Posted { parts, viewer, fields }: Posted<Nothing>,
) -> Response {
    let learner = &viewer.learner;
    if !owns_point(&state, learner, &set, &point).await {
        return not_found(&state, parts).await;
    }
    match state.store.delete_point(learner, &point).await {
        Ok(true) => see_other(&format!("/sets/{set}#points")),
        Ok(false) => not_found(&state, parts).await,
        Err(err) => failed(&state, parts, None, "delete", &fields, err).await,
    }
}

/// Whether a point is the learner's and in that set (the URL names both).
async fn owns_point(state: &AppState, learner: &LearnerId, set: &str, point: &str) -> bool {
    matches!(state.store.point(learner, point).await, Ok(Some(p)) if p.set_id == set)
}

/// A resource form: text fields, the linked points (repeated), and for an image the file.
async fn read_resource(
    mut multipart: Multipart,
) -> Result<(ResourceFields, Option<(String, Vec<u8>)>), String> {
    let mut fields = ResourceFields::default();
    let mut file = None;
    while let Some(field) = multipart.next_field().await.map_err(|e| e.body_text())? {
        let name = field.name().unwrap_or_default().to_string();
        match name.as_str() {
            "file" => {
                let file_name = field.file_name().unwrap_or_default().to_string();
                let bytes = field.bytes().await.map_err(|e| e.body_text())?;
                if !bytes.is_empty() {
                    file = Some((file_name, bytes.to_vec()));
                }
            }
            "title" | "body" | "licence" | "points" => {
                let value = field.text().await.map_err(|e| e.body_text())?;
                match name.as_str() {
                    "title" => fields.title = value,
                    "body" => fields.body = value,
                    "licence" => fields.licence = value,
                    _ => fields.points.push(value),
                }
            }
            // Unknown parts are read past.
            _ => {}
        }
    }
    Ok((fields, file))
}

/// A resource form as posted, with who posted it; `Err` is the answer to give instead (sign
/// in, or a body that is not a form).
async fn posted_resource(
    state: &AppState,
    request: Request,
) -> Result<
    (axum::http::request::Parts, warren_app::api::Viewer, ResourceFields, Option<(String, Vec<u8>)>),
    Response,
> {
    let (parts, body) = request.into_parts();
    let Some(viewer) = parts.extensions.get::<warren_app::api::Viewer>().cloned() else {
        return Err(see_other("/signin"));
    };
    let multipart = <Multipart as axum::extract::FromRequest<AppState>>::from_request(
        Request::from_parts(parts.clone(), body),
        state,
    )
    .await
    .map_err(|rejection| (StatusCode::BAD_REQUEST, rejection.body_text()).into_response())?;
    let (fields, file) =
        read_resource(multipart).await.map_err(|why| (StatusCode::BAD_REQUEST, why).into_response())?;
    Ok((parts, viewer, fields, file))
}

async fn add_resource(State(state): State<AppState>, Path(set): Path<String>, request: Request) -> Response {
    let (parts, viewer, fields, file) = match posted_resource(&state, request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    let image = file.is_some();
    let (checked, mut errors) = match fields.check(image) {
        Ok(checked) => (checked, FieldErrors::default()),
        Err(errors) => (fields.clone(), errors),
    };
    let mut new = NewResource {
        kind: if image { ResourceKind::Image } else { ResourceKind::Text },
        title: checked.title,
        body: checked.body,
        licence: Some(checked.licence).filter(|l| !l.is_empty()),
        ..NewResource::default()
    };
    if let Some((_, bytes)) = file {
        if bytes.len() > limits::IMAGE_BYTES {
            let mb = bytes.len() as f64 / 1_048_576.0;
            errors.add("file", format!("Images can be at most 5 MB; this one is {mb:.1} MB."));
        } else {
            match image_type(&bytes) {
                Some(mime) => {
                    new.mime_type = Some(mime.to_string());
                    new.image = Some(bytes);
                }
                None => errors.add("file", "That is not a PNG, JPEG, WebP or GIF image."),
            }
        }
    }
    let form = if image { "add-image" } else { "add-text" };
    if !errors.is_empty() {
        let echo = echo(form, &fields, errors, None);
        return render_at(
            &state,
            parts,
            &format!("/sets/{set}"),
            Some(echo),
            StatusCode::UNPROCESSABLE_ENTITY,
        )
        .await;
    }
    match state.store.add_resource(&viewer.learner, &set, &new, &fields.points).await {
        Ok(Some(_)) => see_other(&format!("/sets/{set}#resources")),
        Ok(None) => not_found(&state, parts).await,
        Err(err) => failed(&state, parts, Some(&format!("/sets/{set}")), form, &fields, err).await,
    }
}

/// A changed excerpt (title, text) or image (caption, licence), and the points it supports.
async fn edit_resource(
    State(state): State<AppState>,
    Path((set, resource)): Path<(String, String)>,
    request: Request,
) -> Response {
    let (parts, viewer, fields, _) = match posted_resource(&state, request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    let learner = &viewer.learner;
    let kind = match state.store.resources(learner, &set).await {
        Ok(list) => list.into_iter().find(|r| r.id == resource).map(|r| r.kind),
        Err(err) => return failed(&state, parts, None, "resource", &fields, err).await,
    };
    let Some(kind) = kind else { return not_found(&state, parts).await };
    let checked = match fields.check(kind == ResourceKind::Image) {
        Ok(checked) => checked,
        Err(errors) => {
            let echo = echo("resource", &fields, errors, None);
            return render(&state, parts, Some(echo), StatusCode::UNPROCESSABLE_ENTITY).await;
        }
    };
    let edit = ResourceEdit {
        title: checked.title,
        body: checked.body,
        licence: Some(checked.licence).filter(|l| !l.is_empty()),
    };
    match state.store.update_resource(learner, &set, &resource, &edit, &checked.points).await {
        Ok(true) => see_other(&format!("/sets/{set}#resource-{resource}")),
        Ok(false) => not_found(&state, parts).await,
        Err(err) => failed(&state, parts, None, "resource", &fields, err).await,
    }
}

async fn delete_resource(
    State(state): State<AppState>,
    Path((set, resource)): Path<(String, String)>,
    Posted { parts, viewer, fields }: Posted<Nothing>,
) -> Response {
    let learner = &viewer.learner;
    let in_set = matches!(state.store.resources(learner, &set).await, Ok(list) if list.iter().any(|r| r.id == resource));
    if !in_set {
        return not_found(&state, parts).await;
    }
    match state.store.delete_resource(learner, &resource).await {
        Ok(true) => see_other(&format!("/sets/{set}#resources")),
        Ok(false) => not_found(&state, parts).await,
        Err(err) => failed(&state, parts, None, "delete", &fields, err).await,
    }
}

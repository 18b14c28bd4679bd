//! What every form handler shares. Forms are plain HTML posts to the page's own address (or a
//! sub-address): a valid one is written and answered with a redirect (303) to its result; an
//! invalid one gets the same page rendered again, with what was typed and the errors
//! ([`FormEcho`]), and status 422. Pages are Leptos routes; this renders them for a POST.

use axum::body::Body;
use axum::extract::{FromRequest, Request};
use axum::http::request::Parts;
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use leptos::prelude::provide_context;
use serde::Serialize;
use serde::de::DeserializeOwned;
use warren_app::api::Viewer;
use warren_app::forms::{FieldErrors, FormEcho};
use warren_app::shell;

use super::AppState;
use crate::store::StoreError;

/// A form post's request line and headers, its learner, and its fields.
pub struct Posted<T> {
    pub parts: Parts,
    pub viewer: Viewer,
    pub fields: T,
}

/// Reads a url-encoded form. No learner: off to sign in. Fields that are not this form's: 400.
impl<T: DeserializeOwned> FromRequest<AppState> for Posted<T> {
    type Rejection = Response;

    async fn from_request(request: Request, state: &AppState) -> Result<Self, Response> {
        let (parts, body) = request.into_parts();
        let Some(viewer) = parts.extensions.get::<Viewer>().cloned() else {
            return Err(Redirect::to("/signin").into_response());
        };
        let request = Request::from_parts(parts.clone(), body);
        let axum::Form(fields) = axum::Form::<T>::from_request(request, state)
            .await
            .map_err(|rejection| (StatusCode::BAD_REQUEST, rejection.body_text()).into_response())?;
        Ok(Posted { parts, viewer, fields })
    }
}

/// Reads a form and checks it. One with mistakes goes back at once: the page at `page` (the
/// post's own address when `None`) rendered again with what was typed, and status 422.
pub async fn read_checked<T: DeserializeOwned + Serialize>(
    state: &AppState,
    request: Request,
    form: &str,
    page: Option<&str>,
    check: impl FnOnce(&T) -> Result<T, FieldErrors>,
) -> Result<(Posted<T>, T), Response> {
    let posted = Posted::<T>::from_request(request, state).await?;
    match check(&posted.fields) {
        Ok(checked) => Ok((posted, checked)),
        Err(errors) => {
            let echo = echo(form, &posted.fields, errors, None);
            let path = page.map_or_else(|| posted.parts.uri.path().to_string(), str::to_string);
            Err(render_at(state, posted.parts, &path, Some(echo), StatusCode::UNPROCESSABLE_ENTITY).await)
        }
    }
}

/// "See other": where the result of a post can be seen.
pub fn see_other(path: &str) -> Response {
    Redirect::to(path).into_response()
}

/// What was typed, as the echo's values.
pub fn echo(form: &str, fields: &impl Serialize, errors: FieldErrors, message: Option<String>) -> FormEcho {
    let values = match serde_json::to_value(fields) {
        Ok(serde_json::Value::Object(map)) => {
            map.into_iter().filter_map(|(k, v)| v.as_str().map(|s| (k, s.to_string()))).collect()
        }
        _ => Default::default(),
    };
    FormEcho { form: form.to_string(), values, errors, message }
}

/// Renders the page at the request's address (as a GET would), with `echo` for its form and
/// the given status: 422 for a form sent back, 404 for an address that is not the learner's.
pub async fn render(state: &AppState, parts: Parts, echo: Option<FormEcho>, status: StatusCode) -> Response {
    let path = parts.uri.path().to_string();
    render_at(state, parts, &path, echo, status).await
}

/// Renders the page at `path` (the page the form was on, when it posts elsewhere).
pub async fn render_at(
    state: &AppState,
    parts: Parts,
    path: &str,
    echo: Option<FormEcho>,
    status: StatusCode,
) -> Response {
    let backend = state.backend.clone();
    let options = state.leptos_options.clone();
    let handler = leptos_axum::render_app_async_with_context(
        move || {
            provide_context(backend.clone());
            if let Some(echo) = echo.clone() {
                provide_context(echo);
            }
        },
        move || shell(options.clone()),
    );
    let mut parts = parts;
    parts.method = Method::GET;
    if let Ok(uri) = path.parse() {
        parts.uri = uri;
    }
    let mut response = handler(Request::from_parts(parts, Body::empty())).await;
    *response.status_mut() = status;
    response
}

/// The answer to a post whose target is not the learner's (or does not exist): the
/// not-found page, exactly as for a missing one.
pub async fn not_found(state: &AppState, parts: Parts) -> Response {
    render(state, parts, None, StatusCode::NOT_FOUND).await
}

/// The answer to a storage failure: nothing the learner typed is lost, since the form comes
/// back with it, on the page at `page` (the post's own address when `None`).
pub async fn failed(
    state: &AppState,
    parts: Parts,
    page: Option<&str>,
    form: &str,
    fields: &impl Serialize,
    err: StoreError,
) -> Response {
    tracing::error!("storage failed: {err}");
    let message = "The server could not save that; what you typed is still here. Try again.".to_string();
    let echo = echo(form, fields, FieldErrors::default(), Some(message));
    let path = page.map_or_else(|| parts.uri.path().to_string(), str::to_string);
    render_at(state, parts, &path, Some(echo), StatusCode::INTERNAL_SERVER_ERROR).await
}

/// The storage failed: logged, and the learner told that nothing changed.
pub fn storage_failed(err: StoreError) -> Response {
    tracing::error!("storage failed: {err}");
    (StatusCode::INTERNAL_SERVER_ERROR, "The server could not do that; nothing was changed. Try again.")
        .into_response()
}

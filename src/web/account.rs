//! The account page's forms: change the password (every other sign-in ends), end one
//! sign-in, end every other, set the recall the schedule aims for and today's review's
//! limits, fit the schedule to the
//! learner's reviews, download everything
//! (`/account/export`) and delete the account.
//! Each post answers with a redirect back to `/account` saying what happened; a visitor who
//! is not signed in is sent to sign in.

use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Router};
use serde::Deserialize;
use tower_sessions::Session;
use warren_app::forms::limits;

use super::auth::refusal;
use super::client_ip::ClientIp;
use super::password::{hash, verify, weakness};
use super::viewer::CurrentViewer;
use super::{AppState, download, query_value};
use crate::fitting;
use crate::schedule::{LEECH_RANGE, RETENTION_RANGE, fit};
use crate::store::{DailyLimits, FIT_LAPSE_MS, FitReason, FitStatus, StoreError, now_ms};
use crate::transfer::archive;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/account/password", post(change_password))
        .route("/account/sign-ins/end-others", post(end_others))
        .route("/account/sign-ins/{ref_id}/end", post(end_one))
        .route("/account/schedule", post(set_schedule))
        .route("/account/schedule/fit", get(fit_status).post(fit_schedule))
        .route("/account/review-limits", post(set_review_limits))
        .route("/account/export", get(export))
        .route("/account/delete", post(delete))
}

fn back(query: &str, anchor: &str) -> Redirect {
    Redirect::to(&format!("/account?{query}#{anchor}"))
}

/// What was typed into a form's fields, for the page to show again beside its error.
fn typed(fields: &[(&str, &str)]) -> String {
    fields.iter().map(|(name, value)| format!("{name}={}", query_value(value))).collect::<Vec<_>>().join("&")
}

fn to_sign_in() -> Redirect {
    Redirect::to("/signin?next=/account")
}

#[derive(Deserialize)]
pub struct PasswordChange {
    current: String,
    new: String,
}

async fn change_password(
    State(state): State<AppState>,
    CurrentViewer(viewer): CurrentViewer,
    ClientIp(client): ClientIp,
    session: Session,
    Form(form): Form<PasswordChange>,
) -> Redirect {
    let Some(viewer) = viewer else { return to_sign_in() };
    let Some(session_id) = session.id() else { return to_sign_in() };
    // Checking the current password costs a hash, and guessing it here is guessing a
    // sign-in: it counts against the same allowance.
    if let Some(code) = refusal(state.throttle.allow(&viewer.username, client).await, "a password change") {
        return back(&format!("error={code}"), "password");
    }
    let stored = match state.store.password_hash(&viewer.learner).await {
        Ok(stored) => stored,
        Err(err) => {
            tracing::error!("cannot read a password hash: {err}");
            return back("error=server", "password");
        }
    };
    if form.current.chars().count() > limits::PASSWORD || !verify(form.current.clone(), stored).await {
        return back("error=current", "password");
    }
    if let Some(reason) = weakness(&form.new, &viewer.username) {
        return back(&format!("error={reason}"), "password");
    }
    if form.new == form.current {
        return back("error=same", "password");
    }
    let Some(new_hash) = hash(form.new).await else { return back("error=server", "password") };
    // This sign-in keeps its id: a live session open in another tab of this browser goes on.
    match state.store.change_password(&viewer.learner, &new_hash, &session_id.to_string()).await {
        Ok(ended) => {
            state.engine.sign_ins_ended(&viewer.learner);
            tracing::info!(username = viewer.username, ended, "password changed");
            back("done=password", "password")
        }
        Err(err) => {
            tracing::error!("cannot change a password: {err}");
            back("error=server", "password")
        }
    }
}

#[derive(Deserialize)]
pub struct ScheduleForm {
    /// Percent, as the form's number field sends it.
    retention: String,
    /// Failures that make a leech.
    leech_lapses: String,
}

/// Sets the recall the schedule aims for and when a point counts as a leech, and moves due
/// dates to match.
async fn set_schedule(
    State(state): State<AppState>,
    CurrentViewer(viewer): CurrentViewer,
    Form(form): Form<ScheduleForm>,
) -> Redirect {
    let Some(viewer) = viewer else { return to_sign_in() };
    let percent = form.retention.trim().trim_end_matches('%').trim().parse::<f64>().ok();
    let typed = typed(&[("retention", &form.retention), ("leech_lapses", &form.leech_lapses)]);
    let Some(retention) = percent.map(|p| p / 100.0).filter(|r| RETENTION_RANGE.contains(r)) else {
        return back(&format!("error=retention_range&{typed}"), "schedule");
    };
    let Some(leech_lapses) = within(&form.leech_lapses, LEECH_RANGE) else {
        return back(&format!("error=leech_range&{typed}"), "schedule");
    };
    let moved = state.store.set_schedule(&viewer.learner, retention, leech_lapses).await;
    saved(moved.map(|moved| format!("done=retention&moved={moved}")), "schedule", "set a retention")
}

/// A whole number typed into a form's number field, if it is within `range`.
fn within(text: &str, range: std::ops::RangeInclusive<u32>) -> Option<u32> {
    text.trim().parse::<u32>().ok().filter(|n| range.contains(n))
}

/// Back to the form's section after a write: saying `done`, or that the server failed (logged).
fn saved(done: Result<String, StoreError>, anchor: &str, what: &str) -> Redirect {
    match done {
        Ok(done) => back(&done, anchor),
        Err(err) => {
            tracing::error!("cannot {what}: {err}");
            back("error=server", anchor)
        }
    }
}

#[derive(Deserialize)]
pub struct ReviewLimitsForm {
    points_per_session: String,
    new_per_day: String,
}

/// Sets today's review's limits: points per session, and new points a day.
async fn set_review_limits(
    State(state): State<AppState>,
    CurrentViewer(viewer): CurrentViewer,
    Form(form): Form<ReviewLimitsForm>,
) -> Redirect {
    let Some(viewer) = viewer else { return to_sign_in() };
    let typed =
        typed(&[("points_per_session", &form.points_per_session), ("new_per_day", &form.new_per_day)]);
    let Some(points_per_session) = within(&form.points_per_session, DailyLimits::PER_SESSION) else {
        return back(&format!("error=per_session_range&{typed}"), "review-limits");
    };
    let Some(new_per_day) = within(&form.new_per_day, DailyLimits::NEW_PER_DAY) else {
        return back(&format!("error=new_per_day_range&{typed}"), "review-limits");
    };
    let limits = DailyLimits { points_per_session, new_per_day };
    let done = state.store.set_daily_limits(&viewer.learner, limits).await;
    saved(done.map(|()| "done=review_limits".into()), "review-limits", "set review limits")
}

/// Starts fitting the learner's schedule to their reviews in the background; the account page
/// shows its progress, then its figures.
async fn fit_schedule(State(state): State<AppState>, CurrentViewer(viewer): CurrentViewer) -> Redirect {
    let Some(viewer) = viewer else { return to_sign_in() };
    match state.store.fit_items(&viewer.learner).await {
        Ok(items) if items < fit::ANY_FIT => return back("error=fit_few", "fit"),
        Ok(_) => {}
        Err(err) => {
            tracing::error!("cannot count reviews to fit: {err}");
            return back("error=server", "fit");
        }
    }
    match fitting::start(&state.store, &viewer.learner, FitReason::Asked).await {
        Ok(true) => back("done=fitting", "fit"),
        Ok(false) => back("error=fit_running", "fit"),
        Err(err) => {
            tracing::error!("cannot start a fit: {err}");
            back("error=server", "fit")
        }
    }
}

/// Where the learner's latest fit stands, for the page waiting on it: 202 with the
/// optimiser's steps as `done/total` while it runs, otherwise 200 with `done`, `failed` or
/// `none`.
async fn fit_status(State(state): State<AppState>, CurrentViewer(viewer): CurrentViewer) -> Response {
    let Some(viewer) = viewer else { return StatusCode::NOT_FOUND.into_response() };
    let (status, body) = match state.store.fit_run(&viewer.learner).await {
        Ok(Some(run)) => match run.status {
            // Its instance stopped mid-way: it has ended, as the page will say.
            FitStatus::Running if run.heartbeat_at < now_ms() - FIT_LAPSE_MS => {
                (StatusCode::OK, FitStatus::Failed.to_string())
            }
            FitStatus::Running => {
                (StatusCode::ACCEPTED, format!("{}/{}", run.progress_done, run.progress_total))
            }
            FitStatus::Done | FitStatus::Failed => (StatusCode::OK, run.status.to_string()),
        },
        Ok(None) => (StatusCode::OK, "none".to_string()),
        Err(err) => {
            tracing::error!("cannot read a fit: {err}");
            return StatusCode::INTERNAL_SERVER_ERROR.into_response();
        }
    };
    (status, [(header::CACHE_CONTROL, "no-store")], body).into_response()
}

async fn end_one(
    State(state): State<AppState>,
    CurrentViewer(viewer): CurrentViewer,
    Path(ref_id): Path<String>,
) -> Redirect {
    let Some(viewer) = viewer else { return to_sign_in() };
    // Another learner's sign-in is as unknown as one that does not exist.
    match state.store.end_sign_in(&viewer.learner, &ref_id).await {
        Ok(true) => {
            state.engine.sign_ins_ended(&viewer.learner);
            back("done=ended", "sign-ins")
        }
        Ok(false) => back("error=unknown", "sign-ins"),
        Err(err) => {
            tracing::error!("cannot end a sign-in: {err}");
            back("error=server", "sign-ins")
        }
    }
}

async fn end_others(
    State(state): State<AppState>,
    CurrentViewer(viewer): CurrentViewer,
    session: Session,
) -> Redirect {
    let Some(viewer) = viewer else { return to_sign_in() };
    let Some(id) = session.id() else { return to_sign_in() };
    match state.store.end_other_sign_ins(&viewer.learner, &id.to_string()).await {
        Ok(_) => {
            state.engine.sign_ins_ended(&viewer.learner);
            back("done=others", "sign-ins")
        }
        Err(err) => {
            tracing::error!("cannot end other sign-ins: {err}");
            back("error=server", "sign-ins")
        }
    }
}

/// Everything the learner owns as one zip (see `transfer::archive`).
async fn export(State(state): State<AppState>, CurrentViewer(viewer): CurrentViewer) -> Response {
    let Some(viewer) = viewer else { return to_sign_in().into_response() };
    match archive::export(&state.store, &viewer.learner, &viewer.username).await {
        Ok(file) => download::file("application/zip", &file.file_name, file.bytes),
        Err(err) => {
            tracing::error!("cannot export an account: {err}");
            back("error=server", "export").into_response()
        }
    }
}

#[derive(Deserialize)]
pub struct Deletion {
    #[serde(default)]
    username: String,
}

/// Deletes the account once its username is typed: its sessions stop wherever they run, then
/// every row it owns goes in one transaction, every sign-in with it, and this browser's
/// cookie is cleared.
async fn delete(
    State(state): State<AppState>,
    CurrentViewer(viewer): CurrentViewer,
    session: Session,
    Form(form): Form<Deletion>,
) -> Redirect {
    let Some(viewer) = viewer else { return to_sign_in() };
    if form.username.trim().to_lowercase() != viewer.username {
        return back("error=confirm", "delete");
    }
    if let Err(err) = state.engine.stop_sessions_of(&viewer.learner).await {
        tracing::warn!(username = viewer.username, "cannot stop sessions before deleting an account: {err}");
        return back("error=busy", "delete");
    }
    match state.store.delete_account(&viewer.learner).await {
        Ok(_) => {
            // Open sockets of every sign-in find theirs gone and close.
            state.engine.sign_ins_ended(&viewer.learner);
            if let Err(err) = session.flush().await {
                tracing::warn!("cannot clear a deleted account's sign-in: {err}");
            }
            tracing::info!(username = viewer.username, "account deleted");
            Redirect::to("/signup?done=deleted")
        }
        Err(err) => {
            tracing::error!("cannot delete an account: {err}");
            back("error=server", "delete")
        }
    }
}

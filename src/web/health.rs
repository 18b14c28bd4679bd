//! `/healthz`: the process is up. `/readyz`: it can do its job (database, migrations).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Serialize;

use crate::store::{Check, Store};

pub async fn healthz() -> &'static str {
    "ok"
}

#[derive(Serialize)]
pub struct Readiness {
    ready: bool,
    checks: Vec<Check>,
}

pub async fn readyz(State(store): State<Store>) -> (StatusCode, Json<Readiness>) {
    let checks = store.readiness().await;
    let ready = checks.iter().all(|c| c.ok);
    let status = if ready { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
    (status, Json(Readiness { ready, checks }))
}

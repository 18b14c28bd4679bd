//! `/healthz`: the process is up. `/readyz`: it can do its job (database, migrations), and
//! which instance it is.
//! `/metrics`: the engine's counters, in Prometheus's text format, to the operator's monitoring
//! only (a bearer token, or an address of its own).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use std::sync::Arc;

use crate::engine::Engine;
use crate::llm::health::ProviderHealth;
use crate::store::{Check, Store};
use crate::voice::Voice;

pub async fn healthz() -> &'static str {
    "ok"
}

#[derive(Serialize)]
pub struct Readiness {
    ready: bool,
    /// This process among the instances sharing the database, and the live sessions it
    /// runs (it holds their leases).
    instance: String,
    address: String,
    sessions: usize,
    checks: Vec<Check>,
}

/// Ready when the database is; the language model's, the judges' and voice's checks are
/// listed but not required (a learner can still read history, and the offline tutor always
/// works).
pub async fn readyz(
    State(store): State<Store>,
    State(engine): State<Engine>,
    State(health): State<Arc<ProviderHealth>>,
    State(voice): State<Arc<Voice>>,
) -> (StatusCode, Json<Readiness>) {
    let provider = health.status();
    let mut checks = store.readiness().await;
    // Reading may work while writing does not (SQLite locked by another process, a read-only
    // file, a PostgreSQL replica): the heartbeat, written every second, says which.
    checks.push(match engine.writes() {
        Ok(()) => Check { name: "writes", ok: true, detail: "the heartbeat was written".to_string() },
        Err(why) => Check { name: "writes", ok: false, detail: format!("nothing can be saved: {why}") },
    });
    let ready = checks.iter().all(|c| c.ok);
    checks.push(Check { name: "llm", ok: provider.ok, detail: provider.detail.clone() });
    checks.push(Check { name: "judge", ok: provider.by_meaning, detail: provider.judge.clone() });
    // Voice is optional: off is a choice, not a fault.
    let detail = match voice.describe() {
        Some(through) => format!("on: answers by voice are transcribed by {through}"),
        None => "off: answering by voice is not set up (WARREN_TRANSCRIBE_URL)".to_string(),
    };
    checks.push(Check { name: "voice", ok: true, detail });
    let status = if ready { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
    let instance = engine.instance();
    let readiness = Readiness {
        ready,
        instance: instance.id.clone(),
        address: instance.address.clone(),
        sessions: engine.sessions_running(),
        checks,
    };
    (status, Json(readiness))
}

/// `/metrics` on the learners' address: only with the operator's token (`WARREN_METRICS_TOKEN`)
/// as a bearer token, and not there at all without one.
pub async fn metrics(
    State(engine): State<Engine>,
    State(token): State<MetricsToken>,
    headers: axum::http::HeaderMap,
) -> Response {
    let Some(token) = token.0 else { return StatusCode::NOT_FOUND.into_response() };
    let given = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    // Compared in constant time: the token is a password.
    let matches = given.is_some_and(|given| {
        given.len() == token.len()
            && given.bytes().zip(token.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
    });
    if !matches {
        return (StatusCode::UNAUTHORIZED, [(axum::http::header::WWW_AUTHENTICATE, "Bearer")], "")
            .into_response();
    }
    open_metrics(State(engine)).await.into_response()
}

/// `/metrics` on its own address (`WARREN_METRICS_ADDR`), which only the monitoring reaches.
pub async fn open_metrics(
    State(engine): State<Engine>,
) -> ([(axum::http::HeaderName, &'static str); 1], String) {
    ([(axum::http::header::CONTENT_TYPE, "text/plain; version=0.0.4")], engine.metrics().render())
}

/// The token `/metrics` asks for on the learners' address, if the operator set one.
#[derive(Clone, Debug, Default)]
pub struct MetricsToken(pub Option<Arc<str>>);

//! The HTTP layer: pages (Leptos SSR) and server functions, sign-in, the session socket,
//! health checks and static files.

mod auth;
mod backend;
mod health;
pub mod socket;
pub mod viewer;

use std::sync::Arc;

use axum::Router;
use axum::extract::FromRef;
use axum::middleware;
use axum::routing::{get, post};
use leptos::config::LeptosOptions;
use leptos::prelude::provide_context;
use leptos_axum::{LeptosRoutes, generate_route_list};
use tower_http::limit::RequestBodyLimitLayer;
use tower_sessions::cookie::SameSite;
use tower_sessions::{Expiry, SessionManagerLayer};
use warren_app::api::Backend;
use warren_app::{App, shell};

use crate::engine::Engine;
use crate::llm::select::ProviderStatus;
use crate::store::Store;
pub use auth::Throttle;

/// Request bodies (forms, server-function arguments) larger than this are refused with 413.
const MAX_BODY: usize = 64 * 1024;
/// A sign-in lasts this long without a visit.
const SIGN_IN_IDLE_DAYS: i64 = 30;

#[derive(Clone, FromRef)]
pub struct AppState {
    pub leptos_options: LeptosOptions,
    pub store: Store,
    pub engine: Engine,
    pub provider_status: Arc<ProviderStatus>,
    pub throttle: Arc<Throttle>,
    /// Whether the site is served over HTTPS (cookies are then `Secure`).
    pub secure_cookies: bool,
}

/// Percent-encodes a query-string value, leaving `/` readable (for `next=/sets`).
pub(crate) fn query_value(text: &str) -> String {
    text.bytes()
        .take(400)
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'/' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

pub fn router(state: AppState) -> Router {
    let routes = generate_route_list(App);
    let options = state.leptos_options.clone();
    let backend: Arc<dyn Backend> = Arc::new(backend::ServerBackend {
        store: state.store.clone(),
        engine: state.engine.clone(),
        provider_status: state.provider_status.clone(),
    });
    let sessions = SessionManagerLayer::new(state.store.clone())
        .with_name("warren_session")
        .with_http_only(true)
        .with_same_site(SameSite::Lax)
        .with_secure(state.secure_cookies)
        .with_expiry(Expiry::OnInactivity(time::Duration::days(SIGN_IN_IDLE_DAYS)));
    Router::new()
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .route("/metrics", get(health::metrics))
        .route("/ws/sessions/{id}", get(socket::upgrade))
        .route("/auth/signup", post(auth::sign_up))
        .route("/auth/signin", post(auth::sign_in))
        .route("/auth/signout", post(auth::sign_out))
        .leptos_routes_with_context(
            &state,
            routes,
            move || provide_context(backend.clone()),
            move || shell(options.clone()),
        )
        .fallback(leptos_axum::file_and_error_handler::<AppState, _>(shell))
        .layer(middleware::from_fn_with_state(state.store.clone(), viewer::require_for_pages))
        .layer(middleware::from_fn_with_state(state.store.clone(), viewer::resolve))
        .layer(sessions)
        .layer(middleware::from_fn(viewer::same_origin))
        .layer(RequestBodyLimitLayer::new(MAX_BODY))
        .with_state(state)
}

//! The HTTP layer: pages (Leptos SSR) and server functions, sign-in, the session socket,
//! health checks and static files.

mod account;
mod auth;
mod authoring;
mod backend;
mod cache;
mod client_ip;
mod download;
mod drafting;
mod export_page;
mod forms;
mod health;
mod history;
mod media;
mod password;
mod security;
pub mod socket;
mod stats;
mod transcript;
mod transfer;
pub mod viewer;
mod voice;

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, FromRef, Request};
use axum::http::{Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use http_body_util::Limited;
use leptos::config::LeptosOptions;
use leptos::prelude::provide_context;
use leptos_axum::{LeptosRoutes, generate_route_list};
use tower_http::compression::CompressionLayer;
use tower_sessions::cookie::SameSite;
use tower_sessions::{Expiry, SessionManagerLayer};
use warren_app::api::Backend;
use warren_app::forms::limits;
use warren_app::voice::TRANSCRIBE_PATH;
use warren_app::{App, shell};

use crate::engine::Engine;
use crate::llm::health::ProviderHealth;
use crate::store::Store;
use crate::voice::Voice;
pub use auth::Throttle;
pub use backend::ServerBackend;
pub use health::MetricsToken;

/// Request bodies (forms, server-function arguments) larger than this are refused with 413;
/// uploads have their own limits (see [`body_limit`]).
const MAX_BODY: usize = 64 * 1024;
/// A sign-in lasts this long without a visit.
const SIGN_IN_IDLE_DAYS: i64 = 30;

#[derive(Clone, FromRef)]
pub struct AppState {
    pub leptos_options: LeptosOptions,
    pub store: Store,
    pub engine: Engine,
    /// Whether the language model answers, now (see `llm::health`).
    pub provider_health: Arc<ProviderHealth>,
    pub throttle: Arc<Throttle>,
    /// Whether the site is served over HTTPS (cookies are then `Secure`).
    pub secure_cookies: bool,
    /// Proxies whose `X-Forwarded-For` is believed (see `client_ip`).
    pub trusted_proxies: Arc<[ipnet::IpNet]>,
    /// The pages' access to the store and engine (also used to render pages for form posts).
    pub backend: Arc<dyn Backend>,
    /// Answering by voice (off without a transcription URL).
    pub voice: Arc<Voice>,
    /// Drafting points from a learner's material, in the background.
    pub drafting: crate::drafting::Drafting,
    /// What `/metrics` asks for on this address.
    pub metrics_token: health::MetricsToken,
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
    let backend = state.backend.clone();
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
        .route("/media/{id}", get(media::image))
        .route("/auth/signup", post(auth::sign_up))
        .route("/auth/signin", post(auth::sign_in))
        .route("/auth/signout", post(auth::sign_out))
        // The names other sites use for the two forms.
        .route("/login", get(|| async { Redirect::permanent("/signin") }))
        .route("/sign-in", get(|| async { Redirect::permanent("/signin") }))
        .route("/register", get(|| async { Redirect::permanent("/signup") }))
        .route("/sign-up", get(|| async { Redirect::permanent("/signup") }))
        .route(TRANSCRIBE_PATH, post(voice::transcribe))
        .merge(account::routes())
        .merge(authoring::routes())
        .merge(transfer::routes())
        .merge(history::routes())
        .merge(drafting::routes())
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
        .layer(middleware::from_fn(limit_body))
        // The limit above is the one that counts; axum's own would stop uploads at 2 MB.
        .layer(DefaultBodyLimit::max(limits::ARCHIVE_BYTES + MAX_BODY))
        // Pages, JSON, the stylesheet and the exports travel compressed (Brotli, zstd or gzip,
        // as the browser accepts); the client's files already are (see scripts/lib.sh), and
        // images and sockets are left as they are.
        .layer(CompressionLayer::new())
        .layer(middleware::from_fn(cache::cache_control))
        // Outermost: every response gets the security headers, refusals and errors included.
        .layer(middleware::from_fn_with_state(security::Https(state.secure_cookies), security::headers))
        .with_state(state)
}

/// `/metrics` alone, for its own address (`WARREN_METRICS_ADDR`).
pub fn metrics_router(engine: Engine) -> Router {
    Router::new().route("/metrics", get(health::open_metrics)).with_state(engine)
}

/// How large a request's body may be: uploads of images and files to import get their own
/// room, everything else [`MAX_BODY`].
fn body_limit(method: &Method, path: &str) -> usize {
    if method == Method::POST {
        if path == "/import" {
            return limits::ARCHIVE_BYTES + MAX_BODY;
        }
        if path.starts_with("/sets/") && path.ends_with("/resources") {
            return limits::IMAGE_BYTES + MAX_BODY;
        }
        // An excerpt changed: its text may take four bytes a character.
        if path.starts_with("/sets/") && path.contains("/resources/") && path.ends_with("/edit") {
            return 4 * limits::RESOURCE_TEXT + MAX_BODY;
        }
        if path == TRANSCRIBE_PATH {
            return warren_app::voice::MAX_BYTES + MAX_BODY;
        }
        // A source: 20 MB of file, and as much pasted text again at most.
        if path.starts_with("/sets/") && path.ends_with("/source") {
            return limits::SOURCE_BYTES + 4 * limits::SOURCE_CHARS + MAX_BODY;
        }
    }
    MAX_BODY
}

/// Refuses bodies over [`body_limit`] with 413: at once when the declared length says so,
/// otherwise as soon as the body grows past it.
async fn limit_body(request: Request, next: Next) -> Response {
    let limit = body_limit(request.method(), request.uri().path());
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > limit) {
        // The live page reads a coded refusal.
        if request.uri().path() == TRANSCRIBE_PATH {
            return voice::refusal(warren_app::voice::TranscribeError::TooLarge);
        }
        return (StatusCode::PAYLOAD_TOO_LARGE, "That is more than this address accepts.").into_response();
    }
    let (parts, body) = request.into_parts();
    next.run(Request::from_parts(parts, Body::new(Limited::new(body, limit)))).await
}

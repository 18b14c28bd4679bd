//! The HTTP layer: pages (Leptos SSR), server functions, health checks, static files.

mod health;
pub mod socket;
pub mod viewer;

use std::sync::Arc;

use axum::Router;
use axum::extract::FromRef;
use axum::routing::get;
use leptos::config::LeptosOptions;
use leptos_axum::{LeptosRoutes, generate_route_list};
use warren_app::{App, shell};

use crate::engine::Engine;
use crate::llm::select::ProviderStatus;
use crate::store::Store;

#[derive(Clone, FromRef)]
pub struct AppState {
    pub leptos_options: LeptosOptions,
    pub store: Store,
    pub engine: Engine,
    pub provider_status: Arc<ProviderStatus>,
}

pub fn router(state: AppState) -> Router {
    let routes = generate_route_list(App);
    let options = state.leptos_options.clone();
    Router::new()
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .route("/ws/sessions/{id}", get(socket::upgrade))
        .leptos_routes(&state, routes, move || shell(options.clone()))
        .fallback(leptos_axum::file_and_error_handler::<AppState, _>(shell))
        .with_state(state)
}

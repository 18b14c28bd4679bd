//! A live session's page: heading and provider notice from the server, then the live view.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::api::{SessionHeader, get_session_header};
use crate::components::live::LiveSession;
use crate::components::widgets::{ProviderBanner, loaded, route_id};

#[component]
pub fn LivePage() -> impl IntoView {
    // Never kept for Back: a session page restored as it was left would show a question the
    // session is past, "Connected" to nothing. Back loads it again, as it now stands.
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.insert_header(http::header::CACHE_CONTROL, http::HeaderValue::from_static("no-store"));
    }
    let header = Resource::new(route_id(), get_session_header);
    loaded(header, |header| view! { <LiveView header /> })
}

#[component]
fn LiveView(header: SessionHeader) -> impl IntoView {
    let voice = header.provider.voice.is_some();
    view! {
        <Title text=header.card.set_name.clone() />
        <section class="page session">
            <h1 class="session-title">{header.card.set_name.clone()}</h1>
            <ProviderBanner notice=header.provider />
            <LiveSession card=header.card voice />
        </section>
    }
}

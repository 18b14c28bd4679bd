use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use crate::api::get_session_header;
use crate::components::live::LiveSession;
use crate::components::widgets::{ErrorView, ProviderBanner};

#[component]
pub fn LivePage() -> impl IntoView {
    let params = use_params_map();
    let header = Resource::new(move || params.with(|p| p.get("id").unwrap_or_default()), get_session_header);
    view! {
        <Suspense fallback=|| view! { <p class="loading">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match header.await {
                    Ok(header) => view! {
                        <Title text=header.card.set_name.clone() />
                        <section class="page session">
                            <h1 class="session-title">{header.card.set_name.clone()}</h1>
                            <ProviderBanner notice=header.provider.clone() />
                            <LiveSession card=header.card />
                        </section>
                    }.into_any(),
                    Err(error) => view! { <ErrorView error /> }.into_any(),
                }
            })}
        </Suspense>
    }
}

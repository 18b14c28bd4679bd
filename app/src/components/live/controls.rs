//! The bar above the exchange: connection state, study clock, chime toggle.

use std::time::Duration;

use leptos::prelude::*;

use super::sound;
use super::state::Connection;
use crate::format::clock;

#[component]
pub fn ConnectionBadge(#[prop(into)] connection: Signal<Option<Connection>>) -> impl IntoView {
    let shown = move || match connection.get() {
        Some(Connection::Open) => ("open", "Connected".to_string()),
        Some(Connection::Connecting) | None => ("connecting", "Connecting…".to_string()),
        Some(Connection::Reconnecting(_)) => ("reconnecting", "Reconnecting…".to_string()),
        Some(Connection::Closed(why)) => ("closed", why),
    };
    view! {
        <span class=move || format!("connection {}", shown().0) data-testid="connection" role="status">
            <span class="dot" aria-hidden="true"></span>
            {move || shown().1}
        </span>
    }
}

/// MM:SS studied: the time the server reported, plus the seconds counted here since, while
/// the clock runs.
#[component]
pub fn Timer(#[prop(into)] studied: Signal<u64>, #[prop(into)] running: Signal<bool>) -> impl IntoView {
    let since = RwSignal::new(0u64);
    // A new report from the server restarts the local count.
    Effect::new(move |_| {
        studied.track();
        since.set(0);
    });
    // Browser only: effects do not run on the server.
    Effect::new(move |_| {
        let tick = move || {
            if running.get_untracked() {
                since.update(|n| *n += 1000);
            }
        };
        if let Ok(handle) = set_interval_with_handle(tick, Duration::from_secs(1)) {
            on_cleanup(move || handle.clear());
        }
    });
    view! {
        <span class="timer" data-testid="timer" aria-label="Time studied">
            {move || clock(studied.get() + since.get())}
        </span>
    }
}

#[component]
pub fn MuteToggle(muted: RwSignal<bool>) -> impl IntoView {
    let toggle = move |_| {
        let now = !muted.get_untracked();
        muted.set(now);
        sound::store_mute(now);
    };
    view! {
        <button
            type="button"
            class="icon-button"
            data-testid="mute"
            aria-pressed=move || muted.get().to_string()
            aria-label=move || if muted.get() { "Sound off. Turn the chime on." } else { "Sound on. Mute the chime." }
            on:click=toggle
        >
            <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">
                <path d="M11 5 6 9H3v6h3l5 4V5z" />
                {move || if muted.get() {
                    view! { <path d="m22 9-6 6M16 9l6 6" /> }.into_any()
                } else {
                    view! { <path d="M15.5 8.5a5 5 0 0 1 0 7M18.5 5.5a9 9 0 0 1 0 13" /> }.into_any()
                }}
            </svg>
        </button>
    }
}

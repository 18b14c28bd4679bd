//! "You've covered everything": Continue keeps talking, Done leaves (and completes).

use leptos::prelude::*;

use super::Link;
use crate::components::format::clock;
use crate::protocol::{ClientMessage, SessionCompleteOverlay as Overlay};

#[component]
pub fn SessionCompleteOverlay(overlay: Overlay, link: Link) -> impl IntoView {
    view! {
        <div class="overlay" role="dialog" aria-modal="true" aria-labelledby="overlay-title" data-testid="overlay">
            <div class="overlay-card">
                <h2 id="overlay-title">{overlay.message}</h2>
                <p>{format!("{} of {} points, in {}.", overlay.recalled_count, overlay.total_points, clock(overlay.duration_ms))}</p>
                <div class="overlay-actions">
                    <button type="button" class="button" data-testid="overlay-continue" on:click=move |_| {
                        link.send(ClientMessage::DismissOverlay);
                    }>"Continue"</button>
                    <button type="button" class="button primary" data-testid="overlay-done" on:click=move |_| {
                        link.send(ClientMessage::LeaveSession);
                    }>"Done"</button>
                </div>
            </div>
        </div>
    }
}

//! Small pieces several pages use.

use leptos::prelude::*;

use crate::api::{ApiError, ProviderNotice};
use crate::pages::not_found::NotFoundBody;
use crate::protocol::SessionStatus;

/// What a page shows when its data could not be had.
#[component]
pub fn ErrorView(error: ApiError) -> impl IntoView {
    match error {
        ApiError::NotFound => view! { <NotFoundBody /> }.into_any(),
        ApiError::Unauthorized => view! {
            <section class="page">
                <h1>"Please sign in"</h1>
                <p><a href="/signin">"Sign in"</a>" to see this page."</p>
            </section>
        }
        .into_any(),
        other @ (ApiError::Invalid(_) | ApiError::Internal) => view! {
            <section class="page">
                <h1>"Something went wrong"</h1>
                <p role="alert">{other.to_string()}</p>
            </section>
        }
        .into_any(),
    }
}

pub fn status_label(status: SessionStatus) -> &'static str {
    match status {
        SessionStatus::InProgress => "in progress",
        SessionStatus::Paused => "paused",
        SessionStatus::Completed => "completed",
        SessionStatus::Abandoned => "abandoned",
    }
}

#[component]
pub fn StatusPill(status: SessionStatus) -> impl IntoView {
    view! {
        <span class=format!("pill status-{}", status.as_str()) data-testid="session-status">
            {status_label(status)}
        </span>
    }
}

/// Says which tutor answers; a failed start-up check is shown, never only logged.
#[component]
pub fn ProviderBanner(notice: ProviderNotice) -> impl IntoView {
    if !notice.ok {
        view! {
            <p class="notice warning" role="status" data-testid="provider-notice">
                "The language model is not answering ("{notice.detail}"). Sessions may fail until it is back."
            </p>
        }
        .into_any()
    } else if notice.offline {
        view! {
            <p class="notice" data-testid="provider-notice">
                <strong>"Offline tutor"</strong>
                " — built in, no network. It checks your answers against your own notes; connect a language model for a richer conversation."
            </p>
        }
        .into_any()
    } else {
        view! { <p class="notice quiet" data-testid="provider-notice">"Tutor: "{notice.label}</p> }.into_any()
    }
}

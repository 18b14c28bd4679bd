//! Small pieces several pages use.

use leptos::prelude::*;

use leptos_meta::Title;

use crate::api::{ApiError, ProviderNotice, SessionCard};
use crate::protocol::SessionStatus;

/// What a page's data must be: loaded on the server and sent along for hydration.
pub trait PageData: Clone + Send + Sync + serde::Serialize + serde::de::DeserializeOwned + 'static {}

impl<T: Clone + Send + Sync + serde::Serialize + serde::de::DeserializeOwned + 'static> PageData for T {}

/// The shape of every page: its data loads (on the server, before the page is sent), then the
/// page shows it, or the error view says why it could not.
pub fn loaded<T: PageData, V: IntoView + 'static>(
    data: Resource<Result<T, ApiError>>,
    show: impl Fn(T) -> V + Clone + Send + Sync + 'static,
) -> impl IntoView {
    loaded_or(data, None, show)
}

/// As [`loaded`], for a page whose data is used up when its work is done (an import's preview,
/// a source's drafts): reached again, by Back, it says why it may be gone (`done`) rather than
/// a bare "Not found".
pub fn loaded_until_done<T: PageData, V: IntoView + 'static>(
    data: Resource<Result<T, ApiError>>,
    done: &'static str,
    show: impl Fn(T) -> V + Clone + Send + Sync + 'static,
) -> impl IntoView {
    loaded_or(data, Some(done), show)
}

/// [`loaded`], with what a page whose work is `done` says when its data is not found.
fn loaded_or<T: PageData, V: IntoView + 'static>(
    data: Resource<Result<T, ApiError>>,
    done: Option<&'static str>,
    show: impl Fn(T) -> V + Clone + Send + Sync + 'static,
) -> impl IntoView {
    view! {
        <Suspense fallback=|| view! { <p class="loading">"Loading…"</p> }>
            {move || {
                let show = show.clone();
                Suspend::new(async move {
                    match (data.await, done) {
                        (Ok(value), _) => show(value).into_any(),
                        (Err(ApiError::NotFound), Some(done)) => view! { <DoneBody done /> }.into_any(),
                        (Err(error), _) => view! { <ErrorView error /> }.into_any(),
                    }
                })
            }}
        </Suspense>
    }
}

/// What [`loaded_until_done`] shows for work already done: why it is not here, and where to go.
/// A 404 all the same, as for an id that was never the learner's: the two are not told apart.
#[component]
fn DoneBody(done: &'static str) -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::NOT_FOUND);
    }
    view! {
        <Title text="Nothing to do here" />
        <section class="page">
            <h1>"Nothing to do here"</h1>
            <p data-testid="already-done">{done}</p>
            <p><a href="/">"Back to the dashboard"</a>", where your sets are."</p>
        </section>
    }
}

/// A page with a fixed title whose data loads first (see [`loaded`]).
pub fn titled<T: PageData, V: IntoView + 'static>(
    title: &'static str,
    data: Resource<Result<T, ApiError>>,
    show: impl Fn(T) -> V + Clone + Send + Sync + 'static,
) -> impl IntoView {
    view! {
        <Title text=title />
        {loaded(data, show)}
    }
}

/// One session in a list: its set, status and progress, linking to its history.
#[component]
pub fn SessionItem(
    session: SessionCard,
    #[prop(into)] when: String,
    /// The overview of the session's summary.
    #[prop(default = None)]
    overview: Option<String>,
) -> impl IntoView {
    let SessionCard { id, set_name, status, recalled_count, total_points, .. } = session;
    view! {
        <li>
            <a href=format!("/history/{id}")>{set_name}</a>" "
            <StatusPill status />
            <span class="meta">{format!(" {recalled_count} of {total_points} recalled · {when}")}</span>
            {overview.map(|o| view! { <p class="item-overview" data-testid="item-overview">{o}</p> })}
        </li>
    }
}

/// The `:id` of the current route, as a resource's source.
pub fn route_id() -> impl Fn() -> String + Clone + Send + Sync + 'static {
    let params = leptos_router::hooks::use_params_map();
    move || params.with(|p| p.get("id").unwrap_or_default())
}

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
pub fn ProviderBanner(
    notice: ProviderNotice,
    /// Say so when answering by voice is off (the dashboard does; the live page need not).
    #[prop(optional)]
    voice_off_too: bool,
) -> impl IntoView {
    let voice = match notice.voice.clone() {
        Some(through) => Some(format!(
            "You can answer by voice: the microphone beside Send records, and {through} transcribes."
        )),
        None => voice_off_too.then(|| "Answering by voice is off on this server.".to_string()),
    };
    let voice = voice.map(|text| view! { <p class="notice quiet" data-testid="voice-notice">{text}</p> });
    (provider_notice(notice), voice)
}

fn provider_notice(notice: ProviderNotice) -> impl IntoView {
    if !notice.ok {
        view! {
            <p class="notice warning" role="status" data-testid="provider-notice">
                "The language model is not answering ("{notice.detail}"). Sessions may fail until it is back."
            </p>
        }
        .into_any()
    } else if notice.offline && notice.by_meaning {
        // One line, the rest a tap away: on a phone the whole of it pushed the answer box
        // off the first screen.
        view! {
            <details class="notice" data-testid="provider-notice">
                <summary><strong>"Offline tutor"</strong>" — built in, no network."</summary>
                <p>"It checks your answers against your own notes by meaning as well as by words, and answers side questions from the note nearest in meaning (its sentence model is loaded); connect a language model for a richer conversation."</p>
            </details>
        }
        .into_any()
    } else if notice.offline {
        // Without the sentence model the notice says how to install it, in full.
        view! {
            <p class="notice" data-testid="provider-notice">
                <strong>"Offline tutor"</strong>
                {format!(" — built in, no network. It checks your answers against your own notes by matching words only ({}).", notice.judge.trim_start_matches("judges by word matching only: "))}
            </p>
        }
        .into_any()
    } else {
        view! { <p class="notice quiet" data-testid="provider-notice">"Tutor: "{notice.label}</p> }.into_any()
    }
}

/// The 404 page; also what any missing (or someone else's) set, session or history shows.
#[component]
pub fn NotFoundBody() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::NOT_FOUND);
    }
    view! {
        <Title text="Not found" />
        <section class="page">
            <h1>"Not found"</h1>
            <p>"There is nothing here. " <a href="/">"Back to the dashboard"</a></p>
        </section>
    }
}

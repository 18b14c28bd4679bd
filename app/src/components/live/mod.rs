//! The live session: one exchange at a time (the agent's current words large, the input bar
//! below), progress circles, the rabbit-hole prompt and banner, the completion overlay and the
//! controls. Server-rendered as a shell; the socket connects once hydrated.

// The socket-driven half (actions, chime, mute storage) runs only in the browser.
#![cfg_attr(not(feature = "hydrate"), allow(dead_code))]

pub mod state;

#[cfg(feature = "hydrate")]
mod chime;
#[cfg(feature = "hydrate")]
mod socket;

use leptos::prelude::*;

use crate::api::SessionHeader;
use crate::components::format::clock;
use crate::components::markdown::Markdown;
use crate::protocol::{ClientMessage, SessionStatus};
use state::{Action, Connection, LiveState, Outgoing};

/// How the page talks to the socket (a no-op during server rendering).
#[derive(Clone, Copy)]
struct Channel {
    state: RwSignal<LiveState>,
    #[cfg(feature = "hydrate")]
    socket: StoredValue<Option<socket::Socket>, LocalStorage>,
    muted: RwSignal<bool>,
}

impl Channel {
    fn send(&self, message: ClientMessage) {
        #[cfg(feature = "hydrate")]
        self.socket.with_value(|s| {
            if let Some(socket) = s {
                socket.send(&message);
            }
        });
        #[cfg(not(feature = "hydrate"))]
        let _ = message;
    }

    /// A learner message: kept in the outbox until answered, sent now if connected.
    fn say(&self, content: String) {
        let id = next_client_id();
        let message = self.state.try_update(|s| s.send(Outgoing { client_message_id: id, content }));
        if let Some(message) = message {
            self.send(message);
        }
    }

    fn perform(&self, actions: Vec<Action>) {
        for action in actions {
            match action {
                Action::Chime =>
                {
                    #[cfg(feature = "hydrate")]
                    if !self.muted.get_untracked() {
                        chime::play();
                    }
                }
                Action::Resend(messages) => {
                    for message in messages {
                        self.send(message);
                    }
                }
                Action::PlayBuffered => self.play_buffered(),
                Action::Leave => {
                    #[cfg(feature = "hydrate")]
                    {
                        self.socket.with_value(|s| s.as_ref().map(socket::Socket::stop));
                        if let Some(window) = web_sys::window() {
                            let _ = window.location().assign("/");
                        }
                    }
                }
            }
        }
    }

    /// Recalls made inside a rabbit hole fill their circles one after another.
    fn play_buffered(&self) {
        let this = *self;
        set_timeout(
            move || {
                let Some((more, actions)) = this.state.try_update(LiveState::tick) else { return };
                this.perform(actions);
                if more {
                    this.play_buffered();
                }
            },
            std::time::Duration::from_millis(450),
        );
    }
}

fn next_client_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    #[cfg(feature = "hydrate")]
    let page = (js_sys::Math::random() * 1e12) as u64;
    #[cfg(not(feature = "hydrate"))]
    let page = 0u64;
    thread_local! { static PAGE: std::cell::Cell<u64> = const { std::cell::Cell::new(0) }; }
    let page = PAGE.with(|p| {
        if p.get() == 0 {
            p.set(page.max(1));
        }
        p.get()
    });
    format!("{page:x}-{}", COUNTER.fetch_add(1, Ordering::Relaxed))
}

#[component]
pub fn LiveSession(header: SessionHeader) -> impl IntoView {
    let card = header.card;
    let state = RwSignal::new(LiveState::from_card(&card));
    let muted = RwSignal::new(false);
    let channel = Channel {
        state,
        #[cfg(feature = "hydrate")]
        socket: StoredValue::new_local(None),
        muted,
    };

    #[cfg(feature = "hydrate")]
    {
        let session_id = card.id.clone();
        Effect::new(move |_| {
            muted.set(storage_flag(MUTE_KEY));
            let on_message = std::rc::Rc::new(move |message| {
                if let Some(actions) = state.try_update(|s| s.apply(message)) {
                    channel.perform(actions);
                }
            });
            let on_connection = std::rc::Rc::new(move |connection| {
                state.update(|s| s.connection = Some(connection));
            });
            let socket = socket::Socket::connect(&session_id, on_message, on_connection);
            channel.socket.set_value(socket);
        });
        on_cleanup(move || {
            channel.socket.with_value(|s| s.as_ref().map(socket::Socket::stop));
        });
    }

    let ended = matches!(card.status, SessionStatus::Completed | SessionStatus::Abandoned);
    let in_rabbithole = Memo::new(move |_| state.with(LiveState::in_rabbithole));
    view! {
        <div
            class="live"
            class:rabbithole=in_rabbithole
            data-testid="live"
            data-turns=move || state.with(|s| s.turns).to_string()
            data-connection=move || state.with(|s| match s.connection {
                Some(Connection::Open) => "open",
                Some(Connection::Closed(_)) => "closed",
                Some(Connection::Connecting | Connection::Reconnecting(_)) | None => "connecting",
            })
        >
            <div class="live-bar">
                <ConnectionBadge state />
                <Timer state />
                <MuteToggle muted />
                <button
                    type="button"
                    class="button leave"
                    data-testid="leave"
                    on:click=move |_| channel.send(ClientMessage::LeaveSession)
                >
                    "Leave Session"
                </button>
            </div>
            {ended.then(|| view! {
                <p class="notice">
                    "This session has ended. "
                    <a href=format!("/history/{}", card.id)>"Read it"</a>
                    " or start a new one from the dashboard."
                </p>
            })}
            <SessionProgress state />
            <RabbitholeIndicator state channel />
            <Exchange state channel />
            <InputBar state channel />
            <SessionCompleteOverlay state channel />
        </div>
    }
    .into_any()
}

const MUTE_KEY: &str = "warren.muted";

#[cfg(feature = "hydrate")]
fn storage_flag(key: &str) -> bool {
    web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .and_then(|s| s.get_item(key).ok().flatten())
        .is_some_and(|v| v == "1")
}

#[component]
fn ConnectionBadge(state: RwSignal<LiveState>) -> impl IntoView {
    let text = move || {
        state.with(|s| match &s.connection {
            Some(Connection::Open) => ("open", "Connected".to_string()),
            Some(Connection::Connecting) | None => ("connecting", "Connecting…".to_string()),
            Some(Connection::Reconnecting(_)) => ("reconnecting", "Reconnecting…".to_string()),
            Some(Connection::Closed(why)) => ("closed", why.clone()),
        })
    };
    view! {
        <span class=move || format!("connection {}", text().0) data-testid="connection" role="status">
            <span class="dot" aria-hidden="true"></span>
            {move || text().1}
        </span>
    }
}

#[component]
fn Timer(state: RwSignal<LiveState>) -> impl IntoView {
    // Seconds since the last `session_started`, added to the study time it reported.
    let since = RwSignal::new(0u64);
    let base = Memo::new(move |_| state.with(|s| s.elapsed_ms));
    #[cfg(feature = "hydrate")]
    {
        Effect::new(move |_| {
            base.track();
            since.set(0);
        });
        let running = move || {
            state.with_untracked(|s| {
                s.status == Some(SessionStatus::InProgress) && s.connection == Some(Connection::Open)
            })
        };
        if let Ok(handle) = set_interval_with_handle(
            move || {
                if running() {
                    since.update(|n| *n += 1000);
                }
            },
            std::time::Duration::from_secs(1),
        ) {
            on_cleanup(move || handle.clear());
        }
    }
    view! {
        <span class="timer" data-testid="timer" aria-label="Time studied">
            {move || clock(base.get() + since.get())}
        </span>
    }
}

#[component]
fn MuteToggle(muted: RwSignal<bool>) -> impl IntoView {
    let toggle = move |_| {
        let now = !muted.get_untracked();
        muted.set(now);
        #[cfg(feature = "hydrate")]
        if let Some(storage) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) {
            let _ = if now { storage.set_item(MUTE_KEY, "1") } else { storage.remove_item(MUTE_KEY) };
        }
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

/// One anonymous circle per point, filled left to right by count. Never shows what a point
/// says. Hidden while exploring a rabbit hole.
#[component]
fn SessionProgress(state: RwSignal<LiveState>) -> impl IntoView {
    let total = Memo::new(move |_| state.with(|s| s.total));
    let shown = Memo::new(move |_| state.with(|s| s.shown));
    let popping = Memo::new(move |_| state.with(|s| s.just_filled));
    let labels = Memo::new(move |_| state.with(|s| s.labels.clone()));
    let hidden = Memo::new(move |_| state.with(LiveState::in_rabbithole));
    view! {
        <div class="progress" class:hidden=hidden aria-hidden=move || hidden.get().to_string()>
            <div
                class="circles"
                role="img"
                data-testid="progress"
                data-recalled=move || shown.get().to_string()
                aria-label=move || format!("{} of {} points recalled", shown.get(), total.get())
            >
                {move || {
                    (0..total.get())
                        .map(|i| {
                            let filled = i < shown.get();
                            let pop = popping.get() == Some(i);
                            view! { <span class="circle" class:filled=filled class:pop=pop></span> }
                        })
                        .collect_view()
                }}
            </div>
            <div class="pills">
                {move || labels.get().into_iter().map(|l| view! { <span class="pill amber">{l}</span> }).collect_view()}
            </div>
        </div>
    }
}

#[component]
fn RabbitholeIndicator(state: RwSignal<LiveState>, channel: Channel) -> impl IntoView {
    let hole = Memo::new(move |_| state.with(|s| s.rabbithole.clone()));
    view! {
        {move || hole.get().map(|hole| view! {
            <div class="rabbithole-banner" data-testid="rabbithole-banner">
                <span>"Exploring: "<strong>{hole.topic}</strong></span>
                <button type="button" class="button" on:click=move |_| channel.send(ClientMessage::ExitRabbithole)>
                    "Return to session"
                </button>
            </div>
        })}
    }
}

/// The agent's current words, large, with what came with them.
#[component]
fn Exchange(state: RwSignal<LiveState>, channel: Channel) -> impl IntoView {
    let text = Signal::derive(move || state.with(|s| s.agent_text.clone()));
    let streaming = Memo::new(move |_| state.with(|s| s.streaming));
    let waiting = Memo::new(move |_| state.with(|s| s.waiting && !s.streaming));
    let prompt = Memo::new(move |_| state.with(|s| s.prompt.clone()));
    let images = Memo::new(move |_| state.with(|s| s.images.clone()));
    let resources = Memo::new(move |_| state.with(|s| s.resources.clone()));
    let near_miss = Memo::new(move |_| state.with(|s| s.near_miss.clone()));
    view! {
        <section class="exchange" aria-live="polite" aria-busy=move || streaming.get().to_string()>
            <div class="agent-text" data-testid="agent-text">
                <Markdown text />
                {move || streaming.get().then(|| view! { <span class="cursor" aria-hidden="true"></span> })}
            </div>
            {move || waiting.get().then(|| view! {
                <div class="dots" data-testid="waiting" aria-label="Waiting for the reply">
                    <span></span><span></span><span></span>
                </div>
            })}
            {move || near_miss.get().map(|f| view! { <p class="near-miss" data-testid="near-miss">{f}</p> })}
            {move || images.get().into_iter().map(|image| view! {
                <figure class="resource-image">
                    <img src=image.url alt=image.caption.clone().unwrap_or_default() loading="lazy" />
                    {image.caption.map(|c| view! { <figcaption>{c}</figcaption> })}
                </figure>
            }).collect_view()}
            {move || resources.get().into_iter().map(|r| view! {
                <details class="resource">
                    <summary>{r.title}</summary>
                    <p>{r.snippet}</p>
                </details>
            }).collect_view()}
            {move || prompt.get().map(|p| {
                let id = p.rabbithole_event_id.clone();
                let topic = p.topic.clone();
                view! {
                    <div class="rabbithole-prompt" data-testid="rabbithole-prompt">
                        <p>"Looks like you're curious about "<strong>{p.topic.clone()}</strong>". Want to explore?"</p>
                        <button type="button" class="button primary" on:click=move |_| {
                            channel.send(ClientMessage::EnterRabbithole { rabbithole_event_id: id.clone(), topic: topic.clone() });
                        }>"Explore"</button>
                        <button type="button" class="link-button" on:click=move |_| {
                            state.update(|s| s.prompt = None);
                            channel.send(ClientMessage::DeclineRabbithole);
                        }>"Stay on track"</button>
                    </div>
                }
            })}
        </section>
    }
}

/// The learner's answer. Enter sends, Shift+Enter starts a new line. Typing stays possible
/// while disconnected: messages wait in the outbox and go when the socket is back.
#[component]
fn InputBar(state: RwSignal<LiveState>, channel: Channel) -> impl IntoView {
    let draft = RwSignal::new(String::new());
    let sent = RwSignal::new(None::<(u32, String)>);
    let error = Memo::new(move |_| state.with(|s| s.error.clone()));
    let closed = Memo::new(move |_| {
        state.with(|s| {
            matches!(s.connection, Some(Connection::Closed(_)))
                || matches!(s.status, Some(SessionStatus::Completed | SessionStatus::Abandoned))
        })
    });
    // A refused message comes back into the box, so nothing typed is lost.
    Effect::new(move |_| {
        if let Some(text) = state.with(|s| s.restore.clone()) {
            draft.set(text);
            state.update(|s| s.restore = None);
        }
    });
    let submit = move || {
        let text = draft.get_untracked();
        if text.trim().is_empty() || closed.get_untracked() {
            return;
        }
        if !state.try_update(|s| s.check(&text)).unwrap_or(false) {
            return;
        }
        draft.set(String::new());
        sent.update(|s| *s = Some((s.as_ref().map_or(0, |(n, _)| n + 1), text.clone())));
        channel.say(text);
    };
    view! {
        {move || error.get().map(|e| view! {
            <p class="form-error" role="alert" data-testid="session-error">{e.message}</p>
        })}
        <form class="input-bar" on:submit=move |ev| { ev.prevent_default(); submit(); }>
            {move || sent.get().map(|(n, text)| view! {
                <p class="sent" data-n=n.to_string() aria-hidden="true">{text}</p>
            })}
            <label class="visually-hidden" for="answer">"Your answer"</label>
            <textarea
                id="answer"
                data-testid="answer"
                rows="2"
                placeholder="Answer in your own words…"
                prop:value=move || draft.get()
                disabled=move || closed.get()
                on:input=move |ev| draft.set(event_target_value(&ev))
                on:keydown=move |ev| {
                    if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() {
                        ev.prevent_default();
                        submit();
                    }
                }
            ></textarea>
            <button type="submit" class="button primary" data-testid="send" disabled=move || closed.get()>"Send"</button>
        </form>
    }
}

#[component]
fn SessionCompleteOverlay(state: RwSignal<LiveState>, channel: Channel) -> impl IntoView {
    let overlay = Memo::new(move |_| state.with(|s| s.overlay.clone()));
    view! {
        {move || overlay.get().map(|o| view! {
            <div class="overlay" role="dialog" aria-modal="true" aria-labelledby="overlay-title" data-testid="overlay">
                <div class="overlay-card">
                    <h2 id="overlay-title">{o.message}</h2>
                    <p>{format!("{} of {} points, in {}.", o.recalled_count, o.total_points, clock(o.duration_ms))}</p>
                    <div class="overlay-actions">
                        <button type="button" class="button" data-testid="overlay-continue" on:click=move |_| {
                            state.update(LiveState::dismiss_overlay);
                            channel.send(ClientMessage::DismissOverlay);
                        }>"Continue"</button>
                        <button type="button" class="button primary" data-testid="overlay-done" on:click=move |_| {
                            channel.send(ClientMessage::LeaveSession);
                        }>"Done"</button>
                    </div>
                </div>
            </div>
        })}
    }
}

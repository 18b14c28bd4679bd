//! The live session: one exchange at a time (the agent's current words large, the input bar
//! below), progress circles, the rabbit-hole prompt and banner, the completion overlay and the
//! controls. Server-rendered as a shell; the socket connects once hydrated.
//!
//! State lives in one signal driven by the reducer in `state`; the views only read it. Every
//! frame the page sends goes through [`Link`], which hands it to the reducer first.

mod controls;
mod exchange;
mod input;
mod kept;
mod overlay;
mod progress;
mod rabbithole;
mod socket;
mod sound;
pub mod state;
mod voice;

use std::time::Duration;

use leptos::prelude::*;

use crate::api::SessionCard;
use crate::components::markdown::plain_html;
use crate::protocol::{ClientMessage, InputVia, SessionStatus};
use controls::{ConnectionBadge, MuteToggle, Timer};
use exchange::Exchange;
use input::InputBar;
use overlay::SessionCompleteOverlay;
pub use progress::SessionProgress;
pub use rabbithole::{RabbitholeIndicator, RabbitholePrompt};
use state::{Action, Connection, LiveState};

/// Pause between circles filling after a rabbit hole.
const PLAYBACK_STEP: Duration = Duration::from_millis(450);

/// The page's way to the server: every frame passes the reducer, then the socket.
#[derive(Clone, Copy)]
pub struct Link {
    state: RwSignal<LiveState>,
    outbox: StoredValue<Option<socket::Outbox>>,
}

impl Link {
    /// Sends a frame; false when the reducer refused it (the reason is in the state).
    pub fn send(&self, message: ClientMessage) -> bool {
        let accepted = self.state.try_update(|s| s.outgoing(&message)).unwrap_or(false);
        if accepted {
            self.transmit(message);
        }
        accepted
    }

    /// A learner message, with an id that makes resending it safe, and how it came (spoken).
    pub fn say(&self, content: String, via: Option<InputVia>) -> bool {
        self.send(ClientMessage::UserMessage { content, client_message_id: Some(socket::client_id()), via })
    }

    /// Straight to the socket (resends: the reducer has them already).
    fn transmit(&self, message: ClientMessage) {
        self.outbox.with_value(|outbox| {
            if let Some(outbox) = outbox {
                let _ = outbox.unbounded_send(message);
            }
        });
    }
}

/// What the reducer's actions act on.
#[derive(Clone, Copy)]
struct Page {
    state: RwSignal<LiveState>,
    link: Link,
    /// The input box's text (a refused message comes back into it).
    draft: RwSignal<String>,
    /// The box holds spoken words.
    voiced: RwSignal<bool>,
    muted: RwSignal<bool>,
}

impl Page {
    fn perform(self, actions: Vec<Action>) {
        for action in actions {
            match action {
                Action::Chime => {
                    if !self.muted.get_untracked() {
                        sound::chime();
                    }
                }
                Action::Resend(messages) => messages.into_iter().for_each(|m| self.link.transmit(m)),
                Action::PlayBuffered => self.play_buffered(),
                // The dashboard is rendered by the server: the browser goes there.
                Action::Leave => {
                    let _ = window().location().set_href("/");
                }
                // After whatever is in the box: several refused messages all come back.
                Action::Restore(text) => self.draft.update(|draft| {
                    if draft.trim().is_empty() {
                        *draft = text;
                    } else if !draft.contains(text.as_str()) {
                        draft.push_str("\n\n");
                        draft.push_str(&text);
                    }
                }),
            }
        }
    }

    /// Recalls made inside a rabbit hole fill their circles one after another.
    fn play_buffered(self) {
        set_timeout(
            move || {
                let Some((more, actions)) = self.state.try_update(LiveState::tick) else { return };
                self.perform(actions);
                if more {
                    self.play_buffered();
                }
            },
            PLAYBACK_STEP,
        );
    }
}

/// The live view: an island, the one large interactive part of the site.
#[island]
pub fn LiveSession(
    card: SessionCard,
    /// The server transcribes spoken answers: the recorder may be shown.
    voice: bool,
) -> impl IntoView {
    let state = RwSignal::new(LiveState::from_card(&card));
    let link = Link { state, outbox: StoredValue::new(None) };
    let page = Page {
        state,
        link,
        draft: RwSignal::new(String::new()),
        voiced: RwSignal::new(false),
        muted: RwSignal::new(false),
    };

    // Browser only (effects do not run on the server): connect once hydrated. Leaving the
    // page drops the outbox, which closes the socket.
    let session_id = card.id.clone();
    Effect::new(move |_| {
        page.muted.set(sound::stored_mute());
        let outbox = socket::connect(
            &session_id,
            move |frame| {
                if let Some(actions) = state.try_update(|s| s.apply(frame)) {
                    page.perform(actions);
                }
            },
            move |connection| state.update(|s| s.connection = Some(connection)),
        );
        link.outbox.set_value(Some(outbox));
        #[cfg(feature = "hydrate")]
        if voice {
            voice::attach(session_id.clone(), page.draft, page.voiced);
        }
        // What the learner had typed before a reload comes back into the box.
        if let Some(kept) = kept::stored_draft(&session_id) {
            page.draft.update(|draft| {
                if draft.trim().is_empty() {
                    *draft = kept;
                }
            });
        }
    });
    // From then on the box is kept as it changes (browser only, like every effect).
    let kept_for = card.id.clone();
    Effect::new(move |before: Option<()>| {
        let draft = page.draft.get();
        // Its first run sees the empty box of the page as served: nothing to keep yet.
        if before.is_some() {
            kept::store_draft(&kept_for, &draft);
        }
    });

    let ended = matches!(card.status, SessionStatus::Completed | SessionStatus::Abandoned);
    let in_rabbithole = Memo::new(move |_| state.with(LiveState::in_rabbithole));
    let turns = Memo::new(move |_| state.with(|s| s.turns));
    // A reply has ended, or a note came with it: the answer box is in view for the next answer
    // (after the page has drawn them).
    #[cfg(feature = "hydrate")]
    Effect::new(move |before: Option<(u32, usize)>| {
        let now = (turns.get(), state.with(|s| s.resources.len()));
        if before.is_some_and(|before| before != now) {
            request_animation_frame(input::keep_answer_in_view);
        }
        now
    });
    let connection = Memo::new(move |_| state.with(|s| s.connection.clone()));
    let status = Memo::new(move |_| state.with(|s| s.status));
    let clock = Memo::new(move |_| state.with(|s| s.elapsed_ms));
    let offer = Memo::new(move |_| state.with(|s| s.prompt.clone()));
    let hole = Memo::new(move |_| state.with(|s| s.rabbithole.clone()));
    let total = Memo::new(move |_| state.with(|s| s.total));
    let shown = Memo::new(move |_| state.with(|s| s.shown));
    let just_filled = Memo::new(move |_| state.with(|s| s.just_filled));
    let labels = Memo::new(move |_| state.with(|s| s.labels.clone()));
    let overlay = Memo::new(move |_| state.with(|s| s.overlay.clone()));
    // What the agent's words show as: the server's HTML once a reply is whole, the plain text
    // while it streams. Written again only when it changes, not on every frame.
    let html = Memo::new(move |_| {
        state.with(|s| if s.agent_html.is_empty() { plain_html(&s.agent_text) } else { s.agent_html.clone() })
    });
    let streaming = Memo::new(move |_| state.with(|s| s.streaming));
    let waiting = Memo::new(move |_| state.with(|s| s.waiting && !s.streaming));
    let near_miss = Memo::new(move |_| state.with(|s| s.near_miss.clone()));
    let images = Memo::new(move |_| state.with(|s| s.images.clone()));
    let resources = Memo::new(move |_| state.with(|s| s.resources.clone()));
    let notes_read = Memo::new(move |_| state.with(|s| s.notes_read));
    let exploring = Memo::new(move |_| state.with(LiveState::in_rabbithole));
    let error = Memo::new(move |_| state.with(|s| s.error.clone()));
    let notice = Memo::new(move |_| state.with(|s| s.notice.as_ref().map(|n| n.message.clone())));
    let past_everything = Memo::new(move |_| state.with(LiveState::past_everything));
    let closed = Memo::new(move |_| {
        matches!(connection.get(), Some(Connection::Closed(_)))
            || matches!(status.get(), Some(SessionStatus::Completed | SessionStatus::Abandoned))
    });
    // With nothing to tell the server (the session moved to another tab, or ended), leaving
    // is going back to the dashboard.
    let leave = move |_| {
        if closed.get_untracked() {
            #[cfg(feature = "hydrate")]
            let _ = window().location().set_href("/");
        } else {
            link.send(ClientMessage::LeaveSession);
        }
    };
    let running = Signal::derive(move || {
        status.get() == Some(SessionStatus::InProgress) && connection.get() == Some(Connection::Open)
    });
    view! {
        <div
            class="live"
            class:rabbithole=in_rabbithole
            data-testid="live"
            data-turns=move || turns.get().to_string()
            data-connection=move || match connection.get() {
                Some(Connection::Open) => "open",
                Some(Connection::Closed(_)) => "closed",
                Some(Connection::Connecting | Connection::Reconnecting(_)) | None => "connecting",
            }
        >
            <div class="live-bar">
                // An ended session (reached again by Back) has no connection or leaving to speak of.
                {(!ended).then(|| view! { <ConnectionBadge connection /> })}
                <Timer studied=clock running />
                {if ended {
                    view! { <a class="button leave" href="/" data-testid="leave">"Back to the dashboard"</a> }.into_any()
                } else {
                    view! {
                        <MuteToggle muted=page.muted />
                        <button
                            type="button"
                            class="button leave"
                            data-testid="leave"
                            on:click=leave
                        >
                            "Leave session"
                        </button>
                    }.into_any()
                }}
            </div>
            {ended.then(|| view! {
                <p class="notice" role="status" data-testid="session-ended">
                    {if card.status == SessionStatus::Completed {
                        "This session is complete: its last words are below. "
                    } else {
                        "This session ended when a newer one of its set began. "
                    }}
                    <a href=format!("/history/{}", card.id)>"Read all of it"</a>
                    ", or start a new one from the dashboard."
                </p>
            })}
            {move || notice.get().map(|message| view! {
                <p class="notice warning" role="status" data-testid="session-notice">{message}</p>
            })}
            <SessionProgress total recalled=shown just_filled labels hidden=in_rabbithole />
            {move || past_everything.get().then(|| view! {
                <p class="notice" role="status" data-testid="past-everything">
                    "Every point is recalled. Ask about anything in the set, or leave the session to complete it."
                </p>
            })}
            {move || hole.get().map(|hole| view! { <RabbitholeIndicator hole link /> })}
            <Exchange html streaming waiting near_miss images resources notes_read>
                {move || offer.get().map(|offer| {
                    let nothing_left = total.get() > 0 && state.with(|s| s.recalled >= s.total);
                    view! { <RabbitholePrompt offer link nothing_left /> }
                })}
            </Exchange>
            {(!ended).then(|| view! { <InputBar link draft=page.draft voiced=page.voiced voice error closed exploring /> })}
            {move || overlay.get().map(|overlay| view! { <SessionCompleteOverlay overlay link /> })}
        </div>
    }
    .into_any()
}

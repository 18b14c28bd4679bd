//! The learner's answer. Enter sends, Shift+Enter starts a new line. Typing stays possible
//! while disconnected: messages wait in the outbox and go when the socket is back. Beside
//! Send, the recorder when the learner may answer by voice (its words come into the box).

use leptos::prelude::*;

use super::Link;
use crate::protocol::{ErrorPayload, InputVia};

/// The answer box's element id.
const ANSWER_ID: &str = "answer";

/// Gives the keys to the answer box (browser only: effects and events run there).
pub fn focus_answer() {
    use leptos::wasm_bindgen::JsCast;
    let answer = document()
        .get_element_by_id(ANSWER_ID)
        .and_then(|e| e.dyn_into::<leptos::web_sys::HtmlElement>().ok());
    if let Some(answer) = answer {
        let _ = answer.focus();
    }
}

/// Brings the answer bar (the box and Send beside it) back into view when a reply has left
/// it off screen: on a phone the page shrinks while the reply is awaited and a note may push
/// the bar below the fold, and no focus scrolls it back (the keyboard waits for a tap). The
/// whole bar, not the box alone: Send may reach lower than the box by a pixel.
#[cfg(feature = "hydrate")]
pub fn keep_answer_in_view() {
    let Some(answer) = document().get_element_by_id(ANSWER_ID) else { return };
    let bar = answer.closest(".input-bar").ok().flatten().unwrap_or(answer);
    let rect = bar.get_bounding_client_rect();
    let height = window().inner_height().ok().and_then(|h| h.as_f64()).unwrap_or(f64::MAX);
    if rect.bottom() > height || rect.top() < 0.0 {
        bar.scroll_into_view_with_bool(false);
    }
}

#[component]
pub fn InputBar(
    link: Link,
    /// The text in the box; a refused message comes back into it.
    draft: RwSignal<String>,
    /// The box holds spoken words: the message says it came by voice.
    voiced: RwSignal<bool>,
    /// The learner may answer by voice: the recorder's button goes beside Send.
    voice: bool,
    /// What went wrong with the last message, shown above the box.
    #[prop(into)]
    error: Signal<Option<ErrorPayload>>,
    /// Nothing more can be sent (the session ended or cannot be opened).
    #[prop(into)]
    closed: Signal<bool>,
    /// In a rabbit hole: the box takes questions and thoughts, not answers.
    #[prop(into)]
    exploring: Signal<bool>,
) -> impl IntoView {
    // The last message sent, animating away (a counter restarts the animation).
    let sent = RwSignal::new(None::<(u32, String)>);
    // With a keyboard, the keys are the answer box's from the start; on a touch screen the
    // keyboard waits for a tap (it would cover the question).
    #[cfg(feature = "hydrate")]
    let with_keyboard =
        || window().match_media("(pointer: fine)").ok().flatten().is_some_and(|m| m.matches());
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        if with_keyboard() {
            focus_answer();
        }
    });
    let submit = move || {
        // After a click on Send, sent or not (an empty box), the next words typed go in the box,
        // not lost on the button.
        #[cfg(feature = "hydrate")]
        if with_keyboard() {
            focus_answer();
        }
        let text = draft.get_untracked();
        let via = voiced.get_untracked().then_some(InputVia::Voice);
        if text.trim().is_empty() || closed.get_untracked() || !link.say(text.clone(), via) {
            return;
        }
        draft.set(String::new());
        voiced.set(false);
        sent.update(|s| *s = Some((s.as_ref().map_or(0, |(n, _)| n + 1), text)));
    };
    view! {
        {move || error.get().map(|e| view! {
            <p class="form-error" role="alert" data-testid="session-error">{e.message}</p>
        })}
        <form class="input-bar" on:submit=move |ev| { ev.prevent_default(); submit(); }>
            {move || sent.get().map(|(n, text)| view! {
                <p class="sent" data-n=n.to_string() aria-hidden="true">{text}</p>
            })}
            <label class="visually-hidden" for=ANSWER_ID>
                {move || if exploring.get() { "Your question or thought" } else { "Your answer" }}
            </label>
            <textarea
                id=ANSWER_ID
                data-testid="answer"
                rows="2"
                placeholder=move || if exploring.get() { "Ask, or think aloud…" } else { "Answer in your own words…" }
                prop:value=move || draft.get()
                disabled=move || closed.get()
                on:input=move |ev| {
                    let text = event_target_value(&ev);
                    // All of it rubbed out: what comes next is typed.
                    if text.trim().is_empty() {
                        voiced.set(false);
                    }
                    draft.set(text);
                }
                on:keydown=move |ev| {
                    if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() {
                        ev.prevent_default();
                        submit();
                    }
                }
            ></textarea>
            {voice.then(super::voice::markup)}
            <button type="submit" class="button primary" data-testid="send" disabled=move || closed.get()>"Send"</button>
        </form>
    }
}

//! Rabbit holes on screen: the offer (`rabbithole_detected`) and, while one is explored, the
//! banner that leads back (`rabbithole_entered`). Each answers with the protocol's own frames.

use leptos::prelude::*;

use super::Link;
use super::input::focus_answer;
use crate::protocol::{ClientMessage, RabbitholeDetected, RabbitholeEntered};

/// "Want to explore?": Explore enters the rabbit hole; Stay on track declines it ("Not now"
/// once every point is recalled, when there is no track left to stay on).
#[component]
pub fn RabbitholePrompt(offer: RabbitholeDetected, link: Link, nothing_left: bool) -> impl IntoView {
    let RabbitholeDetected { rabbithole_event_id, topic, .. } = offer;
    let shown = topic.clone();
    view! {
        <div class="rabbithole-prompt" data-testid="rabbithole-prompt">
            <p>"Looks like you're curious about "<strong>{shown}</strong>". Want to explore?"</p>
            <button type="button" class="button primary" on:click=move |_| {
                link.send(ClientMessage::EnterRabbithole {
                    rabbithole_event_id: rabbithole_event_id.clone(),
                    topic: topic.clone(),
                });
                // The button goes with the offer: the keys go back to the answer box.
                focus_answer();
            }>"Explore"</button>
            <button type="button" class="link-button" on:click=move |_| {
                link.send(ClientMessage::DeclineRabbithole);
                focus_answer();
            }>{if nothing_left { "Not now" } else { "Stay on track" }}</button>
        </div>
    }
}

/// Shown while exploring: the topic, and the way back to the recall session.
#[component]
pub fn RabbitholeIndicator(hole: RabbitholeEntered, link: Link) -> impl IntoView {
    view! {
        <div class="rabbithole-banner" data-testid="rabbithole-banner">
            <span>"Exploring: "<strong>{hole.topic}</strong></span>
            <button type="button" class="button" on:click=move |_| {
                link.send(ClientMessage::ExitRabbithole);
                focus_answer();
            }>"Return to session"</button>
        </div>
    }
}

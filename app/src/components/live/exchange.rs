//! The agent's current words, large, with what came with them: a near miss, images and
//! excerpts the tutor showed, and (as children) a rabbit-hole offer.

use leptos::prelude::*;

use crate::components::markdown::{Rendered, plain_html};
use crate::protocol::{ShowImage, ShowResource};

/// An excerpt: its opening, and the whole of it a tap away when the opening leaves some out.
fn card(r: ShowResource) -> impl IntoView {
    let snippet = if r.snippet_html.is_empty() { plain_html(&r.snippet) } else { r.snippet_html };
    let whole = (!r.whole_html.is_empty()).then(|| {
        let whole = r.whole_html;
        view! {
            <details class="whole" data-testid="resource-whole">
                <summary>"Read all of it"</summary>
                <Rendered html=whole />
            </details>
        }
    });
    // After a recall: more on what was recalled, not a hint for the question below it.
    let kicker = r
        .after_recall
        .then(|| view! { <p class="kicker" data-testid="after-recall">"More on what you just recalled"</p> });
    view! {
        <aside class="resource-card" data-testid="resource-card">
            {kicker}
            <h3>{r.title}</h3>
            <div class="snippet">
                <Rendered html=snippet />
            </div>
            {whole}
        </aside>
    }
}

#[component]
pub fn Exchange(
    /// The agent's text as HTML (the server's, or while it streams the plain text's).
    #[prop(into)]
    html: Signal<String>,
    #[prop(into)] streaming: Signal<bool>,
    /// A learner message is on its way and nothing has come back yet.
    #[prop(into)]
    waiting: Signal<bool>,
    #[prop(into)] near_miss: Signal<Option<String>>,
    #[prop(into)] images: Signal<Vec<ShowImage>>,
    #[prop(into)] resources: Signal<Vec<ShowResource>>,
    /// How many of `resources` the learner has answered since: they fold with the earlier ones.
    #[prop(into)]
    notes_read: Signal<usize>,
    children: Children,
) -> impl IntoView {
    view! {
        <section class="exchange" aria-live="polite" aria-busy=move || streaming.get().to_string()>
            <div class="agent-text" data-testid="agent-text">
                <Rendered html />
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
            // The note shown last stands under the words until the learner answers; earlier
            // ones fold away, newest first, so they neither crowd later questions nor push the
            // answer box down.
            {move || {
                let mut shown = resources.get();
                let latest = if shown.len() > notes_read.get() { shown.pop() } else { None };
                let earlier = (!shown.is_empty()).then(|| view! {
                    <details class="earlier-notes" data-testid="earlier-notes">
                        <summary>{format!("Earlier notes ({})", shown.len())}</summary>
                        {shown.into_iter().rev().map(card).collect_view()}
                    </details>
                });
                (latest.map(card), earlier)
            }}
            {children()}
        </section>
    }
}

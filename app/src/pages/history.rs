//! Every session, kept in full: a list, and each session's transcript as a tree (rabbit-hole
//! branches shown where they hang off the main line).

use leptos::prelude::*;
use leptos_meta::Title;

use crate::api::{HistoryList, Transcript, TranscriptEntry, get_history, get_transcript};
use crate::components::format::ago;
use crate::components::markdown::Markdown;
use crate::components::widgets::{SessionItem, StatusPill, loaded, route_id, titled};
use crate::tree::{EntryKind, Speaker};

#[component]
pub fn History() -> impl IntoView {
    titled("History", Resource::new(|| (), |_| get_history()), |list| view! { <HistoryView list /> })
}

#[component]
fn HistoryView(list: HistoryList) -> impl IntoView {
    let now = list.now;
    view! {
        <section class="page">
            <h1>"History"</h1>
            {if list.sessions.is_empty() {
                view! { <p class="lede">"No sessions yet. Start one from the dashboard."</p> }.into_any()
            } else {
                view! {
                    <ul class="list" data-testid="history-list">
                        {list.sessions.into_iter().map(|session| {
                            let when = format!("started {}", ago(now, session.started_at));
                            view! { <SessionItem session when /> }
                        }).collect_view()}
                    </ul>
                }.into_any()
            }}
        </section>
    }
}

#[component]
pub fn TranscriptPage() -> impl IntoView {
    let data = Resource::new(route_id(), get_transcript);
    loaded(data, |transcript| view! { <TranscriptView transcript /> })
}

#[component]
fn TranscriptView(transcript: Transcript) -> impl IntoView {
    let card = transcript.card;
    let now = transcript.now;
    view! {
        <Title text=format!("{} · history", card.set_name) />
        <section class="page transcript">
            <h1>{card.set_name.clone()}</h1>
            <p class="meta">
                <StatusPill status=card.status />
                {format!(" {} of {} recalled · started {}", card.recalled_count, card.total_points, ago(now, card.started_at))}
            </p>
            <ol class="entries" data-testid="transcript">
                {transcript.entries.into_iter().map(|e| view! { <EntryView entry=e /> }).collect_view()}
            </ol>
        </section>
    }
}

#[component]
fn EntryView(entry: TranscriptEntry) -> impl IntoView {
    let class = format!(
        "entry kind-{} {}{}",
        entry.kind,
        entry.speaker.map(|s| format!("speaker-{s}")).unwrap_or_default(),
        if entry.on_main_line { "" } else { " branch" }
    );
    let who = entry.speaker.map(|speaker| match speaker {
        Speaker::Learner => "You",
        Speaker::Tutor => "Tutor",
        Speaker::Explorer => "Explorer",
    });
    let body = match entry.kind {
        EntryKind::Message => view! { <Markdown text=entry.content /> }.into_any(),
        EntryKind::ModeChange => view! { <p class="note">"Went down a rabbit hole."</p> }.into_any(),
        EntryKind::BranchSummary | EntryKind::Compaction | EntryKind::Label | EntryKind::Custom => {
            view! { <p class="note">{entry.content}</p> }.into_any()
        }
    };
    view! {
        <li class=class id=format!("entry-{}", entry.id)>
            {who.map(|who| view! { <span class="speaker">{who}</span> })}
            {body}
        </li>
    }
}

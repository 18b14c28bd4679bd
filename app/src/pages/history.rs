//! Every session, kept in full: a list, and each session's transcript as a tree (rabbit-hole
//! branches shown where they hang off the main line).

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::api::{HistoryFilter, HistoryList, Transcript, TranscriptEntry, get_history, get_transcript};
use crate::components::format::ago;
use crate::components::markdown::Markdown;
use crate::components::widgets::{SessionItem, StatusPill, loaded, route_id, titled};
use crate::tree::{EntryKind, Speaker};

#[component]
pub fn History() -> impl IntoView {
    let query = use_query_map();
    let filter = move || query.with(|q| (q.get("set"), q.get("from"), q.get("to")));
    let list = Resource::new(filter, |(set, from, to)| get_history(set, from, to));
    titled("History", list, |list| view! { <HistoryView list /> })
}

#[component]
fn HistoryView(list: HistoryList) -> impl IntoView {
    let now = list.now;
    let filter = list.filter;
    let filtered = filter != HistoryFilter::default();
    let chosen = filter.set.clone().unwrap_or_default();
    view! {
        <section class="page">
            <h1>"History"</h1>
            // A plain GET form: filtering works without JavaScript, and the address keeps it.
            <form class="filters" method="get" action="/history" data-testid="history-filter">
                <label>"Set"
                    <select name="set">
                        <option value="" selected=chosen.is_empty()>"All sets"</option>
                        {list.sets.into_iter().map(|s| {
                            let selected = s.id == chosen;
                            view! { <option value=s.id selected=selected>{s.name}</option> }
                        }).collect_view()}
                    </select>
                </label>
                <label>"From"<input type="date" name="from" value=filter.from.unwrap_or_default() /></label>
                <label>"To"<input type="date" name="to" value=filter.to.unwrap_or_default() /></label>
                <button type="submit" class="button">"Filter"</button>
                {filtered.then(|| view! { <a class="button" href="/history">"Show all"</a> })}
            </form>
            {list.filter_error.map(|e| view! { <p class="form-error" role="alert">{e}</p> })}
            {if list.sessions.is_empty() {
                let text = if filtered {
                    "No sessions match this filter."
                } else {
                    "No sessions yet. Start one from the dashboard."
                };
                view! { <p class="lede">{text}</p> }.into_any()
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

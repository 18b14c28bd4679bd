//! Every session, kept in full: a list, and each session's transcript as a tree (rabbit-hole
//! branches shown where they hang off the main line).

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::api::{
    EntryFilter, HistoryFilter, HistoryList, Transcript, TranscriptQuery, get_history, get_transcript,
};
use crate::components::markdown::TypesetMath;
use crate::components::summary::SummaryPanel;
use crate::components::usage::{UsageTable, cost};
use crate::components::widgets::{SessionItem, StatusPill, loaded, route_id, status_label, titled};
use crate::format::{ago, plural, span};
use crate::protocol::SessionStatus;
use crate::url::query_value;

#[component]
pub fn History() -> impl IntoView {
    let query = use_query_map();
    let filter = move || {
        query.with(|q| {
            let text = |key: &str| q.get(key).filter(|v| !v.trim().is_empty());
            HistoryFilter {
                set: text("set"),
                status: text("status"),
                from: text("from"),
                to: text("to"),
                q: text("q"),
                page: text("page").and_then(|p| p.trim().parse().ok()),
            }
        })
    };
    let list = Resource::new(filter, get_history);
    titled("History", list, |list| view! { <HistoryView list /> })
}

/// The list's address for another page of the same filter.
fn list_link(filter: &HistoryFilter, page: u32) -> String {
    let mut pairs = Vec::new();
    let mut add = |key: &str, value: &Option<String>| {
        if let Some(value) = value.as_deref().filter(|v| !v.is_empty()) {
            pairs.push(format!("{key}={}", query_value(value)));
        }
    };
    add("set", &filter.set);
    add("status", &filter.status);
    add("from", &filter.from);
    add("to", &filter.to);
    add("q", &filter.q);
    if page > 1 {
        pairs.push(format!("page={page}"));
    }
    if pairs.is_empty() { "/history".into() } else { format!("/history?{}", pairs.join("&")) }
}

#[component]
fn HistoryView(list: HistoryList) -> impl IntoView {
    let now = list.now;
    let filter = list.filter;
    let filtered = HistoryFilter { page: None, ..filter.clone() } != HistoryFilter::default();
    let chosen = filter.set.clone().unwrap_or_default();
    let chosen_status = filter.status.clone().unwrap_or_default();
    let statuses = SessionStatus::ALL
        .iter()
        .map(|&status| {
            let selected = status.as_str() == chosen_status;
            view! { <option value=status.as_str() selected=selected>{status_label(status)}</option> }
        })
        .collect_view();
    let (page, pages) = (list.page, list.pages);
    let newer = (page > 1).then(|| list_link(&filter, page - 1));
    let older = (page < pages).then(|| list_link(&filter, page + 1));
    view! {
        <section class="page">
            <h1>"History"</h1>
            // A plain GET form: filtering works without JavaScript, and the address keeps it.
            <form class="filters" method="get" action="/history" data-testid="history-filter">
                <label>"Search"
                    <input type="search" name="q" value=filter.q.clone().unwrap_or_default()
                        placeholder="words from a session" data-testid="history-search" />
                </label>
                <label>"Set"
                    <select name="set">
                        <option value="" selected=chosen.is_empty()>"All sets"</option>
                        {list.sets.into_iter().map(|s| {
                            let selected = s.id == chosen;
                            view! { <option value=s.id selected=selected>{s.name}</option> }
                        }).collect_view()}
                    </select>
                </label>
                <label>"Status"
                    <select name="status">
                        <option value="" selected=chosen_status.is_empty()>"Any"</option>
                        {statuses}
                    </select>
                </label>
                <label>"From"<input type="date" name="from" value=filter.from.clone().unwrap_or_default() /></label>
                <label>"To"<input type="date" name="to" value=filter.to.clone().unwrap_or_default() /></label>
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
                    <p class="meta" data-testid="history-total">{plural(list.total as i64, "session")}</p>
                    <ul class="list" data-testid="history-list">
                        {list.sessions.into_iter().map(|item| {
                            let mut when = format!("started {} · studied {}", ago(now, item.card.started_at), span(item.study_ms));
                            if item.rabbitholes > 0 {
                                when.push_str(&format!(" · {}", plural(i64::from(item.rabbitholes), "rabbit hole")));
                            }
                            view! { <SessionItem session=item.card when overview=item.overview /> }
                        }).collect_view()}
                    </ul>
                    <nav class="pager" aria-label="Pages">
                        {newer.map(|href| view! { <a href=href rel="prev" class="button">"Newer"</a> })}
                        <span class="meta">{format!("Page {page} of {pages}")}</span>
                        {older.map(|href| view! { <a href=href rel="next" class="button">"Older"</a> })}
                    </nav>
                }.into_any()
            }}
        </section>
    }
}

#[component]
pub fn TranscriptPage() -> impl IntoView {
    let id = route_id();
    let query = use_query_map();
    let asked = move || {
        let q = query.read();
        let text = |key: &str| q.get(key).filter(|v| !v.is_empty());
        let asked = TranscriptQuery {
            leaf_id: text("leafId"),
            target_id: text("targetId"),
            filter: text("filter").and_then(|f| f.parse().ok()).unwrap_or_default(),
            q: text("q").unwrap_or_default(),
            edit: text("edit"),
        };
        (id(), asked)
    };
    let data = Resource::new(asked, |(id, query)| get_transcript(id, query));
    loaded(data, |transcript| view! { <TranscriptView transcript /> })
}

/// A session page's address with this query (its filter, search and line; no target).
fn page_link(session: &str, query: &TranscriptQuery) -> String {
    let mut pairs = Vec::new();
    if let Some(leaf) = &query.leaf_id {
        pairs.push(format!("leafId={}", query_value(leaf)));
    }
    if query.filter != EntryFilter::Default {
        pairs.push(format!("filter={}", query.filter));
    }
    if !query.q.is_empty() {
        pairs.push(format!("q={}", query_value(&query.q)));
    }
    if pairs.is_empty() {
        format!("/history/{session}")
    } else {
        format!("/history/{session}?{}", pairs.join("&"))
    }
}

fn filter_name(filter: EntryFilter) -> &'static str {
    match filter {
        EntryFilter::Default => "Conversation",
        EntryFilter::Learner => "Your messages",
        EntryFilter::Labelled => "Labelled",
        EntryFilter::All => "Everything",
    }
}

#[component]
fn TranscriptView(transcript: Transcript) -> impl IntoView {
    let card = transcript.card;
    let now = transcript.now;
    let query = transcript.query;
    let session = card.id.clone();
    let filters = EntryFilter::ALL
        .iter()
        .map(|&filter| {
            let href = page_link(&session, &TranscriptQuery { filter, ..query.clone() });
            let current = (filter == query.filter).then_some("page");
            view! { <a href=href aria-current=current class="filter-link">{filter_name(filter)}</a> }
        })
        .collect_view();
    let off_main = query.leaf_id.is_some();
    let main_link = page_link(&session, &TranscriptQuery { leaf_id: None, ..query.clone() });
    view! {
        <Title text=format!("{} · history", card.set_name) />
        <section class="page transcript">
            <p class="crumbs"><a href="/history">"History"</a></p>
            <h1>{card.set_name.clone()}</h1>
            <p class="meta">
                <StatusPill status=card.status />
                {format!(
                    " {} of {} recalled · started {} · studied {}",
                    card.recalled_count,
                    card.total_points,
                    ago(now, card.started_at),
                    span(transcript.study_ms)
                )}
            </p>
            <SummaryPanel session_id=session.clone() view=transcript.summary now />
            {(!transcript.usage.is_empty()).then(|| view! {
                <details class="usage-details" data-testid="session-usage">
                    <summary>{format!("Language model: {}", cost(crate::usage::total(&transcript.usage).cost_usd))}</summary>
                    <UsageTable lines=transcript.usage.clone() test_id="usage-table" />
                </details>
            })}
            <nav class="filters" aria-label="Which entries" data-testid="entry-filters">{filters}</nav>
            <form class="search" method="get" action=format!("/history/{session}") role="search">
                {query.leaf_id.clone().map(|leaf| view! { <input type="hidden" name="leafId" value=leaf /> })}
                {(query.filter != EntryFilter::Default)
                    .then(|| view! { <input type="hidden" name="filter" value=query.filter.as_str() /> })}
                <label>"Search this session"
                    <input type="search" name="q" value=query.q.clone() data-testid="transcript-search" />
                </label>
                <button type="submit" class="button">"Search"</button>
            </form>
            <p class="count" data-testid="entry-count">
                {format!("{} of {} entries shown", transcript.shown, transcript.total)}
                {off_main.then(|| view! { " · "<a href=main_link>"Back to where the session is"</a> })}
            </p>
            // Written and escaped on the server (see the server's `web::transcript`).
            <ol class="entries" id="transcript" data-testid="transcript" inner_html=transcript.html></ol>
            <TypesetMath within="transcript".to_string() />
            <EntryActions />
            <p class="exports">
                "Download: "
                <a href=format!("/history/{session}/export.jsonl") download="">"JSONL"</a>
                " · "
                <a href=format!("/history/{session}/export.html") download="">"one HTML page"</a>
            </p>
        </section>
    }
}

/// With JavaScript, "Link" on an entry copies its address instead of following it, and
/// "Label" opens the label form in place instead of loading the page again to show it.
#[island]
fn EntryActions() -> impl IntoView {
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        use wasm_bindgen::JsCast;
        use wasm_bindgen::prelude::Closure;
        let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
        let on_click = Closure::<dyn Fn(web_sys::Event)>::new(move |event: web_sys::Event| {
            let Some(clicked) = event.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else {
                return;
            };
            if let Some(link) = clicked
                .closest("a.copy-link")
                .ok()
                .flatten()
                .and_then(|e| e.dyn_into::<web_sys::HtmlAnchorElement>().ok())
            {
                let Some(window) = web_sys::window() else { return };
                event.prevent_default();
                let _ = window.navigator().clipboard().write_text(&link.href());
                link.set_text_content(Some("Copied"));
            } else if clicked.closest("a.label-link").ok().flatten().is_some()
                && let Some(entry) = clicked.closest("li.entry").ok().flatten()
            {
                event.prevent_default();
                open_label_form(&entry);
            }
        });
        let _ = document.add_event_listener_with_callback("click", on_click.as_ref().unchecked_ref());
        on_click.forget();
        // Says the links are live (tests wait for it before clicking).
        if let Some(list) = document.get_element_by_id("transcript") {
            let _ = list.set_attribute("data-live", "");
        }
    });
}

/// The same form the server writes for `?edit=…`, opened in the entry.
#[cfg(feature = "hydrate")]
fn open_label_form(entry: &web_sys::Element) {
    use wasm_bindgen::JsCast;
    let focus = |entry: &web_sys::Element| {
        if let Some(input) = entry
            .query_selector(".label-form input[name=label]")
            .ok()
            .flatten()
            .and_then(|i| i.dyn_into::<web_sys::HtmlElement>().ok())
        {
            let _ = input.focus();
        }
    };
    if entry.query_selector(".label-form").ok().flatten().is_none() {
        let Some(location) = web_sys::window().map(|w| w.location()) else { return };
        let path = location.pathname().unwrap_or_default();
        let back = format!("{path}{}", location.search().unwrap_or_default());
        let id = entry.id();
        let target = id.strip_prefix("entry-").unwrap_or(&id);
        let label = entry
            .query_selector(".pill.label")
            .ok()
            .flatten()
            .and_then(|l| l.text_content())
            .unwrap_or_default();
        let remove = if label.is_empty() {
            ""
        } else {
            r#"<button type="submit" name="clear" value="1" class="button quiet">Remove</button>"#
        };
        let html = format!(
            r#"<form method="post" action="{}/label" class="label-form" data-testid="label-form"><input type="hidden" name="target" value="{}"><input type="hidden" name="back" value="{}"><input name="label" maxlength="{}" aria-label="Label" placeholder="e.g. revisit" value="{}"><button type="submit" class="button">Save label</button>{remove}</form>"#,
            attribute(&path),
            attribute(target),
            attribute(&back),
            crate::forms::limits::LABEL,
            attribute(&label)
        );
        let _ = entry.insert_adjacent_html("beforeend", &html);
    }
    focus(entry);
}

#[cfg(feature = "hydrate")]
fn attribute(text: &str) -> String {
    text.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;").replace('>', "&gt;")
}

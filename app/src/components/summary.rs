//! A session's summary as the dashboard and the history page show it, and the island that
//! looks again while one is being written.

use leptos::prelude::*;

use crate::api::SummaryView;
use crate::format::{ago, plural, span};
use crate::summary::{SessionSummary, SummaryStatus};

/// The history page's summary: the summary, or that it is being written, or that it could not
/// be (with Retry, a plain form that works without JavaScript).
#[component]
pub fn SummaryPanel(session_id: String, view: SummaryView, now: i64) -> impl IntoView {
    let SummaryView { status, summary, text, written_at } = view;
    let has_one = summary.is_some() || !text.is_empty();
    let state = match status {
        Some(SummaryStatus::Pending) => Some(
            view! {
                <p class="summary-state" data-testid="summary-writing">
                    {if has_one { "Updating the summary…" } else { "Writing the summary of this session…" }}
                </p>
                <AwaitSummary session_id=session_id.clone() />
            }
            .into_any(),
        ),
        Some(SummaryStatus::Failed) => Some(
            view! {
                <div class="summary-state failed" role="alert" data-testid="summary-unavailable">
                    <p>"Summary unavailable: it could not be written just now. Nothing of the session is lost."</p>
                    <form method="post" action=format!("/history/{session_id}/summary")>
                        <button type="submit" class="button" data-testid="summary-retry">"Retry"</button>
                    </form>
                </div>
            }
            .into_any(),
        ),
        Some(SummaryStatus::Ready) | None => None,
    };
    (state.is_some() || has_one).then(|| {
        view! {
            <section class="summary" id="summary" aria-label="Summary" data-testid="session-summary">
                <h2>"Summary"</h2>
                {state}
                {has_one.then(|| view! {
                    <p class="meta">{format!("Written {}", ago(now, written_at))}</p>
                    <SummaryBody summary text />
                })}
            </section>
        }
    })
}

/// A summary's sections; the text as written when its JSON could not be read.
#[component]
pub fn SummaryBody(summary: Option<SessionSummary>, text: String) -> impl IntoView {
    let Some(s) = summary else {
        return view! { <p class="summary-text">{text}</p> }.into_any();
    };
    let outcome = if s.completed {
        let all = if s.total == 1 {
            "The 1 point recalled".to_string()
        } else {
            format!("All {} points recalled", s.total)
        };
        format!("{all} · {}", span(s.study_ms))
    } else {
        format!(
            "{} of {} recalled · {}",
            s.recalled.len(),
            plural(i64::from(s.total), "point"),
            span(s.study_ms)
        )
    };
    let list = |title: &'static str, testid: &'static str, lines: Vec<String>| {
        (!lines.is_empty()).then(|| {
            view! {
                <h3>{title}</h3>
                <ul data-testid=testid>{lines.into_iter().map(|line| view! { <li>{line}</li> }).collect_view()}</ul>
            }
        })
    };
    let recalled = s
        .recalled
        .iter()
        .map(|r| {
            let place = if r.in_rabbithole { ", in a rabbit hole" } else { "" };
            format!("{} ({}{place})", r.point.trim(), r.how.describe())
        })
        .collect();
    let open = s.open.iter().map(|p| p.point.trim().to_string()).collect();
    let holes = s.rabbitholes.iter().map(crate::summary::ExploredTopic::line).collect();
    view! {
        <p class="meta" data-testid="summary-outcome">{outcome}</p>
        {(!s.overview.is_empty()).then(|| view! { <p class="overview" data-testid="summary-overview">{s.overview.clone()}</p> })}
        {list("Recalled", "summary-recalled", recalled)}
        {list("Still open", "summary-open", open)}
        {list("Rabbit holes", "summary-rabbitholes", holes)}
        {list("What was hard", "summary-hard", s.hard)}
        {list("Next steps", "summary-next", s.next_steps)}
    }
    .into_any()
}

/// While a summary is being written: asks the server every two seconds (for two minutes at
/// most) and loads the page again once it is written or has failed. A plain `fetch` of
/// `GET /history/{id}/summary` (202 while it is being written) keeps the server-function
/// client out of the bundle.
#[island]
pub fn AwaitSummary(session_id: String) -> impl IntoView {
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        let url = format!("/history/{}/summary", crate::url::query_value(&session_id));
        leptos::task::spawn_local(async move {
            for _ in 0..60 {
                gloo_timers::future::TimeoutFuture::new(2_000).await;
                if !still_writing(&url).await {
                    if let Some(window) = web_sys::window() {
                        let _ = window.location().reload();
                    }
                    return;
                }
            }
        });
    });
    #[cfg(not(feature = "hydrate"))]
    let _ = session_id;
}

/// Whether the server says the summary is still being written (a request that fails asks
/// again later: nothing is lost by waiting).
#[cfg(feature = "hydrate")]
async fn still_writing(url: &str) -> bool {
    use wasm_bindgen::JsCast;
    let Some(window) = web_sys::window() else { return false };
    match wasm_bindgen_futures::JsFuture::from(window.fetch_with_str(url)).await {
        Ok(response) => response.dyn_into::<web_sys::Response>().is_ok_and(|r| r.status() == 202),
        Err(_) => true,
    }
}

use leptos::prelude::*;

use crate::api::{
    Dashboard as Data, LeftOff, SessionCard, SetCard, StartReview, StartSession, TodayReview, get_dashboard,
};
use crate::components::stats::StudyStatsView;
use crate::components::summary::AwaitSummary;
use crate::components::widgets::{ProviderBanner, SessionItem, StatusPill, titled};
use crate::format::{ago, due, plural};

#[component]
pub fn Dashboard() -> impl IntoView {
    titled("Dashboard", Resource::new(|| (), |_| get_dashboard()), |data| view! { <DashboardView data /> })
}

#[component]
fn DashboardView(data: Data) -> impl IntoView {
    let now = data.now;
    // Archived sets stay on the sets page, not here.
    let sets: Vec<SetCard> = data.sets.into_iter().filter(|s| !s.archived).collect();
    let due_total = data.stats.due_now;
    let left_off = data.left_off;
    // Open sessions without a summary to show (never left, or theirs is still to come).
    let paused: Vec<_> = sets
        .iter()
        .filter_map(|s| s.open_session.clone())
        .filter(|open| !left_off.iter().any(|l| l.session_id == open.id))
        .collect();
    let cards: Vec<(LeftOff, Option<SetCard>)> = left_off
        .into_iter()
        .map(|l| {
            let set = sets.iter().find(|s| Some(&s.id) == l.set_id.as_ref()).cloned();
            (l, set)
        })
        .collect();
    let open_review = data.today.as_ref().and_then(|t| t.open_session.clone());
    // The review card says what is due and what the limits hold back; without one, the lede
    // says why (the day's new points are used up) or simply what is due.
    let (today, held) = match data.today {
        Some(today) if today.points > 0 || today.open_session.is_some() => {
            (Some(view! { <TodayCard today /> }), None)
        }
        Some(today) => (None, Some(today.new_held)),
        None => (None, None),
    };
    let lede = match held {
        _ if today.is_some() => None,
        _ if due_total == 0 => Some("Nothing is due right now. You can still practise any set.".to_string()),
        Some(held) if held > 0 => Some(format!(
            "Today's new points are done: {held} more {} for tomorrow (your daily limit of new points). You can still practise any set.",
            if held == 1 { "waits" } else { "wait" }
        )),
        _ => Some(format!("{} due for review.", plural(i64::from(due_total), "point"))),
    };
    view! {
        <section class="page dashboard">
            <h1>"Dashboard"</h1>
            <ProviderBanner notice=data.provider voice_off_too=true />
            {lede.map(|lede| view! { <p class="lede" data-testid="due-lede">{lede}</p> })}
            {today}
            {(!cards.is_empty() || !paused.is_empty() || data.writing.is_some()).then(|| view! {
                <h2>"Where you left off"</h2>
                {data.writing.map(|session_id| view! {
                    <p class="meta" data-testid="summary-writing">"Writing the summary of your last session…"</p>
                    <AwaitSummary session_id />
                })}
                <ul class="cards">
                    // Sessions under way first: they are the newest, and the one to go back to.
                    {paused.into_iter().map(|s| view! {
                        <li class="card" data-testid="resume-card">
                            <div>
                                <strong>{s.set_name.clone()}</strong>" "<StatusPill status=s.status />
                                <p class="meta">
                                    {format!("{} of {} recalled · {}", s.recalled_count, s.total_points, ago(now, s.updated_at))}
                                </p>
                            </div>
                            <a class="button primary" href=format!("/sessions/{}", s.id)>"Resume"</a>
                        </li>
                    }).collect_view()}
                    {cards.into_iter().map(|(l, set)| {
                        let open_review = open_review.clone().filter(|_| l.set_id.is_none());
                        view! { <LeftOffCard left_off=l set open_review now /> }
                    }).collect_view()}
                </ul>
            })}
            <h2>"Your recall sets"</h2>
            {if sets.is_empty() {
                view! {
                    <p>
                        "No sets to study. "<a href="/sets/new">"Make one"</a>", draft one "
                        <a href="/sets/new/source">"from your own notes"</a>", or "<a href="/import">"import one"</a>"."
                    </p>
                }.into_any()
            } else {
                view! {
                    <ul class="cards columns" data-testid="set-list">
                        {sets.into_iter().map(|set| view! { <SetRow set now /> }).collect_view()}
                    </ul>
                    <p class="meta" data-testid="more-sets">
                        <a href="/sets/new">"New set"</a>" · "<a href="/sets/new/source">"From your own notes"</a>" · "
                        <a href="/import">"Import a file"</a>
                    </p>
                }.into_any()
            }}
            <StudyStatsView stats=data.stats />
            {(!data.recent.is_empty()).then(|| view! {
                <h2>"Recent sessions"</h2>
                <ul class="list">
                    {data.recent.into_iter().map(|session| {
                        let when = ago(now, session.updated_at);
                        view! { <SessionItem session when /> }
                    }).collect_view()}
                </ul>
                <p><a href="/history" data-testid="all-history">"Every session, in History"</a></p>
            })}
        </section>
    }
}

/// A set's newest summary: how it went and what next, with the session's history page and
/// Resume (when that session is still open) or the next session of the set.
#[component]
fn LeftOffCard(
    left_off: LeftOff,
    set: Option<SetCard>,
    /// For a review's summary: today's review under way.
    open_review: Option<SessionCard>,
    now: i64,
) -> impl IntoView {
    let LeftOff { session_id, status, summary, .. } = left_off;
    let name =
        summary.summary.as_ref().map(|s| s.set_name.clone()).or_else(|| set.as_ref().map(|s| s.name.clone()));
    // Being written again (the session went on, or a recall was disputed): the old words would
    // contradict the status beside them.
    let rewriting = summary.status == Some(crate::summary::SummaryStatus::Pending);
    let written = summary.summary.as_ref().filter(|_| !rewriting);
    let overview = if rewriting {
        "Its summary is being written again…".to_string()
    } else {
        written.map(|s| s.overview.clone()).unwrap_or(summary.text.clone())
    };
    let next = written.and_then(|s| s.next_steps.first().cloned());
    let counts = written.map(|s| format!("{} of {} recalled · ", s.recalled.len(), s.total));
    let open = set.as_ref().and_then(|s| s.open_session.clone()).or(open_review);
    let action = match (open, set) {
        (Some(open), _) => {
            let label = if open.id == session_id { "Resume" } else { "Resume the open session" };
            view! { <a class="button primary" href=format!("/sessions/{}", open.id)>{label}</a> }.into_any()
        }
        (None, Some(set)) if !set.archived && set.point_count > 0 => {
            view! { <StartForm set label="Start the next session" /> }.into_any()
        }
        (None, _) => ().into_any(),
    };
    view! {
        <li class="card left-off" data-testid="left-off">
            <div>
                <strong>{name.unwrap_or_default()}</strong>" "<StatusPill status />
                {(!rewriting).then(|| view! {
                    <p class="meta">{counts}{format!("summary written {}", ago(now, summary.written_at))}</p>
                })}
                <p class="overview" data-testid="left-off-overview">{overview}</p>
                {next.map(|n| view! { <p class="next-step">"Next: "{n}</p> })}
            </div>
            <div class="card-actions">
                <a class="button" href=format!("/history/{session_id}#summary")>"Read the session"</a>
                {action}
            </div>
        </li>
    }
}

/// One set: its counts, and Start (or Resume and Start over, when a session is open). When nothing is
/// due, it says when the next point is and offers to study all of it anyway. A set without
/// points says why it cannot be started. On the set's own page, whose heading and lede say
/// them, it leaves out the name and the description.
#[component]
pub fn SetRow(set: SetCard, now: i64, #[prop(optional)] own_page: bool) -> impl IntoView {
    let when = if set.due_count > 0 {
        format!("{} due", set.due_count)
    } else {
        set.next_due_at.map(|at| format!("next {}", due(now, at))).unwrap_or_default()
    };
    let nothing_due = set.due_count == 0 && set.open_session.is_none();
    let label = if set.open_session.is_some() {
        "Start over"
    } else if nothing_due {
        "Study all anyway"
    } else {
        "Start"
    };
    let empty = set.point_count == 0;
    view! {
        <li class="card" data-testid="set-card">
            <div>
                {(!own_page).then(|| view! {
                    <a class="set-name" href=format!("/sets/{}", set.id)>{set.name.clone()}</a>
                })}
                <p class="meta">
                    {plural(i64::from(set.point_count), "point")}
                    {(!when.is_empty()).then(|| format!(" · {when}"))}
                </p>
                {(!own_page).then(|| view! { <p class="description">{set.description.clone()}</p> })}
            </div>
            {if empty {
                view! { <p class="meta" data-testid="cannot-start">"Add a point to start."</p> }.into_any()
            } else {
                let resume = set.open_session.clone().map(|open| view! {
                    <a class="button primary" href=format!("/sessions/{}", open.id) data-testid="set-resume">"Resume"</a>
                });
                view! { <div class="set-actions">{resume}<StartForm set label /></div> }.into_any()
            }}
        </li>
    }
}

/// "Review today": what the next review takes from every set, how long it takes, and the button (or Resume
/// for a review under way).
#[component]
fn TodayCard(today: TodayReview) -> impl IntoView {
    let start = ServerAction::<StartReview>::new();
    let TodayReview { points, sets, minutes, default_pace, left, new_held, open_session } = today;
    let pace = if default_pace { " (at 45 seconds a point until your own pace is known)" } else { "" };
    let summary = format!(
        "{} from {} · about {}{pace}",
        plural(i64::from(points), "point"),
        plural(i64::from(sets), "set"),
        plural(i64::from(minutes), "minute"),
    );
    let later = (left > 0).then(|| {
        let (noun, them) = if left == 1 { ("point is", "it") } else { ("points are", "them") };
        format!("{left} more {noun} due: another session today can take {them}.")
    });
    let held = (new_held > 0).then(|| {
        format!(
            "{} {} for tomorrow (your daily limit of new points).",
            plural(i64::from(new_held), "new point"),
            if new_held == 1 { "waits" } else { "wait" }
        )
    });
    view! {
        <section class="card today" data-testid="review-today">
            <div>
                <h2>"Today's review"</h2>
                {match &open_session {
                    Some(open) => view! {
                        <p class="meta" data-testid="review-today-open">
                            {format!("Under way: {} of {} recalled.", open.recalled_count, open.total_points)}
                        </p>
                    }.into_any(),
                    None => view! { <p data-testid="review-today-summary">{summary}</p> }.into_any(),
                }}
                {later.map(|l| view! { <p class="meta" data-testid="review-today-left">{l}</p> })}
                {held.map(|h| view! { <p class="meta" data-testid="review-today-held">{h}</p> })}
            </div>
            <div class="card-actions">
                {open_session.clone().map(|open| view! {
                    <a class="button primary" href=format!("/sessions/{}", open.id) data-testid="review-today-resume">"Resume"</a>
                })}
                {(points > 0).then(|| {
                    let fresh = open_session.is_none();
                    let label = if fresh { "Review today" } else { "Start a new review" };
                    view! {
                        <ActionForm action=start attr:class="start-form">
                            <button type="submit" class="button" class:primary=fresh data-testid="review-today-start">{label}</button>
                        </ActionForm>
                    }
                })}
            </div>
            {move || start.value().get().and_then(|r| r.err()).map(|e| view! {
                <p class="form-error" role="alert">{e.to_string()}</p>
            })}
        </section>
    }
}

/// Starts a session of a set: its due points, or all of them when none is due (starting over
/// too: the points tried in the session left behind come back in hours, not now).
#[component]
fn StartForm(set: SetCard, label: &'static str) -> impl IntoView {
    let start = ServerAction::<StartSession>::new();
    let nothing_due = set.due_count == 0;
    view! {
        <ActionForm action=start attr:class="start-form">
            <input type="hidden" name="set_id" value=set.id.clone() />
            {nothing_due.then(|| view! { <input type="hidden" name="all" value="on" /> })}
            <button type="submit" class="button" class:primary=set.open_session.is_none()>{label}</button>
        </ActionForm>
        {move || start.value().get().and_then(|r| r.err()).map(|e| view! {
            <p class="form-error" role="alert">{e.to_string()}</p>
        })}
    }
}

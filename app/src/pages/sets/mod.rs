//! The learner's recall sets: the list, one set with its points, schedule and resources, and
//! the pages that create, change and delete them. Every form is a plain HTML form.

mod delete;
mod edit;
mod resources;

use leptos::prelude::*;
use leptos_meta::Title;

pub use delete::{DeletePointPage, DeleteResourcePage, DeleteSetPage};
pub use edit::{EditPointPage, EditResourcePage, EditSetPage, NewSetPage};

use crate::api::{Dashboard, PointView, Recalled, SetDetail, get_dashboard, get_set};
use crate::components::fields::{Field, FormMessage};
use crate::components::markdown::{TypesetMath, math_html};
use crate::components::widgets::{loaded, route_id, titled};
use crate::format::{ago, due, plural};
use crate::forms::{FormEcho, limits};
use crate::pages::dashboard::SetRow;
use crate::schedule::Rating;
use resources::Resources;

#[component]
pub fn Sets() -> impl IntoView {
    titled("Recall sets", Resource::new(|| (), |_| get_dashboard()), |data| view! { <SetsView data /> })
}

#[component]
fn SetsView(data: Dashboard) -> impl IntoView {
    let now = data.now;
    let (archived, active): (Vec<_>, Vec<_>) = data.sets.into_iter().partition(|s| s.archived);
    // An account archive or an Anki package's decks just imported (see `/import`) say what
    // came in.
    let query = leptos_router::hooks::use_query_map();
    let imported = query.with_untracked(|q| {
        let count = |key: &str| q.get(key).and_then(|v| v.parse::<i64>().ok());
        count("imported").map(|sets| (sets, count("sessions")))
    });
    view! {
        <section class="page">
            <h1>"Recall sets"</h1>
            <p class="lede">"The facts you keep, grouped by subject."</p>
            <DraftsDropped />
            {imported.map(|(sets, sessions)| view! {
                <p class="form-notice" role="status" data-testid="imported-notice">
                    {match sessions {
                        Some(sessions) => format!(
                            "Imported {} and {} from your archive.",
                            crate::format::plural(sets, "set"),
                            crate::format::plural(sessions, "session"),
                        ),
                        None => format!("Imported {}, one for each deck.", crate::format::plural(sets, "set")),
                    }}
                </p>
            })}
            <p class="actions">
                <a class="button primary" href="/sets/new" data-testid="new-set">"New set"</a>
                <a class="button" href="/sets/new/source" data-testid="new-set-from-source">"New set from a source"</a>
                <a class="button" href="/import">"Import a file"</a>
            </p>
            {if active.is_empty() {
                view! { <p>"No sets yet. Make one, or import one from a file."</p> }.into_any()
            } else {
                view! {
                    <ul class="cards columns" data-testid="set-list">
                        {active.into_iter().map(|set| view! { <SetRow set now /> }).collect_view()}
                    </ul>
                }.into_any()
            }}
            {(!archived.is_empty()).then(|| view! {
                <h2>"Archived"</h2>
                <p class="meta">"Archived sets cannot be started; their history stays."</p>
                <ul class="list" data-testid="archived-sets">
                    {archived.into_iter().map(|set| view! {
                        <li><a href=format!("/sets/{}", set.id)>{set.name}</a></li>
                    }).collect_view()}
                </ul>
            })}
        </section>
    }
}

#[component]
pub fn SetPage() -> impl IntoView {
    let data = Resource::new(route_id(), get_set);
    loaded(data, |detail| view! { <SetView detail /> })
}

#[component]
fn SetView(detail: SetDetail) -> impl IntoView {
    let now = detail.now;
    let card = detail.card;
    let id = card.id.clone();
    let points = detail.points;
    let choices: Vec<(String, String)> = points.iter().map(|p| (p.id.clone(), short(&p.content))).collect();
    let count = points.len();
    // Back from moving a point (`?moved=<point>&to=up`): its arrow keeps the focus, so the
    // keyboard can press it again.
    let moved = leptos_router::hooks::use_query_map()
        .with_untracked(|q| q.get("moved").map(|point| (point, q.get("to").as_deref() == Some("up"))));
    view! {
        <Title text=card.name.clone() />
        <section class="page set">
            <p class="crumbs"><a href="/sets">"Recall sets"</a></p>
            <h1>
                {card.name.clone()}
                {card.archived.then(|| view! { " " <span class="pill" data-testid="archived">"archived"</span> })}
            </h1>
            {(!card.description.is_empty()).then(|| view! { <p class="lede">{card.description.clone()}</p> })}
            <DraftsDropped />
            {(!detail.guidelines.is_empty()).then(|| view! {
                <details class="guidelines">
                    <summary>"Guidelines for the tutor"</summary>
                    <p>{detail.guidelines.clone()}</p>
                </details>
            })}
            {if card.archived {
                view! {
                    <div class="actions">
                        <form method="post" action=format!("/sets/{id}/unarchive")>
                            <button type="submit" class="button primary">"Bring back"</button>
                        </form>
                        <a class="button" href=format!("/sets/{id}/delete")>"Delete…"</a>
                    </div>
                }.into_any()
            } else {
                view! {
                    <ul class="cards"><SetRow set=card.clone() now own_page=true /></ul>
                    <div class="actions">
                        <a class="button" href=format!("/sets/{id}/edit")>"Edit"</a>
                        <form method="post" action=format!("/sets/{id}/archive")>
                            <button type="submit" class="button">"Archive"</button>
                        </form>
                        <a class="button" href=format!("/sets/{id}/delete")>"Delete…"</a>
                        <span class="export">
                            "Export: "
                            <a href=format!("/sets/{id}/export.json") download>"JSON"</a>" · "
                            <a href=format!("/sets/{id}/export.csv") download>"CSV"</a>" · "
                            <a href=format!("/sets/{id}/export.md") download>"Markdown"</a>
                        </span>
                    </div>
                }.into_any()
            }}

            <h2 id="points">"Points"</h2>
            {(count == 0).then(|| view! {
                <p data-testid="no-points">"No points yet. A set needs at least one point before it can be started: add the first below."</p>
            })}
            <ol class="points" id="point-list" data-testid="points">
                {points.into_iter().enumerate().map(|(i, point)| {
                    let focus = moved.as_ref().filter(|(p, _)| *p == point.id).map(|(_, up)| *up);
                    view! { <PointItem set_id=id.clone() point now first=i == 0 last=i + 1 == count focus /> }
                }).collect_view()}
            </ol>
            <TypesetMath within="point-list".to_string() />
            <AddPoint set_id=id.clone() />

            <Resources set_id=id.clone() resources=detail.resources points=choices />
        </section>
    }
}

/// A share as a whole percentage.
#[allow(clippy::cast_possible_truncation)] // between 0 and 100
fn percent(share: f64) -> String {
    format!("{} %", (share * 100.0).round() as i64)
}

/// Where a review was earned: the learner's message in the session's history.
fn recall_link(recall: &Recalled) -> String {
    match &recall.entry_id {
        Some(entry) => format!("/history/{}#entry-{entry}", recall.session_id),
        None => format!("/history/{}", recall.session_id),
    }
}

/// The first words of a point, to name it in a list of choices.
fn short(content: &str) -> String {
    let words: Vec<&str> = content.split_whitespace().collect();
    let head = words.iter().take(8).copied().collect::<Vec<_>>().join(" ");
    if words.len() > 8 { format!("{head}…") } else { head }
}

/// One point: what it says, its cue, its schedule, and what can be done with it.
#[component]
fn PointItem(
    set_id: String,
    point: PointView,
    now: i64,
    first: bool,
    last: bool,
    /// Just moved, up (`true`) or down: that arrow takes the focus, or the other one when the
    /// point has reached the end.
    focus: Option<bool>,
) -> impl IntoView {
    let focus_up = focus.map(|up| (up && !first) || (!up && last));
    let focus_down = focus_up.map(|up| !up && !last);
    // Said with the point, so a screen reader's list of buttons tells them apart.
    let named = short(&point.content);
    let base = format!("/sets/{set_id}/points/{}", point.id);
    let schedule = match point.retrievability {
        _ if point.reps == 0 => format!("new · {}", due(now, point.due_at)),
        // Right after a review (even a forgotten one, whose answer was just given) recall is
        // certain by the model's reckoning; "100 % likely" read as praise.
        Some(r) if r >= 0.995 => {
            format!("reviewed {}× · {} · just reviewed", point.reps, due(now, point.due_at))
        }
        Some(r) => format!(
            "reviewed {}× · {} · {} likely recalled now",
            point.reps,
            due(now, point.due_at),
            percent(r)
        ),
        None => format!("reviewed {}× · {}", point.reps, due(now, point.due_at)),
    };
    view! {
        <li id=format!("point-{}", point.id) data-testid="point">
            <p class="point-content" inner_html=math_html(&point.content)></p>
            {(!point.context.is_empty()).then(|| view! {
                <p class="cue"><span class="label">"Cue: "</span><span inner_html=math_html(&point.context)></span></p>
            })}
            <p class="meta" data-testid="schedule">{schedule}</p>
            {point.leech.then(|| view! {
                <p class="leech" data-testid="leech">
                    <strong>"Keeps slipping: "</strong>
                    {format!("forgotten {} times. ", point.lapses)}
                    "A point that will not stick is often two facts in one, or a cue that gives too little to go on: "
                    <a href=format!("{base}/edit")>"split it or reword it"</a>"."
                </p>
            })}
            <details class="schedule">
                <summary>"Schedule"</summary>
                <dl>
                    <dt>"Due"</dt><dd>{due(now, point.due_at)}</dd>
                    <dt>"State"</dt><dd>{point.state.as_str()}</dd>
                    <dt>"Recall now"</dt>
                    <dd data-testid="retrievability">{point.retrievability.map_or("not reviewed yet".to_string(), percent)}</dd>
                    <dt>"Stability"</dt><dd data-testid="stability">{format!("{:.1} days", point.stability)}</dd>
                    <dt>"Difficulty"</dt><dd>{format!("{:.1} of 10", point.difficulty)}</dd>
                    <dt>"Reviews"</dt><dd data-testid="reviews">{point.reps}</dd>
                    <dt>"Not recalled"</dt><dd data-testid="lapses">{plural(i64::from(point.lapses), "time")}</dd>
                    <dt>"Last rating"</dt><dd data-testid="last-rating">{point.last_rating.map_or("none yet", Rating::as_str)}</dd>
                    <dt>"Reviewed in"</dt>
                    <dd>
                        {if point.recalled_in.is_empty() {
                            view! { "no session yet" }.into_any()
                        } else {
                            view! {
                                <ul class="inline">
                                    {point.recalled_in.iter().map(|r| view! {
                                        <li><a href=recall_link(r)>{ago(now, r.recalled_at)}</a>" ("{if r.rating == Rating::Again { "not recalled" } else { r.rating.as_str() }}")"</li>
                                    }).collect_view()}
                                </ul>
                            }.into_any()
                        }}
                    </dd>
                </dl>
            </details>
            <div class="row-actions">
                <a class="button small" href=format!("{base}/edit")>"Edit"</a>
                <form method="post" action=format!("{base}/move")>
                    <input type="hidden" name="direction" value="up" />
                    <button type="submit" class="button small" disabled=first autofocus=focus_up == Some(true) aria-label=format!("Move up: {named}")>"↑"</button>
                </form>
                <form method="post" action=format!("{base}/move")>
                    <input type="hidden" name="direction" value="down" />
                    <button type="submit" class="button small" disabled=last autofocus=focus_down == Some(true) aria-label=format!("Move down: {named}")>"↓"</button>
                </form>
                <a class="button small" href=format!("{base}/delete")>"Delete…"</a>
            </div>
        </li>
    }
}

/// Back from dropping a source's drafts (`?dropped=1`): what went.
#[component]
fn DraftsDropped() -> impl IntoView {
    let dropped = leptos_router::hooks::use_query_map().with_untracked(|q| q.get("dropped").is_some());
    dropped.then(|| {
        view! {
            <p class="form-notice" role="status" data-testid="drafts-dropped">
                "The drafts are dropped, and the text they came from with them."
            </p>
        }
    })
}

/// The form that adds a point at the end of the set.
#[component]
fn AddPoint(set_id: String) -> impl IntoView {
    let echo = FormEcho::of("add-point");
    // Back from adding one (`?added=1`): the keys are the form's again, for the next.
    let added = leptos_router::hooks::use_query_map().with_untracked(|q| q.get("added").is_some());
    view! {
        <form method="post" action=format!("/sets/{set_id}/points") class="stack add-point" data-testid="add-point">
            <h3>"Add a point"</h3>
            {added.then(|| view! { <p class="form-notice" role="status" data-testid="point-added">"Point added. The next one?"</p> })}
            <FormMessage echo=echo.clone() />
            <Field echo=echo.clone() form="add-point" name="content" label="What to recall" max=limits::POINT required=true rows=3 focus=added />
            <Field
                echo=echo
                form="add-point"
                name="context"
                label="Cue (optional)"
                max=limits::CUE
                rows=2
                hint="A question that asks for the point without giving it away. The tutor and the evaluator see it; you see it here."
            />
            <button type="submit" class="button primary">"Add point"</button>
            <p class="meta">
                "Or let Warren draft them: "
                <a href=format!("/sets/{set_id}/source") data-testid="add-from-source">"Add points from a source"</a>
                " (your notes, a chapter, a web page or a PDF)."
            </p>
        </form>
    }
}

//! The learner's recall sets, and one set with its points.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::api::{Dashboard, SetDetail, get_dashboard, get_set};
use crate::components::format::due;
use crate::components::widgets::{loaded, route_id, titled};
use crate::pages::dashboard::SetRow;

#[component]
pub fn Sets() -> impl IntoView {
    titled("Recall sets", Resource::new(|| (), |_| get_dashboard()), |data| view! { <SetsView data /> })
}

#[component]
fn SetsView(data: Dashboard) -> impl IntoView {
    let now = data.now;
    view! {
        <section class="page">
            <h1>"Recall sets"</h1>
            <p class="lede">"The facts you keep, grouped by subject."</p>
            <ul class="cards">
                {data.sets.into_iter().map(|set| view! { <SetRow set now /> }).collect_view()}
            </ul>
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
    view! {
        <Title text=detail.card.name.clone() />
        <section class="page">
            <h1>{detail.card.name.clone()}</h1>
            <p class="lede">{detail.card.description.clone()}</p>
            <ul class="cards">
                <SetRow set=detail.card now />
            </ul>
            <h2>"Points"</h2>
            <ol class="points">
                {detail.points.into_iter().map(|p| view! {
                    <li>
                        <p>{p.content}</p>
                        <p class="meta">
                            {if p.reps == 0 { "new".to_string() } else { format!("reviewed {}×, {}", p.reps, due(now, p.due_at)) }}
                        </p>
                    </li>
                }).collect_view()}
            </ol>
        </section>
    }
}

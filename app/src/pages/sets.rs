use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use crate::api::{get_dashboard, get_set};
use crate::components::format::due;
use crate::components::widgets::ErrorView;
use crate::pages::dashboard::SetRow;

#[component]
pub fn Sets() -> impl IntoView {
    let data = Resource::new(|| (), |_| get_dashboard());
    view! {
        <Title text="Recall sets" />
        <Suspense fallback=|| view! { <p class="loading">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(data) => {
                        let now = data.now;
                        view! {
                            <section class="page">
                                <h1>"Recall sets"</h1>
                                <p class="lede">"The facts you keep, grouped by subject."</p>
                                <ul class="cards">
                                    {data.sets.into_iter().map(|set| view! { <SetRow set now /> }).collect_view()}
                                </ul>
                            </section>
                        }.into_any()
                    }
                    Err(error) => view! { <ErrorView error /> }.into_any(),
                }
            })}
        </Suspense>
    }
}

#[component]
pub fn SetPage() -> impl IntoView {
    let params = use_params_map();
    let data = Resource::new(move || params.with(|p| p.get("id").unwrap_or_default()), get_set);
    view! {
        <Suspense fallback=|| view! { <p class="loading">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(detail) => {
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
                        }.into_any()
                    }
                    Err(error) => view! { <ErrorView error /> }.into_any(),
                }
            })}
        </Suspense>
    }
}

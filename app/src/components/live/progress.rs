//! Progress: one anonymous circle per point, filled left to right by count, and an amber pill
//! for each rabbit hole explored. It never shows what a point says, and hides (animated) while
//! a rabbit hole is explored.

use leptos::prelude::*;

#[component]
pub fn SessionProgress(
    /// Points in the session.
    #[prop(into)]
    total: Signal<u32>,
    /// Circles filled (recalls play one by one after a rabbit hole, so this can lag the count).
    #[prop(into)]
    recalled: Signal<u32>,
    /// The circle that just filled, for its animation.
    #[prop(into)]
    just_filled: Signal<Option<u32>>,
    /// Labels of the rabbit holes explored (`RabbitholeExited::label`).
    #[prop(into)]
    labels: Signal<Vec<String>>,
    #[prop(into)] hidden: Signal<bool>,
) -> impl IntoView {
    view! {
        <div class="progress" class:hidden=hidden aria-hidden=move || hidden.get().to_string()>
            <div
                class="circles"
                role="img"
                data-testid="progress"
                data-recalled=move || recalled.get().to_string()
                aria-label=move || format!("{} of {} recalled", recalled.get(), crate::format::plural(i64::from(total.get()), "point"))
            >
                {move || {
                    (0..total.get())
                        .map(|i| {
                            let filled = i < recalled.get();
                            let pop = just_filled.get() == Some(i);
                            view! { <span class="circle" class:filled=filled class:pop=pop></span> }
                        })
                        .collect_view()
                }}
            </div>
            <div class="pills">
                {move || labels.get().into_iter().map(|l| view! { <span class="pill amber">{l}</span> }).collect_view()}
            </div>
        </div>
    }
}

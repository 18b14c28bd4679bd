use leptos::prelude::*;
use leptos_meta::Title;

#[component]
pub fn Sets() -> impl IntoView {
    view! {
        <Title text="Recall sets" />
        <section class="page">
            <h1>"Recall sets"</h1>
            <p class="lede">"The facts you keep, grouped by subject."</p>
        </section>
    }
}

use leptos::prelude::*;
use leptos_meta::Title;

#[component]
pub fn Dashboard() -> impl IntoView {
    view! {
        <Title text="Dashboard" />
        <section class="page">
            <h1>"Dashboard"</h1>
            <p class="lede">"Your recall sets and the sessions waiting for you appear here."</p>
        </section>
    }
}

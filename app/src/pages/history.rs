use leptos::prelude::*;
use leptos_meta::Title;

#[component]
pub fn History() -> impl IntoView {
    view! {
        <Title text="History" />
        <section class="page">
            <h1>"History"</h1>
            <p class="lede">"Every session you have had, kept in full."</p>
        </section>
    }
}

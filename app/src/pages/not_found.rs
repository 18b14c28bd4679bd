use leptos::prelude::*;
use leptos_meta::Title;

#[component]
pub fn NotFound() -> impl IntoView {
    view! { <NotFoundBody /> }
}

/// The 404 page; also what any missing (or someone else's) set, session or history shows.
#[component]
pub fn NotFoundBody() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::NOT_FOUND);
    }
    view! {
        <Title text="Not found" />
        <section class="page">
            <h1>"Not found"</h1>
            <p>"There is nothing here. " <a href="/">"Back to the dashboard"</a></p>
        </section>
    }
}

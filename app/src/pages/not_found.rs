use leptos::prelude::*;

use crate::components::widgets::NotFoundBody;

#[component]
pub fn NotFound() -> impl IntoView {
    view! { <NotFoundBody /> }
}

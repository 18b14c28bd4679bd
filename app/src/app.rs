use leptos::prelude::*;
use leptos_meta::{Link, Meta, MetaTags, Stylesheet, Title, provide_meta_context};
use leptos_router::{
    components::{A, Route, Router, Routes},
    path,
};

use crate::components::theme::{THEME_BOOT_SCRIPT, ThemeToggle};
use crate::pages::{dashboard::Dashboard, history::History, not_found::NotFound, sets::Sets};

/// The HTML document around the app; rendered on the server only.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <meta name="color-scheme" content="light dark" />
                // Applies the stored theme before first paint, so a dark-mode learner never sees a
                // white flash. Static text of our own; no user data goes into it.
                <script>{THEME_BOOT_SCRIPT}</script>
                <HydrationScripts options />
                <MetaTags />
            </head>
            <body>
                <App />
            </body>
        </html>
    }
}

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    view! {
        <Stylesheet id="warren-css" href="/pkg/warren.css" />
        <Link rel="icon" href="/favicon.ico" />
        <Meta name="description" content="Warren: a conversational active-recall tutor." />
        <Title formatter=|page: String| {
            if page.is_empty() { "Warren".to_string() } else { format!("{page} · Warren") }
        } />
        <Router>
            <header class="topbar">
                <A href="/" attr:class="brand">
                    <span class="brand-mark" aria-hidden="true">"◐"</span>
                    "Warren"
                </A>
                <nav aria-label="Main">
                    <A href="/" exact=true>"Dashboard"</A>
                    <A href="/sets">"Recall sets"</A>
                    <A href="/history">"History"</A>
                </nav>
                <ThemeToggle />
            </header>
            <main id="main">
                <Routes fallback=NotFound>
                    <Route path=path!("/") view=Dashboard />
                    <Route path=path!("/sets") view=Sets />
                    <Route path=path!("/history") view=History />
                </Routes>
            </main>
        </Router>
    }
}

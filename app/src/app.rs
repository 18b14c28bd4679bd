use leptos::prelude::*;
use leptos_meta::{Link, Meta, MetaTags, Title, provide_meta_context};
use leptos_router::{
    SsrMode,
    components::{A, Route, Router, Routes},
    path,
};

use crate::api::{Viewer, get_viewer};
use crate::clock::CLOCK_BOOT_SCRIPT;
use crate::components::theme::{THEME_BOOT_SCRIPT, ThemeToggle};
use crate::pages::{
    account::AccountPage,
    auth::{SignIn, SignUp},
    dashboard::Dashboard,
    history::{History, TranscriptPage},
    import::{ImportPage, ImportPreviewPage},
    live::LivePage,
    not_found::NotFound,
    sets::{
        DeletePointPage, DeleteResourcePage, DeleteSetPage, EditPointPage, EditResourcePage, EditSetPage,
        NewSetPage, SetPage, Sets,
    },
    sources::{NewSourcePage, SetSourcePage, SourcePage},
};

/// The HTML document around the app; rendered on the server only.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    crate::csp::provide_response_nonce();
    let nonce = leptos::nonce::use_nonce;
    // The client's files share one content-hashed name (see `scripts/lib.sh`).
    let stylesheet = format!("/{}/{}.css", options.site_pkg_dir, options.output_name);
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <meta name="color-scheme" content="light dark" />
                // Applies the stored theme before first paint, so a dark-mode learner never sees a
                // white flash. Static text of our own; no user data goes into it.
                <script nonce=nonce()>{THEME_BOOT_SCRIPT}</script>
                // One text per script: two would be rendered with a marker between them.
                <script nonce=nonce()>{CLOCK_BOOT_SCRIPT}</script>
                <link rel="stylesheet" id="warren-css" href=stylesheet />
                <HydrationScripts options islands=true />
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
    let viewer = Resource::new(|| (), |_| get_viewer());
    view! {
        <Link rel="icon" href="/favicon.ico" />
        <Meta name="description" content="Warren: a conversational active-recall tutor." />
        <Title formatter=page_title />
        <Router>
            <a class="skip-link" href="#main">"Skip to content"</a>
            <header class="topbar">
                <A href="/" attr:class="brand">
                    <span class="brand-mark" aria-hidden="true">"◐"</span>
                    "Warren"
                </A>
                <Suspense fallback=|| ()>
                    {move || Suspend::new(async move {
                        let viewer = viewer.await.ok().flatten();
                        view! { <TopNav viewer /> }
                    })}
                </Suspense>
                <ThemeToggle />
            </header>
            <main id="main">
                <Routes fallback=NotFound>
                    <Route path=path!("/") view=Dashboard ssr=SsrMode::Async />
                    <Route path=path!("/account") view=AccountPage ssr=SsrMode::Async />
                    <Route path=path!("/sets") view=Sets ssr=SsrMode::Async />
                    <Route path=path!("/sets/new") view=NewSetPage />
                    <Route path=path!("/sets/new/source") view=NewSourcePage ssr=SsrMode::Async />
                    <Route path=path!("/sets/:id/source") view=SetSourcePage ssr=SsrMode::Async />
                    <Route path=path!("/sources/:id") view=SourcePage ssr=SsrMode::Async />
                    <Route path=path!("/sets/:id") view=SetPage ssr=SsrMode::Async />
                    <Route path=path!("/sets/:id/edit") view=EditSetPage ssr=SsrMode::Async />
                    <Route path=path!("/sets/:id/delete") view=DeleteSetPage ssr=SsrMode::Async />
                    <Route path=path!("/sets/:id/points/:point/edit") view=EditPointPage ssr=SsrMode::Async />
                    <Route path=path!("/sets/:id/points/:point/delete") view=DeletePointPage ssr=SsrMode::Async />
                    <Route path=path!("/sets/:id/resources/:resource/edit") view=EditResourcePage ssr=SsrMode::Async />
                    <Route path=path!("/sets/:id/resources/:resource/delete") view=DeleteResourcePage ssr=SsrMode::Async />
                    <Route path=path!("/sessions/:id") view=LivePage ssr=SsrMode::Async />
                    <Route path=path!("/import") view=ImportPage />
                    <Route path=path!("/import/:id") view=ImportPreviewPage ssr=SsrMode::Async />
                    <Route path=path!("/history") view=History ssr=SsrMode::Async />
                    <Route path=path!("/history/:id") view=TranscriptPage ssr=SsrMode::Async />
                    <Route path=path!("/signin") view=SignIn />
                    <Route path=path!("/signup") view=SignUp />
                </Routes>
            </main>
        </Router>
    }
}

/// Every page's `<title>`: the page's own title (often a set's name), then "Warren".
///
/// `leptos_meta` 0.8 writes the title into `<title>` without escaping it when rendering on the
/// server (`ServerMetaContext::inject_meta_context` pushes the string as it is), so a set
/// named `</title><meta http-equiv="refresh" …>` would put live markup into the head. Every
/// `Title` goes through this one formatter, which escapes the text first. In the browser the
/// title is set as text (`document.title`), so nothing is escaped there.
fn page_title(page: String) -> String {
    let title = if page.is_empty() { "Warren".to_string() } else { format!("{page} · Warren") };
    #[cfg(feature = "ssr")]
    let title = html_escape::encode_text(&title).into_owned();
    title
}

/// Navigation and the sign-out button for a signed-in learner; nothing otherwise.
#[component]
fn TopNav(viewer: Option<Viewer>) -> impl IntoView {
    viewer.map(|viewer| {
        view! {
            <nav aria-label="Main">
                <A href="/" exact=true>"Dashboard"</A>
                <A href="/sets">"Sets"</A>
                <A href="/history">"History"</A>
                <A href="/account">"Account"</A>
            </nav>
            <form class="signout" method="post" action="/auth/signout">
                <a class="who" href="/account" data-testid="username" title="Your account">{viewer.username}</a>
                <button type="submit" class="link-button">"Sign out"</button>
            </form>
        }
    })
}

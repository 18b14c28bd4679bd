//! Work that runs on the server in the background (a schedule's fit, a source's drafting),
//! shown while it runs: a progress bar fed by asking `url` every half second (for two
//! minutes at most; 202 with `done/total` while it runs, 200 once it has ended), then the
//! page with its results, unless the learner is typing into a form (a link does it then).
//! A plain `fetch` keeps the server-function client out of the bundle.

use leptos::prelude::*;

#[island]
pub fn AwaitProgress(
    /// Where the progress is asked for.
    url: String,
    done: u32,
    total: u32,
    /// What is counted ("steps", "passages").
    unit: String,
    /// Where to go when it has ended, and what the link there says.
    then: String,
    finished: String,
    /// The bar's test id.
    test_id: String,
) -> impl IntoView {
    let progress = RwSignal::new((done, total));
    let ended = RwSignal::new(false);
    #[cfg(feature = "hydrate")]
    {
        let (url, then) = (url.clone(), then.clone());
        Effect::new(move |_| {
            let (url, then) = (url.clone(), then.clone());
            leptos::task::spawn_local(async move {
                for _ in 0..240 {
                    gloo_timers::future::TimeoutFuture::new(500).await;
                    match browser::progress(&url).await {
                        Some(Some(steps)) => progress.set(steps),
                        Some(None) => {
                            ended.set(true);
                            if !browser::typing()
                                && let Some(window) = web_sys::window()
                            {
                                let _ = window.location().set_href(&then);
                            }
                            return;
                        }
                        None => {}
                    }
                }
            });
        });
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = &url;
    view! {
        <p>
            <progress
                max=move || progress.get().1.max(1).to_string()
                value=move || progress.get().0.to_string()
                data-testid=test_id
            ></progress>
            " "
            {move || {
                let (done, total) = progress.get();
                if total == 0 { "Starting…".to_string() } else { format!("{done} of {total} {unit}") }
            }}
        </p>
        <Show when=move || ended.get()>
            <p><a href=then.clone()>{finished.clone()}</a></p>
        </Show>
    }
}

#[cfg(feature = "hydrate")]
mod browser {
    use wasm_bindgen::JsCast;

    /// The work's steps (`Some(Some)`), its end (`Some(None)`), or nothing known (a request
    /// that failed asks again later).
    pub async fn progress(url: &str) -> Option<Option<(u32, u32)>> {
        let window = web_sys::window()?;
        let response = wasm_bindgen_futures::JsFuture::from(window.fetch_with_str(url)).await.ok()?;
        let response = response.dyn_into::<web_sys::Response>().ok()?;
        match response.status() {
            202 => {}
            200 => return Some(None),
            // A server that cannot say (a 500, a proxy's 502): ask again.
            _ => return None,
        }
        let text = wasm_bindgen_futures::JsFuture::from(response.text().ok()?).await.ok()?.as_string()?;
        let (done, total) = text.split_once('/')?;
        Some(Some((done.parse().ok()?, total.parse().ok()?)))
    }

    /// Whether the learner is typing into a field of the page, which a reload would lose.
    pub fn typing() -> bool {
        web_sys::window().and_then(|w| w.document()).and_then(|d| d.active_element()).is_some_and(|e| {
            e.clone().dyn_into::<web_sys::HtmlInputElement>().is_ok()
                || e.dyn_into::<web_sys::HtmlTextAreaElement>().is_ok()
        })
    }
}

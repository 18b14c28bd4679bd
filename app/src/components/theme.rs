//! Light/dark/automatic colour scheme, kept in `localStorage` across visits.

use leptos::prelude::*;

/// Runs in `<head>` before the body paints: sets `data-theme` from storage.
pub const THEME_BOOT_SCRIPT: &str = "try{var t=localStorage.getItem('warren.theme');\
if(t==='light'||t==='dark')document.documentElement.dataset.theme=t;}catch(e){}";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Theme {
    Auto,
    Light,
    Dark,
}

impl Theme {
    fn next(self) -> Self {
        match self {
            Theme::Auto => Theme::Light,
            Theme::Light => Theme::Dark,
            Theme::Dark => Theme::Auto,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Theme::Auto => "Auto",
            Theme::Light => "Light",
            Theme::Dark => "Dark",
        }
    }
}

/// A button that cycles Auto → Light → Dark. It only does something once the page is hydrated.
#[island]
pub fn ThemeToggle() -> impl IntoView {
    let theme = RwSignal::new(Theme::Auto);

    // After hydration, pick up the stored choice (the server cannot know it).
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| theme.set(browser::load()));

    let cycle = move |_| {
        let next = theme.get_untracked().next();
        theme.set(next);
        #[cfg(feature = "hydrate")]
        browser::apply(next);
    };

    view! {
        <button
            type="button"
            class="theme-toggle"
            data-testid="theme-toggle"
            on:click=cycle
            aria-label=move || format!("Colour scheme: {}. Change it.", theme.get().label())
        >
            <span aria-hidden="true">
                {move || match theme.get() {
                    Theme::Auto => "◑",
                    Theme::Light => "☀",
                    Theme::Dark => "☾",
                }}
            </span>
            <span class="theme-label">{move || theme.get().label()}</span>
        </button>
    }
}

#[cfg(feature = "hydrate")]
mod browser {
    use super::Theme;

    const STORAGE_KEY: &str = "warren.theme";

    fn storage() -> Option<web_sys::Storage> {
        web_sys::window()?.local_storage().ok().flatten()
    }

    pub fn load() -> Theme {
        match storage().and_then(|s| s.get_item(STORAGE_KEY).ok().flatten()).as_deref() {
            Some("light") => Theme::Light,
            Some("dark") => Theme::Dark,
            _ => Theme::Auto,
        }
    }

    /// Sets `data-theme` on `<html>` and remembers the choice. Storage can be unavailable
    /// (private mode, blocked cookies): the theme still applies for this page.
    pub fn apply(theme: Theme) {
        let root = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element());
        let value = match theme {
            Theme::Auto => None,
            Theme::Light => Some("light"),
            Theme::Dark => Some("dark"),
        };
        if let Some(root) = root {
            let _ = match value {
                Some(v) => root.set_attribute("data-theme", v),
                None => root.remove_attribute("data-theme"),
            };
        }
        if let Some(s) = storage() {
            let _ = match value {
                Some(v) => s.set_item(STORAGE_KEY, v),
                None => s.remove_item(STORAGE_KEY),
            };
        }
    }
}

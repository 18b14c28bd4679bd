//! The Leptos application shared by the server (`ssr`) and the browser (`hydrate`).
//!
//! Everything here compiles for both targets unless it sits behind `#[cfg(feature = "ssr")]`.
//! Types that cross the wire (socket protocol, server function payloads) are defined once, here.

pub mod api;
mod app;
pub mod clean;
pub mod clock;
mod components;
pub mod csp;
pub mod format;
pub mod forms;
pub mod ladder;
pub mod learner;
pub mod names;
mod pages;
pub mod protocol;
pub mod schedule;
pub mod summary;
pub mod tree;
pub mod url;
pub mod usage;
pub mod voice;

pub use app::{App, shell};
/// Markdown written straight to HTML, for server pages and exports that hold thousands of messages.
#[cfg(feature = "ssr")]
pub use components::markdown::{escape, markdown_html, write_html};

/// Entry point of the WebAssembly client: hydrates the islands of the server-rendered page.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_islands();
}

//! The answer being typed, kept in the tab's `sessionStorage` per session, so a reload (or a
//! crash of the page) does not lose it; sending it, or rubbing it out, forgets it. Storage
//! can be unavailable (private mode), which only forgets. On the server these do nothing.

/// The draft the learner left in this tab for `session_id`, if any.
pub fn stored_draft(session_id: &str) -> Option<String> {
    #[cfg(feature = "hydrate")]
    {
        storage()?.get_item(&key(session_id)).ok().flatten().filter(|d| !d.trim().is_empty())
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = session_id;
        None
    }
}

/// Keeps `draft` for `session_id` (an empty one is forgotten).
pub fn store_draft(session_id: &str, draft: &str) {
    #[cfg(feature = "hydrate")]
    if let Some(storage) = storage() {
        let _ = if draft.trim().is_empty() {
            storage.remove_item(&key(session_id))
        } else {
            storage.set_item(&key(session_id), draft)
        };
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (session_id, draft);
}

#[cfg(feature = "hydrate")]
fn key(session_id: &str) -> String {
    format!("warren.draft.{session_id}")
}

#[cfg(feature = "hydrate")]
fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok().flatten()
}

//! "You've covered everything": Continue (or Escape) keeps talking, Done leaves (and
//! completes). A modal dialog: focus moves to Done when it opens, Tab stays between its two
//! buttons, and Continue gives the keys back to the answer box.

use leptos::html;
use leptos::prelude::*;

use super::Link;
use crate::format::{all_of, span};
use crate::protocol::{ClientMessage, SessionCompleteOverlay as Overlay};

#[component]
pub fn SessionCompleteOverlay(overlay: Overlay, link: Link) -> impl IntoView {
    let done = NodeRef::<html::Button>::new();
    let keep_on = NodeRef::<html::Button>::new();
    // Browser only, as every effect: the answer box behind it no longer has the keys.
    Effect::new(move |_| {
        if let Some(button) = done.get() {
            let _ = button.focus();
        }
    });
    let keep_talking = move || {
        link.send(ClientMessage::DismissOverlay);
        super::input::focus_answer();
    };
    let keys = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Escape" {
            ev.prevent_default();
            keep_talking();
            return;
        }
        if ev.key() != "Tab" {
            return;
        }
        ev.prevent_default();
        let on_done = done
            .get_untracked()
            .is_some_and(|d| document().active_element().is_some_and(|a| a.is_same_node(Some(d.as_ref()))));
        let next = if on_done { keep_on.get_untracked() } else { done.get_untracked() };
        if let Some(next) = next {
            let _ = next.focus();
        }
    };
    let outcome = outcome(&overlay);
    view! {
        <div class="overlay" role="dialog" aria-modal="true" aria-labelledby="overlay-title" data-testid="overlay" on:keydown=keys>
            <div class="overlay-card">
                <h2 id="overlay-title">{overlay.message}</h2>
                <p data-testid="overlay-outcome">{outcome}</p>
                <div class="overlay-actions">
                    <button type="button" class="button" data-testid="overlay-continue" node_ref=keep_on on:click=move |_| keep_talking()>"Continue"</button>
                    <button type="button" class="button primary" data-testid="overlay-done" node_ref=done on:click=move |_| {
                        link.send(ClientMessage::LeaveSession);
                    }>"Done"</button>
                </div>
            </div>
        </div>
    }
}

/// How the session went, as the summary says it: recalled, after hints, or gone through.
fn outcome(overlay: &Overlay) -> String {
    let took = span(i64::try_from(overlay.duration_ms).unwrap_or(i64::MAX));
    // A hint's help is said; a point said back after its answer was given was gone through.
    let hinted = match overlay.after_hints {
        0 => String::new(),
        1 if overlay.recalled_count == 1 => ", after a hint".to_string(),
        n if n >= overlay.recalled_count => ", each after a hint".to_string(),
        n => format!(", {n} of them after a hint"),
    };
    match overlay.given_answer {
        0 if overlay.recalled_count >= overlay.total_points => {
            format!("You recalled {} in {took}{hinted}.", all_of(i64::from(overlay.total_points), "point"))
        }
        0 => format!(
            "You recalled {} of {} points in {took}{hinted}.",
            overlay.recalled_count, overlay.total_points
        ),
        given => format!(
            "You went through {} in {took}: {} of them only after being given the answer.",
            all_of(i64::from(overlay.total_points), "point"),
            given
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overlay(recalled: u32, total: u32, given_answer: u32, after_hints: u32) -> Overlay {
        Overlay {
            message: String::new(),
            recalled_count: recalled,
            given_answer,
            after_hints,
            total_points: total,
            duration_ms: 120_000,
        }
    }

    #[test]
    fn the_outcome_says_what_help_the_recalls_took() {
        assert_eq!(outcome(&overlay(4, 4, 0, 0)), "You recalled all 4 points in 2 min.");
        assert_eq!(
            outcome(&overlay(4, 4, 0, 1)),
            "You recalled all 4 points in 2 min, 1 of them after a hint."
        );
        assert_eq!(outcome(&overlay(2, 2, 0, 2)), "You recalled both points in 2 min, each after a hint.");
        assert_eq!(outcome(&overlay(1, 1, 0, 1)), "You recalled the one point in 2 min, after a hint.");
        assert!(outcome(&overlay(4, 4, 1, 1)).ends_with("1 of them only after being given the answer."));
    }
}

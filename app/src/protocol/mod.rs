//! The live-session protocol: the single definition of every engine event and every frame on
//! `/ws/sessions/{id}`, shared by the engine, the socket and the browser client.
//!
//! Wire format: JSON objects internally tagged by `"type"` in snake_case; fields camelCase.
//! Every `match` on [`ClientMessage`], [`ServerMessage`] or [`SessionEvent`] names every variant,
//! so adding one breaks the build until engine, socket and client all handle it.
//!
//! Event flows, origin to screen:
//!
//! Normal recall: learner sends `user_message` → engine stores it → evaluator and rabbit-hole
//! detector run together → `recall_point_recalled` per point checked off (client fills a circle
//! and chimes) and `recall_point_near_miss` where close to the point asked → tutor reply streams as
//! `assistant_chunk`… then `assistant_complete`.
//!
//! Rabbit hole: detector fires → `rabbithole_detected` → client shows an inline prompt → learner
//! picks Explore → `enter_rabbithole` → `rabbithole_entered` + the explorer's opening streamed →
//! messages go to the explorer, the evaluator keeps checking silently (recalls reach the client,
//! which buffers their animation) → learner picks Return → `exit_rabbithole` →
//! `rabbithole_exited { pointsRecalledDuring, completionPending }` → client shows progress again
//! and plays the buffered recalls.
//!
//! Auto-end: last point recalled → `session_complete_overlay` (deferred until exit while in a
//! rabbit hole) → Continue sends `dismiss_overlay`, Done sends `leave_session` →
//! `session_complete`. Leaving with points left gives `session_paused`.

// The spine of the product: every public item says what it is for.
#![deny(missing_docs)]

use serde::{Deserialize, Serialize};

mod client;
mod events;
mod server;
#[cfg(test)]
mod tests;
mod wire;

pub use client::*;
pub use events::*;
pub use server::*;

/// Largest text frame the server reads, in bytes. Larger frames get `FRAME_TOO_LARGE`.
pub const MAX_FRAME_BYTES: usize = 16 * 1024;
/// Longest learner message, in characters (about three pages of prose).
pub const MAX_MESSAGE_CHARS: usize = 8_000;
/// Longest id or topic echoed back by the client, in characters.
pub const MAX_FIELD_CHARS: usize = 500;

crate::named_enum! {
    /// How a learner's message came to be written, when not typed.
    pub enum InputVia {
        /// Spoken, transcribed, and checked by the learner before sending.
        Voice = "voice",
    }
}

crate::named_enum! {
    /// Where a session stands.
    pub enum SessionStatus {
        /// Open: a learner is or can be studying.
        InProgress = "in_progress",
        /// Left with points to go; opening it again resumes it.
        Paused = "paused",
        /// Every point recalled, and left.
        Completed = "completed",
        /// Replaced by a newer session of the same set.
        Abandoned = "abandoned",
    }
}

crate::named_enum! {
    /// Whether the learner talks to the tutor or explores a rabbit hole.
    pub enum SessionMode {
        /// The tutor asks about the points.
        Recall = "recall",
        /// The explorer follows a tangent.
        Rabbithole = "rabbithole",
    }
}

crate::named_enum! {
    /// Who provides the language model.
    pub enum ProviderKind {
        /// The built-in offline tutor.
        Offline = "offline",
        /// Anthropic's Messages API.
        Anthropic = "anthropic",
        /// OpenAI, or a server speaking its API.
        Openai = "openai",
    }
}

/// Which language model answers, shown to the learner (the offline one is labelled as such).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderInfo {
    /// Who provides the model.
    pub kind: ProviderKind,
    /// The model's name.
    pub model: String,
    /// Whether it is the built-in offline tutor.
    pub offline: bool,
    /// What the learner sees, e.g. "Offline tutor (built in, no network)".
    pub label: String,
}

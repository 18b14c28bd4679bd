//! Server → client: every frame the server sends, its payloads, and the error codes.

use serde::{Deserialize, Serialize};

use super::{ProviderInfo, SessionMode, SessionStatus};

/// Declares [`ServerMessage`] and [`FrameType`] from one list, so each frame's wire name is
/// written once: the serde name, the `FrameType` of the same name, `frame_type` and the
/// reading of a payload by its type (`wire.rs`) all come from it.
macro_rules! server_messages {
    ($( $(#[$doc:meta])* $variant:ident($payload:ty) = $name:literal, )+) => {
        /// Every frame the server sends. Serialised with its `type` first; read back by
        /// [`ServerMessage`]'s own `Deserialize`, which relies on that (see `wire.rs`).
        #[derive(Clone, Debug, PartialEq, Serialize)]
        #[serde(tag = "type")]
        pub enum ServerMessage {
            $( $(#[$doc])* #[serde(rename = $name)] $variant($payload), )+
        }

        crate::named_enum! {
            /// The `type` of every [`ServerMessage`] (each variant is the frame of the same name).
            pub enum FrameType {
                $( $(#[$doc])* $variant = $name, )+
            }
        }

        impl ServerMessage {
            /// The wire name of this frame's `type`.
            pub fn frame_type(&self) -> FrameType {
                match self {
                    $( ServerMessage::$variant(_) => FrameType::$variant, )+
                }
            }
        }

        impl FrameType {
            /// Reads the payload of a frame of this type.
            pub(super) fn payload<'de, D: serde::Deserializer<'de>>(
                self,
                payload: D,
            ) -> Result<ServerMessage, D::Error> {
                Ok(match self {
                    $( FrameType::$variant => ServerMessage::$variant(Deserialize::deserialize(payload)?), )+
                })
            }
        }
    };
}

server_messages! {
    /// The view's whole state, sent first on every attach.
    SessionStarted(Box<SessionStarted>) = "session_started",
    /// A piece of the reply being streamed.
    AssistantChunk(AssistantChunk) = "assistant_chunk",
    /// The reply is finished (and stored).
    AssistantComplete(AssistantComplete) = "assistant_complete",
    /// A point was checked off.
    RecallPointRecalled(RecallPointRecalled) = "recall_point_recalled",
    /// The learner was close to a point: feedback to show.
    RecallPointNearMiss(RecallPointNearMiss) = "recall_point_near_miss",
    /// A tangent worth offering as a rabbit hole.
    RabbitholeDetected(RabbitholeDetected) = "rabbithole_detected",
    /// The learner chose to explore.
    RabbitholeEntered(RabbitholeEntered) = "rabbithole_entered",
    /// Back from the rabbit hole.
    RabbitholeExited(RabbitholeExited) = "rabbithole_exited",
    /// Every point is recalled: "You've covered everything".
    SessionCompleteOverlay(SessionCompleteOverlay) = "session_complete_overlay",
    /// The learner left with points to go.
    SessionPaused(SessionPaused) = "session_paused",
    /// An image to show beside the exchange.
    ShowImage(ShowImage) = "show_image",
    /// A text excerpt to show beside the exchange.
    ShowResource(ShowResource) = "show_resource",
    /// The learner left a completed session.
    SessionComplete(SessionComplete) = "session_complete",
    /// Something was refused or failed; see its code.
    Error(ErrorPayload) = "error",
    /// The answer to `ping`.
    Pong(Pong) = "pong",
    /// A reconnecting socket was sent every frame it missed; the stream is live again.
    Resumed(Resumed) = "resumed",
    /// Something the learner should know about how the session goes on, in a sentence.
    Notice(Notice) = "notice",
}

/// A frame as it goes on the wire: the message, and its place in the session's stream.
///
/// Every frame the session sends carries `seq`, increasing through the session's life on one
/// server (`pong` and refusals made by the socket itself carry none). A socket opened with
/// `?since=N` (the last `seq` its page saw) receives every frame after `N` that was sent to the
/// whole session, once and in order, then `resumed`; when those frames are no longer all held,
/// it receives `session_started` instead, as a fresh page does. `seq` values are only compared
/// with other values from the same stream: a `session_started` starts the page's count again.
///
/// Every frame of the session's stream also carries `timestamp`, when the session sent it
/// (milliseconds since the Unix epoch), as T13's event envelope does: one field of the
/// envelope rather than one in each payload. (`pong`'s own `timestamp` is its payload's.)
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ServerFrame {
    /// The frame itself (its `type` comes first on the wire).
    #[serde(flatten)]
    pub message: ServerMessage,
    /// Its place in the session's stream, if it is part of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    /// When the session sent it, if it is part of the session's stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<i64>,
}

/// Sent when a socket attaches: the whole state the view needs, so a reconnect rebuilds the
/// screen from the server alone.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionStarted {
    /// The session's id.
    pub session_id: String,
    /// The recall set's name, for the heading.
    pub recall_set_name: String,
    /// The agent's current text: a fresh opening, a recap on resume, or the last reply on
    /// reconnect. Empty when the opening is about to stream as `assistant_chunk`s.
    pub opening_message: String,
    /// `opening_message` as the page shows it (escaped HTML, as `assistant_complete`'s).
    #[serde(default)]
    pub opening_html: String,
    /// Points in this session.
    pub total_points: u32,
    /// Points recalled so far.
    pub recalled_count: u32,
    /// Where the session stands.
    pub status: SessionStatus,
    /// Which language model answers.
    pub provider: ProviderInfo,
    /// Recall or rabbit hole.
    pub mode: SessionMode,
    /// The rabbit hole being explored, when `mode` is `rabbithole`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rabbithole: Option<RabbitholeEntered>,
    /// Labels of the rabbit holes explored so far in this session, in order.
    #[serde(default)]
    pub rabbithole_labels: Vec<String>,
    /// A detected rabbit hole still waiting for the learner's answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_rabbithole: Option<RabbitholeDetected>,
    /// Set when every point is recalled and the overlay has not been dismissed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overlay: Option<SessionCompleteOverlay>,
    /// Active study time so far, for the timer.
    pub elapsed_ms: u64,
    /// Text of a reply still streaming when the socket attached; further chunks follow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streaming_reply: Option<String>,
    /// The `clientMessageId` of the last learner message stored, so a reconnecting client knows
    /// which of its unsent messages to send again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_client_message_id: Option<String>,
    /// Images shown so far in this session, in order (kept across reloads).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<ShowImage>,
    /// Text excerpts shown so far in this session, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<ShowResource>,
    /// A notice still in force (the model's allowance spent, the offline tutor answering).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notice: Option<Notice>,
}

crate::named_enum! {
    /// What a `notice` is about.
    pub enum NoticeCode {
        /// The learner's allowance of the language model is spent for the day (or month):
        /// the built-in offline tutor answers until it comes round again.
        ModelAllowanceSpent = "MODEL_ALLOWANCE_SPENT",
        /// The allowance came round again (or the operator lifted it): the model answers again.
        ModelAllowanceRestored = "MODEL_ALLOWANCE_RESTORED",
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
/// Something the learner should know about how the session goes on.
pub struct Notice {
    /// What it is about.
    pub code: NoticeCode,
    /// One sentence, for the page.
    pub message: String,
    /// Until when it holds (ms since the epoch), if it lapses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
/// A piece of the reply being streamed.
pub struct AssistantChunk {
    /// The text to append.
    pub content: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
/// The end of a streamed reply.
pub struct AssistantComplete {
    /// The whole reply, as stored.
    pub full_content: String,
    /// How many `assistant_chunk`s carried it.
    pub total_chunks: u32,
    /// The reply as the page shows it: its Markdown written by the server as HTML in which
    /// every piece of text is escaped (the page renders no Markdown itself).
    #[serde(default)]
    pub html: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
/// A point the learner just recalled.
pub struct RecallPointRecalled {
    /// Which point (never its content).
    pub point_id: String,
    /// Display order of this recall (0, 1, 2, …): circles fill left to right by count.
    pub point_index: u32,
    /// Points recalled so far, this one included.
    pub recalled_count: u32,
    /// Points in the session.
    pub total_points: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
/// The learner was close to the point asked about (closeness to another point is counted
/// towards its rating, not shown).
pub struct RecallPointNearMiss {
    /// Which point.
    pub point_id: String,
    /// What to show the learner (never the point itself).
    pub feedback: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
/// A tangent the detector found, offered to the learner.
pub struct RabbitholeDetected {
    /// Identifies this offer in `enter_rabbithole`.
    pub rabbithole_event_id: String,
    /// What the tangent is about, as a phrase.
    pub topic: String,
    /// Two to four words, for pills.
    pub label: String,
    /// The learner's message the tangent was found in (T13's `triggerMessageContent`).
    #[serde(default)]
    pub trigger_message_content: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
/// The rabbit hole now being explored.
pub struct RabbitholeEntered {
    /// The offer it came from.
    pub rabbithole_event_id: String,
    /// What it is about.
    pub topic: String,
    /// Two to four words, for pills.
    pub label: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
/// Back on the main line after a rabbit hole.
pub struct RabbitholeExited {
    /// The pill for the explored rabbit hole.
    pub label: String,
    /// Points recalled while exploring (their circles fill now).
    pub points_recalled_during: u32,
    /// Every point was recalled inside the rabbit hole: the overlay follows.
    pub completion_pending: bool,
    /// The tutor's words the main line stands at, to show again (a page opened inside the
    /// rabbit hole never saw them).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tutor_text: String,
    /// The same words as the page shows them (escaped HTML, as `assistant_complete`'s).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tutor_html: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
/// Shown when every point is recalled.
pub struct SessionCompleteOverlay {
    /// The heading ("You've covered everything.").
    pub message: String,
    /// Points recalled.
    pub recalled_count: u32,
    /// Of those, the points said back only after the tutor gave their answer: gone through,
    /// not recalled (the summary says so too). Absent from an older server: none.
    #[serde(default)]
    pub given_answer: u32,
    /// Of the points recalled, those recalled after a hint (their answer not given). Absent
    /// from an older server: none.
    #[serde(default)]
    pub after_hints: u32,
    /// Points in the session.
    pub total_points: u32,
    /// Study time so far.
    pub duration_ms: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
/// The session was left with points to go.
pub struct SessionPaused {
    /// The session's id.
    pub session_id: String,
    /// Points recalled so far.
    pub recalled_count: u32,
    /// Points in the session.
    pub total_points: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
/// An image resource to show.
pub struct ShowImage {
    /// The resource's id (shown once).
    pub resource_id: String,
    /// Where the image is served.
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// A caption, if any.
    pub caption: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// Its media type, if known.
    pub mime_type: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
/// A text excerpt from the learner's material.
pub struct ShowResource {
    /// The resource's id (shown once).
    pub resource_id: String,
    /// Its title.
    pub title: String,
    /// A short excerpt (about 200 characters).
    pub snippet: String,
    /// The excerpt as the page shows it (escaped HTML, as `assistant_complete`'s).
    #[serde(default)]
    pub snippet_html: String,
    /// The whole text as the page shows it, when the snippet leaves some of it out (otherwise
    /// empty, and not sent).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub whole_html: String,
    /// Shown because the point it supports was just recalled: more on that point, not a hint
    /// for the question that follows (false, and not sent, otherwise).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub after_recall: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
/// The session ended completed.
pub struct SessionComplete {
    /// What happened in it.
    pub summary: SessionCompletionSummary,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
/// The outcome of a completed session.
pub struct SessionCompletionSummary {
    /// The session's id.
    pub session_id: String,
    /// Points recalled.
    pub recalled_count: u32,
    /// Points in the session.
    pub total_points: u32,
    /// Study time.
    pub duration_ms: u64,
    /// Rabbit holes explored.
    pub rabbithole_count: u32,
    /// The points recalled, in order.
    pub recalled_point_ids: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
/// The payload of an `error` frame.
pub struct ErrorPayload {
    /// The stable code.
    pub code: ErrorCode,
    /// What went wrong, for the learner.
    pub message: String,
    /// False when the socket is about to close (e.g. the session does not exist).
    pub recoverable: bool,
    /// The learner message refused, when the error refuses one (`BUSY`, `RATE_LIMITED`, sizes,
    /// a message that could not be stored): the page gives exactly that text back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_message_id: Option<String>,
}

impl ErrorPayload {
    /// An error about no message in particular.
    pub fn new(code: ErrorCode, message: impl Into<String>, recoverable: bool) -> Self {
        Self { code, message: message.into(), recoverable, client_message_id: None }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
/// Sent to a socket opened with `?since=` after the frames it missed: from here on the
/// stream is live. Like `session_started`, it tells the page which of its messages to send
/// again.
pub struct Resumed {
    /// How many frames were sent again before this one.
    pub replayed: u32,
    /// Active study time so far, for the timer.
    pub elapsed_ms: u64,
    /// The `clientMessageId` of the last learner message stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_client_message_id: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
/// The answer to `ping`.
pub struct Pong {
    /// Server time, milliseconds since the Unix epoch.
    pub timestamp: i64,
}

crate::named_enum! {
    /// Stable error codes carried by `error` frames.
    pub enum ErrorCode {
        /// The frame is not JSON.
        MalformedJson = "MALFORMED_JSON",
        /// The `type` is not one of `ClientMessageType`'s (retired types included).
        UnknownMessageType = "UNKNOWN_MESSAGE_TYPE",
        /// Missing or wrongly typed fields, or values out of range.
        InvalidPayload = "INVALID_PAYLOAD",
        /// The frame exceeds [`MAX_FRAME_BYTES`].
        FrameTooLarge = "FRAME_TOO_LARGE",
        /// A learner message exceeds [`MAX_MESSAGE_CHARS`].
        MessageTooLong = "MESSAGE_TOO_LONG",
        /// Too many messages too quickly; wait a moment.
        RateLimited = "RATE_LIMITED",
        /// Messages are queued faster than replies can be written.
        Busy = "BUSY",
        /// Not signed in.
        Unauthorized = "UNAUTHORIZED",
        /// No such session (or not the learner's own).
        SessionNotFound = "SESSION_NOT_FOUND",
        /// The session has ended; start a new one.
        SessionEnded = "SESSION_ENDED",
        /// The session was opened on another socket (another tab or device), which now has it;
        /// this socket closes with 4409.
        SessionTakenOver = "SESSION_TAKEN_OVER",
        /// Another Warren instance runs the session and has not handed it over in time; the
        /// socket closes with 1013 and the page tries again.
        SessionElsewhere = "SESSION_ELSEWHERE",
        /// The message does not fit the session's state (e.g. `exit_rabbithole` outside one).
        InvalidState = "INVALID_STATE",
        /// The language model failed or was cut off; the learner's message is kept.
        ProviderError = "PROVIDER_ERROR",
        /// Something went wrong on the server; nothing the learner wrote was lost.
        Internal = "INTERNAL",
        /// The database cannot be reached, so nothing can be saved: a message refused with it
        /// goes back into the box, and the session goes on by itself once the database is back
        /// (a socket closed with it, 1013, tries again).
        StorageUnavailable = "STORAGE_UNAVAILABLE",
    }
}

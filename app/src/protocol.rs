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
//! and chimes) and `recall_point_near_miss` where close → tutor reply streams as
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

/// Largest text frame the server reads, in bytes. Larger frames get `FRAME_TOO_LARGE`.
pub const MAX_FRAME_BYTES: usize = 16 * 1024;
/// Longest learner message, in characters (about three pages of prose).
pub const MAX_MESSAGE_CHARS: usize = 8_000;
/// Longest id or topic echoed back by the client, in characters.
pub const MAX_FIELD_CHARS: usize = 500;

// ---------------------------------------------------------------------------------------------
// Client → server
// ---------------------------------------------------------------------------------------------

/// Every frame the browser may send.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", rename_all_fields = "camelCase")]
pub enum ClientMessage {
    /// A learner's answer or question. `clientMessageId` (optional) makes resending after a
    /// dropped connection safe: the server stores a given id once.
    UserMessage {
        /// The learner's words (Markdown; at most [`MAX_MESSAGE_CHARS`] characters).
        content: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// Chosen by the client, unique per message.
        client_message_id: Option<String>,
    },
    /// Leave the session: paused if points remain, completed if not. No confirmation.
    LeaveSession,
    /// Accept a detected rabbit hole; both fields are echoed from `rabbithole_detected`.
    EnterRabbithole {
        /// Echoed from `rabbithole_detected`.
        rabbithole_event_id: String,
        /// Echoed from `rabbithole_detected` (the server uses the topic it stored).
        topic: String,
    },
    /// Return from the rabbit hole to the recall session.
    ExitRabbithole,
    /// Decline a detected rabbit hole ("Stay on track").
    DeclineRabbithole,
    /// Dismiss the completion overlay and keep talking.
    DismissOverlay,
    /// Keeps the connection alive; answered with `pong`.
    Ping,
}

/// The `type` of every [`ClientMessage`], in declaration order.
pub const CLIENT_MESSAGE_TYPES: [&str; 7] = [
    "user_message",
    "leave_session",
    "enter_rabbithole",
    "exit_rabbithole",
    "decline_rabbithole",
    "dismiss_overlay",
    "ping",
];

impl ClientMessage {
    /// The wire name of this message's `type`.
    pub fn type_name(&self) -> &'static str {
        match self {
            ClientMessage::UserMessage { .. } => "user_message",
            ClientMessage::LeaveSession => "leave_session",
            ClientMessage::EnterRabbithole { .. } => "enter_rabbithole",
            ClientMessage::ExitRabbithole => "exit_rabbithole",
            ClientMessage::DeclineRabbithole => "decline_rabbithole",
            ClientMessage::DismissOverlay => "dismiss_overlay",
            ClientMessage::Ping => "ping",
        }
    }
}

impl ClientMessage {
    /// The page's id for a learner message (what a refusal of it names); other messages
    /// have none.
    pub fn client_message_id(&self) -> Option<&str> {
        match self {
            ClientMessage::UserMessage { client_message_id, .. } => client_message_id.as_deref(),
            ClientMessage::LeaveSession
            | ClientMessage::EnterRabbithole { .. }
            | ClientMessage::ExitRabbithole
            | ClientMessage::DeclineRabbithole
            | ClientMessage::DismissOverlay
            | ClientMessage::Ping => None,
        }
    }
}

/// Parses and validates one text frame. A frame that fails gets an `error` frame with the
/// returned code; the session is left as it was and the socket stays open.
pub fn parse_client_message(frame: &str) -> Result<ClientMessage, ProtocolError> {
    if frame.len() > MAX_FRAME_BYTES {
        return Err(ProtocolError::new(
            ErrorCode::FrameTooLarge,
            format!("frames are limited to {MAX_FRAME_BYTES} bytes; this one has {}", frame.len()),
        ));
    }
    let value: serde_json::Value = serde_json::from_str(frame)
        .map_err(|e| ProtocolError::new(ErrorCode::MalformedJson, format!("not valid JSON: {e}")))?;
    let Some(object) = value.as_object() else {
        return Err(ProtocolError::new(ErrorCode::InvalidPayload, "a frame must be a JSON object"));
    };
    let kind = match object.get("type") {
        Some(serde_json::Value::String(kind)) => kind.as_str(),
        Some(_) => return Err(ProtocolError::new(ErrorCode::InvalidPayload, "`type` must be a string")),
        None => return Err(ProtocolError::new(ErrorCode::InvalidPayload, "missing `type`")),
    };
    let Some(kind) = CLIENT_MESSAGE_TYPES.iter().find(|known| **known == kind) else {
        let shown: String = kind.chars().take(40).collect();
        return Err(ProtocolError::new(
            ErrorCode::UnknownMessageType,
            format!("unknown message type '{shown}'"),
        ));
    };
    let message: ClientMessage = serde_json::from_value(value)
        .map_err(|e| ProtocolError::new(ErrorCode::InvalidPayload, format!("invalid {kind}: {e}")))?;
    let message = cleaned(message);
    validate(&message)?;
    Ok(message)
}

/// The message with control characters taken out of what the learner wrote (see
/// [`crate::clean`]): a NUL cannot be stored, and no one types one.
fn cleaned(message: ClientMessage) -> ClientMessage {
    match message {
        ClientMessage::UserMessage { content, client_message_id } => ClientMessage::UserMessage {
            content: crate::clean::text(&content).into_owned(),
            client_message_id,
        },
        ClientMessage::EnterRabbithole { rabbithole_event_id, topic } => ClientMessage::EnterRabbithole {
            rabbithole_event_id,
            topic: crate::clean::line(&topic).into_owned(),
        },
        other @ (ClientMessage::LeaveSession
        | ClientMessage::ExitRabbithole
        | ClientMessage::DeclineRabbithole
        | ClientMessage::DismissOverlay
        | ClientMessage::Ping) => other,
    }
}

fn validate(message: &ClientMessage) -> Result<(), ProtocolError> {
    let invalid = |text: String| Err(ProtocolError::new(ErrorCode::InvalidPayload, text));
    match message {
        ClientMessage::UserMessage { content, client_message_id } => {
            if content.trim().is_empty() {
                return invalid("the message is empty".into());
            }
            let chars = content.chars().count();
            if chars > MAX_MESSAGE_CHARS {
                return Err(ProtocolError::new(
                    ErrorCode::MessageTooLong,
                    format!("messages are limited to {MAX_MESSAGE_CHARS} characters; this one has {chars}"),
                ));
            }
            if let Some(id) = client_message_id
                && (id.is_empty() || id.chars().count() > 100)
            {
                return invalid("clientMessageId must have 1 to 100 characters".into());
            }
            Ok(())
        }
        ClientMessage::EnterRabbithole { rabbithole_event_id, topic } => {
            if rabbithole_event_id.is_empty() || topic.trim().is_empty() {
                return invalid("rabbitholeEventId and topic must not be empty".into());
            }
            if rabbithole_event_id.chars().count() > MAX_FIELD_CHARS
                || topic.chars().count() > MAX_FIELD_CHARS
            {
                return invalid(format!(
                    "rabbitholeEventId and topic are limited to {MAX_FIELD_CHARS} characters"
                ));
            }
            Ok(())
        }
        ClientMessage::LeaveSession
        | ClientMessage::ExitRabbithole
        | ClientMessage::DeclineRabbithole
        | ClientMessage::DismissOverlay
        | ClientMessage::Ping => Ok(()),
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
/// Why a frame was refused, with the code the `error` frame carries.
pub struct ProtocolError {
    /// The stable code.
    pub code: ErrorCode,
    /// What went wrong, for a person.
    pub message: String,
}

impl ProtocolError {
    /// A refusal with its code and explanation.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into() }
    }
}

// ---------------------------------------------------------------------------------------------
// Server → client
// ---------------------------------------------------------------------------------------------

/// Every frame the server sends. Serialised with its `type` first; read back by
/// [`ServerMessage`]'s own `Deserialize`, which relies on that (see there).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    /// The view's whole state, sent first on every attach.
    SessionStarted(Box<SessionStarted>),
    /// A piece of the reply being streamed.
    AssistantChunk(AssistantChunk),
    /// The reply is finished (and stored).
    AssistantComplete(AssistantComplete),
    /// A point was checked off.
    RecallPointRecalled(RecallPointRecalled),
    /// The learner was close to a point: feedback to show.
    RecallPointNearMiss(RecallPointNearMiss),
    /// A tangent worth offering as a rabbit hole.
    RabbitholeDetected(RabbitholeDetected),
    /// The learner chose to explore.
    RabbitholeEntered(RabbitholeEntered),
    /// Back from the rabbit hole.
    RabbitholeExited(RabbitholeExited),
    /// Every point is recalled: "You've covered everything".
    SessionCompleteOverlay(SessionCompleteOverlay),
    /// The learner left with points to go.
    SessionPaused(SessionPaused),
    /// An image to show beside the exchange.
    ShowImage(ShowImage),
    /// A text excerpt to show beside the exchange.
    ShowResource(ShowResource),
    /// The learner left a completed session.
    SessionComplete(SessionComplete),
    /// Something was refused or failed; see its code.
    Error(ErrorPayload),
    /// The answer to `ping`.
    Pong(Pong),
    /// A reconnecting socket was sent every frame it missed; the stream is live again.
    Resumed(Resumed),
}

crate::named_enum! {
    /// The `type` of every [`ServerMessage`] (each variant is the frame of the same name).
    #[allow(missing_docs)]
    pub enum FrameType {
        SessionStarted = "session_started", SessionPaused = "session_paused",
        SessionCompleteOverlay = "session_complete_overlay", SessionComplete = "session_complete",
        AssistantChunk = "assistant_chunk", AssistantComplete = "assistant_complete",
        RecallPointRecalled = "recall_point_recalled", RecallPointNearMiss = "recall_point_near_miss",
        RabbitholeDetected = "rabbithole_detected", RabbitholeEntered = "rabbithole_entered",
        RabbitholeExited = "rabbithole_exited",
        ShowImage = "show_image", ShowResource = "show_resource",
        Error = "error", Pong = "pong", Resumed = "resumed",
    }
}

impl ServerMessage {
    /// The wire name of this frame's `type`.
    pub fn frame_type(&self) -> FrameType {
        match self {
            ServerMessage::SessionStarted(_) => FrameType::SessionStarted,
            ServerMessage::AssistantChunk(_) => FrameType::AssistantChunk,
            ServerMessage::AssistantComplete(_) => FrameType::AssistantComplete,
            ServerMessage::RecallPointRecalled(_) => FrameType::RecallPointRecalled,
            ServerMessage::RecallPointNearMiss(_) => FrameType::RecallPointNearMiss,
            ServerMessage::RabbitholeDetected(_) => FrameType::RabbitholeDetected,
            ServerMessage::RabbitholeEntered(_) => FrameType::RabbitholeEntered,
            ServerMessage::RabbitholeExited(_) => FrameType::RabbitholeExited,
            ServerMessage::SessionCompleteOverlay(_) => FrameType::SessionCompleteOverlay,
            ServerMessage::SessionPaused(_) => FrameType::SessionPaused,
            ServerMessage::ShowImage(_) => FrameType::ShowImage,
            ServerMessage::ShowResource(_) => FrameType::ShowResource,
            ServerMessage::SessionComplete(_) => FrameType::SessionComplete,
            ServerMessage::Error(_) => FrameType::Error,
            ServerMessage::Pong(_) => FrameType::Pong,
            ServerMessage::Resumed(_) => FrameType::Resumed,
        }
    }
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

impl<'de> Deserialize<'de> for ServerMessage {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        ServerFrame::deserialize(deserializer).map(|frame| frame.message)
    }
}

/// Reads a frame whose first field is `type` and hands the rest of the object straight to
/// the payload's own `Deserialize` (taking `seq` out on the way, wherever it stands). Serde's
/// derive for internally tagged enums would buffer every frame into an intermediate tree
/// first, which costs the browser a sizeable share of its WebAssembly; the server always
/// writes `type` first, so nothing needs buffering.
impl<'de> Deserialize<'de> for ServerFrame {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(FrameVisitor)
    }
}

struct FrameVisitor;

impl<'de> serde::de::Visitor<'de> for FrameVisitor {
    type Value = ServerFrame;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a frame: an object whose first field is `type`")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<ServerFrame, A::Error> {
        use serde::de::Error;
        if map.next_key::<String>()?.as_deref() != Some("type") {
            return Err(A::Error::custom("the first field of a frame must be `type`"));
        }
        let kind: FrameType = map.next_value()?;
        let mut seq = None;
        // A pong's `timestamp` is its payload.
        let mut timestamp = None;
        let stamp = (kind != FrameType::Pong).then_some(&mut timestamp);
        let rest =
            serde::de::value::MapAccessDeserializer::new(TakeSeq { map, seq: &mut seq, timestamp: stamp });
        let message = match kind {
            FrameType::SessionStarted => ServerMessage::SessionStarted(Deserialize::deserialize(rest)?),
            FrameType::AssistantChunk => ServerMessage::AssistantChunk(Deserialize::deserialize(rest)?),
            FrameType::AssistantComplete => ServerMessage::AssistantComplete(Deserialize::deserialize(rest)?),
            FrameType::RecallPointRecalled => {
                ServerMessage::RecallPointRecalled(Deserialize::deserialize(rest)?)
            }
            FrameType::RecallPointNearMiss => {
                ServerMessage::RecallPointNearMiss(Deserialize::deserialize(rest)?)
            }
            FrameType::RabbitholeDetected => {
                ServerMessage::RabbitholeDetected(Deserialize::deserialize(rest)?)
            }
            FrameType::RabbitholeEntered => ServerMessage::RabbitholeEntered(Deserialize::deserialize(rest)?),
            FrameType::RabbitholeExited => ServerMessage::RabbitholeExited(Deserialize::deserialize(rest)?),
            FrameType::SessionCompleteOverlay => {
                ServerMessage::SessionCompleteOverlay(Deserialize::deserialize(rest)?)
            }
            FrameType::SessionPaused => ServerMessage::SessionPaused(Deserialize::deserialize(rest)?),
            FrameType::ShowImage => ServerMessage::ShowImage(Deserialize::deserialize(rest)?),
            FrameType::ShowResource => ServerMessage::ShowResource(Deserialize::deserialize(rest)?),
            FrameType::SessionComplete => ServerMessage::SessionComplete(Deserialize::deserialize(rest)?),
            FrameType::Error => ServerMessage::Error(Deserialize::deserialize(rest)?),
            FrameType::Pong => ServerMessage::Pong(Deserialize::deserialize(rest)?),
            FrameType::Resumed => ServerMessage::Resumed(Deserialize::deserialize(rest)?),
        };
        Ok(ServerFrame { message, seq, timestamp })
    }
}

/// The rest of a frame's fields, with `seq` taken out for the frame and every other field
/// passed on to the payload; the same for the envelope's `timestamp` when the frame's
/// payload has none of its own.
struct TakeSeq<'s, A> {
    map: A,
    seq: &'s mut Option<u64>,
    timestamp: Option<&'s mut Option<i64>>,
}

impl<'de, A: serde::de::MapAccess<'de>> serde::de::MapAccess<'de> for TakeSeq<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        use serde::de::IntoDeserializer;
        while let Some(key) = self.map.next_key::<String>()? {
            if key == "seq" {
                *self.seq = self.map.next_value()?;
                continue;
            }
            if key == "timestamp"
                && let Some(timestamp) = self.timestamp.as_deref_mut()
            {
                *timestamp = self.map.next_value()?;
                continue;
            }
            return seed.deserialize(key.into_deserializer()).map(Some);
        }
        Ok(None)
    }

    fn next_value_seed<V: serde::de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
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
/// The learner was close to a point.
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
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
/// Shown when every point is recalled.
pub struct SessionCompleteOverlay {
    /// The heading ("You've covered everything.").
    pub message: String,
    /// Points recalled.
    pub recalled_count: u32,
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

/// The `clientMessageId` of a frame that could not be taken, if it names one, so the refusal
/// can name it too. Best effort: a frame that is not a JSON object names none.
pub fn client_message_id_in(frame: &str) -> Option<String> {
    // Read as `parse_client_message` reads it (the last of repeated keys counts), so a
    // refusal names the very message the frame would have been.
    let value: serde_json::Value = serde_json::from_str(frame).ok()?;
    let id = value.get("clientMessageId")?.as_str()?;
    (!id.is_empty() && id.chars().count() <= 100).then(|| id.to_string())
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
        /// The `type` is not one of [`CLIENT_MESSAGE_TYPES`] (retired types included).
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
    }
}

// ---------------------------------------------------------------------------------------------
// Shared state types
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Engine events
// ---------------------------------------------------------------------------------------------

/// Everything the session engine reports. The socket turns these into [`ServerMessage`]s with
/// [`SessionEvent::into_server_message`]; other listeners (metrics, logs) may use them too.
#[derive(Clone, Debug, PartialEq)]
pub enum SessionEvent {
    // Session lifecycle
    /// A socket attached.
    SessionStarted(Box<SessionStarted>),
    /// Left with points to go.
    SessionPaused(SessionPaused),
    /// Every point recalled (deferred while in a rabbit hole).
    SessionCompleteOverlay(SessionCompleteOverlay),
    /// Left a completed session.
    SessionCompleted(SessionCompletionSummary),
    // Recall points
    /// A point checked off.
    RecallPointRecalled(RecallPointRecalled),
    /// The learner was close to a point.
    RecallPointNearMiss(RecallPointNearMiss),
    // Rabbit holes
    /// A tangent offered.
    RabbitholeDetected(RabbitholeDetected),
    /// A rabbit hole entered.
    RabbitholeEntered(RabbitholeEntered),
    /// Back from a rabbit hole.
    RabbitholeExited(RabbitholeExited),
    /// An offer declined (the cooldown starts).
    RabbitholeDeclined {
        /// The declined offer.
        rabbithole_event_id: String,
        /// What it was about.
        topic: String,
    },
    // Resources
    /// An image shown.
    ShowImage(ShowImage),
    /// An excerpt shown.
    ShowResource(ShowResource),
    // Messages
    /// A learner message, stored.
    UserMessage {
        /// The learner's words.
        content: String,
    },
    /// A reply, stored.
    AssistantMessage {
        /// The reply.
        content: String,
        /// The reply's tokens as the provider counted them, when it reports usage (the
        /// offline provider does not).
        token_count: Option<u64>,
        /// The input tokens of the request that made it (the system prompt, the conversation
        /// and the learner's last message), when reported. T13's `user_message.tokenCount`
        /// is not carried: a provider counts the learner's message only inside this input.
        input_token_count: Option<u64>,
    },
    /// The first piece of a reply is on its way.
    AssistantStreamingStart,
    /// A reply finished streaming.
    AssistantStreamingEnd {
        /// The whole reply.
        full_content: String,
        /// How many pieces carried it.
        total_chunks: u32,
    },
}

impl SessionEvent {
    /// The frame a learner's socket receives for this event, if any. Streamed text itself
    /// travels as `assistant_chunk`, outside the event catalogue.
    pub fn into_server_message(self) -> Option<ServerMessage> {
        match self {
            SessionEvent::SessionStarted(p) => Some(ServerMessage::SessionStarted(p)),
            SessionEvent::SessionPaused(p) => Some(ServerMessage::SessionPaused(p)),
            SessionEvent::SessionCompleteOverlay(p) => Some(ServerMessage::SessionCompleteOverlay(p)),
            SessionEvent::SessionCompleted(summary) => {
                Some(ServerMessage::SessionComplete(SessionComplete { summary }))
            }
            SessionEvent::RecallPointRecalled(p) => Some(ServerMessage::RecallPointRecalled(p)),
            SessionEvent::RecallPointNearMiss(p) => Some(ServerMessage::RecallPointNearMiss(p)),
            SessionEvent::RabbitholeDetected(p) => Some(ServerMessage::RabbitholeDetected(p)),
            SessionEvent::RabbitholeEntered(p) => Some(ServerMessage::RabbitholeEntered(p)),
            SessionEvent::RabbitholeExited(p) => Some(ServerMessage::RabbitholeExited(p)),
            // The client already hid its prompt; the engine only starts its cooldown.
            SessionEvent::RabbitholeDeclined { .. } => None,
            SessionEvent::ShowImage(p) => Some(ServerMessage::ShowImage(p)),
            SessionEvent::ShowResource(p) => Some(ServerMessage::ShowResource(p)),
            // The learner's own text is already on their screen.
            SessionEvent::UserMessage { .. } => None,
            // Delivered as the streamed chunks and `assistant_complete`.
            SessionEvent::AssistantMessage { .. } => None,
            // The first `assistant_chunk` signals the start.
            SessionEvent::AssistantStreamingStart => None,
            SessionEvent::AssistantStreamingEnd { full_content, total_chunks } => {
                Some(ServerMessage::AssistantComplete(AssistantComplete { full_content, total_chunks }))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_of_each_client_message() -> Vec<ClientMessage> {
        vec![
            ClientMessage::UserMessage { content: "x".into(), client_message_id: None },
            ClientMessage::LeaveSession,
            ClientMessage::EnterRabbithole { rabbithole_event_id: "r".into(), topic: "t".into() },
            ClientMessage::ExitRabbithole,
            ClientMessage::DeclineRabbithole,
            ClientMessage::DismissOverlay,
            ClientMessage::Ping,
        ]
    }

    #[test]
    fn every_client_message_round_trips_under_its_listed_type() {
        let all = one_of_each_client_message();
        assert_eq!(all.len(), CLIENT_MESSAGE_TYPES.len());
        for (message, expected) in all.iter().zip(CLIENT_MESSAGE_TYPES) {
            let json = serde_json::to_string(message).unwrap();
            let value: serde_json::Value = serde_json::from_str(&json).unwrap();
            assert_eq!(value["type"], expected);
            assert_eq!(message.type_name(), expected);
            assert_eq!(&parse_client_message(&json).unwrap(), message);
        }
    }

    #[test]
    fn wire_names_are_snake_case_types_and_camel_case_fields() {
        let m =
            parse_client_message(r#"{"type":"enter_rabbithole","rabbitholeEventId":"e1","topic":"tides"}"#)
                .unwrap();
        assert_eq!(
            m,
            ClientMessage::EnterRabbithole { rabbithole_event_id: "e1".into(), topic: "tides".into() }
        );

        let s = ServerMessage::RabbitholeExited(RabbitholeExited {
            label: "Tides".into(),
            points_recalled_during: 2,
            completion_pending: true,
        });
        assert_eq!(
            serde_json::to_value(&s).unwrap(),
            serde_json::json!({"type":"rabbithole_exited","label":"Tides","pointsRecalledDuring":2,"completionPending":true})
        );
        let e = ServerMessage::Error(ErrorPayload::new(ErrorCode::UnknownMessageType, "m", true));
        assert_eq!(serde_json::to_value(&e).unwrap()["code"], "UNKNOWN_MESSAGE_TYPE");
        assert!(serde_json::to_value(&e).unwrap().get("clientMessageId").is_none());
        let refused = ServerMessage::Error(ErrorPayload {
            client_message_id: Some("c-1".into()),
            ..ErrorPayload::new(ErrorCode::Busy, "m", true)
        });
        assert_eq!(serde_json::to_value(&refused).unwrap()["clientMessageId"], "c-1");
        let big = format!(
            r#"{{"type":"user_message","content":"{}","clientMessageId":"c-2"}}"#,
            "a".repeat(20_000)
        );
        assert_eq!(client_message_id_in(&big).as_deref(), Some("c-2"));
        assert_eq!(client_message_id_in("{not json"), None);
        assert_eq!(client_message_id_in(r#"{"clientMessageId":""}"#), None);
    }

    #[test]
    fn bad_frames_get_their_codes() {
        let code = |frame: &str| parse_client_message(frame).unwrap_err().code;
        assert_eq!(code("{not json"), ErrorCode::MalformedJson);
        assert_eq!(code("[1,2]"), ErrorCode::InvalidPayload);
        assert_eq!(code(r#"{"content":"hi"}"#), ErrorCode::InvalidPayload);
        assert_eq!(code(r#"{"type":5}"#), ErrorCode::InvalidPayload);
        assert_eq!(code(r#"{"type":"trigger_eval"}"#), ErrorCode::UnknownMessageType);
        assert_eq!(code(r#"{"type":"end_session"}"#), ErrorCode::UnknownMessageType);
        assert_eq!(code(r#"{"type":"user_message"}"#), ErrorCode::InvalidPayload);
        assert_eq!(code(r#"{"type":"user_message","content":42}"#), ErrorCode::InvalidPayload);
        assert_eq!(code(r#"{"type":"user_message","content":"   "}"#), ErrorCode::InvalidPayload);
        assert_eq!(code(r#"{"type":"enter_rabbithole","topic":"x"}"#), ErrorCode::InvalidPayload);
        assert_eq!(
            code(r#"{"type":"enter_rabbithole","rabbitholeEventId":1,"topic":"x"}"#),
            ErrorCode::InvalidPayload
        );
        let long = format!(r#"{{"type":"user_message","content":"{}"}}"#, "é".repeat(MAX_MESSAGE_CHARS + 1));
        assert_eq!(code(&long), ErrorCode::MessageTooLong);
        let huge = format!(r#"{{"type":"user_message","content":"{}"}}"#, "a".repeat(MAX_FRAME_BYTES));
        assert_eq!(code(&huge), ErrorCode::FrameTooLarge);
    }

    fn one_of_each_server_message() -> Vec<ServerMessage> {
        let hole = RabbitholeEntered {
            rabbithole_event_id: "r".into(),
            topic: "tides".into(),
            label: "Tides".into(),
        };
        vec![
            ServerMessage::SessionStarted(Box::new(SessionStarted {
                session_id: "s".into(),
                recall_set_name: "Set".into(),
                opening_message: "Hello".into(),
                total_points: 3,
                recalled_count: 1,
                status: SessionStatus::InProgress,
                provider: ProviderInfo {
                    kind: ProviderKind::Offline,
                    model: "m".into(),
                    offline: true,
                    label: "l".into(),
                },
                mode: SessionMode::Rabbithole,
                rabbithole: Some(hole.clone()),
                rabbithole_labels: vec!["Tides".into()],
                pending_rabbithole: None,
                overlay: None,
                elapsed_ms: 5,
                streaming_reply: Some("par".into()),
                last_client_message_id: Some("c-1".into()),
                images: vec![ShowImage {
                    resource_id: "r1".into(),
                    url: "/media/r1".into(),
                    caption: Some("Diagram".into()),
                    mime_type: Some("image/png".into()),
                }],
                resources: vec![],
            })),
            ServerMessage::AssistantChunk(AssistantChunk { content: "Wh".into() }),
            ServerMessage::AssistantComplete(AssistantComplete {
                full_content: "What?".into(),
                total_chunks: 2,
            }),
            ServerMessage::RecallPointRecalled(RecallPointRecalled {
                point_id: "p".into(),
                point_index: 0,
                recalled_count: 1,
                total_points: 3,
            }),
            ServerMessage::RecallPointNearMiss(RecallPointNearMiss {
                point_id: "p".into(),
                feedback: "close".into(),
            }),
            ServerMessage::RabbitholeDetected(RabbitholeDetected {
                rabbithole_event_id: "r".into(),
                topic: "tides".into(),
                label: "Tides".into(),
                trigger_message_content: "Why do the tides rise?".into(),
            }),
            ServerMessage::RabbitholeEntered(hole),
            ServerMessage::RabbitholeExited(RabbitholeExited {
                label: "Tides".into(),
                points_recalled_during: 1,
                completion_pending: false,
            }),
            ServerMessage::SessionCompleteOverlay(SessionCompleteOverlay {
                message: "done".into(),
                recalled_count: 3,
                total_points: 3,
                duration_ms: 9,
            }),
            ServerMessage::SessionPaused(SessionPaused {
                session_id: "s".into(),
                recalled_count: 1,
                total_points: 3,
            }),
            ServerMessage::ShowImage(ShowImage {
                resource_id: "i".into(),
                url: "/demo/cell.svg".into(),
                caption: Some("A cell".into()),
                mime_type: None,
            }),
            ServerMessage::ShowResource(ShowResource {
                resource_id: "t".into(),
                title: "T".into(),
                snippet: "x".into(),
            }),
            ServerMessage::SessionComplete(SessionComplete {
                summary: SessionCompletionSummary {
                    session_id: "s".into(),
                    recalled_count: 3,
                    total_points: 3,
                    duration_ms: 9,
                    rabbithole_count: 1,
                    recalled_point_ids: vec!["p".into()],
                },
            }),
            ServerMessage::Error(ErrorPayload {
                client_message_id: Some("c".into()),
                ..ErrorPayload::new(ErrorCode::Busy, "m", true)
            }),
            ServerMessage::Pong(Pong { timestamp: 7 }),
            ServerMessage::Resumed(Resumed {
                replayed: 2,
                elapsed_ms: 9,
                last_client_message_id: Some("c".into()),
            }),
        ]
    }

    #[test]
    fn every_server_message_round_trips_with_its_type_first() {
        let all = one_of_each_server_message();
        assert_eq!(all.len(), FrameType::ALL.len());
        for message in all {
            let json = serde_json::to_string(&message).unwrap();
            let expected = format!("{{\"type\":\"{}\"", message.frame_type());
            assert!(json.starts_with(&expected), "{json}");
            assert_eq!(serde_json::from_str::<ServerMessage>(&json).unwrap(), message, "{json}");
        }
    }

    #[test]
    fn a_refusal_names_the_message_the_frame_would_have_been() {
        // Found by fuzzing: with the key repeated, the refusal used to name nothing.
        let frame = r#"{"type":"user_message","content":"x","clientMessageId":"a","clientMessageId":"b"}"#;
        let Ok(ClientMessage::UserMessage { client_message_id, .. }) = parse_client_message(frame) else {
            panic!("a valid frame")
        };
        assert_eq!(client_message_id.as_deref(), Some("b"));
        assert_eq!(client_message_id_in(frame).as_deref(), Some("b"));
        assert_eq!(client_message_id_in(r#"{"clientMessageId":7}"#), None);
        assert_eq!(client_message_id_in("[]"), None);
    }

    #[test]
    fn every_frame_carries_its_number_wherever_it_stands() {
        for message in one_of_each_server_message() {
            let timestamp = (message.frame_type() != FrameType::Pong).then_some(1_764_000_000_000);
            let frame = ServerFrame { message: message.clone(), seq: Some(1_700_000_000_000_042), timestamp };
            let json = serde_json::to_string(&frame).unwrap();
            assert!(json.starts_with(&format!("{{\"type\":\"{}\"", message.frame_type())), "{json}");
            assert_eq!(serde_json::from_str::<ServerFrame>(&json).unwrap(), frame, "{json}");
            assert_eq!(serde_json::from_str::<ServerMessage>(&json).unwrap(), message, "{json}");
            let unnumbered =
                serde_json::to_string(&ServerFrame { message: message.clone(), seq: None, timestamp: None })
                    .unwrap();
            assert!(!unnumbered.contains("\"seq\""), "{unnumbered}");
            assert_eq!(serde_json::from_str::<ServerFrame>(&unnumbered).unwrap().seq, None);
        }
        let early = r#"{"type":"pong","seq":5,"timestamp":1}"#;
        let frame = serde_json::from_str::<ServerFrame>(early).unwrap();
        assert_eq!((frame.seq, frame.message), (Some(5), ServerMessage::Pong(Pong { timestamp: 1 })));
    }

    #[test]
    fn frames_not_led_by_their_type_are_refused() {
        let read = |json: &str| serde_json::from_str::<ServerMessage>(json).unwrap_err().to_string();
        assert!(read(r#"{"timestamp":1,"type":"pong"}"#).contains("first field"));
        assert!(read(r#"{"type":"tea","timestamp":1}"#).contains("not a known FrameType"));
        assert!(read(r#"{"type":"pong"}"#).contains("timestamp"));
        assert!(read("[1]").contains("frame"));
    }

    #[test]
    fn every_event_maps_to_the_expected_frame() {
        let frame = |e: SessionEvent| {
            e.into_server_message().map(|m| serde_json::to_value(m).unwrap()["type"].clone())
        };
        assert_eq!(frame(SessionEvent::AssistantStreamingStart), None);
        assert_eq!(
            frame(SessionEvent::AssistantStreamingEnd { full_content: "a".into(), total_chunks: 1 }),
            Some("assistant_complete".into())
        );
        assert_eq!(
            frame(SessionEvent::SessionCompleted(SessionCompletionSummary {
                session_id: "s".into(),
                recalled_count: 1,
                total_points: 1,
                duration_ms: 5,
                rabbithole_count: 0,
                recalled_point_ids: vec!["p".into()],
            })),
            Some("session_complete".into())
        );
        assert_eq!(frame(SessionEvent::UserMessage { content: "x".into() }), None);
    }
}

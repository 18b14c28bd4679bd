//! Client → server: every frame the browser may send, and how one is read and refused.

use serde::{Deserialize, Serialize};

use super::{ErrorCode, InputVia, MAX_FIELD_CHARS, MAX_FRAME_BYTES, MAX_MESSAGE_CHARS};

/// Declares [`ClientMessage`] and [`ClientMessageType`] from one list, so each message's wire
/// name is written once.
macro_rules! client_messages {
    ($( $(#[$doc:meta])* $variant:ident $({ $($fields:tt)* })? = $name:literal, )+) => {
        /// Every frame the browser may send.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "type", rename_all_fields = "camelCase")]
        pub enum ClientMessage {
            $( $(#[$doc])* #[serde(rename = $name)] $variant $({ $($fields)* })?, )+
        }

        crate::named_enum! {
            /// The `type` of every [`ClientMessage`] (each variant is the message of the same name).
            pub enum ClientMessageType {
                $( $(#[$doc])* $variant = $name, )+
            }
        }

        impl ClientMessage {
            /// This message's `type`.
            pub fn kind(&self) -> ClientMessageType {
                match self {
                    $( ClientMessage::$variant { .. } => ClientMessageType::$variant, )+
                }
            }
        }
    };
}

client_messages! {
    /// A learner's answer or question. `clientMessageId` (optional) makes resending after a
    /// dropped connection safe: the server stores a given id once.
    UserMessage {
        /// The learner's words (Markdown; at most [`MAX_MESSAGE_CHARS`] characters).
        content: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// Chosen by the client, unique per message.
        client_message_id: Option<String>,
        /// How the words came: `voice` when (some of) they were spoken and transcribed;
        /// absent when typed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        via: Option<InputVia>,
    } = "user_message",
    /// Leave the session: paused if points remain, completed if not. No confirmation.
    LeaveSession = "leave_session",
    /// Accept a detected rabbit hole; both fields are echoed from `rabbithole_detected`.
    EnterRabbithole {
        /// Echoed from `rabbithole_detected`.
        rabbithole_event_id: String,
        /// Echoed from `rabbithole_detected` (the server uses the topic it stored).
        topic: String,
    } = "enter_rabbithole",
    /// Return from the rabbit hole to the recall session.
    ExitRabbithole = "exit_rabbithole",
    /// Decline a detected rabbit hole ("Stay on track").
    DeclineRabbithole = "decline_rabbithole",
    /// Dismiss the completion overlay and keep talking.
    DismissOverlay = "dismiss_overlay",
    /// Keeps the connection alive; answered with `pong`.
    Ping = "ping",
}

impl ClientMessage {
    /// The wire name of this message's `type`.
    pub fn type_name(&self) -> &'static str {
        self.kind().as_str()
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
    let Ok(kind) = kind.parse::<ClientMessageType>() else {
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
        ClientMessage::UserMessage { content, client_message_id, via } => ClientMessage::UserMessage {
            content: crate::clean::text(&content).into_owned(),
            client_message_id,
            via,
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
        ClientMessage::UserMessage { content, client_message_id, via: _ } => {
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
                && (id.is_empty() || id.chars().count() > crate::forms::limits::CLIENT_MESSAGE_ID)
            {
                return invalid(format!(
                    "clientMessageId must have 1 to {} characters",
                    crate::forms::limits::CLIENT_MESSAGE_ID
                ));
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

/// The `clientMessageId` of a frame that could not be taken, if it names one, so the refusal
/// can name it too. Best effort: a frame that is not a JSON object names none.
pub fn client_message_id_in(frame: &str) -> Option<String> {
    // Read as `parse_client_message` reads it (the last of repeated keys counts), so a
    // refusal names the very message the frame would have been.
    let value: serde_json::Value = serde_json::from_str(frame).ok()?;
    let id = value.get("clientMessageId")?.as_str()?;
    (!id.is_empty() && id.chars().count() <= 100).then(|| id.to_string())
}

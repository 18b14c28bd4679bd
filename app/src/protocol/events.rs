//! Engine events: everything the session engine reports, and the frame each becomes.

use super::{
    AssistantComplete, Notice, RabbitholeDetected, RabbitholeEntered, RabbitholeExited, RecallPointNearMiss,
    RecallPointRecalled, ServerMessage, SessionComplete, SessionCompleteOverlay, SessionCompletionSummary,
    SessionPaused, SessionStarted, ShowImage, ShowResource,
};

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
    /// The learner was told something about how the session goes on.
    Notice(Notice),
    /// A reply finished streaming.
    AssistantStreamingEnd {
        /// The whole reply.
        full_content: String,
        /// How many pieces carried it.
        total_chunks: u32,
        /// The reply as the page shows it (escaped HTML).
        html: String,
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
            SessionEvent::Notice(p) => Some(ServerMessage::Notice(p)),
            SessionEvent::AssistantStreamingEnd { full_content, total_chunks, html } => {
                Some(ServerMessage::AssistantComplete(AssistantComplete { full_content, total_chunks, html }))
            }
        }
    }
}

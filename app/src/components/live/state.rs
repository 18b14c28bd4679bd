//! The live view's state, driven by the frames both ways. Pure data: `apply` takes one server
//! frame (an exhaustive match over every `ServerMessage`) and returns what the page must do
//! besides redrawing (a chime, a resend, leaving, giving text back); `outgoing` takes each
//! client frame before it is sent (an exhaustive match over every `ClientMessage`). Frames in
//! an unexpected order never panic: each is applied to whatever state there is.
//!
//! Long by design: every frame's effect on the view, and its tests, in one place.

// The server renders the first state; frames arrive only in the browser.
#![cfg_attr(not(feature = "hydrate"), allow(dead_code))]

use crate::protocol::{
    ClientMessage, ErrorCode, ErrorPayload, InputVia, MAX_FRAME_BYTES, MAX_MESSAGE_CHARS, Notice,
    ProviderInfo, RabbitholeDetected, RabbitholeEntered, ServerMessage, SessionCompleteOverlay, SessionMode,
    SessionStatus, ShowImage, ShowResource,
};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Connection {
    Connecting,
    Open,
    /// Lost; trying again (attempt number).
    Reconnecting(u32),
    /// Will not reconnect (the session is gone or was never ours).
    Closed(String),
}

/// Something the page does besides redrawing.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// A point was checked off on screen: chime.
    Chime,
    /// Send these again (after a reconnect); the server stores each `clientMessageId` once.
    Resend(Vec<ClientMessage>),
    /// Play the recalls made inside a rabbit hole, one by one (call `tick` until it says done).
    PlayBuffered,
    /// The session ended (paused or completed): back to the dashboard.
    Leave,
    /// A message the server refused: back into the input box (after what is there), so
    /// nothing typed is lost.
    Restore(String),
}

/// A learner message not yet answered, kept so a dropped connection loses nothing.
#[derive(Clone, Debug, PartialEq)]
pub struct Outgoing {
    pub client_message_id: String,
    pub content: String,
    /// Spoken, when it was: a resend says so too.
    pub via: Option<InputVia>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct LiveState {
    pub connection: Option<Connection>,
    pub started: bool,
    pub status: Option<SessionStatus>,
    pub set_name: String,
    pub provider: Option<ProviderInfo>,
    /// The agent's current words, shown large.
    pub agent_text: String,
    /// Those words as the server wrote them in HTML; empty while they are still streaming
    /// (the page shows the plain text until then).
    pub agent_html: String,
    pub streaming: bool,
    /// A learner message is on its way and nothing has come back yet.
    pub waiting: bool,
    pub total: u32,
    /// Points recalled, as the server counts them.
    pub recalled: u32,
    /// Circles filled on screen (lags `recalled` while recalls play after a rabbit hole).
    pub shown: u32,
    /// The circle that just filled, for its animation.
    pub just_filled: Option<u32>,
    pub mode: Option<SessionMode>,
    pub rabbithole: Option<RabbitholeEntered>,
    pub prompt: Option<RabbitholeDetected>,
    pub labels: Vec<String>,
    /// The tutor's words from before the rabbit hole (text and HTML), shown again on return.
    tutor_text: (String, String),
    pub overlay: Option<SessionCompleteOverlay>,
    deferred_overlay: Option<SessionCompleteOverlay>,
    pub images: Vec<ShowImage>,
    pub resources: Vec<ShowResource>,
    /// How many of `resources` were on screen when the learner last answered: those fold
    /// away, so a note stands under the question it came with and not under later ones.
    pub notes_read: usize,
    pub near_miss: Option<String>,
    pub error: Option<ErrorPayload>,
    /// How the session goes on, when the server has said (the offline tutor standing in).
    pub notice: Option<Notice>,
    /// Study time at the last `session_started` or `resumed`.
    pub elapsed_ms: u64,
    pub outbox: Vec<Outgoing>,
    /// Replies finished (or refused) so far on this page: a turn has ended when this grows.
    pub turns: u32,
}

impl LiveState {
    /// What the page shows before the socket has said anything.
    pub fn from_card(card: &crate::api::SessionCard) -> Self {
        Self {
            connection: Some(Connection::Connecting),
            status: Some(card.status),
            set_name: card.set_name.clone(),
            total: card.total_points,
            recalled: card.recalled_count,
            shown: card.recalled_count,
            ..Self::default()
        }
    }

    pub fn in_rabbithole(&self) -> bool {
        self.mode == Some(SessionMode::Rabbithole)
    }

    /// Every point recalled and on screen, the overlay put away with Continue: the session
    /// goes on for as long as the learner keeps talking, and leaving completes it.
    pub fn past_everything(&self) -> bool {
        self.status == Some(SessionStatus::InProgress)
            && !self.in_rabbithole()
            && self.total > 0
            && self.shown >= self.total
            && self.overlay.is_none()
            && self.deferred_overlay.is_none()
    }

    /// Takes a frame the page is about to send. False when it must not go: a learner message
    /// that is too long (the reason is shown and the text stays in the box).
    pub fn outgoing(&mut self, message: &ClientMessage) -> bool {
        match message {
            ClientMessage::UserMessage { content, client_message_id, via } => {
                if let Some(problem) = too_long(content) {
                    self.error = Some(ErrorPayload::new(ErrorCode::MessageTooLong, problem, true));
                    return false;
                }
                // Carrying on without answering a rabbit-hole prompt declines it (the server agrees).
                self.prompt = None;
                self.error = None;
                self.near_miss = None;
                self.notes_read = self.resources.len();
                self.waiting = true;
                self.outbox.push(Outgoing {
                    client_message_id: client_message_id.clone().unwrap_or_default(),
                    content: content.clone(),
                    via: *via,
                });
            }
            ClientMessage::DeclineRabbithole => self.prompt = None,
            ClientMessage::DismissOverlay => self.overlay = None,
            // The server's answer changes the view.
            ClientMessage::LeaveSession
            | ClientMessage::EnterRabbithole { .. }
            | ClientMessage::ExitRabbithole
            | ClientMessage::Ping => {}
        }
        true
    }

    pub fn apply(&mut self, message: ServerMessage) -> Vec<Action> {
        let mut actions = Vec::new();
        match message {
            ServerMessage::SessionStarted(started) => {
                self.started = true;
                self.connection = Some(Connection::Open);
                self.status = Some(started.status);
                self.set_name = started.recall_set_name;
                self.provider = Some(started.provider);
                self.total = started.total_points;
                self.recalled = started.recalled_count;
                self.shown = started.recalled_count;
                self.just_filled = None;
                self.mode = Some(started.mode);
                self.rabbithole = started.rabbithole;
                self.prompt = started.pending_rabbithole;
                self.labels = started.rabbithole_labels;
                self.overlay = started.overlay;
                self.deferred_overlay = None;
                self.elapsed_ms = started.elapsed_ms;
                self.error = None;
                // What the session has shown stays shown across reloads and reconnects.
                self.images = started.images;
                self.resources = started.resources;
                self.notes_read = self.notes_read.min(self.resources.len());
                self.notice = started.notice;
                match started.streaming_reply {
                    Some(partial) => {
                        self.agent_text = partial;
                        self.agent_html.clear();
                        self.streaming = true;
                    }
                    None => {
                        // Empty: an opening or recap is about to stream.
                        self.streaming = false;
                        self.waiting = started.opening_message.is_empty();
                        self.agent_text = started.opening_message;
                        self.agent_html = started.opening_html;
                    }
                }
                self.resend_unstored(started.last_client_message_id.as_deref(), &mut actions);
            }
            ServerMessage::Resumed(resumed) => {
                // The frames missed were applied as they came; the view is whole again.
                self.connection = Some(Connection::Open);
                self.elapsed_ms = resumed.elapsed_ms;
                self.resend_unstored(resumed.last_client_message_id.as_deref(), &mut actions);
            }
            ServerMessage::AssistantChunk(chunk) => {
                if !self.streaming {
                    self.agent_text.clear();
                    self.agent_html.clear();
                    self.streaming = true;
                }
                self.waiting = false;
                self.agent_text.push_str(&chunk.content);
            }
            ServerMessage::AssistantComplete(done) => {
                self.agent_text = done.full_content;
                self.agent_html = done.html;
                self.streaming = false;
                self.waiting = false;
                self.answered();
                self.turns += 1;
            }
            ServerMessage::RecallPointRecalled(recalled) => {
                self.recalled = self.recalled.max(recalled.recalled_count);
                // Inside a rabbit hole progress is hidden: the recall plays on return.
                if !self.in_rabbithole() && self.shown < self.recalled {
                    self.shown = self.recalled;
                    self.just_filled = Some(self.shown - 1);
                    actions.push(Action::Chime);
                }
            }
            ServerMessage::RecallPointNearMiss(near) => self.near_miss = Some(near.feedback),
            ServerMessage::RabbitholeDetected(detected) => {
                if !self.in_rabbithole() {
                    self.prompt = Some(detected);
                }
            }
            ServerMessage::RabbitholeEntered(entered) => {
                if !self.in_rabbithole() {
                    self.tutor_text =
                        (std::mem::take(&mut self.agent_text), std::mem::take(&mut self.agent_html));
                }
                self.mode = Some(SessionMode::Rabbithole);
                self.rabbithole = Some(entered);
                self.prompt = None;
                // "Close" spoke of an answer to the tutor's question, which the hole puts aside.
                self.near_miss = None;
                self.streaming = false;
                self.waiting = true;
            }
            ServerMessage::RabbitholeExited(exited) => {
                let was_inside = self.in_rabbithole();
                self.mode = Some(SessionMode::Recall);
                self.rabbithole = None;
                self.labels.push(exited.label);
                let saved = std::mem::take(&mut self.tutor_text);
                if !exited.tutor_text.is_empty() {
                    (self.agent_text, self.agent_html) = (exited.tutor_text, exited.tutor_html);
                } else if was_inside {
                    (self.agent_text, self.agent_html) = saved;
                }
                self.streaming = false;
                self.waiting = false;
                if self.shown < self.recalled || self.deferred_overlay.is_some() {
                    actions.push(Action::PlayBuffered);
                }
            }
            ServerMessage::SessionCompleteOverlay(overlay) => {
                let overlay_message = overlay.message.clone();
                if self.in_rabbithole() || self.shown < self.recalled {
                    self.deferred_overlay = Some(overlay);
                } else {
                    self.overlay = Some(overlay);
                }
                // It answers the last recall, when one was waiting: its words take the place of
                // the question just answered (the server's opening says the same after a reload).
                if self.waiting {
                    self.answered();
                    self.agent_text = overlay_message;
                    self.agent_html.clear();
                }
                self.waiting = false;
                self.turns += 1;
            }
            ServerMessage::SessionPaused(_) => {
                self.status = Some(SessionStatus::Paused);
                actions.push(Action::Leave);
            }
            ServerMessage::ShowImage(image) => {
                if !self.images.iter().any(|i| i.resource_id == image.resource_id) {
                    self.images.push(image);
                }
            }
            ServerMessage::ShowResource(resource) => {
                if !self.resources.iter().any(|r| r.resource_id == resource.resource_id) {
                    self.resources.push(resource);
                }
            }
            ServerMessage::SessionComplete(_) => {
                self.status = Some(SessionStatus::Completed);
                self.overlay = None;
                actions.push(Action::Leave);
            }
            ServerMessage::Error(error) => {
                self.waiting = false;
                self.streaming = false;
                self.turns += 1;
                if let Some(id) = &error.client_message_id {
                    // That very message was refused: exactly its text goes back.
                    if let Some(at) = self.outbox.iter().position(|o| &o.client_message_id == id) {
                        actions.push(Action::Restore(self.outbox.remove(at).content));
                    }
                } else {
                    match error.code {
                        // The message is stored; only its reply failed: do not send it again.
                        ErrorCode::ProviderError => self.answered(),
                        // A refusal that names no message (from an older server): the latest.
                        ErrorCode::RateLimited
                        | ErrorCode::Busy
                        | ErrorCode::MessageTooLong
                        | ErrorCode::FrameTooLarge
                        | ErrorCode::InvalidPayload
                        | ErrorCode::MalformedJson => {
                            if let Some(refused) = self.outbox.pop() {
                                actions.push(Action::Restore(refused.content));
                            }
                        }
                        // About the session, not one message.
                        ErrorCode::UnknownMessageType
                        | ErrorCode::Unauthorized
                        | ErrorCode::SessionNotFound
                        | ErrorCode::SessionEnded
                        | ErrorCode::SessionTakenOver
                        | ErrorCode::SessionElsewhere
                        | ErrorCode::InvalidState
                        | ErrorCode::Internal
                        | ErrorCode::StorageUnavailable => {}
                    }
                }
                if !error.recoverable {
                    // The socket closes for good: every message not yet answered goes back.
                    self.connection = Some(Connection::Closed(error.message.clone()));
                    actions.extend(self.outbox.drain(..).map(|unsent| Action::Restore(unsent.content)));
                }
                self.error = Some(error);
            }
            ServerMessage::Pong(_) => {}
            ServerMessage::Notice(notice) => self.notice = Some(notice),
        }
        actions
    }

    /// The server has every message up to `stored` (its last stored); the rest go again (it
    /// would ignore an id it has, so a resend is always safe).
    fn resend_unstored(&mut self, stored: Option<&str>, actions: &mut Vec<Action>) {
        if let Some(stored) = stored
            && let Some(at) = self.outbox.iter().position(|o| o.client_message_id == stored)
        {
            self.outbox.drain(..=at);
        }
        if !self.outbox.is_empty() {
            self.waiting = true;
            actions.push(Action::Resend(
                self.outbox
                    .iter()
                    .map(|o| ClientMessage::UserMessage {
                        content: o.content.clone(),
                        client_message_id: Some(o.client_message_id.clone()),
                        via: o.via,
                    })
                    .collect(),
            ));
        }
    }

    /// The oldest unanswered message got its answer.
    fn answered(&mut self) {
        if !self.outbox.is_empty() {
            self.outbox.remove(0);
        }
    }

    /// One step of playing buffered recalls; true while there is more to play.
    pub fn tick(&mut self) -> (bool, Vec<Action>) {
        if self.shown < self.recalled {
            self.shown += 1;
            self.just_filled = Some(self.shown - 1);
            return (true, vec![Action::Chime]);
        }
        if let Some(overlay) = self.deferred_overlay.take() {
            self.overlay = Some(overlay);
        }
        (false, vec![])
    }
}

/// Why a learner message cannot be sent, if it cannot: the server would refuse it.
fn too_long(content: &str) -> Option<String> {
    let chars = content.chars().count();
    if chars > MAX_MESSAGE_CHARS {
        let parts = chars.div_ceil(MAX_MESSAGE_CHARS);
        let split =
            if parts == 2 { "Split it in two".to_string() } else { format!("Send it in {parts} parts") };
        return Some(format!("That is {chars} characters; a message can have {MAX_MESSAGE_CHARS}. {split}."));
    }
    let frame = serde_json::to_string(&ClientMessage::UserMessage {
        content: content.to_string(),
        client_message_id: Some("0".repeat(20)),
        via: Some(InputVia::Voice),
    })
    .map_or(usize::MAX, |f| f.len());
    (frame > MAX_FRAME_BYTES).then(|| "That message is too large to send; send it in parts.".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::*;

    fn say(s: &mut LiveState, id: &str, content: &str) -> bool {
        s.outgoing(&ClientMessage::UserMessage {
            content: content.into(),
            client_message_id: Some(id.into()),
            via: None,
        })
    }

    fn started(recalled: u32) -> ServerMessage {
        ServerMessage::SessionStarted(Box::new(SessionStarted {
            session_id: "s".into(),
            recall_set_name: "Set".into(),
            opening_message: "Hello".into(),
            opening_html: "<p>Hello</p>".into(),
            total_points: 3,
            recalled_count: recalled,
            status: SessionStatus::InProgress,
            provider: ProviderInfo {
                kind: ProviderKind::Offline,
                model: "m".into(),
                offline: true,
                label: "l".into(),
            },
            mode: SessionMode::Recall,
            rabbithole: None,
            rabbithole_labels: vec![],
            pending_rabbithole: None,
            overlay: None,
            elapsed_ms: 0,
            streaming_reply: None,
            last_client_message_id: None,
            images: vec![],
            resources: vec![],
            notice: None,
        }))
    }

    fn recalled(n: u32) -> ServerMessage {
        ServerMessage::RecallPointRecalled(RecallPointRecalled {
            point_id: format!("p{n}"),
            point_index: n - 1,
            recalled_count: n,
            total_points: 3,
        })
    }

    fn entered() -> ServerMessage {
        ServerMessage::RabbitholeEntered(RabbitholeEntered {
            rabbithole_event_id: "r".into(),
            topic: "tides".into(),
            label: "Tides".into(),
        })
    }

    fn exited(pending: bool) -> ServerMessage {
        ServerMessage::RabbitholeExited(RabbitholeExited {
            label: "Tides".into(),
            points_recalled_during: 1,
            completion_pending: pending,
            tutor_text: String::new(),
            tutor_html: String::new(),
        })
    }

    fn overlay() -> ServerMessage {
        ServerMessage::SessionCompleteOverlay(SessionCompleteOverlay {
            message: "done".into(),
            recalled_count: 3,
            given_answer: 0,
            after_hints: 0,
            total_points: 3,
            duration_ms: 1,
        })
    }

    #[test]
    fn streaming_replaces_the_agent_text_and_completes() {
        let mut s = LiveState::default();
        s.apply(started(0));
        say(&mut s, "c1", "hi");
        assert!(s.waiting);
        s.apply(ServerMessage::AssistantChunk(AssistantChunk { content: "Wh".into() }));
        s.apply(ServerMessage::AssistantChunk(AssistantChunk { content: "at?".into() }));
        assert_eq!((s.agent_text.as_str(), s.streaming, s.waiting), ("What?", true, false));
        s.apply(ServerMessage::AssistantComplete(AssistantComplete {
            full_content: "What?".into(),
            total_chunks: 2,
            html: "<p>What?</p>".into(),
        }));
        assert!(!s.streaming && s.outbox.is_empty());
    }

    #[test]
    fn the_overlay_answers_the_last_recall_in_place_of_the_question() {
        let mut s = LiveState::default();
        s.apply(started(2));
        assert!(say(&mut s, "c1", "the last one"));
        assert!(s.waiting);
        s.apply(recalled(3));
        s.apply(overlay());
        assert!(s.overlay.is_some() && !s.waiting);
        assert_eq!((s.agent_text.as_str(), s.agent_html.as_str()), ("done", ""), "not the question answered");
    }

    #[test]
    fn past_the_overlay_the_page_says_the_session_goes_on_until_left() {
        let mut s = LiveState::default();
        s.apply(started(2));
        assert!(!s.past_everything(), "a point is still open");
        assert!(say(&mut s, "c1", "the last one"));
        s.apply(recalled(3));
        s.apply(overlay());
        assert!(!s.past_everything(), "the overlay says it");
        assert!(s.outgoing(&ClientMessage::DismissOverlay));
        assert!(s.past_everything());
        // A page opened later, after Continue: the server sends no overlay.
        let mut later = LiveState::default();
        later.apply(started(3));
        assert!(later.past_everything());
    }

    #[test]
    fn recalls_inside_a_rabbit_hole_play_on_return_then_the_overlay() {
        let mut s = LiveState::default();
        s.apply(started(2));
        s.apply(entered());
        assert_eq!(s.apply(recalled(3)), vec![], "no chime inside");
        s.apply(overlay());
        assert!(s.overlay.is_none(), "the overlay waits for the exit");
        assert_eq!(s.apply(exited(true)), vec![Action::PlayBuffered]);
        assert_eq!(s.agent_text, "Hello", "the tutor's words are back");
        assert_eq!(s.tick(), (true, vec![Action::Chime]));
        assert_eq!(s.shown, 3);
        assert!(s.overlay.is_none());
        assert_eq!(s.tick(), (false, vec![]));
        assert!(s.overlay.is_some());
    }

    #[test]
    fn a_near_miss_does_not_follow_the_learner_into_a_rabbit_hole() {
        let mut s = LiveState::default();
        s.apply(started(0));
        assert!(say(&mut s, "c1", "ribosomes make proteins? wait, why do they need RNA?"));
        s.apply(ServerMessage::RecallPointNearMiss(RecallPointNearMiss {
            point_id: "p1".into(),
            feedback: "Close".into(),
        }));
        assert_eq!(s.near_miss.as_deref(), Some("Close"));
        s.apply(entered());
        assert_eq!(s.near_miss, None);
    }

    #[test]
    fn frames_out_of_order_do_not_break_anything() {
        let mut s = LiveState::default();
        // Before any session_started, and an exit before an entry.
        s.apply(exited(false));
        s.apply(recalled(1));
        s.apply(ServerMessage::AssistantComplete(AssistantComplete {
            full_content: "x".into(),
            total_chunks: 0,
            html: "<p>x</p>".into(),
        }));
        assert_eq!(s.mode, Some(SessionMode::Recall));
        s.apply(started(1));
        s.apply(entered());
        s.apply(entered());
        s.apply(exited(false));
        assert_eq!(s.agent_text, "Hello");
        // A recall reported twice counts once.
        s.apply(recalled(2));
        s.apply(recalled(2));
        assert_eq!((s.recalled, s.shown), (2, 2));
    }

    fn started_after(last: &str) -> ServerMessage {
        let ServerMessage::SessionStarted(mut s) = started(0) else { unreachable!() };
        s.last_client_message_id = Some(last.into());
        ServerMessage::SessionStarted(s)
    }

    #[test]
    fn only_messages_the_server_does_not_have_are_resent() {
        let mut s = LiveState::default();
        s.apply(started(0));
        say(&mut s, "c1", "first");
        say(&mut s, "c2", "second");
        let actions = s.apply(started_after("c1"));
        let Action::Resend(again) = &actions[0] else { panic!("{actions:?}") };
        assert_eq!(again.len(), 1);
        assert!(matches!(&again[0], ClientMessage::UserMessage { content, .. } if content == "second"));
        // Everything stored: nothing to resend, nothing to wait for.
        let mut s = LiveState::default();
        s.apply(started(0));
        say(&mut s, "c1", "first");
        assert!(s.apply(started_after("c1")).is_empty());
        assert!(s.outbox.is_empty());
    }

    #[test]
    fn a_notice_stays_on_screen_and_comes_back_with_the_state_or_goes_with_it() {
        let mut s = LiveState::default();
        s.apply(started(0));
        assert_eq!(s.notice, None);
        let notice = Notice {
            code: crate::protocol::NoticeCode::ModelAllowanceSpent,
            message: "The offline tutor answers now.".into(),
            until: Some(1),
        };
        assert!(s.apply(ServerMessage::Notice(notice.clone())).is_empty());
        assert_eq!(s.notice.as_ref().map(|n| n.message.as_str()), Some("The offline tutor answers now."));
        // A reconnect's whole state says whether it still holds.
        let ServerMessage::SessionStarted(mut again) = started(0) else { unreachable!() };
        again.notice = Some(notice);
        s.apply(ServerMessage::SessionStarted(again));
        assert!(s.notice.is_some());
        s.apply(started(0));
        assert_eq!(s.notice, None, "the allowance came round");
    }

    #[test]
    fn a_refused_message_goes_back_to_the_learner() {
        let mut s = LiveState::default();
        s.apply(started(0));
        say(&mut s, "c1", "too fast");
        let actions = s.apply(ServerMessage::Error(ErrorPayload::new(ErrorCode::RateLimited, "slow", true)));
        assert_eq!(actions, vec![Action::Restore("too fast".into())]);
        assert!(s.outbox.is_empty());
        // A session-wide error leaves unanswered messages alone.
        say(&mut s, "c2", "kept");
        s.apply(ServerMessage::Error(ErrorPayload::new(ErrorCode::InvalidState, "x", true)));
        assert_eq!(s.outbox.len(), 1);
        // A failed reply: the message is stored, so it is not resent.
        s.apply(ServerMessage::Error(ErrorPayload::new(ErrorCode::ProviderError, "x", true)));
        assert!(s.outbox.is_empty());
    }

    #[test]
    fn each_refusal_gives_back_the_message_it_names() {
        let mut s = LiveState::default();
        s.apply(started(0));
        say(&mut s, "c1", "first");
        say(&mut s, "c2", "second");
        say(&mut s, "c3", "third");
        let refuse = |id: &str| {
            ServerMessage::Error(ErrorPayload {
                client_message_id: Some(id.into()),
                ..ErrorPayload::new(ErrorCode::Busy, "busy", true)
            })
        };
        // Refused out of order after a reconnect: each gives back its own text, once.
        assert_eq!(s.apply(refuse("c2")), vec![Action::Restore("second".into())]);
        assert_eq!(s.apply(refuse("c1")), vec![Action::Restore("first".into())]);
        assert_eq!(s.apply(refuse("c1")), vec![], "already given back");
        let ids: Vec<&str> = s.outbox.iter().map(|o| o.client_message_id.as_str()).collect();
        assert_eq!(ids, vec!["c3"], "the one not refused still waits for its reply");
        // The socket closing for good gives back everything not yet answered.
        say(&mut s, "c4", "fourth");
        let actions =
            s.apply(ServerMessage::Error(ErrorPayload::new(ErrorCode::SessionEnded, "ended", false)));
        assert_eq!(actions, vec![Action::Restore("third".into()), Action::Restore("fourth".into())]);
        assert!(s.outbox.is_empty());
    }

    #[test]
    fn overlong_messages_are_stopped_before_sending() {
        let mut s = LiveState::default();
        assert!(say(&mut s, "c1", "fine"));
        assert!(!say(&mut s, "c2", &"a".repeat(MAX_MESSAGE_CHARS + 1)));
        assert_eq!(s.error.as_ref().map(|e| e.code), Some(ErrorCode::MessageTooLong));
        assert!(s.error.as_ref().is_some_and(|e| e.message.ends_with("Split it in two.")));
        // Parts that each fit, however long it is.
        assert!(!say(&mut s, "c2", &"a".repeat(MAX_MESSAGE_CHARS * 2 + 1)));
        assert!(s.error.as_ref().is_some_and(|e| e.message.ends_with("Send it in 3 parts.")));
        // Within the character limit but too large once escaped for the wire.
        assert!(!say(&mut s, "c3", &"\u{1}".repeat(MAX_MESSAGE_CHARS / 2)));
        assert_eq!(s.outbox.len(), 1, "refused messages never enter the outbox");
    }

    #[test]
    fn unanswered_messages_are_resent_after_a_reconnect() {
        let mut s = LiveState::default();
        s.apply(started(0));
        say(&mut s, "c1", "first");
        s.connection = Some(Connection::Reconnecting(1));
        let actions = s.apply(started(0));
        let Action::Resend(again) = &actions[0] else { panic!("{actions:?}") };
        assert_eq!(again.len(), 1);
        assert!(s.waiting);
    }

    #[test]
    fn after_the_missed_frames_only_unstored_messages_go_again() {
        let mut s = LiveState::default();
        s.apply(started(0));
        say(&mut s, "c1", "first");
        say(&mut s, "c2", "second");
        s.connection = Some(Connection::Reconnecting(1));
        // Missed while away: the first was answered and recalled a point.
        s.apply(recalled(1));
        s.apply(ServerMessage::AssistantComplete(AssistantComplete {
            full_content: "Yes.".into(),
            total_chunks: 1,
            html: "<p>Yes.</p>".into(),
        }));
        let actions = s.apply(ServerMessage::Resumed(Resumed {
            replayed: 2,
            elapsed_ms: 4_000,
            last_client_message_id: Some("c1".into()),
        }));
        let Some(Action::Resend(again)) = actions.first() else { panic!("{actions:?}") };
        assert_eq!(again.len(), 1);
        assert_eq!(again[0].client_message_id(), Some("c2"));
        assert_eq!((s.recalled, s.shown, s.elapsed_ms), (1, 1, 4_000));
        assert_eq!(s.connection, Some(Connection::Open));
        assert_eq!(s.agent_text, "Yes.");
    }

    #[test]
    fn ending_and_fatal_errors() {
        let mut s = LiveState::default();
        s.apply(started(0));
        assert_eq!(
            s.apply(ServerMessage::SessionPaused(SessionPaused {
                session_id: "s".into(),
                recalled_count: 0,
                total_points: 3
            })),
            vec![Action::Leave]
        );
        s.apply(ServerMessage::Error(ErrorPayload::new(ErrorCode::SessionNotFound, "gone", false)));
        assert_eq!(s.connection, Some(Connection::Closed("gone".into())));
    }

    #[test]
    fn a_note_stands_under_its_question_until_the_learner_answers() {
        let mut s = LiveState::default();
        s.apply(started(0));
        let note = |id: &str| {
            ServerMessage::ShowResource(ShowResource {
                resource_id: id.into(),
                title: id.into(),
                snippet: String::new(),
                snippet_html: String::new(),
                whole_html: String::new(),
                after_recall: false,
            })
        };
        s.apply(note("a"));
        assert_eq!((s.resources.len(), s.notes_read), (1, 0), "shown");
        assert!(say(&mut s, "m1", "an answer"));
        assert_eq!(s.notes_read, 1, "answered since: it folds away");
        s.apply(note("b"));
        assert_eq!((s.resources.len(), s.notes_read), (2, 1), "the new one stands");
        // A reload: the server's list, none answered since as far as the page knows.
        s.apply(started(0));
        assert_eq!(s.notes_read, 0);
    }

    #[test]
    fn leaving_a_rabbit_hole_shows_the_tutor_words_the_server_sends() {
        // Opened inside the hole: the page never saw the tutor's words before it.
        let mut s = LiveState::default();
        s.apply(started(0));
        s.apply(entered());
        s.tutor_text = (String::new(), String::new());
        s.agent_text = "What do you already know about it?".into();
        s.apply(ServerMessage::RabbitholeExited(RabbitholeExited {
            label: "Tides".into(),
            points_recalled_during: 0,
            completion_pending: false,
            tutor_text: "Which organelle powers the cell?".into(),
            tutor_html: "<p>Which organelle powers the cell?</p>".into(),
        }));
        assert_eq!(s.agent_text, "Which organelle powers the cell?");
        assert_eq!(s.agent_html, "<p>Which organelle powers the cell?</p>");
        // Without them (an older server), the words kept on entering come back.
        s.apply(entered());
        s.agent_text = "Inside".into();
        s.apply(exited(false));
        assert_eq!(s.agent_text, "Which organelle powers the cell?");
    }
}

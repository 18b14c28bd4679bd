//! The session actor: the one owner of a live session's state. Sockets talk to it through a
//! channel; it never holds a lock across an `.await`. Client messages are handled one at a
//! time, in arrival order: while a turn (language-model work) is under way, later messages
//! wait in a bounded queue. Every change is written to the database before it is announced.

use std::collections::VecDeque;
use std::sync::Arc;

use serde_json::json;
use tokio::sync::{mpsc, oneshot};
use warren_app::protocol::{
    AssistantChunk, ClientMessage, ErrorCode, ErrorPayload, Pong, RabbitholeDetected, RabbitholeEntered,
    RabbitholeExited, RecallPointNearMiss, RecallPointRecalled, ServerMessage, SessionCompletionSummary,
    SessionEvent, SessionMode, SessionPaused, SessionStatus, ShowImage, ShowResource,
};

use super::agents::detector::{Detection, label_for};
use super::agents::evaluator::Evaluation;
use super::rate::TokenBucket;
use super::session::LiveSession;
use super::turn::{self, TurnEvent, TurnInput, TurnKind};
use super::{EngineError, Shared, fsrs};
use crate::store::{EntryKind, NewEntry, NewOutcome, OutcomeRow, RabbitholeStatus, StoreError, now_ms};

pub enum Command {
    Attach {
        owner: String,
        tx: mpsc::Sender<ServerMessage>,
        reply: oneshot::Sender<Result<u64, EngineError>>,
    },
    Detach(u64),
    Client {
        from: u64,
        message: ClientMessage,
    },
    /// A newer session of the same set replaced this one (already written to the database).
    Abandoned,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Agent {
    Tutor,
    Explorer,
}

impl Agent {
    fn name(self) -> &'static str {
        match self {
            Agent::Tutor => "tutor",
            Agent::Explorer => "explorer",
        }
    }
}

struct ActiveTurn {
    events: mpsc::Receiver<TurnEvent>,
    agent: Agent,
    /// The reply so far, for sockets that attach mid-stream.
    streamed: String,
}

#[derive(Clone, Copy)]
enum Audience {
    All,
    One(u64),
}

/// Why a client message was refused; the learner's socket gets an `error` frame.
enum Refusal {
    Client(ErrorCode, String),
    Store(StoreError),
}

impl From<StoreError> for Refusal {
    fn from(err: StoreError) -> Self {
        Refusal::Store(err)
    }
}

type Handled = Result<(), Refusal>;

fn refuse(code: ErrorCode, message: impl Into<String>) -> Handled {
    Err(Refusal::Client(code, message.into()))
}

pub struct Actor {
    shared: Arc<Shared>,
    session: LiveSession,
    subscribers: Vec<(u64, mpsc::Sender<ServerMessage>)>,
    next_subscriber: u64,
    queue: VecDeque<(u64, ClientMessage)>,
    turn: Option<ActiveTurn>,
    learner_rate: TokenBucket,
}

impl Actor {
    pub fn new(shared: Arc<Shared>, session: LiveSession) -> Self {
        let learner_rate = TokenBucket::new(shared.config.message_burst, shared.config.message_interval);
        Self {
            shared,
            session,
            subscribers: Vec::new(),
            next_subscriber: 1,
            queue: VecDeque::new(),
            turn: None,
            learner_rate,
        }
    }

    pub async fn run(mut self, mut commands: mpsc::Receiver<Command>) {
        loop {
            let idle = self.subscribers.is_empty() && self.turn.is_none() && self.queue.is_empty();
            tokio::select! {
                command = commands.recv() => match command {
                    Some(command) => self.on_command(command).await,
                    None => break,
                },
                event = next_event(&mut self.turn) => self.on_turn_event(event).await,
                () = tokio::time::sleep(self.shared.config.idle_shutdown), if idle => break,
            }
            while self.turn.is_none() {
                let Some((from, message)) = self.queue.pop_front() else { break };
                self.handle(from, message).await;
            }
        }
        tracing::debug!(session = self.session.id(), "session actor stopped");
    }

    async fn on_command(&mut self, command: Command) {
        match command {
            Command::Attach { owner, tx, reply } => {
                if owner != self.session.owner() {
                    let _ = reply.send(Err(EngineError::NotFound));
                    return;
                }
                let id = self.next_subscriber;
                self.next_subscriber += 1;
                self.subscribers.push((id, tx));
                let _ = reply.send(Ok(id));
                if let Err(err) = self.on_attach(id).await {
                    self.report(id, Refusal::Store(err));
                }
            }
            Command::Detach(id) => {
                self.subscribers.retain(|(s, _)| *s != id);
                if self.subscribers.is_empty()
                    && let Err(err) = self.stop_clock().await
                {
                    tracing::error!(session = self.session.id(), "cannot save study time: {err}");
                }
            }
            Command::Abandoned => {
                let state = &mut self.session.row.state;
                state.status = SessionStatus::Abandoned;
                state.resumed_at = None;
                self.queue.clear();
                let frame = ServerMessage::Error(ErrorPayload {
                    code: ErrorCode::SessionEnded,
                    message: "A newer session of this set replaced this one.".into(),
                    recoverable: false,
                });
                self.send(Audience::All, frame);
            }
            Command::Client { from, message } => {
                if self.queue.len() >= self.shared.config.max_queued {
                    self.send(Audience::One(from), busy());
                } else {
                    self.queue.push_back((from, message));
                }
            }
        }
    }

    /// A socket attached: resume a paused session, open a new one, or answer a message left
    /// unanswered by a restart; then tell this socket everything it needs to draw the view.
    async fn on_attach(&mut self, subscriber: u64) -> Result<(), StoreError> {
        let now = now_ms();
        let before = self.session.row.state.clone();
        let mut next = None;
        match self.session.status() {
            SessionStatus::Paused => {
                self.session.row.state.status = SessionStatus::InProgress;
                next = Some((TurnKind::Resume, Agent::Tutor));
            }
            SessionStatus::InProgress if self.turn.is_none() => {
                if self.session.entries.is_empty() {
                    next = Some((TurnKind::Opening, Agent::Tutor));
                } else if let Some(waiting) = self.session.unanswered_message()
                    // A last recall is answered by the overlay, not by the tutor.
                    && self.session.overlay(now).is_none()
                {
                    let message = waiting.content.clone();
                    next = Some(match self.session.mode() {
                        SessionMode::Recall => {
                            (TurnKind::Recall { message, run_detector: false }, Agent::Tutor)
                        }
                        SessionMode::Rabbithole => {
                            (TurnKind::Explore { message: Some(message) }, Agent::Explorer)
                        }
                    });
                }
            }
            SessionStatus::InProgress | SessionStatus::Completed | SessionStatus::Abandoned => {}
        }
        if self.session.status() == SessionStatus::InProgress && self.session.row.state.resumed_at.is_none() {
            self.session.row.state.resumed_at = Some(now);
        }
        if self.session.row.state != before {
            self.save().await?;
        }

        let opening = match &next {
            Some((TurnKind::Opening | TurnKind::Resume, _)) => String::new(),
            _ => self.session.current_agent_text(),
        };
        let streaming = self.turn.as_ref().map(|t| t.streamed.clone()).filter(|s| !s.is_empty());
        let started = self.session.started_payload(self.shared.provider.info(), opening, streaming, now);
        self.emit(SessionEvent::SessionStarted(Box::new(started)), Audience::One(subscriber));
        if let Some((kind, agent)) = next {
            self.start_turn(kind, agent);
        }
        Ok(())
    }

    async fn handle(&mut self, from: u64, message: ClientMessage) {
        let result = match message {
            ClientMessage::UserMessage { content, client_message_id } => {
                self.user_message(content, client_message_id).await
            }
            ClientMessage::LeaveSession => self.leave(from).await,
            // The topic is the one stored at detection; the client's echo is not trusted.
            ClientMessage::EnterRabbithole { rabbithole_event_id, topic: _ } => {
                self.enter(&rabbithole_event_id).await
            }
            ClientMessage::ExitRabbithole => self.exit().await,
            ClientMessage::DeclineRabbithole => self.decline().await,
            ClientMessage::DismissOverlay => self.dismiss().await,
            ClientMessage::Ping => {
                self.send(Audience::One(from), ServerMessage::Pong(Pong { timestamp: now_ms() }));
                Ok(())
            }
        };
        if let Err(refusal) = result {
            self.report(from, refusal);
        }
    }

    fn report(&mut self, to: u64, refusal: Refusal) {
        let (code, message) = match refusal {
            Refusal::Client(code, message) => (code, message),
            Refusal::Store(err) => {
                tracing::error!(session = self.session.id(), "storage failed: {err}");
                (
                    ErrorCode::Internal,
                    "The server could not save that; nothing you wrote was lost. Try again.".into(),
                )
            }
        };
        self.send(Audience::One(to), ServerMessage::Error(ErrorPayload { code, message, recoverable: true }));
    }

    // --- client messages --------------------------------------------------------------------

    fn require_in_progress(&self) -> Handled {
        match self.session.status() {
            SessionStatus::InProgress => Ok(()),
            SessionStatus::Paused => {
                refuse(ErrorCode::SessionEnded, "This session is paused; open it again to go on.")
            }
            SessionStatus::Completed | SessionStatus::Abandoned => {
                refuse(ErrorCode::SessionEnded, "This session has ended; start a new one from the dashboard.")
            }
        }
    }

    async fn user_message(&mut self, content: String, client_message_id: Option<String>) -> Handled {
        self.require_in_progress()?;
        if !self.learner_rate.try_take() {
            return refuse(
                ErrorCode::RateLimited,
                "Too many messages at once; wait a moment and send again.",
            );
        }
        let mode = self.session.mode();
        // Carrying on without answering a rabbit-hole prompt declines it.
        if mode == SessionMode::Recall
            && let Some(pending) = self.session.pending_detection().map(|r| r.id.clone())
        {
            self.decline_detection(&pending).await?;
        }
        let new = NewEntry {
            parent_id: self.session.row.leaf_id.clone(),
            kind: Some(EntryKind::Message),
            role: Some("user"),
            agent: None,
            content: content.clone(),
            data: None,
            client_message_id,
        };
        let (entry, created) = self.append(new).await?;
        if !created {
            // The same message sent again after a reconnect: it is stored and being answered.
            tracing::debug!(entry = entry.id, "duplicate learner message ignored");
            return Ok(());
        }
        self.emit(SessionEvent::UserMessage { content: content.clone() }, Audience::All);
        match mode {
            SessionMode::Recall => {
                let earlier = self.session.learner_messages_in_recall().saturating_sub(1);
                let state = &mut self.session.row.state;
                let run_detector = if state.decline_cooldown > 0 {
                    state.decline_cooldown -= 1;
                    false
                } else {
                    earlier >= self.shared.config.quiet_exchanges
                };
                self.save().await?;
                self.start_turn(TurnKind::Recall { message: content, run_detector }, Agent::Tutor);
            }
            SessionMode::Rabbithole => {
                self.start_turn(TurnKind::Explore { message: Some(content) }, Agent::Explorer);
            }
        }
        Ok(())
    }

    async fn leave(&mut self, from: u64) -> Handled {
        match self.session.status() {
            SessionStatus::InProgress => {}
            // Leaving twice is harmless: say again how it ended.
            SessionStatus::Paused => {
                self.emit(SessionEvent::SessionPaused(self.paused_payload()), Audience::One(from));
                return Ok(());
            }
            SessionStatus::Completed | SessionStatus::Abandoned => {
                self.emit(SessionEvent::SessionCompleted(self.summary(now_ms())), Audience::One(from));
                return Ok(());
            }
        }
        if self.session.mode() == SessionMode::Rabbithole {
            self.leave_rabbithole(false).await?;
        }
        if let Some(pending) = self.session.pending_detection().map(|r| r.id.clone()) {
            self.session_rabbithole_status(&pending, RabbitholeStatus::Declined).await?;
        }
        let now = now_ms();
        self.fold_clock(now);
        let completed = self.session.all_recalled();
        let state = &mut self.session.row.state;
        if completed {
            state.status = SessionStatus::Completed;
            state.ended_at = Some(now);
        } else {
            state.status = SessionStatus::Paused;
        }
        self.save().await?;
        let event = if completed {
            SessionEvent::SessionCompleted(self.summary(now))
        } else {
            SessionEvent::SessionPaused(self.paused_payload())
        };
        self.emit(event, Audience::All);
        Ok(())
    }

    async fn enter(&mut self, rabbithole_id: &str) -> Handled {
        self.require_in_progress()?;
        if self.session.mode() == SessionMode::Rabbithole {
            return refuse(ErrorCode::InvalidState, "You are already exploring a rabbit hole; return first.");
        }
        let Some(hole) = self.session.pending_detection().filter(|r| r.id == rabbithole_id).cloned() else {
            return refuse(ErrorCode::InvalidState, "That rabbit hole is not on offer any more.");
        };
        let branch_from = self.session.row.leaf_id.clone();
        self.shared
            .store
            .set_rabbithole_status(
                self.session.owner(),
                &hole.id,
                RabbitholeStatus::Entered,
                branch_from.as_deref(),
            )
            .await?;
        if let Some(row) = self.session.rabbitholes.iter_mut().find(|r| r.id == hole.id) {
            row.status = RabbitholeStatus::Entered;
            row.branch_from_id = branch_from.clone();
        }
        let new = NewEntry {
            parent_id: branch_from,
            kind: Some(EntryKind::ModeChange),
            data: Some(json!({"mode": "rabbithole", "rabbitholeId": hole.id, "topic": hole.topic})),
            ..NewEntry::default()
        };
        self.append(new).await?;
        let state = &mut self.session.row.state;
        state.mode = SessionMode::Rabbithole;
        state.active_rabbithole_id = Some(hole.id.clone());
        self.save().await?;
        let entered =
            RabbitholeEntered { rabbithole_event_id: hole.id, topic: hole.topic, label: hole.label };
        self.emit(SessionEvent::RabbitholeEntered(entered), Audience::All);
        self.start_turn(TurnKind::Explore { message: None }, Agent::Explorer);
        Ok(())
    }

    async fn exit(&mut self) -> Handled {
        self.require_in_progress()?;
        if self.session.mode() != SessionMode::Rabbithole {
            return refuse(ErrorCode::InvalidState, "You are not in a rabbit hole.");
        }
        self.leave_rabbithole(true).await?;
        Ok(())
    }

    /// Stores the explorer's conversation, writes the branch summary on the main line, and
    /// moves the leaf back there: the tutor's context is exactly what it was before.
    async fn leave_rabbithole(&mut self, announce: bool) -> Result<(), StoreError> {
        let Some(hole) = self.session.active_rabbithole().cloned() else {
            self.session.row.state.mode = SessionMode::Recall;
            return self.save().await;
        };
        let history = self.session.explorer_history();
        let recalled_during = self.session.recalled_in_rabbithole();
        let conversation: Vec<_> =
            history.iter().map(|m| json!({"role": m.role.as_str(), "content": m.content})).collect();
        let owner = self.session.owner().to_string();
        self.shared
            .store
            .finish_rabbithole(&owner, &hole.id, &json!(conversation), i64::from(recalled_during))
            .await?;
        let exchanges = history.iter().filter(|m| m.role == crate::llm::Role::User).count().saturating_sub(1);
        let mut summary = format!("Explored \"{}\" ({exchanges} message{})", hole.topic, plural(exchanges));
        if recalled_during > 0 {
            summary.push_str(&format!(
                ", recalling {recalled_during} point{} along the way",
                plural(recalled_during as usize)
            ));
        }
        summary.push('.');
        let new = NewEntry {
            parent_id: hole.branch_from_id.clone(),
            kind: Some(EntryKind::BranchSummary),
            content: summary,
            data: Some(json!({
                "rabbitholeId": hole.id,
                "fromLeafId": self.session.row.leaf_id,
                "pointsRecalledDuring": recalled_during,
            })),
            ..NewEntry::default()
        };
        self.append(new).await?;
        if let Some(row) = self.session.rabbitholes.iter_mut().find(|r| r.id == hole.id) {
            row.status = RabbitholeStatus::Returned;
            row.points_recalled = i64::from(recalled_during);
        }
        let state = &mut self.session.row.state;
        state.mode = SessionMode::Recall;
        state.active_rabbithole_id = None;
        self.save().await?;
        if announce {
            let now = now_ms();
            let overlay = self.session.overlay(now);
            let exited = RabbitholeExited {
                label: hole.label,
                points_recalled_during: recalled_during,
                completion_pending: overlay.is_some(),
            };
            self.emit(SessionEvent::RabbitholeExited(exited), Audience::All);
            if let Some(overlay) = overlay {
                self.emit(SessionEvent::SessionCompleteOverlay(overlay), Audience::All);
            }
        }
        Ok(())
    }

    async fn decline(&mut self) -> Handled {
        self.require_in_progress()?;
        let Some(pending) = self.session.pending_detection().map(|r| r.id.clone()) else {
            return refuse(ErrorCode::InvalidState, "No rabbit hole is on offer.");
        };
        self.decline_detection(&pending).await?;
        Ok(())
    }

    async fn decline_detection(&mut self, id: &str) -> Result<(), StoreError> {
        self.session_rabbithole_status(id, RabbitholeStatus::Declined).await?;
        self.session.row.state.decline_cooldown = i64::from(self.shared.config.decline_cooldown);
        self.save().await?;
        let topic = self.session.rabbithole(id).map(|r| r.topic.clone()).unwrap_or_default();
        self.emit(
            SessionEvent::RabbitholeDeclined { rabbithole_event_id: id.to_string(), topic },
            Audience::All,
        );
        Ok(())
    }

    async fn session_rabbithole_status(
        &mut self,
        id: &str,
        status: RabbitholeStatus,
    ) -> Result<(), StoreError> {
        self.shared.store.set_rabbithole_status(self.session.owner(), id, status, None).await?;
        if let Some(row) = self.session.rabbitholes.iter_mut().find(|r| r.id == id) {
            row.status = status;
        }
        Ok(())
    }

    async fn dismiss(&mut self) -> Handled {
        self.require_in_progress()?;
        if self.session.overlay(now_ms()).is_none() {
            return refuse(ErrorCode::InvalidState, "There is no completion overlay to dismiss.");
        }
        self.session.row.state.overlay_dismissed = true;
        self.save().await?;
        Ok(())
    }

    // --- turns ------------------------------------------------------------------------------

    fn start_turn(&mut self, kind: TurnKind, agent: Agent) {
        let s = &self.session;
        let input = TurnInput {
            kind,
            set_name: s.set.name.clone(),
            set_description: s.set.description.clone(),
            guidelines: s.set.guidelines.clone(),
            pending: s.pending_briefs(),
            all_points: s.points.iter().map(LiveSession::point_brief).collect(),
            failed_attempts: s.failed_attempts,
            overlay_dismissed: s.row.state.overlay_dismissed,
            tutor_context: s.tutor_context(),
            judge_context: s.judge_context(),
            rabbithole_topic: s.active_rabbithole().map(|r| r.topic.clone()).unwrap_or_default(),
            explorer_history: s.explorer_history(),
            resources: s.resource_briefs(),
        };
        let events = turn::spawn(self.shared.provider.clone(), input);
        self.turn = Some(ActiveTurn { events, agent, streamed: String::new() });
    }

    async fn on_turn_event(&mut self, event: Option<TurnEvent>) {
        let event = event.unwrap_or_else(|| {
            TurnEvent::Failed(crate::llm::LlmError::Interrupted("the reply stopped unexpectedly".into()))
        });
        match event {
            TurnEvent::Assessed { evaluation, detection } => {
                if let Err(err) = self.apply_assessment(evaluation, detection).await {
                    tracing::error!(session = self.session.id(), "cannot record recall: {err}");
                    self.broadcast_error(
                        ErrorCode::Internal,
                        "A recall could not be saved; it will be checked again.",
                    );
                }
            }
            TurnEvent::Chunk(piece) => {
                let first = match self.turn.as_mut() {
                    Some(turn) => {
                        let first = turn.streamed.is_empty();
                        turn.streamed.push_str(&piece);
                        first
                    }
                    None => return,
                };
                if first {
                    self.emit(SessionEvent::AssistantStreamingStart, Audience::All);
                }
                self.send(Audience::All, ServerMessage::AssistantChunk(AssistantChunk { content: piece }));
            }
            TurnEvent::Finished { text, chunks } => {
                let agent = self.turn.take().map_or(Agent::Tutor, |t| t.agent);
                let new = NewEntry {
                    parent_id: self.session.row.leaf_id.clone(),
                    kind: Some(EntryKind::Message),
                    role: Some("assistant"),
                    agent: Some(agent.name()),
                    content: text.clone(),
                    ..NewEntry::default()
                };
                if let Err(err) = self.append(new).await {
                    // Shown only once stored: a reply that cannot be kept is not given.
                    tracing::error!(session = self.session.id(), "cannot store reply: {err}");
                    self.broadcast_error(
                        ErrorCode::Internal,
                        "The reply could not be saved. Your message is kept; reconnect to get the reply again.",
                    );
                    return;
                }
                self.emit(
                    SessionEvent::AssistantStreamingEnd { full_content: text.clone(), total_chunks: chunks },
                    Audience::All,
                );
                self.emit(SessionEvent::AssistantMessage { content: text }, Audience::All);
            }
            TurnEvent::Silent => self.turn = None,
            TurnEvent::Failed(err) => {
                self.turn = None;
                tracing::warn!(session = self.session.id(), "reply failed: {err}");
                self.broadcast_error(
                    ErrorCode::ProviderError,
                    &format!("The reply could not be completed ({err}). Your message is saved; send it again or carry on."),
                );
            }
        }
    }

    async fn apply_assessment(
        &mut self,
        evaluation: Evaluation,
        detection: Option<Detection>,
    ) -> Result<(), StoreError> {
        let now = now_ms();
        let in_rabbithole = self.session.mode() == SessionMode::Rabbithole;
        let working_on = self.session.pending().first().map(|p| p.id.clone());
        let trigger = self.session.row.leaf_id.clone();
        let owner = self.session.owner().to_string();
        let mut any = false;
        for (point_id, confidence) in &evaluation.recalled {
            let Some(index) = self.session.points.iter().position(|p| &p.id == point_id) else { continue };
            if self.session.is_recalled(point_id) {
                continue;
            }
            let attempts =
                if working_on.as_ref() == Some(point_id) { self.session.failed_attempts } else { 0 };
            let rating = fsrs::rating(*confidence, attempts);
            let card = fsrs::review(&self.session.points[index].card, rating, now);
            let outcome = NewOutcome {
                session_id: self.session.id().to_string(),
                point_id: point_id.clone(),
                rating: fsrs::rating_name(rating),
                confidence: *confidence,
                entry_id: trigger.clone(),
                in_rabbithole,
                card: card.clone(),
            };
            if !self.shared.store.record_recall(&owner, &outcome).await? {
                continue;
            }
            any = true;
            self.session.points[index].card = card;
            self.session.outcomes.push(OutcomeRow {
                point_id: point_id.clone(),
                rating: outcome.rating.into(),
                in_rabbithole,
                recalled_at: now,
            });
            let recalled_count = self.session.recalled_count();
            let recalled = RecallPointRecalled {
                point_id: point_id.clone(),
                point_index: recalled_count.saturating_sub(1),
                recalled_count,
                total_points: self.session.total(),
            };
            self.emit(SessionEvent::RecallPointRecalled(recalled), Audience::All);
            self.show_resources_for(point_id);
        }
        for (point_id, feedback) in evaluation.near_misses {
            if self.session.points.iter().any(|p| p.id == point_id) && !self.session.is_recalled(&point_id) {
                self.emit(
                    SessionEvent::RecallPointNearMiss(RecallPointNearMiss { point_id, feedback }),
                    Audience::All,
                );
            }
        }
        if !in_rabbithole {
            self.session.failed_attempts = if any { 0 } else { self.session.failed_attempts + 1 };
        }
        if any && let Some(overlay) = self.session.overlay(now) {
            // Inside a rabbit hole `overlay` is None: it waits for the exit.
            self.emit(SessionEvent::SessionCompleteOverlay(overlay), Audience::All);
        }
        if let Some(found) = detection.filter(|_| {
            !in_rabbithole
                && self.session.status() == SessionStatus::InProgress
                && self.session.pending_detection().is_none()
        }) {
            let label = label_for(&found.topic);
            let detection_json = serde_json::to_value(&found).unwrap_or_default();
            let id = self
                .shared
                .store
                .create_rabbithole(
                    &owner,
                    self.session.id(),
                    &found.topic,
                    &label,
                    trigger.as_deref(),
                    &detection_json,
                )
                .await?;
            // Reload the row so the in-memory copy is exactly what is stored.
            if let Some(row) = self.shared.store.rabbithole(&owner, &id).await? {
                self.session.rabbitholes.push(row);
            }
            let detected = RabbitholeDetected { rabbithole_event_id: id, topic: found.topic, label };
            self.emit(SessionEvent::RabbitholeDetected(detected), Audience::All);
        }
        Ok(())
    }

    /// Resources linked to a point just recalled: shown once, to reinforce what was retrieved.
    fn show_resources_for(&mut self, point_id: &str) {
        let linked: Vec<_> = self
            .session
            .resources
            .iter()
            .filter(|r| r.points.iter().any(|(p, relevance)| p == point_id && *relevance >= 0.5))
            .filter(|r| !self.session.shown_resources.contains(&r.id))
            .cloned()
            .collect();
        for resource in linked {
            self.session.shown_resources.insert(resource.id.clone());
            let event = match (resource.kind.as_str(), resource.url) {
                ("image", Some(url)) => SessionEvent::ShowImage(ShowImage {
                    resource_id: resource.id,
                    url,
                    caption: Some(resource.title),
                    mime_type: resource.mime_type,
                }),
                _ => SessionEvent::ShowResource(ShowResource {
                    resource_id: resource.id,
                    title: resource.title,
                    snippet: snippet(&resource.body),
                }),
            };
            self.emit(event, Audience::All);
        }
    }

    // --- bookkeeping ------------------------------------------------------------------------

    async fn append(&mut self, new: NewEntry) -> Result<(crate::store::Entry, bool), StoreError> {
        let owner = self.session.owner().to_string();
        let (entry, created) = self.shared.store.append_entry(&owner, self.session.id(), new, true).await?;
        if created {
            self.session.row.leaf_id = Some(entry.id.clone());
            self.session.entries.push(entry.clone());
        }
        Ok((entry, created))
    }

    async fn save(&self) -> Result<(), StoreError> {
        self.shared
            .store
            .save_session_state(self.session.owner(), self.session.id(), &self.session.row.state)
            .await
    }

    /// Adds the stretch under way to the study time and stops the clock.
    fn fold_clock(&mut self, now: i64) {
        let state = &mut self.session.row.state;
        if let Some(start) = state.resumed_at.take() {
            state.active_ms += (now - start).max(0);
        }
    }

    async fn stop_clock(&mut self) -> Result<(), StoreError> {
        if self.session.row.state.resumed_at.is_none() {
            return Ok(());
        }
        self.fold_clock(now_ms());
        self.save().await
    }

    fn paused_payload(&self) -> SessionPaused {
        SessionPaused {
            session_id: self.session.id().to_string(),
            recalled_count: self.session.recalled_count(),
            total_points: self.session.total(),
        }
    }

    fn summary(&self, now: i64) -> SessionCompletionSummary {
        SessionCompletionSummary {
            session_id: self.session.id().to_string(),
            recalled_count: self.session.recalled_count(),
            total_points: self.session.total(),
            duration_ms: self.session.elapsed_ms(now),
            rabbithole_count: u32::try_from(self.session.explored_labels().len()).unwrap_or(u32::MAX),
            recalled_point_ids: self.session.outcomes.iter().map(|o| o.point_id.clone()).collect(),
        }
    }

    fn emit(&mut self, event: SessionEvent, audience: Audience) {
        if let Some(message) = event.into_server_message() {
            self.send(audience, message);
        }
    }

    fn broadcast_error(&mut self, code: ErrorCode, message: &str) {
        let frame = ServerMessage::Error(ErrorPayload { code, message: message.into(), recoverable: true });
        self.send(Audience::All, frame);
    }

    /// Delivers a frame. A socket that cannot keep up is dropped; it reconnects and resyncs.
    fn send(&mut self, audience: Audience, message: ServerMessage) {
        self.subscribers.retain(|(id, tx)| match audience {
            Audience::One(target) if *id != target => true,
            Audience::One(_) | Audience::All => tx.try_send(message.clone()).is_ok(),
        });
    }
}

async fn next_event(turn: &mut Option<ActiveTurn>) -> Option<TurnEvent> {
    match turn {
        Some(turn) => turn.events.recv().await,
        None => std::future::pending().await,
    }
}

fn busy() -> ServerMessage {
    ServerMessage::Error(ErrorPayload {
        code: ErrorCode::Busy,
        message: "Messages are arriving faster than they can be answered; wait for the reply.".into(),
        recoverable: true,
    })
}

fn snippet(body: &str) -> String {
    let body = body.trim();
    if body.chars().count() <= 200 {
        return body.to_string();
    }
    let cut: String = body.chars().take(200).collect();
    match cut.rfind(' ') {
        Some(space) => format!("{}…", &cut[..space]),
        None => format!("{cut}…"),
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

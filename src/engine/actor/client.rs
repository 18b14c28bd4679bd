//! One handler per client message, each refusing what does not fit the session's state.

use warren_app::protocol::{
    ClientMessage, ErrorCode, InputVia, Pong, ServerMessage, SessionCompletionSummary, SessionEvent,
    SessionMode, SessionPaused, SessionStatus,
};

use super::{Actor, Audience, Handled, refuse};
use crate::engine::turn::TurnKind;
use crate::store::{Appended, NewEntry, RabbitholeStatus, Speaker, now_ms};

impl Actor {
    pub(super) async fn handle(&mut self, from: u64, message: ClientMessage) {
        let refused = message.client_message_id().map(str::to_string);
        let result = match message {
            ClientMessage::UserMessage { content, client_message_id, via } => {
                self.user_message(content, client_message_id, via).await
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
            self.report(from, refusal, refused);
        }
    }

    pub(super) fn require_in_progress(&self) -> Handled {
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

    async fn user_message(
        &mut self,
        content: String,
        client_message_id: Option<String>,
        via: Option<InputVia>,
    ) -> Handled {
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
        // A spoken message says so in its entry: the history page marks it.
        let data = via.map(|via| serde_json::json!({ "via": via.as_str() }));
        let new =
            NewEntry { client_message_id, data, ..NewEntry::message(Speaker::Learner, content.clone()) };
        let Appended { entry, created } = self.session.append(&self.store, new).await?;
        if !created {
            // The same message sent again after a reconnect: it is stored and being answered.
            tracing::debug!(entry = entry.id, "duplicate learner message ignored");
            return Ok(());
        }
        self.emit(SessionEvent::UserMessage { content: content.clone() }, Audience::All);
        self.check_allowance(true).await;
        match mode {
            SessionMode::Recall => {
                let earlier = self.session.learner_messages_in_recall().saturating_sub(1);
                let state = &mut self.session.row.state;
                let run_detector = if state.decline_cooldown > 0 {
                    state.decline_cooldown -= 1;
                    // Saved only when it changed: the append above already dated the session.
                    self.session.save(&self.store).await?;
                    false
                } else {
                    earlier >= self.shared.config.quiet_exchanges
                };
                let guess = self.guess();
                self.start_turn(TurnKind::Recall { message: content, run_detector, guess }, Speaker::Tutor);
            }
            SessionMode::Rabbithole => {
                self.start_turn(TurnKind::Explore { message: Some(content) }, Speaker::Explorer);
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
            // Back to the main line first (its note written), then leave, before anything else.
            self.begin_return(false).await?;
            self.queue.push_front((from, ClientMessage::LeaveSession, std::time::Instant::now()));
            return Ok(());
        }
        if let Some(pending) = self.session.pending_detection().map(|r| r.id.clone()) {
            self.session.set_rabbithole_status(&self.store, &pending, RabbitholeStatus::Declined).await?;
        }
        let now = now_ms();
        self.session.fold_clock(now);
        let completed = self.session.all_recalled();
        let state = &mut self.session.row.state;
        if completed {
            state.status = SessionStatus::Completed;
            state.ended_at = Some(now);
        } else {
            state.status = SessionStatus::Paused;
        }
        self.session.save(&self.store).await?;
        self.summarise().await;
        let event = if completed {
            SessionEvent::SessionCompleted(self.summary(now))
        } else {
            SessionEvent::SessionPaused(self.paused_payload())
        };
        self.emit(event, Audience::All);
        Ok(())
    }

    async fn dismiss(&mut self) -> Handled {
        self.require_in_progress()?;
        if self.session.overlay(now_ms()).is_none() {
            return refuse(ErrorCode::InvalidState, "There is no completion overlay to dismiss.");
        }
        self.session.row.state.overlay_dismissed = true;
        self.session.save(&self.store).await?;
        Ok(())
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
}

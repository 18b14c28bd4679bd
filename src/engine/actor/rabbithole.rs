//! Rabbit holes: entering an offered one, declining it, and coming back to the main line.

use tokio::sync::oneshot;
use warren_app::protocol::{
    ClientMessage, ErrorCode, RabbitholeEntered, RabbitholeExited, SessionEvent, SessionMode,
};

use super::{Actor, Audience, Handled, refuse};
use crate::engine::agents::summariser;
use crate::engine::session::branch_summary;
use crate::engine::turn::TurnKind;
use crate::llm::Role;
use crate::llm::brief::{SummaryBrief, SummaryTask};
use crate::store::{RabbitholeRow, RabbitholeStatus, Speaker, StoreError, now_ms};

impl Actor {
    pub(super) async fn enter(&mut self, rabbithole_id: &str) -> Handled {
        self.require_in_progress()?;
        if self.session.mode() == SessionMode::Rabbithole {
            return refuse(ErrorCode::InvalidState, "You are already exploring a rabbit hole; return first.");
        }
        let Some(hole) = self.session.pending_detection().filter(|r| r.id == rabbithole_id).cloned() else {
            return refuse(ErrorCode::InvalidState, "That rabbit hole is not on offer any more.");
        };
        self.session.enter_rabbithole(&self.store, &hole).await?;
        let entered =
            RabbitholeEntered { rabbithole_event_id: hole.id, topic: hole.topic, label: hole.label };
        self.emit(SessionEvent::RabbitholeEntered(entered), Audience::All);
        self.start_turn(TurnKind::Explore { message: None }, Speaker::Explorer);
        Ok(())
    }

    pub(super) async fn exit(&mut self) -> Handled {
        self.require_in_progress()?;
        if self.session.mode() != SessionMode::Rabbithole {
            return refuse(ErrorCode::InvalidState, "You are not in a rabbit hole.");
        }
        self.begin_return(true).await?;
        Ok(())
    }

    pub(super) async fn decline(&mut self) -> Handled {
        self.require_in_progress()?;
        let Some(pending) = self.session.pending_detection().map(|r| r.id.clone()) else {
            return refuse(ErrorCode::InvalidState, "No rabbit hole is on offer.");
        };
        self.decline_detection(&pending).await?;
        Ok(())
    }

    /// Declines an offer (the learner said no, or carried on) and starts the cooldown.
    pub(super) async fn decline_detection(&mut self, id: &str) -> Result<(), StoreError> {
        let store = &self.store.clone();
        self.session.set_rabbithole_status(store, id, RabbitholeStatus::Declined).await?;
        self.session.row.state.decline_cooldown = i64::from(self.shared.config.decline_cooldown);
        self.session.save(store).await?;
        let topic = self.session.rabbithole(id).map(|r| r.topic.clone()).unwrap_or_default();
        self.emit(
            SessionEvent::RabbitholeDeclined { rabbithole_event_id: id.to_string(), topic },
            Audience::All,
        );
        Ok(())
    }

    /// Starts back to the main line: the summariser notes what the rabbit hole explored, and
    /// [`Actor::finish_return`] writes that note and moves the leaf when it answers. Later
    /// client messages wait until then. `announce` tells the learner (not when the session is
    /// ending).
    pub(super) async fn begin_return(&mut self, announce: bool) -> Result<(), StoreError> {
        let Some(hole) = self.session.active_rabbithole().cloned() else {
            self.session.row.state.mode = SessionMode::Recall;
            return self.session.save(&self.store).await;
        };
        let conversation = self.session.explorer_history();
        // The first learner message is the opt-in itself.
        let asked = conversation.iter().filter(|m| m.role == Role::User).count().saturating_sub(1);
        let recalled = self.session.recalled_in_rabbithole();
        let fallback = branch_summary(&hole.topic, asked, recalled);
        let fallback_note = fallback.clone();
        let brief = SummaryBrief {
            set_name: self.session.full_title(),
            task: SummaryTask::Branch {
                topic: hole.topic.clone(),
                conversation,
                recalled: self.session.points_recalled_in_rabbithole(),
            },
        };
        let provider = self.provider.clone();
        let wait = self.shared.config.branch_summary_timeout;
        let (tx, rx) = oneshot::channel();
        let session = self.session.id().to_string();
        tokio::spawn(async move {
            let note = match tokio::time::timeout(wait, summariser::summarise(&*provider, brief)).await {
                Ok(Ok(note)) => note,
                Ok(Err(err)) => {
                    tracing::warn!(session, "the summariser could not note a rabbit hole: {err}");
                    fallback
                }
                Err(_) => {
                    tracing::warn!(session, "the summariser took too long to note a rabbit hole");
                    fallback
                }
            };
            let _ = tx.send(note);
        });
        self.returning = Some(Returning { hole, note: rx, fallback: fallback_note, announce });
        Ok(())
    }

    /// Back on the main line with the summariser's note: written where the branch began,
    /// then announced.
    pub(super) async fn finish_return(&mut self, note: Option<String>) {
        let Some(Returning { hole, announce, fallback, .. }) = self.returning.take() else { return };
        let note = note.unwrap_or(fallback);
        let recalled_during = match self.session.return_from_rabbithole(&self.store, &hole, note).await {
            Ok(recalled) => recalled,
            Err(err) => {
                // Still in the rabbit hole, as stored: the learner can return again.
                tracing::error!(
                    session = self.session.id(),
                    "cannot store the return from a rabbit hole: {err}"
                );
                self.queue.retain(|(_, m, _)| !matches!(m, ClientMessage::LeaveSession));
                self.send_error(
                    Audience::All,
                    ErrorCode::Internal,
                    "Could not save the way back from the rabbit hole; nothing was lost. Try again.",
                );
                return;
            }
        };
        if announce {
            let overlay = self.session.overlay(now_ms());
            let tutor_text = self.session.current_agent_text();
            let exited = RabbitholeExited {
                label: hole.label,
                points_recalled_during: recalled_during,
                completion_pending: overlay.is_some(),
                tutor_html: warren_app::markdown_html(&tutor_text),
                tutor_text,
            };
            let complete = overlay.is_some();
            self.emit(SessionEvent::RabbitholeExited(exited), Audience::All);
            if let Some(overlay) = overlay {
                self.emit(SessionEvent::SessionCompleteOverlay(overlay), Audience::All);
            }
            // A point recalled inside may be the one the tutor's last words ask: the tutor
            // speaks again, on the points still open, so no answered question stands.
            if recalled_during > 0 && !complete && self.turn.is_none() {
                match self.first_plan().await {
                    Ok(plan) => self.start_turn(TurnKind::Resume(plan), Speaker::Tutor),
                    Err(err) => tracing::error!(
                        session = self.session.id(),
                        "cannot plan the tutor's words after a rabbit hole: {err}"
                    ),
                }
            }
        }
    }
}

/// A return from a rabbit hole waiting for the summariser's note.
pub(super) struct Returning {
    hole: RabbitholeRow,
    note: oneshot::Receiver<String>,
    /// The plainer note, should the summariser's never come.
    fallback: String,
    announce: bool,
}

/// The summariser's note on the rabbit hole being left; never resolves when none is awaited.
pub(super) async fn next_note(returning: &mut Option<Returning>) -> Option<String> {
    match returning {
        Some(r) => (&mut r.note).await.ok(),
        None => std::future::pending().await,
    }
}

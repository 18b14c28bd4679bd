//! Rabbit holes: entering an offered one, declining it, and coming back to the main line.

use warren_app::protocol::{ErrorCode, RabbitholeEntered, RabbitholeExited, SessionEvent, SessionMode};

use super::{Actor, Audience, Handled, refuse};
use crate::engine::turn::TurnKind;
use crate::llm::Role;
use crate::store::{RabbitholeStatus, Speaker, StoreError, now_ms};

impl Actor {
    pub(super) async fn enter(&mut self, rabbithole_id: &str) -> Handled {
        self.require_in_progress()?;
        if self.session.mode() == SessionMode::Rabbithole {
            return refuse(ErrorCode::InvalidState, "You are already exploring a rabbit hole; return first.");
        }
        let Some(hole) = self.session.pending_detection().filter(|r| r.id == rabbithole_id).cloned() else {
            return refuse(ErrorCode::InvalidState, "That rabbit hole is not on offer any more.");
        };
        self.session.enter_rabbithole(&self.shared.store, &hole).await?;
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
        self.leave_rabbithole(true).await?;
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
        let shared = self.shared.clone();
        let store = &shared.store;
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

    /// Back to the main line; `announce` tells the learner (not when the session is ending).
    pub(super) async fn leave_rabbithole(&mut self, announce: bool) -> Result<(), StoreError> {
        let shared = self.shared.clone();
        let store = &shared.store;
        let Some(hole) = self.session.active_rabbithole().cloned() else {
            self.session.row.state.mode = SessionMode::Recall;
            return self.session.save(store).await;
        };
        let asked = self.session.explorer_history().iter().filter(|m| m.role == Role::User).count();
        // The first learner message is the opt-in itself.
        let summary =
            branch_summary(&hole.topic, asked.saturating_sub(1), self.session.recalled_in_rabbithole());
        let recalled_during = self.session.return_from_rabbithole(store, &hole, summary).await?;
        if announce {
            let overlay = self.session.overlay(now_ms());
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
}

/// What the tutor is told of a finished rabbit hole: its topic and size, never its content.
fn branch_summary(topic: &str, exchanges: usize, recalled: u32) -> String {
    let mut summary = format!("Explored \"{topic}\" ({exchanges} message{})", plural(exchanges));
    if recalled > 0 {
        summary.push_str(&format!(", recalling {recalled} point{} along the way", plural(recalled as usize)));
    }
    summary.push('.');
    summary
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

//! What the evaluator and detector found: recalls (recorded with their FSRS review, then
//! announced, with the resources they unlock), near misses, the hint ladder of the point under
//! discussion, the completion overlay, and a tangent to offer as a rabbit hole.

use warren_app::protocol::{
    RecallPointNearMiss, RecallPointRecalled, SessionEvent, SessionMode, SessionStatus, ShowResource,
};

use tokio::sync::oneshot;

use super::{Actor, Audience};
use crate::engine::agents::detector::{Detection, label_for};
use crate::engine::agents::evaluator::Evaluation;
use crate::engine::session::{LiveSession, Show};
use crate::engine::struggle::{self, Step, Struggles};
use crate::engine::turn::{Guess, TutorPlan};
use crate::llm::brief::MessageKind;
use crate::store::{StoreError, now_ms};

impl Actor {
    /// Records what the evaluator and detector found and, for a recall turn, climbs the hint
    /// ladder of the point under discussion. Everything is saved before `plan` hears what the
    /// tutor is to say next.
    pub(super) async fn apply_assessment(
        &mut self,
        evaluation: Evaluation,
        detection: Option<Detection>,
        plan: Option<oneshot::Sender<TutorPlan>>,
    ) -> Result<(), StoreError> {
        let store = &self.store.clone();
        let now = now_ms();
        let in_rabbithole = self.session.mode() == SessionMode::Rabbithole;
        let discussed = self.session.discussed().map(|p| p.id.clone());
        let message_id = self.session.leaf().unwrap_or_default().to_string();
        let mut just = Vec::new();
        for (point_id, confidence) in &evaluation.recalled {
            if !self.session.record_recall(store, point_id, *confidence, discussed.as_deref(), now).await? {
                continue;
            }
            just.push(point_id.clone());
            let recalled_count = self.session.recalled_count();
            let recalled = RecallPointRecalled {
                point_id: point_id.clone(),
                point_index: recalled_count.saturating_sub(1),
                recalled_count,
                total_points: self.session.total(),
            };
            self.emit(SessionEvent::RecallPointRecalled(recalled), Audience::All);
            self.show_resources_for(point_id).await?;
        }
        let mut struggles = self.session.struggles.clone();
        let mut near: Vec<(String, String)> = Vec::new();
        // Inside a rabbit hole the evaluator gives no steering feedback: a near miss there is
        // neither shown nor counted (a recall still is).
        let near_misses = if in_rabbithole { Vec::new() } else { evaluation.near_misses };
        // Only the point asked about: closeness to another is no try at it. Shown, "on the right
        // track with Quicksort" under a question on merge sort read as praise for a wrong answer;
        // counted, it filed that point's later recall as "after a near miss".
        let asked = |id: &String| discussed.as_ref().is_none_or(|d| d == id);
        for (point_id, feedback) in near_misses {
            if asked(&point_id)
                && self.session.points.iter().any(|p| p.id == point_id)
                && !self.session.is_recalled(&point_id)
                && !near.iter().any(|(id, _)| *id == point_id)
            {
                // Counted once per message, like the ladder: part of how it is recalled later.
                struggles.entry(point_id.clone()).or_default().near_misses += 1;
                near.push((point_id, feedback));
            }
        }
        // Inside a rabbit hole the ladder stands still: the learner is not being asked.
        let step = if in_rabbithole {
            Step::default()
        } else {
            let pending = self.session.pending();
            let tried = evaluation.kind.climbs();
            let order = self.session.ask_order();
            struggle::after_message(
                &mut struggles,
                discussed.as_deref(),
                &just,
                tried,
                &message_id,
                &pending,
                order,
            )
        };
        let mut changed = step.changed.clone();
        changed.extend(near.iter().map(|(id, _)| id.clone()).filter(|id| !step.changed.contains(id)));
        if !changed.is_empty() {
            self.session.save_struggles(store, struggles, &changed).await?;
        }
        for (point_id, feedback) in &near {
            let near_miss = RecallPointNearMiss { point_id: point_id.clone(), feedback: feedback.clone() };
            self.emit(SessionEvent::RecallPointNearMiss(near_miss), Audience::All);
        }
        let overlay = self.session.overlay(now).filter(|_| !just.is_empty());
        if let Some(overlay) = &overlay {
            // Inside a rabbit hole `overlay` is None: it waits for the exit.
            self.emit(SessionEvent::SessionCompleteOverlay(overlay.clone()), Audience::All);
        }
        // A message that recalled a point and asks nothing is an answer, even one that opens like
        // curiosity ("How bright the light is, how much CO2 is around…"): no rabbit hole is
        // offered on it.
        let answered =
            !just.is_empty() && self.session.leaf_entry().is_some_and(|e| !e.content.contains('?'));
        if let Some(found) = detection.filter(|_| {
            !in_rabbithole
                && !answered
                && self.session.status() == SessionStatus::InProgress
                && self.session.pending_detection().is_none()
        }) {
            let label = label_for(&found.topic);
            let detection_json = serde_json::to_value(&found).unwrap_or_default();
            let hole = self.session.offer_rabbithole(store, &found.topic, &label, &detection_json).await?;
            let detected = self.session.offer(&hole);
            self.emit(SessionEvent::RabbitholeDetected(detected), Audience::All);
        }
        if let Some(plan) = plan {
            let mut next = self.plan_after(&self.session.struggles, &step, &just);
            next.asked = evaluation.kind == MessageKind::Question && just.is_empty();
            next.note_close(near.iter());
            // The last recall is answered by the overlay, not by the tutor.
            next.silent = overlay.is_some();
            let _ = plan.send(next);
        }
        Ok(())
    }

    /// The tutor's plan after a message that recalled `just`, the ladder having taken `step`.
    fn plan_after(&self, struggles: &Struggles, step: &Step, just: &[String]) -> TutorPlan {
        let brief = |id: &String| {
            self.session.points.iter().find(|p| &p.id == id).map(|p| self.session.point_brief(p))
        };
        let mut next = self.session.plan_as_if(struggles, step.next.as_deref(), step.revisit, just);
        next.just_recalled = just.iter().filter_map(brief).collect();
        next.set_aside = step.set_aside.as_ref().and_then(brief);
        next
    }

    /// What the tutor that starts before the evaluator answers may assume: the in-process
    /// judges' verdicts when there are any, else that the message recalls nothing. None when
    /// nothing starts early (speculation off, or in a rabbit hole).
    pub(super) fn guess(&self) -> Option<Guess> {
        if !self.shared.config.speculative_tutor || self.session.mode() == SessionMode::Rabbithole {
            return None;
        }
        if self.shared.local_judges.is_empty() {
            return self.guessed_plan(&Evaluation::default()).map(|plan| Guess::Nothing(Box::new(plan)));
        }
        Some(Guess::Judges(self.shared.local_judges.clone()))
    }

    /// The plan `apply_assessment` would make of `evaluation` for the latest learner message,
    /// worked out without saving anything; None when it would make none (the last point
    /// recalled: the overlay answers).
    pub(super) fn guessed_plan(&self, evaluation: &Evaluation) -> Option<TutorPlan> {
        let session = &self.session;
        let known = |id: &String| session.points.iter().any(|p| &p.id == id) && !session.is_recalled(id);
        let mut just: Vec<String> = Vec::new();
        for (point_id, _) in &evaluation.recalled {
            if known(point_id) && !just.contains(point_id) {
                just.push(point_id.clone());
            }
        }
        let mut struggles = session.struggles.clone();
        let mut near: Vec<&(String, String)> = Vec::new();
        for miss in &evaluation.near_misses {
            let point_id = &miss.0;
            if known(point_id) && !just.contains(point_id) && !near.iter().any(|(id, _)| id == point_id) {
                struggles.entry(point_id.clone()).or_default().near_misses += 1;
                near.push(miss);
            }
        }
        let pending: Vec<_> = session.pending().into_iter().filter(|p| !just.contains(&p.id)).collect();
        let overlay = !just.is_empty()
            && pending.is_empty()
            && !session.row.state.overlay_dismissed
            && session.status() == SessionStatus::InProgress;
        if overlay {
            return None;
        }
        let discussed = session.discussed().map(|p| p.id.clone());
        let message_id = session.leaf().unwrap_or_default().to_string();
        let tried = evaluation.kind.climbs();
        let step = struggle::after_message(
            &mut struggles,
            discussed.as_deref(),
            &just,
            tried,
            &message_id,
            &pending,
            session.ask_order(),
        );
        let mut next = self.plan_after(&struggles, &step, &just);
        next.asked = evaluation.kind == MessageKind::Question && just.is_empty();
        next.note_close(near.into_iter());
        Some(next)
    }

    /// Resources a point just recalled unlocks (see [`LiveSession::unlocked_by`]): shown, if they
    /// have not been.
    async fn show_resources_for(&mut self, point_id: &str) -> Result<(), StoreError> {
        let linked: Vec<String> = self.session.unlocked_by(point_id, &[]).map(|r| r.id.clone()).collect();
        for id in linked {
            self.show_resource(&id, true).await?;
        }
        Ok(())
    }

    /// Shows one of the session's resources, once: noted in the database first, so a reload
    /// shows it again and a second call does nothing. `after_recall`: because the point it
    /// supports was just recalled.
    pub(super) async fn show_resource(
        &mut self,
        resource_id: &str,
        after_recall: bool,
    ) -> Result<(), StoreError> {
        let Some(resource) = self.session.resources.iter().find(|r| r.id == resource_id) else {
            return Ok(());
        };
        if self.session.shown.iter().any(|id| id == resource_id) {
            return Ok(());
        }
        let show = match LiveSession::show(resource) {
            Show::Resource(excerpt) => Show::Resource(ShowResource { after_recall, ..excerpt }),
            image @ Show::Image(_) => image,
        };
        self.store.record_shown(self.session.learner(), self.session.id(), resource_id).await?;
        self.session.shown.push(resource_id.to_string());
        self.emit(show.into(), Audience::All);
        Ok(())
    }
}

//! What the evaluator and detector found: recalls (recorded with their FSRS review, then
//! announced, with the resources they unlock), near misses, the completion overlay, and a
//! tangent to offer as a rabbit hole.

use warren_app::protocol::{
    RabbitholeDetected, RecallPointNearMiss, RecallPointRecalled, SessionEvent, SessionMode, SessionStatus,
    ShowImage, ShowResource,
};

use super::{Actor, Audience};
use crate::engine::agents::detector::{Detection, label_for};
use crate::engine::agents::evaluator::Evaluation;
use crate::store::{StoreError, now_ms};

impl Actor {
    pub(super) async fn apply_assessment(
        &mut self,
        evaluation: Evaluation,
        detection: Option<Detection>,
    ) -> Result<(), StoreError> {
        let shared = self.shared.clone();
        let store = &shared.store;
        let now = now_ms();
        let in_rabbithole = self.session.mode() == SessionMode::Rabbithole;
        let working_on = self.session.pending().first().map(|p| p.id.clone());
        let mut any = false;
        for (point_id, confidence) in &evaluation.recalled {
            let attempts =
                if working_on.as_ref() == Some(point_id) { self.session.failed_attempts } else { 0 };
            if !self.session.record_recall(store, point_id, *confidence, attempts, now).await? {
                continue;
            }
            any = true;
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
            let hole = self.session.offer_rabbithole(store, &found.topic, &label, &detection_json).await?;
            let detected =
                RabbitholeDetected { rabbithole_event_id: hole.id, topic: hole.topic, label: hole.label };
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
}

/// About 200 characters of a resource, cut at a word.
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

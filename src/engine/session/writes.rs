//! Every change to the session: written to the database first, then to the copy in memory,
//! so the two never disagree.

use serde_json::json;
use warren_app::protocol::SessionMode;

use crate::engine::rating::rating;
use crate::engine::struggle::Struggles;
use crate::store::{
    Appended, EntryKind, NewEntry, NewOutcome, OutcomeRow, RabbitholeRow, RabbitholeStatus, Store,
    StoreError, Struggle,
};

use super::LiveSession;
use super::frames::branch_summary;

impl LiveSession {
    /// Saves the struggle of the given points (already changed in memory by the pure rules in
    /// `engine::struggle`, which the caller applied to a copy and hands back here).
    pub async fn save_struggles(
        &mut self,
        store: &Store,
        struggles: Struggles,
        changed: &[String],
    ) -> Result<(), StoreError> {
        let rows: Vec<(&str, &Struggle)> =
            changed.iter().filter_map(|id| struggles.get(id).map(|s| (id.as_str(), s))).collect();
        store.save_struggles(self.learner(), self.id(), &rows).await?;
        self.struggles = struggles;
        Ok(())
    }

    /// Saves the session's state row.
    pub async fn save(&self, store: &Store) -> Result<(), StoreError> {
        store.save_session_state(self.learner(), self.id(), &self.row.state).await
    }

    /// Appends an entry under the leaf and moves the leaf to it. A learner message whose
    /// client id is already stored is not appended again (see [`Appended::created`]).
    pub async fn append(&mut self, store: &Store, new: NewEntry) -> Result<Appended, StoreError> {
        let parent = self.row.leaf_id.clone();
        self.append_under(store, parent.as_deref(), new).await
    }

    /// Appends an entry under `parent` and moves the leaf to it.
    async fn append_under(
        &mut self,
        store: &Store,
        parent: Option<&str>,
        new: NewEntry,
    ) -> Result<Appended, StoreError> {
        let appended = store.append_entry(self.learner(), self.id(), parent, new, true).await?;
        if appended.created {
            self.row.leaf_id = Some(appended.entry.id.clone());
            self.tree.push(appended.entry.clone());
        }
        Ok(appended)
    }

    pub async fn set_rabbithole_status(
        &mut self,
        store: &Store,
        id: &str,
        status: RabbitholeStatus,
    ) -> Result<(), StoreError> {
        store.set_rabbithole_status(self.learner(), id, status, None).await?;
        if let Some(row) = self.rabbitholes.iter_mut().find(|r| r.id == id) {
            row.status = status;
        }
        Ok(())
    }

    /// Stores a tangent the detector found, waiting for the learner's answer.
    pub async fn offer_rabbithole(
        &mut self,
        store: &Store,
        topic: &str,
        label: &str,
        detection: &serde_json::Value,
    ) -> Result<RabbitholeRow, StoreError> {
        let trigger = self.row.leaf_id.clone();
        let id = store
            .create_rabbithole(self.learner(), self.id(), topic, label, trigger.as_deref(), detection)
            .await?;
        // Read back so the copy here is exactly what is stored.
        let row = store
            .rabbithole(self.learner(), &id)
            .await?
            .ok_or_else(|| StoreError::Corrupt(format!("rabbit hole {id} vanished")))?;
        self.rabbitholes.push(row.clone());
        Ok(row)
    }

    /// Enters an offered rabbit hole: a branch hangs from the current leaf, starting with a
    /// mode-change entry, and the session is in rabbit-hole mode.
    pub async fn enter_rabbithole(&mut self, store: &Store, hole: &RabbitholeRow) -> Result<(), StoreError> {
        let branch_from = self.row.leaf_id.clone();
        store
            .set_rabbithole_status(
                self.learner(),
                &hole.id,
                RabbitholeStatus::Entered,
                branch_from.as_deref(),
            )
            .await?;
        if let Some(row) = self.rabbitholes.iter_mut().find(|r| r.id == hole.id) {
            row.status = RabbitholeStatus::Entered;
            row.branch_from_id = branch_from;
        }
        let data = json!({"mode": "rabbithole", "rabbitholeId": hole.id, "topic": hole.topic});
        self.append(store, NewEntry::note(EntryKind::ModeChange, "", data)).await?;
        let state = &mut self.row.state;
        state.mode = SessionMode::Rabbithole;
        state.active_rabbithole_id = Some(hole.id.clone());
        self.save(store).await
    }

    /// Leaves the rabbit hole under way: keeps the explorer's conversation, writes `summary`
    /// on the main line where the branch began and moves the leaf there, so the tutor's
    /// context is exactly what it was before. Returns the points recalled inside.
    pub async fn return_from_rabbithole(
        &mut self,
        store: &Store,
        hole: &RabbitholeRow,
        summary: String,
    ) -> Result<u32, StoreError> {
        let recalled_during = self.recalled_in_rabbithole();
        let conversation: Vec<_> = self
            .explorer_history()
            .iter()
            .map(|m| json!({"role": m.role.as_str(), "content": m.content}))
            .collect();
        store
            .finish_rabbithole(self.learner(), &hole.id, &json!(conversation), i64::from(recalled_during))
            .await?;
        let data = json!({
            "rabbitholeId": hole.id,
            "fromLeafId": self.row.leaf_id,
            "pointsRecalledDuring": recalled_during,
        });
        self.append_under(
            store,
            hole.branch_from_id.as_deref(),
            NewEntry::note(EntryKind::BranchSummary, summary, data),
        )
        .await?;
        if let Some(row) = self.rabbitholes.iter_mut().find(|r| r.id == hole.id) {
            row.status = RabbitholeStatus::Returned;
            row.points_recalled = i64::from(recalled_during);
        }
        let state = &mut self.row.state;
        state.mode = SessionMode::Recall;
        state.active_rabbithole_id = None;
        self.save(store).await?;
        Ok(recalled_during)
    }

    /// Closes the rabbit hole a session is in as it ends without a return (replaced by a
    /// newer session): the explorer's conversation is stored and a plain note written where
    /// the branch began, as a return would.
    pub async fn close_rabbithole(&mut self, store: &Store) -> Result<(), StoreError> {
        let Some(hole) = self.active_rabbithole().cloned() else { return Ok(()) };
        let asked = self
            .explorer_history()
            .iter()
            .filter(|m| m.role == crate::llm::Role::User)
            .count()
            .saturating_sub(1);
        let note = branch_summary(&hole.topic, asked, self.recalled_in_rabbithole());
        self.return_from_rabbithole(store, &hole, note).await.map(|_| ())
    }

    /// Records a recall and its review, rated from the point's own struggle in this session,
    /// whether it was the point under discussion (`discussed`, as the learner's message found
    /// it), and `confidence` (see `engine::rating`). False when
    /// the point is not in this session or was already recalled.
    pub async fn record_recall(
        &mut self,
        store: &Store,
        point_id: &str,
        confidence: f64,
        discussed: Option<&str>,
        now: i64,
    ) -> Result<bool, StoreError> {
        let Some(index) = self.points.iter().position(|p| p.id == point_id) else { return Ok(false) };
        if self.is_recalled(point_id) {
            return Ok(false);
        }
        let in_rabbithole = self.mode() == SessionMode::Rabbithole;
        let volunteered = discussed != Some(point_id);
        let struggle = self.struggles.get(point_id).cloned().unwrap_or_default();
        let outcome = NewOutcome {
            session_id: self.id().to_string(),
            point_id: point_id.to_string(),
            rating: rating(confidence, &struggle, volunteered),
            confidence,
            entry_id: self.row.leaf_id.clone(),
            in_rabbithole,
            at: now,
        };
        let Some(card) = store.record_recall(self.learner(), &outcome).await? else { return Ok(false) };
        self.points[index].card = card;
        self.outcomes.push(OutcomeRow {
            point_id: point_id.to_string(),
            rating: outcome.rating,
            confidence,
            entry_id: outcome.entry_id,
            in_rabbithole,
            recalled_at: now,
        });
        Ok(true)
    }
}

//! A live session's state, loaded wholly from the database: nothing here needs memory of an
//! earlier process to be rebuilt. Every change goes through a method that writes it first and
//! then updates the copy in memory, so the two never disagree.

mod context;
mod frames;
mod plan;
#[cfg(test)]
mod tests;
mod writes;

use warren_app::api::{TODAYS_REVIEW, review_title};
use warren_app::learner::LearnerId;
use warren_app::protocol::{SessionMode, SessionStatus};

use crate::engine::struggle::Struggles;
use crate::llm::brief::Recap;
use crate::store::{
    Entry, EntryKind, OutcomeRow, Point, RabbitholeRow, RabbitholeStatus, RecallSet, Resource, SessionRow,
    Speaker, Store, StoreError, Tree,
};

pub use context::{CompactionPlan, tokens};
pub(in crate::engine) use frames::{OVERLAY_MESSAGE, Show, branch_summary};

pub struct LiveSession {
    pub row: SessionRow,
    /// The sets its points come from: a set session's own, or today's review's several.
    pub sets: Vec<RecallSet>,
    /// The target points, in probe order.
    pub points: Vec<Point>,
    pub resources: Vec<Resource>,
    pub outcomes: Vec<OutcomeRow>,
    pub tree: Tree,
    pub rabbitholes: Vec<RabbitholeRow>,
    /// How hard each point has been, by point id.
    pub struggles: Struggles,
    /// Ids of the resources shown so far, in order (each is shown once per session).
    pub shown: Vec<String>,
}

impl LiveSession {
    pub async fn load(store: &Store, learner: &LearnerId, id: &str) -> Result<Option<Self>, StoreError> {
        let Some(row) = store.session(learner, id).await? else { return Ok(None) };
        let sets = match &row.set_id {
            Some(set_id) => match store.set(learner, set_id).await? {
                Some(set) => vec![set],
                None => return Ok(None),
            },
            None => store.session_sets(learner, id).await?,
        };
        let mut points = Vec::new();
        let mut resources = Vec::new();
        for set in &sets {
            points.extend(store.points(learner, &set.id).await?);
            resources.extend(store.resources(learner, &set.id).await?);
        }
        let outcomes = store.outcomes(learner, id).await?;
        let entries = store.entries(learner, id).await?;
        let rabbitholes = store.rabbitholes(learner, id).await?;
        let struggles = store.struggles(learner, id).await?;
        let shown = store.shown_resources(learner, id).await?;
        let mut session =
            Self::from_rows(row, sets, points, resources, outcomes, entries, rabbitholes, struggles);
        session.shown = shown;
        Ok(Some(session))
    }

    /// Assembles a session from its stored rows.
    #[allow(clippy::too_many_arguments)]
    pub fn from_rows(
        mut row: SessionRow,
        sets: Vec<RecallSet>,
        all_points: Vec<Point>,
        resources: Vec<Resource>,
        outcomes: Vec<OutcomeRow>,
        entries: Vec<Entry>,
        rabbitholes: Vec<RabbitholeRow>,
        struggles: Struggles,
    ) -> Self {
        // A clock still running here was left by a process that stopped without its sockets
        // detaching: count study time up to the last change, not up to now.
        if let Some(start) = row.state.resumed_at.take() {
            row.state.active_ms += (row.updated_at - start).max(0);
        }
        // Points deleted since the session began simply drop out of it.
        let points = row
            .target_point_ids
            .iter()
            .filter_map(|id| all_points.iter().find(|p| &p.id == id).cloned())
            .collect();
        let tree = Tree::new(entries);
        Self { row, sets, points, resources, outcomes, tree, rabbitholes, struggles, shown: Vec::new() }
    }

    /// Today's review across sets, rather than a session on one set.
    pub fn is_review(&self) -> bool {
        self.row.set_id.is_none()
    }

    /// The set a point comes from.
    pub fn set_of(&self, point_id: &str) -> Option<&RecallSet> {
        let point = self.points.iter().find(|p| p.id == point_id)?;
        self.sets.iter().find(|s| s.id == point.set_id)
    }

    /// The set in play: in a review, that of the point under discussion (or, when every point
    /// is recalled, of the last one recalled); in a set session, its set.
    pub fn set_in_play(&self) -> Option<&RecallSet> {
        if !self.is_review() {
            return self.sets.first();
        }
        let point = self
            .discussed()
            .map(|p| p.id.as_str())
            .or_else(|| self.outcomes.last().map(|o| o.point_id.as_str()));
        point.and_then(|id| self.set_of(id)).or_else(|| self.sets.first())
    }

    /// What the session is called: its set's name, or "Today's review".
    pub fn title(&self) -> String {
        if self.is_review() {
            return TODAYS_REVIEW.to_string();
        }
        self.sets.first().map(|s| s.name.clone()).unwrap_or_default()
    }

    /// The title with every set a review draws on: "Today's review: Cells, Rome and Verbs".
    pub fn full_title(&self) -> String {
        if self.is_review() { review_title(&self.set_names()) } else { self.title() }
    }

    /// The names of its sets, in order.
    pub fn set_names(&self) -> Vec<String> {
        self.sets.iter().map(|s| s.name.clone()).collect()
    }

    pub fn learner(&self) -> &LearnerId {
        &self.row.learner
    }

    pub fn id(&self) -> &str {
        &self.row.id
    }

    pub fn status(&self) -> SessionStatus {
        self.row.state.status
    }

    pub fn mode(&self) -> SessionMode {
        self.row.state.mode
    }

    pub fn total(&self) -> u32 {
        count(self.points.len())
    }

    pub fn is_recalled(&self, point_id: &str) -> bool {
        self.outcomes.iter().any(|o| o.point_id == point_id)
    }

    pub fn recalled_count(&self) -> u32 {
        count(self.points.iter().filter(|p| self.is_recalled(&p.id)).count())
    }

    /// Points not yet recalled, in probe order.
    pub fn pending(&self) -> Vec<&Point> {
        self.points.iter().filter(|p| !self.is_recalled(&p.id)).collect()
    }

    /// Leaves out of the session the points in `reviewed` (reviewed elsewhere since it began)
    /// that it has not touched, neither recalled nor tried, so a session resumed later does
    /// not ask them twice; never every point. The ids left out, if any.
    pub fn leave_out(&mut self, reviewed: &[String]) -> Vec<String> {
        let untouched = |id: &String| {
            !self.is_recalled(id) && self.struggles.get(id).is_none_or(|s| s.attempts == 0 && !s.revealed)
        };
        let gone: Vec<String> = self
            .points
            .iter()
            .map(|p| &p.id)
            .filter(|id| reviewed.contains(id) && untouched(id))
            .cloned()
            .collect();
        if gone.len() == self.points.len() {
            return Vec::new();
        }
        self.points.retain(|p| !gone.contains(&p.id));
        self.row.target_point_ids.retain(|id| !gone.contains(id));
        gone
    }

    pub fn all_recalled(&self) -> bool {
        !self.points.is_empty() && self.pending().is_empty()
    }

    pub fn leaf(&self) -> Option<&str> {
        self.row.leaf_id.as_deref()
    }

    pub fn leaf_entry(&self) -> Option<&Entry> {
        self.tree.get(self.leaf()?)
    }

    pub fn path(&self) -> Vec<&Entry> {
        self.tree.path(self.leaf())
    }

    pub fn rabbithole(&self, id: &str) -> Option<&RabbitholeRow> {
        self.rabbitholes.iter().find(|r| r.id == id)
    }

    pub fn active_rabbithole(&self) -> Option<&RabbitholeRow> {
        self.row.state.active_rabbithole_id.as_deref().and_then(|id| self.rabbithole(id))
    }

    /// A detected rabbit hole still waiting for the learner's answer.
    pub fn pending_detection(&self) -> Option<&RabbitholeRow> {
        self.rabbitholes.iter().rev().find(|r| r.status == RabbitholeStatus::Detected)
    }

    pub fn explored_labels(&self) -> Vec<String> {
        self.rabbitholes
            .iter()
            .filter(|r| r.status == RabbitholeStatus::Returned)
            .map(|r| r.label.clone())
            .collect()
    }

    /// What the tutor may say of this session so far when it resumes.
    pub fn recap(&self, now: i64) -> Recap {
        Recap {
            at: self.row.updated_at,
            now,
            completed: self.all_recalled(),
            last_said: self
                .main_line()
                .into_iter()
                .rev()
                .find(|e| e.is_message_from(Speaker::Learner))
                .map(|e| e.content.clone()),
            topics: self
                .rabbitholes
                .iter()
                .filter(|r| r.status == RabbitholeStatus::Returned)
                .map(|r| r.topic.clone())
                .collect(),
        }
    }

    /// Active study time, including the stretch under way.
    pub fn elapsed_ms(&self, now: i64) -> u64 {
        let running = self.row.state.resumed_at.map_or(0, |start| (now - start).max(0));
        u64::try_from(self.row.state.active_ms + running).unwrap_or(0)
    }

    /// Adds the stretch under way to the study time and stops the clock (in memory).
    pub fn fold_clock(&mut self, now: i64) {
        let state = &mut self.row.state;
        if let Some(start) = state.resumed_at.take() {
            state.active_ms += (now - start).max(0);
        }
    }

    /// Learner messages on the main line (rabbit-hole branches excluded).
    pub fn learner_messages_in_recall(&self) -> usize {
        self.main_line().into_iter().filter(|e| e.is_message_from(Speaker::Learner)).count()
    }

    /// The current path without the rabbit-hole branch under way, if any.
    fn main_line(&self) -> Vec<&Entry> {
        let path = self.path();
        let in_branch = self.mode() == SessionMode::Rabbithole;
        match path.iter().position(|e| in_branch && e.kind == EntryKind::ModeChange) {
            Some(i) => path[..i].to_vec(),
            None => path,
        }
    }

    /// The agent's text the learner should see now: the last agent message on the path.
    pub fn current_agent_text(&self) -> String {
        self.path()
            .into_iter()
            .rev()
            .find(|e| e.kind == EntryKind::Message && e.speaker != Some(Speaker::Learner))
            .map(|e| e.content.clone())
            .unwrap_or_default()
    }

    /// A learner message on the path still waiting for its answer (after a crash or restart).
    pub fn unanswered_message(&self) -> Option<&Entry> {
        self.leaf_entry().filter(|e| e.is_message_from(Speaker::Learner))
    }

    pub fn last_client_message_id(&self) -> Option<String> {
        self.tree.entries.iter().rev().find_map(|e| e.client_message_id.clone())
    }

    /// Points recalled since the rabbit hole under way was entered.
    pub fn recalled_in_rabbithole(&self) -> u32 {
        let Some(entered) = self.branch_start() else { return 0 };
        count(self.outcomes.iter().filter(|o| o.in_rabbithole && o.recalled_at >= entered).count())
    }

    /// The points recalled since the rabbit hole under way was entered, as written.
    pub fn points_recalled_in_rabbithole(&self) -> Vec<String> {
        let Some(entered) = self.branch_start() else { return Vec::new() };
        self.outcomes
            .iter()
            .filter(|o| o.in_rabbithole && o.recalled_at >= entered)
            .filter_map(|o| self.points.iter().find(|p| p.id == o.point_id).map(|p| p.content.clone()))
            .collect()
    }

    fn branch_start(&self) -> Option<i64> {
        if self.mode() != SessionMode::Rabbithole {
            return None;
        }
        self.path().into_iter().find(|e| e.kind == EntryKind::ModeChange).map(|e| e.created_at)
    }

    // --- changes: written first, then applied here ----------------------------------------
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

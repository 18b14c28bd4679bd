//! A live session's state, loaded wholly from the database: nothing here needs memory of an
//! earlier process to be rebuilt. Every change goes through a method that writes it first and
//! then updates the copy in memory, so the two never disagree.

use std::collections::HashSet;

use serde_json::json;
use warren_app::protocol::{
    ProviderInfo, RabbitholeDetected, RabbitholeEntered, SessionCompleteOverlay, SessionMode, SessionStarted,
    SessionStatus,
};

use crate::engine::agents::explorer::opening_prompt;
use crate::engine::fsrs;
use crate::llm::Message;
use crate::llm::brief::{PointBrief, ResourceBrief};
use crate::store::{
    Entry, EntryKind, NewEntry, NewOutcome, OutcomeRow, Point, RabbitholeRow, RabbitholeStatus, RecallSet,
    Resource, SessionRow, Speaker, Store, StoreError, path_to,
};

/// How many recent messages the evaluator and detector see besides the latest one.
const JUDGE_CONTEXT: usize = 6;
/// How many messages of the main line the tutor sees.
const TUTOR_CONTEXT: usize = 40;

pub const OVERLAY_MESSAGE: &str = "You've covered everything.";

pub struct LiveSession {
    pub row: SessionRow,
    pub set: RecallSet,
    /// The target points, in probe order.
    pub points: Vec<Point>,
    pub resources: Vec<Resource>,
    pub outcomes: Vec<OutcomeRow>,
    pub entries: Vec<Entry>,
    pub rabbitholes: Vec<RabbitholeRow>,
    /// Learner messages since the last recall, towards the first pending point.
    pub failed_attempts: u32,
    /// Resources already shown in this process (showing one twice is harmless).
    pub shown_resources: HashSet<String>,
}

impl LiveSession {
    pub async fn load(store: &Store, owner: &str, id: &str) -> Result<Option<Self>, StoreError> {
        let Some(row) = store.session(owner, id).await? else { return Ok(None) };
        let Some(set) = store.set(owner, &row.set_id).await? else { return Ok(None) };
        let points = store.points(owner, &row.set_id).await?;
        let resources = store.resources(owner, &row.set_id).await?;
        let outcomes = store.outcomes(owner, id).await?;
        let entries = store.entries(owner, id).await?;
        let rabbitholes = store.rabbitholes(owner, id).await?;
        Ok(Some(Self::from_rows(row, set, points, resources, outcomes, entries, rabbitholes)))
    }

    /// Assembles a session from its stored rows.
    pub fn from_rows(
        mut row: SessionRow,
        set: RecallSet,
        all_points: Vec<Point>,
        resources: Vec<Resource>,
        outcomes: Vec<OutcomeRow>,
        entries: Vec<Entry>,
        rabbitholes: Vec<RabbitholeRow>,
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
        let mut session = Self {
            row,
            set,
            points,
            resources,
            outcomes,
            entries,
            rabbitholes,
            failed_attempts: 0,
            shown_resources: HashSet::new(),
        };
        session.failed_attempts = session.learner_messages_since_last_recall();
        session
    }

    pub fn owner(&self) -> &str {
        &self.row.owner_id
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

    pub fn all_recalled(&self) -> bool {
        !self.points.is_empty() && self.pending().is_empty()
    }

    pub fn leaf(&self) -> Option<&str> {
        self.row.leaf_id.as_deref()
    }

    pub fn leaf_entry(&self) -> Option<&Entry> {
        let leaf = self.leaf()?;
        self.entries.iter().find(|e| e.id == leaf)
    }

    pub fn path(&self) -> Vec<&Entry> {
        path_to(&self.entries, self.leaf())
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

    fn learner_messages_since_last_recall(&self) -> u32 {
        let last_recall = self.outcomes.iter().map(|o| o.recalled_at).max().unwrap_or(i64::MIN);
        count(
            self.main_line()
                .into_iter()
                .filter(|e| e.is_message_from(Speaker::Learner) && e.created_at > last_recall)
                .count(),
        )
    }

    /// The tutor's conversation: the main line from the root, with branch summaries as notes.
    pub fn tutor_context(&self) -> Vec<Message> {
        let mut messages: Vec<Message> = self
            .main_line()
            .into_iter()
            .filter_map(|e| match e.kind {
                EntryKind::Message => match e.speaker? {
                    Speaker::Learner => Some(Message::user(e.content.clone())),
                    Speaker::Tutor => Some(Message::assistant(e.content.clone())),
                    Speaker::Explorer => None,
                },
                EntryKind::BranchSummary => Some(Message::user(format!("(Side note: {})", e.content))),
                EntryKind::ModeChange | EntryKind::Compaction | EntryKind::Label | EntryKind::Custom => None,
            })
            .collect();
        if messages.len() > TUTOR_CONTEXT {
            messages.drain(..messages.len() - TUTOR_CONTEXT);
        }
        messages
    }

    /// The explorer's own conversation inside the rabbit hole under way.
    pub fn explorer_history(&self) -> Vec<Message> {
        let Some(active) = self.active_rabbithole() else { return Vec::new() };
        let path = self.path();
        let Some(start) = path.iter().position(|e| e.kind == EntryKind::ModeChange) else {
            return Vec::new();
        };
        let mut history = vec![Message::user(opening_prompt(&active.topic))];
        history.extend(path[start + 1..].iter().filter_map(|e| as_message(e)));
        history
    }

    /// Recent turns for the evaluator and detector, without the latest learner message.
    pub fn judge_context(&self) -> Vec<Message> {
        let mut recent: Vec<Message> = self.path().into_iter().filter_map(as_message).collect();
        if recent.last().is_some_and(|m| m.role == crate::llm::Role::User) {
            recent.pop();
        }
        let skip = recent.len().saturating_sub(JUDGE_CONTEXT);
        recent.split_off(skip)
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
        self.entries.iter().rev().find_map(|e| e.client_message_id.clone())
    }

    pub fn overlay(&self, now: i64) -> Option<SessionCompleteOverlay> {
        let showing = self.all_recalled()
            && !self.row.state.overlay_dismissed
            && self.status() == SessionStatus::InProgress
            && self.mode() == SessionMode::Recall;
        showing.then(|| self.overlay_payload(now))
    }

    pub fn overlay_payload(&self, now: i64) -> SessionCompleteOverlay {
        SessionCompleteOverlay {
            message: OVERLAY_MESSAGE.into(),
            recalled_count: self.recalled_count(),
            total_points: self.total(),
            duration_ms: self.elapsed_ms(now),
        }
    }

    pub fn started_payload(
        &self,
        provider: ProviderInfo,
        opening_message: String,
        streaming_reply: Option<String>,
        now: i64,
    ) -> SessionStarted {
        SessionStarted {
            session_id: self.id().to_string(),
            recall_set_name: self.set.name.clone(),
            opening_message,
            total_points: self.total(),
            recalled_count: self.recalled_count(),
            status: self.status(),
            provider,
            mode: self.mode(),
            rabbithole: self.active_rabbithole().map(|r| RabbitholeEntered {
                rabbithole_event_id: r.id.clone(),
                topic: r.topic.clone(),
                label: r.label.clone(),
            }),
            rabbithole_labels: self.explored_labels(),
            pending_rabbithole: self
                .pending_detection()
                .filter(|_| self.status() == SessionStatus::InProgress)
                .map(|r| RabbitholeDetected {
                    rabbithole_event_id: r.id.clone(),
                    topic: r.topic.clone(),
                    label: r.label.clone(),
                }),
            overlay: self.overlay(now),
            elapsed_ms: self.elapsed_ms(now),
            streaming_reply,
            last_client_message_id: self.last_client_message_id(),
        }
    }

    pub fn point_brief(point: &Point) -> PointBrief {
        PointBrief { id: point.id.clone(), content: point.content.clone(), context: point.context.clone() }
    }

    pub fn pending_briefs(&self) -> Vec<PointBrief> {
        self.pending().into_iter().map(Self::point_brief).collect()
    }

    pub fn resource_briefs(&self) -> Vec<ResourceBrief> {
        self.resources
            .iter()
            .filter(|r| r.kind == "text")
            .map(|r| ResourceBrief { title: r.title.clone(), body: r.body.clone() })
            .collect()
    }

    /// Points recalled since the rabbit hole under way was entered.
    pub fn recalled_in_rabbithole(&self) -> u32 {
        let Some(entered) = self.branch_start() else { return 0 };
        count(self.outcomes.iter().filter(|o| o.in_rabbithole && o.recalled_at >= entered).count())
    }

    fn branch_start(&self) -> Option<i64> {
        if self.mode() != SessionMode::Rabbithole {
            return None;
        }
        self.path().into_iter().find(|e| e.kind == EntryKind::ModeChange).map(|e| e.created_at)
    }

    // --- changes: written first, then applied here ----------------------------------------

    /// Saves the session's state row.
    pub async fn save(&self, store: &Store) -> Result<(), StoreError> {
        store.save_session_state(self.owner(), self.id(), &self.row.state).await
    }

    /// Appends an entry under the leaf and moves the leaf to it. A learner message whose
    /// client id is already stored is not appended again (`false`).
    pub async fn append(&mut self, store: &Store, new: NewEntry) -> Result<(Entry, bool), StoreError> {
        let parent = self.row.leaf_id.clone();
        self.append_under(store, parent.as_deref(), new).await
    }

    /// Appends an entry under `parent` and moves the leaf to it.
    async fn append_under(
        &mut self,
        store: &Store,
        parent: Option<&str>,
        new: NewEntry,
    ) -> Result<(Entry, bool), StoreError> {
        let (entry, created) = store.append_entry(self.owner(), self.id(), parent, new, true).await?;
        if created {
            self.row.leaf_id = Some(entry.id.clone());
            self.entries.push(entry.clone());
        }
        Ok((entry, created))
    }

    pub async fn set_rabbithole_status(
        &mut self,
        store: &Store,
        id: &str,
        status: RabbitholeStatus,
    ) -> Result<(), StoreError> {
        store.set_rabbithole_status(self.owner(), id, status, None).await?;
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
            .create_rabbithole(self.owner(), self.id(), topic, label, trigger.as_deref(), detection)
            .await?;
        // Read back so the copy here is exactly what is stored.
        let row = store
            .rabbithole(self.owner(), &id)
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
            .set_rabbithole_status(self.owner(), &hole.id, RabbitholeStatus::Entered, branch_from.as_deref())
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
            .finish_rabbithole(self.owner(), &hole.id, &json!(conversation), i64::from(recalled_during))
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

    /// Records a recall and its FSRS review, rated from `confidence` and the tries it took.
    /// False when the point is not in this session or was already recalled.
    pub async fn record_recall(
        &mut self,
        store: &Store,
        point_id: &str,
        confidence: f64,
        failed_attempts: u32,
        now: i64,
    ) -> Result<bool, StoreError> {
        let Some(index) = self.points.iter().position(|p| p.id == point_id) else { return Ok(false) };
        if self.is_recalled(point_id) {
            return Ok(false);
        }
        let in_rabbithole = self.mode() == SessionMode::Rabbithole;
        let rating = fsrs::rating(confidence, failed_attempts);
        let card = fsrs::review(&self.points[index].card, rating, now);
        let outcome = NewOutcome {
            session_id: self.id().to_string(),
            point_id: point_id.to_string(),
            rating: fsrs::rating_name(rating),
            confidence,
            entry_id: self.row.leaf_id.clone(),
            in_rabbithole,
            card: card.clone(),
        };
        if !store.record_recall(self.owner(), &outcome).await? {
            return Ok(false);
        }
        self.points[index].card = card;
        self.outcomes.push(OutcomeRow {
            point_id: point_id.to_string(),
            rating: outcome.rating.into(),
            in_rabbithole,
            recalled_at: now,
        });
        Ok(true)
    }
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A message entry as an agent sees it: the learner is the user, any agent the assistant.
fn as_message(entry: &Entry) -> Option<Message> {
    match (entry.kind, entry.speaker?) {
        (EntryKind::Message, Speaker::Learner) => Some(Message::user(entry.content.clone())),
        (EntryKind::Message, Speaker::Tutor | Speaker::Explorer) => {
            Some(Message::assistant(entry.content.clone()))
        }
        (
            EntryKind::ModeChange
            | EntryKind::BranchSummary
            | EntryKind::Compaction
            | EntryKind::Label
            | EntryKind::Custom,
            _,
        ) => None,
    }
}

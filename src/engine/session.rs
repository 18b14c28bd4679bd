//! A live session's state, loaded wholly from the database: nothing here needs memory of an
//! earlier process to be rebuilt.

use std::collections::HashSet;

use warren_app::protocol::{
    ProviderInfo, RabbitholeDetected, RabbitholeEntered, SessionCompleteOverlay, SessionMode, SessionStarted,
    SessionStatus,
};

use crate::engine::agents::explorer::opening_prompt;
use crate::llm::Message;
use crate::llm::brief::{PointBrief, ResourceBrief};
use crate::store::{
    Entry, EntryKind, OutcomeRow, Point, RabbitholeRow, RabbitholeStatus, RecallSet, Resource, SessionRow,
    Store, StoreError, path_to,
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
        let Some(mut row) = store.session(owner, id).await? else { return Ok(None) };
        // A clock still running here was left by a process that stopped without its sockets
        // detaching: count study time up to the last change, not up to now.
        if let Some(start) = row.state.resumed_at.take() {
            row.state.active_ms += (row.updated_at - start).max(0);
        }
        let Some(set) = store.set(owner, &row.set_id).await? else { return Ok(None) };
        let all_points = store.points(owner, &row.set_id).await?;
        // Points deleted since the session began simply drop out of it.
        let points = row
            .target_point_ids
            .iter()
            .filter_map(|id| all_points.iter().find(|p| &p.id == id).cloned())
            .collect();
        let resources = store.resources(owner, &row.set_id).await?;
        let outcomes = store.outcomes(owner, id).await?;
        let entries = store.entries(owner, id).await?;
        let rabbitholes = store.rabbitholes(owner, id).await?;
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
        Ok(Some(session))
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
        u32::try_from(self.points.len()).unwrap_or(u32::MAX)
    }

    pub fn is_recalled(&self, point_id: &str) -> bool {
        self.outcomes.iter().any(|o| o.point_id == point_id)
    }

    pub fn recalled_count(&self) -> u32 {
        let n = self.points.iter().filter(|p| self.is_recalled(&p.id)).count();
        u32::try_from(n).unwrap_or(u32::MAX)
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

    /// Learner messages on the main line (rabbit-hole branches excluded).
    pub fn learner_messages_in_recall(&self) -> usize {
        self.main_line().into_iter().filter(|e| is_message(e, "user")).count()
    }

    /// The current path without the rabbit-hole branch under way, if any.
    fn main_line(&self) -> Vec<&Entry> {
        let path = self.path();
        match path
            .iter()
            .position(|e| e.kind == EntryKind::ModeChange && self.mode() == SessionMode::Rabbithole)
        {
            Some(i) => path[..i].to_vec(),
            None => path,
        }
    }

    fn learner_messages_since_last_recall(&self) -> u32 {
        let last_recall = self.outcomes.iter().map(|o| o.recalled_at).max().unwrap_or(i64::MIN);
        let n = self
            .main_line()
            .into_iter()
            .filter(|e| is_message(e, "user") && e.created_at > last_recall)
            .count();
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    /// The tutor's conversation: the main line from the root, with branch summaries as notes.
    pub fn tutor_context(&self) -> Vec<Message> {
        let mut messages: Vec<Message> = self
            .main_line()
            .into_iter()
            .filter_map(|e| match e.kind {
                EntryKind::Message => match (e.role.as_deref(), e.agent.as_deref()) {
                    (Some("user"), _) => Some(Message::user(e.content.clone())),
                    (Some("assistant"), Some("tutor") | None) => Some(Message::assistant(e.content.clone())),
                    _ => None,
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
        history.extend(path[start + 1..].iter().filter(|e| e.kind == EntryKind::Message).map(|e| {
            if is_message(e, "user") {
                Message::user(e.content.clone())
            } else {
                Message::assistant(e.content.clone())
            }
        }));
        history
    }

    /// Recent turns for the evaluator and detector, without the latest learner message.
    pub fn judge_context(&self) -> Vec<Message> {
        let mut recent: Vec<Message> = self
            .path()
            .into_iter()
            .filter(|e| e.kind == EntryKind::Message)
            .map(|e| {
                if is_message(e, "user") {
                    Message::user(e.content.clone())
                } else {
                    Message::assistant(e.content.clone())
                }
            })
            .collect();
        if recent.last().is_some_and(|m| m.role == crate::llm::Role::User) {
            recent.pop();
        }
        let skip = recent.len().saturating_sub(JUDGE_CONTEXT);
        recent.split_off(skip)
    }

    /// The agent's text the learner should see now: the last assistant message on the path.
    pub fn current_agent_text(&self) -> String {
        self.path()
            .into_iter()
            .rev()
            .find(|e| is_message(e, "assistant"))
            .map(|e| e.content.clone())
            .unwrap_or_default()
    }

    /// A learner message on the path still waiting for its answer (after a crash or restart).
    pub fn unanswered_message(&self) -> Option<&Entry> {
        self.leaf_entry().filter(|e| is_message(e, "user"))
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
        let Some(entered) = self.main_line_branch_start() else { return 0 };
        let n = self.outcomes.iter().filter(|o| o.in_rabbithole && o.recalled_at >= entered).count();
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    fn main_line_branch_start(&self) -> Option<i64> {
        if self.mode() != SessionMode::Rabbithole {
            return None;
        }
        self.path().into_iter().find(|e| e.kind == EntryKind::ModeChange).map(|e| e.created_at)
    }
}

fn is_message(entry: &Entry, role: &str) -> bool {
    entry.kind == EntryKind::Message && entry.role.as_deref() == Some(role)
}

//! A live session's state, loaded wholly from the database: nothing here needs memory of an
//! earlier process to be rebuilt. Every change goes through a method that writes it first and
//! then updates the copy in memory, so the two never disagree.

use serde_json::json;
use warren_app::protocol::{
    ProviderInfo, RabbitholeDetected, RabbitholeEntered, SessionCompleteOverlay, SessionEvent, SessionMode,
    SessionStarted, SessionStatus, ShowImage, ShowResource,
};

use crate::engine::agents::explorer::opening_prompt;
use crate::engine::fsrs;
use crate::engine::struggle::{self, Struggles};
use crate::engine::turn::TutorPlan;
use crate::llm::Message;
use crate::llm::brief::{Focus, PointBrief, Recap, ResourceBrief, ShowTool, Showable};
use crate::store::{
    Entry, EntryKind, NewEntry, NewOutcome, OutcomeRow, Point, RabbitholeRow, RabbitholeStatus, RecallSet,
    Resource, SessionRow, Speaker, Store, StoreError, Struggle, Tree, resolve,
};

/// How many recent messages the evaluator and detector see besides the latest one.
const JUDGE_CONTEXT: usize = 6;

pub const OVERLAY_MESSAGE: &str = "You've covered everything.";

pub struct LiveSession {
    pub row: SessionRow,
    pub set: RecallSet,
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
    pub async fn load(store: &Store, owner: &str, id: &str) -> Result<Option<Self>, StoreError> {
        let Some(row) = store.session(owner, id).await? else { return Ok(None) };
        let Some(set) = store.set(owner, &row.set_id).await? else { return Ok(None) };
        let points = store.points(owner, &row.set_id).await?;
        let resources = store.resources(owner, &row.set_id).await?;
        let outcomes = store.outcomes(owner, id).await?;
        let entries = store.entries(owner, id).await?;
        let rabbitholes = store.rabbitholes(owner, id).await?;
        let struggles = store.struggles(owner, id).await?;
        let shown = store.shown_resources(owner, id).await?;
        let mut session =
            Self::from_rows(row, set, points, resources, outcomes, entries, rabbitholes, struggles);
        session.shown = shown;
        Ok(Some(session))
    }

    /// Assembles a session from its stored rows.
    #[allow(clippy::too_many_arguments)]
    pub fn from_rows(
        mut row: SessionRow,
        set: RecallSet,
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
        Self { row, set, points, resources, outcomes, tree, rabbitholes, struggles, shown: Vec::new() }
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

    /// A rabbit hole on offer, as the learner is told of it.
    pub fn offer(&self, hole: &RabbitholeRow) -> RabbitholeDetected {
        let trigger = hole.trigger_entry_id.as_deref().and_then(|id| self.tree.get(id));
        RabbitholeDetected {
            rabbithole_event_id: hole.id.clone(),
            topic: hole.topic.clone(),
            label: hole.label.clone(),
            trigger_message_content: trigger.map(|e| e.content.clone()).unwrap_or_default(),
        }
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

    /// The tutor's conversation: the main line from the root, with branch summaries as notes;
    /// after a compaction, its summary and then the main line from its first kept entry.
    pub fn tutor_context(&self) -> Vec<Message> {
        let main = self.main_line();
        let resolved = resolve(&main);
        let summary = resolved.summary.map(|c| Message::user(earlier(&c.content)));
        summary.into_iter().chain(resolved.kept.into_iter().filter_map(tutor_message)).collect()
    }

    /// What to condense, when the tutor's conversation has grown past three quarters of
    /// `budget` tokens: the main line up to the learner message from which the newest quarter
    /// of the budget is kept. `None` in a rabbit hole or when there is nothing to condense.
    pub fn compaction_plan(&self, budget: usize) -> Option<CompactionPlan> {
        if self.mode() != SessionMode::Recall {
            return None;
        }
        let tokens_before = tokens(&self.tutor_context());
        if tokens_before <= budget / 4 * 3 {
            return None;
        }
        let main = self.main_line();
        let resolved = resolve(&main);
        let kept = &resolved.kept;
        let mut newest = 0;
        let mut cut = kept.len();
        for (i, entry) in kept.iter().enumerate().rev() {
            newest += tutor_message(entry).map_or(0, |m| tokens(std::slice::from_ref(&m)));
            cut = i;
            if newest >= budget / 4 {
                break;
            }
        }
        // Kept messages start with the learner, as every conversation sent must.
        let cut = (cut..kept.len()).find(|&i| kept[i].is_message_from(Speaker::Learner))?;
        if cut == 0 {
            return None;
        }
        Some(CompactionPlan {
            first_kept_id: kept[cut].id.clone(),
            previous: resolved.summary.map(|c| c.content.clone()),
            messages: kept[..cut].iter().copied().filter_map(tutor_message).collect(),
            tokens_before,
        })
    }

    /// Writes a compaction on the main line, if the plan still fits it: in recall mode, its
    /// first kept entry on the path, and no learner message waiting for its answer at the
    /// leaf (a compaction there would hide it). False when it no longer fits.
    pub async fn compact(
        &mut self,
        store: &Store,
        plan: &CompactionPlan,
        summary: String,
    ) -> Result<bool, StoreError> {
        let fits = self.mode() == SessionMode::Recall
            && self.unanswered_message().is_none()
            && self.main_line().iter().any(|e| e.id == plan.first_kept_id);
        if !fits {
            return Ok(false);
        }
        let data = json!({"firstKeptEntryId": plan.first_kept_id, "tokensBefore": plan.tokens_before});
        self.append(store, NewEntry::note(EntryKind::Compaction, summary, data)).await?;
        Ok(true)
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
        self.tree.entries.iter().rev().find_map(|e| e.client_message_id.clone())
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
        let (mut images, mut resources) = (Vec::new(), Vec::new());
        for resource in self.shown.iter().filter_map(|id| self.resources.iter().find(|r| &r.id == id)) {
            match Self::show(resource) {
                Show::Image(image) => images.push(image),
                Show::Resource(excerpt) => resources.push(excerpt),
            }
        }
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
                .map(|r| self.offer(r)),
            overlay: self.overlay(now),
            elapsed_ms: self.elapsed_ms(now),
            streaming_reply,
            last_client_message_id: self.last_client_message_id(),
            images,
            resources,
        }
    }

    pub fn point_brief(point: &Point) -> PointBrief {
        PointBrief { id: point.id.clone(), content: point.content.clone(), context: point.context.clone() }
    }

    /// Points the evaluator may check off now (see [`struggle::can_be_credited`]).
    pub fn creditable_briefs(&self) -> Vec<PointBrief> {
        self.pending()
            .into_iter()
            .filter(|p| struggle::can_be_credited(&self.struggles, &p.id))
            .map(Self::point_brief)
            .collect()
    }

    /// The point under discussion: the first in the asking order.
    pub fn discussed(&self) -> Option<&Point> {
        struggle::ask_order(&self.pending(), &self.struggles).first().copied()
    }

    /// The tutor's words so far on the main line: the last of them, which the next reply must
    /// not repeat.
    pub fn last_tutor_reply(&self) -> Option<String> {
        self.main_line()
            .into_iter()
            .rev()
            .find(|e| e.is_message_from(Speaker::Tutor))
            .map(|e| e.content.clone())
    }

    /// What the tutor is about to ask: the pending points in asking order, and the point under
    /// discussion with its rung and notes.
    pub fn plan(&self, focus: Option<&str>, revisit: bool) -> TutorPlan {
        self.plan_as_if(&self.struggles, focus, revisit, &[])
    }

    /// The resources recalling `point_id` shows: those linked to it closely (relevance 0.5 or
    /// more), to reinforce what was retrieved.
    pub fn unlocked_by<'a>(&'a self, point_id: &'a str) -> impl Iterator<Item = &'a Resource> {
        self.resources
            .iter()
            .filter(move |r| r.points.iter().any(|(p, relevance)| p == point_id && *relevance >= 0.5))
    }

    /// The same, for struggles that are not (yet) the session's, as if the points `recalled`
    /// had just been recalled and their resources shown: what the plan will be, for the tutor
    /// that starts before the evaluator answers.
    pub fn plan_as_if(
        &self,
        struggles: &Struggles,
        focus: Option<&str>,
        revisit: bool,
        recalled: &[String],
    ) -> TutorPlan {
        let pending: Vec<&Point> = self.pending().into_iter().filter(|p| !recalled.contains(&p.id)).collect();
        let pending = struggle::ask_order(&pending, struggles);
        let focus = focus.and_then(|id| self.points.iter().find(|p| p.id == id)).map(|point| {
            let struggle = struggles.get(&point.id).cloned().unwrap_or_default();
            Focus {
                point: Self::point_brief(point),
                rung: struggle.rung,
                attempts: struggle.attempts,
                revisit,
                notes: self.notes_for(&point.id),
            }
        });
        // Points the learner has not tried: the tutor's reply must not give them away.
        let untried = pending
            .iter()
            .filter(|p| struggles.get(&p.id).is_none_or(|s| s.attempts == 0 && !s.revealed))
            .map(|p| Self::point_brief(p))
            .collect();
        TutorPlan {
            pending: pending.into_iter().map(Self::point_brief).collect(),
            untried,
            focus,
            previous_reply: self.last_tutor_reply(),
            showable: self
                .showable()
                .into_iter()
                .filter(|s| !recalled.iter().any(|p| self.unlocked_by(p).any(|r| r.id == s.id)))
                .collect(),
            ..TutorPlan::default()
        }
    }

    /// Resources the tutor may still show: those of a kind it can show, not shown yet.
    pub fn showable(&self) -> Vec<Showable> {
        self.resources
            .iter()
            .filter(|r| !self.shown.contains(&r.id))
            .filter_map(|r| {
                let tool =
                    ShowTool::for_kind(&r.kind).filter(|t| *t != ShowTool::Image || r.url.is_some())?;
                Some(Showable {
                    id: r.id.clone(),
                    tool,
                    title: r.title.clone(),
                    points: r.points.iter().map(|(p, _)| p.clone()).collect(),
                })
            })
            .collect()
    }

    /// What showing a resource sends: an image with its caption, or an excerpt card.
    pub fn show(resource: &Resource) -> Show {
        match (ShowTool::for_kind(&resource.kind), &resource.url) {
            (Some(ShowTool::Image), Some(url)) => Show::Image(ShowImage {
                resource_id: resource.id.clone(),
                url: url.clone(),
                caption: Some(resource.title.clone()),
                mime_type: resource.mime_type.clone(),
            }),
            (Some(ShowTool::Image | ShowTool::Resource) | None, _) => Show::Resource(ShowResource {
                resource_id: resource.id.clone(),
                title: resource.title.clone(),
                snippet: snippet(&resource.body),
            }),
        }
    }

    /// Text resources linked to a point.
    fn notes_for(&self, point_id: &str) -> Vec<ResourceBrief> {
        self.resources
            .iter()
            .filter(|r| r.kind == "text" && r.points.iter().any(|(p, _)| p == point_id))
            .map(|r| ResourceBrief { title: r.title.clone(), body: r.body.clone() })
            .collect()
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
        store.save_struggles(self.owner(), self.id(), &rows).await?;
        self.struggles = struggles;
        Ok(())
    }

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
            self.tree.push(entry.clone());
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
        let note = super::actor::branch_summary(&hole.topic, asked, self.recalled_in_rabbithole());
        self.return_from_rabbithole(store, &hole, note).await.map(|_| ())
    }

    /// Records a recall and its FSRS review, rated from `confidence` and the point's own
    /// struggle in this session. False when the point is not in this session or was already
    /// recalled.
    pub async fn record_recall(
        &mut self,
        store: &Store,
        point_id: &str,
        confidence: f64,
        now: i64,
    ) -> Result<bool, StoreError> {
        let Some(index) = self.points.iter().position(|p| p.id == point_id) else { return Ok(false) };
        if self.is_recalled(point_id) {
            return Ok(false);
        }
        let in_rabbithole = self.mode() == SessionMode::Rabbithole;
        let rating = fsrs::rating(confidence, &self.struggles.get(point_id).cloned().unwrap_or_default());
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
            confidence,
            entry_id: outcome.entry_id,
            in_rabbithole,
            recalled_at: now,
        });
        Ok(true)
    }
}

/// A main-line entry as the tutor sees it: messages, and branch summaries as notes.
fn tutor_message(entry: &Entry) -> Option<Message> {
    match entry.kind {
        EntryKind::Message => match entry.speaker? {
            Speaker::Learner => Some(Message::user(entry.content.clone())),
            Speaker::Tutor => Some(Message::assistant(entry.content.clone())),
            Speaker::Explorer => None,
        },
        EntryKind::BranchSummary => Some(Message::user(format!("(Side note: {})", entry.content))),
        EntryKind::ModeChange
        | EntryKind::Compaction
        | EntryKind::Label
        | EntryKind::Summary
        | EntryKind::Custom => None,
    }
}

/// A compaction's summary as the tutor reads it.
fn earlier(summary: &str) -> String {
    format!("(Earlier in this session, in summary: {summary})")
}

/// About how many tokens messages cost: four characters each, and a few per message.
pub fn tokens(messages: &[Message]) -> usize {
    messages.iter().map(|m| m.content.chars().count().div_ceil(4) + 4).sum()
}

/// The older part of the main line to condense, and from where the conversation is kept.
#[derive(Clone, Debug)]
pub struct CompactionPlan {
    pub first_kept_id: String,
    /// The summary of the compaction this one replaces.
    pub previous: Option<String>,
    pub messages: Vec<Message>,
    pub tokens_before: usize,
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
            | EntryKind::Summary
            | EntryKind::Custom,
            _,
        ) => None,
    }
}

/// A resource as the live view shows it.
pub enum Show {
    Image(ShowImage),
    Resource(ShowResource),
}

impl From<Show> for SessionEvent {
    fn from(show: Show) -> Self {
        match show {
            Show::Image(image) => SessionEvent::ShowImage(image),
            Show::Resource(excerpt) => SessionEvent::ShowResource(excerpt),
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

#[cfg(test)]
mod tests {
    use warren_app::protocol::{SessionMode, SessionStatus};

    use super::*;
    use crate::llm::Role;
    use crate::store::{FsrsCard, SessionState};

    fn point(id: &str) -> Point {
        Point {
            id: id.into(),
            set_id: "set".into(),
            position: 0,
            content: format!("fact {id}"),
            context: String::new(),
            card: FsrsCard::new(0),
        }
    }

    fn row(targets: &[&str]) -> SessionRow {
        SessionRow {
            id: "s".into(),
            owner_id: "me".into(),
            set_id: "set".into(),
            target_point_ids: targets.iter().map(|t| t.to_string()).collect(),
            leaf_id: None,
            started_at: 0,
            updated_at: 1_000,
            state: SessionState {
                status: SessionStatus::InProgress,
                mode: SessionMode::Recall,
                active_rabbithole_id: None,
                decline_cooldown: 0,
                overlay_dismissed: false,
                active_ms: 0,
                resumed_at: None,
                ended_at: None,
            },
        }
    }

    fn set() -> RecallSet {
        RecallSet {
            id: "set".into(),
            owner_id: "me".into(),
            name: "Set".into(),
            description: String::new(),
            guidelines: String::new(),
            archived_at: None,
        }
    }

    fn session(targets: &[&str], points: &[&str]) -> LiveSession {
        LiveSession::from_rows(
            row(targets),
            set(),
            points.iter().map(|p| point(p)).collect(),
            vec![],
            vec![],
            vec![],
            vec![],
            Struggles::new(),
        )
    }

    /// Appends an entry under the leaf, as the store would.
    fn push(s: &mut LiveSession, new: NewEntry, at: i64) -> String {
        let id = format!("e{}", s.tree.len() + 1);
        s.tree.push(Entry {
            id: id.clone(),
            session_id: "s".into(),
            parent_id: s.row.leaf_id.clone(),
            seq: s.tree.len() as i64 + 1,
            created_at: at,
            kind: new.kind,
            speaker: new.speaker,
            content: new.content,
            data: new.data,
            client_message_id: new.client_message_id,
        });
        s.row.leaf_id = Some(id.clone());
        id
    }

    fn say(s: &mut LiveSession, speaker: Speaker, text: &str, at: i64) -> String {
        push(s, NewEntry::message(speaker, text), at)
    }

    fn recall(s: &mut LiveSession, point: &str, at: i64, in_rabbithole: bool) {
        s.outcomes.push(OutcomeRow {
            point_id: point.into(),
            rating: "good".into(),
            confidence: 1.0,
            entry_id: None,
            in_rabbithole,
            recalled_at: at,
        });
    }

    fn contents(messages: &[Message]) -> Vec<(Role, &str)> {
        messages.iter().map(|m| (m.role, m.content.as_str())).collect()
    }

    #[test]
    fn points_deleted_since_the_start_drop_out_and_the_rest_keep_their_order() {
        let s = session(&["b", "gone", "a"], &["a", "b"]);
        let ids: Vec<&str> = s.points.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["b", "a"]);
        assert_eq!(s.total(), 2);
    }

    #[test]
    fn a_clock_left_running_by_a_crash_counts_up_to_the_last_change() {
        let mut r = row(&["a"]);
        r.state.active_ms = 5_000;
        r.state.resumed_at = Some(400);
        let s = LiveSession::from_rows(
            r,
            set(),
            vec![point("a")],
            vec![],
            vec![],
            vec![],
            vec![],
            Struggles::new(),
        );
        // updated_at is 1_000: 600 ms of the stretch counted, and the clock stopped.
        assert_eq!(s.row.state.active_ms, 5_600);
        assert_eq!(s.row.state.resumed_at, None);
        assert_eq!(s.elapsed_ms(99_999), 5_600);
    }

    #[test]
    fn the_clock_runs_while_resumed_and_folds_when_stopped() {
        let mut s = session(&["a"], &["a"]);
        s.row.state.active_ms = 1_000;
        s.row.state.resumed_at = Some(10_000);
        assert_eq!(s.elapsed_ms(12_500), 3_500);
        // A clock running backwards (another machine's time) adds nothing.
        assert_eq!(s.elapsed_ms(9_000), 1_000);
        s.fold_clock(14_000);
        assert_eq!((s.row.state.active_ms, s.row.state.resumed_at), (5_000, None));
        assert_eq!(s.elapsed_ms(20_000), 5_000);
    }

    #[test]
    fn the_overlay_shows_once_everything_is_recalled_until_dismissed() {
        let mut s = session(&["a", "b"], &["a", "b"]);
        recall(&mut s, "a", 1, false);
        assert!(s.overlay(0).is_none(), "one point still open");
        recall(&mut s, "b", 2, false);
        let overlay = s.overlay(0).expect("everything recalled");
        assert_eq!((overlay.recalled_count, overlay.total_points), (2, 2));
        assert_eq!(overlay.message, OVERLAY_MESSAGE);
        s.row.state.mode = SessionMode::Rabbithole;
        assert!(s.overlay(0).is_none(), "it waits for the rabbit hole's end");
        s.row.state.mode = SessionMode::Recall;
        s.row.state.overlay_dismissed = true;
        assert!(s.overlay(0).is_none(), "dismissed");
        // A recall of a point outside the session changes nothing.
        let mut t = session(&["a"], &["a"]);
        recall(&mut t, "elsewhere", 1, false);
        assert_eq!(t.recalled_count(), 0);
        assert!(t.overlay(0).is_none());
    }

    #[test]
    fn the_tutor_sees_the_main_line_with_a_branch_summary_and_never_the_branch() {
        let mut s = session(&["a"], &["a"]);
        say(&mut s, Speaker::Tutor, "What do you remember?", 1);
        say(&mut s, Speaker::Learner, "Tides?", 2);
        let branch_from = s.row.leaf_id.clone();
        s.rabbitholes.push(RabbitholeRow {
            id: "r".into(),
            session_id: "s".into(),
            topic: "tides".into(),
            label: "Tides".into(),
            status: RabbitholeStatus::Entered,
            trigger_entry_id: branch_from.clone(),
            branch_from_id: branch_from.clone(),
            conversation: None,
            detection: None,
            points_recalled: 0,
            created_at: 2,
            updated_at: 2,
        });
        s.row.state.mode = SessionMode::Rabbithole;
        s.row.state.active_rabbithole_id = Some("r".into());
        push(&mut s, NewEntry::note(EntryKind::ModeChange, "", serde_json::json!({})), 3);
        say(&mut s, Speaker::Explorer, "The moon pulls the sea.", 4);
        say(&mut s, Speaker::Learner, "And the sun?", 5);
        recall(&mut s, "a", 5, true);

        // Inside: the tutor's context stops where the branch began.
        assert_eq!(
            contents(&s.tutor_context()),
            [(Role::Assistant, "What do you remember?"), (Role::User, "Tides?")]
        );
        assert_eq!(s.learner_messages_in_recall(), 1);
        assert_eq!(s.recalled_in_rabbithole(), 1);
        // The explorer sees the opt-in, then its own branch; the learner's latest message once.
        let explorer = s.explorer_history();
        assert_eq!(explorer[0].content, opening_prompt("tides"));
        assert_eq!(
            contents(&explorer[1..]),
            [(Role::Assistant, "The moon pulls the sea."), (Role::User, "And the sun?")]
        );
        // The judges see recent messages without the latest learner one.
        assert_eq!(s.judge_context().last().map(|m| m.content.as_str()), Some("The moon pulls the sea."));
        assert_eq!(s.unanswered_message().map(|e| e.content.as_str()), Some("And the sun?"));

        // Back on the main line: the summary hangs from where the branch began.
        s.row.leaf_id = branch_from;
        s.row.state.mode = SessionMode::Recall;
        s.row.state.active_rabbithole_id = None;
        push(&mut s, NewEntry::note(EntryKind::BranchSummary, "Explored tides.", serde_json::json!({})), 6);
        assert_eq!(
            contents(&s.tutor_context()),
            [
                (Role::Assistant, "What do you remember?"),
                (Role::User, "Tides?"),
                (Role::User, "(Side note: Explored tides.)"),
            ]
        );
        assert_eq!(s.current_agent_text(), "What do you remember?");
        assert!(s.unanswered_message().is_none());
    }

    #[test]
    fn the_plan_asks_the_discussed_point_at_its_rung_and_hides_what_cannot_be_credited() {
        let mut s = session(&["a", "b"], &["a", "b"]);
        s.points[1].card.due_at = -5; // b is more overdue
        s.resources.push(Resource {
            id: "r".into(),
            kind: "text".into(),
            title: "Notes on b".into(),
            body: "b is for bees.".into(),
            url: None,
            mime_type: None,
            licence: None,
            points: vec![("b".into(), 1.0)],
        });
        s.struggles.insert(
            "b".into(),
            crate::store::Struggle {
                attempts: 2,
                rung: crate::llm::brief::Rung::Nudge,
                ..Default::default()
            },
        );
        assert_eq!(s.discussed().map(|p| p.id.as_str()), Some("b"));
        say(&mut s, Speaker::Tutor, "A nudge.", 1);
        let plan = s.plan(Some("b"), false);
        let focus = plan.focus.expect("a focus");
        assert_eq!(
            (focus.point.id.as_str(), focus.rung, focus.attempts),
            ("b", crate::llm::brief::Rung::Nudge, 2)
        );
        assert_eq!(focus.notes.len(), 1);
        assert_eq!(plan.pending.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(), ["b", "a"]);
        assert_eq!(plan.previous_reply.as_deref(), Some("A nudge."));
        // At the answer rung, saying it back earns no credit.
        if let Some(b) = s.struggles.get_mut("b") {
            b.rung = crate::llm::brief::Rung::Answer;
        }
        assert_eq!(s.creditable_briefs().iter().map(|p| p.id.as_str()).collect::<Vec<_>>(), ["a"]);
    }

    #[test]
    fn a_long_main_line_is_planned_for_compaction_and_read_through_its_summary() {
        let mut s = session(&["a"], &["a"]);
        say(&mut s, Speaker::Tutor, "What do you remember?", 0);
        for i in 1..60 {
            say(&mut s, Speaker::Learner, &format!("answer {i} with a few more words in it"), i);
            say(&mut s, Speaker::Tutor, &format!("question {i}, asked in a few more words"), i);
        }
        let budget = 400;
        let before = tokens(&s.tutor_context());
        assert!(before > budget);
        let plan = s.compaction_plan(budget).expect("over three quarters of the budget");
        assert_eq!(plan.tokens_before, before);
        assert!(plan.previous.is_none());
        let kept = s.tree.get(&plan.first_kept_id).expect("on the path").clone();
        assert!(kept.is_message_from(Speaker::Learner), "the kept part starts with the learner");
        assert_eq!(plan.messages.first().map(|m| m.content.as_str()), Some("What do you remember?"));

        push(
            &mut s,
            NewEntry::note(
                EntryKind::Compaction,
                "They tried hard.",
                json!({"firstKeptEntryId": plan.first_kept_id}),
            ),
            100,
        );
        let context = s.tutor_context();
        assert_eq!(context[0].content, "(Earlier in this session, in summary: They tried hard.)");
        assert_eq!(context[1].content, kept.content);
        assert_eq!(
            context.last().map(|m| m.content.as_str()),
            Some("question 59, asked in a few more words")
        );
        let after = tokens(&context);
        assert!(after <= budget / 2, "{after} tokens after compaction");
        assert!(s.compaction_plan(budget).is_none(), "nothing more to condense yet");

        // The next compaction folds this one's summary in.
        for i in 60..90 {
            say(&mut s, Speaker::Learner, &format!("answer {i} with a few more words in it"), i);
            say(&mut s, Speaker::Tutor, &format!("question {i}, asked in a few more words"), i);
        }
        let plan = s.compaction_plan(budget).expect("over budget again");
        assert_eq!(plan.previous.as_deref(), Some("They tried hard."));
        assert_eq!(plan.messages[0].content, kept.content, "it condenses from the last kept entry on");
    }
}

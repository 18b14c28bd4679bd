//! What each agent reads of the session: the tutor its main line (compacted when long), the
//! explorer the rabbit hole under way, the judges the latest turns.

use serde_json::json;
use warren_app::protocol::SessionMode;

use crate::engine::agents::explorer::opening_prompt;
use crate::llm::Message;
use crate::store::{Entry, EntryKind, NewEntry, Speaker, Store, StoreError, resolve};

use super::LiveSession;

/// How many recent messages the evaluator and detector see besides the latest one.
const JUDGE_CONTEXT: usize = 6;

impl LiveSession {
    /// The tutor's conversation: the main line from the root, with branch summaries as notes;
    /// after a compaction, its summary and then the main line from its first kept entry.
    pub fn tutor_context(&self) -> Vec<Message> {
        let main = self.main_line();
        let resolved = resolve(&main);
        let summary = resolved.summary.map(|c| Message::user(earlier(&c.content)));
        summary
            .into_iter()
            .chain(resolved.kept.into_iter().filter_map(|e| message(e, Reader::Tutor)))
            .collect()
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
            newest += message(entry, Reader::Tutor).map_or(0, |m| tokens(std::slice::from_ref(&m)));
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
            messages: kept[..cut].iter().copied().filter_map(|e| message(e, Reader::Tutor)).collect(),
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
        history.extend(path[start + 1..].iter().filter_map(|e| message(e, Reader::Messages)));
        history
    }

    /// Recent turns for the evaluator and detector, without the latest learner message.
    pub fn judge_context(&self) -> Vec<Message> {
        let mut recent: Vec<Message> =
            self.path().into_iter().filter_map(|e| message(e, Reader::Messages)).collect();
        if recent.last().is_some_and(|m| m.role == crate::llm::Role::User) {
            recent.pop();
        }
        let skip = recent.len().saturating_sub(JUDGE_CONTEXT);
        recent.split_off(skip)
    }
}

/// Who reads a conversation, which decides how its entries become messages.
#[derive(Clone, Copy)]
enum Reader {
    /// The tutor reads the main line: the learner's words and its own, and each finished
    /// rabbit hole as a note; never the explorer's words.
    Tutor,
    /// The explorer and the judges read the messages only, any agent's as the assistant's.
    Messages,
}

/// An entry as a message for `reader`, if it reads it.
fn message(entry: &Entry, reader: Reader) -> Option<Message> {
    match (entry.kind, entry.speaker, reader) {
        (EntryKind::Message, Some(Speaker::Learner), _) => Some(Message::user(entry.content.clone())),
        (EntryKind::Message, Some(Speaker::Tutor), _)
        | (EntryKind::Message, Some(Speaker::Explorer), Reader::Messages) => {
            Some(Message::assistant(entry.content.clone()))
        }
        (EntryKind::BranchSummary, _, Reader::Tutor) => {
            Some(Message::user(format!("(Side note: {})", entry.content)))
        }
        (EntryKind::Message, Some(Speaker::Explorer), Reader::Tutor)
        | (EntryKind::Message, None, _)
        | (EntryKind::BranchSummary, _, Reader::Messages)
        | (
            EntryKind::ModeChange
            | EntryKind::Compaction
            | EntryKind::Label
            | EntryKind::Summary
            | EntryKind::Custom,
            _,
            _,
        ) => None,
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

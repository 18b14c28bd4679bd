//! Operations on a session's tree beyond appending: one entry, its children, the path from
//! the root to an entry, the whole tree, the leaf pointer, branches with summaries, labels and
//! compaction. Each reads by index (primary key, `parent_id`, or `(session_id, kind, seq)`),
//! never by scanning the session, except [`Store::tree`], which is the whole session.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use warren_app::learner::LearnerId;

use serde_json::json;
use warren_app::tree::EntryKind;

use super::entries::{Entry, NewEntry, select_entries};
use super::{Appended, Reads, SessionRow, Store, StoreError};

/// A session's entries with what is needed to walk them: entries by id, children by parent
/// and each entry's current label. (The leaf is the session row's.)
#[derive(Clone, Debug, Default)]
pub struct Tree {
    /// Every entry, in append order.
    pub entries: Vec<Entry>,
    /// Each labelled entry's label (the newest label entry for it wins; an empty one clears).
    pub labels: HashMap<String, String>,
    index: HashMap<String, usize>,
    children: HashMap<String, Vec<usize>>,
    roots: Vec<usize>,
}

impl Tree {
    pub fn new(entries: Vec<Entry>) -> Self {
        let mut tree = Self::default();
        for entry in entries {
            tree.push(entry);
        }
        tree
    }

    /// Adds an entry just stored (the leaf is the caller's to move).
    pub fn push(&mut self, entry: Entry) {
        let i = self.entries.len();
        self.index.insert(entry.id.clone(), i);
        match &entry.parent_id {
            Some(parent) => self.children.entry(parent.clone()).or_default().push(i),
            None => self.roots.push(i),
        }
        if entry.kind == EntryKind::Label {
            apply_label(&mut self.labels, &entry);
        }
        self.entries.push(entry);
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The newest entry's `seq` (0 when there is none): entries arrive in `seq` order.
    pub fn last_seq(&self) -> i64 {
        self.entries.last().map_or(0, |e| e.seq)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.index.get(id).map(|&i| &self.entries[i])
    }

    /// Entries without a parent, in append order.
    pub fn roots(&self) -> impl Iterator<Item = &Entry> {
        self.roots.iter().map(|&i| &self.entries[i])
    }

    /// An entry's children, in append order.
    pub fn children<'t>(&'t self, id: &str) -> impl Iterator<Item = &'t Entry> + use<'t> {
        self.children.get(id).into_iter().flatten().map(|&i| &self.entries[i])
    }

    /// From the root to `id` (empty when `id` is not in the tree).
    pub fn path(&self, id: Option<&str>) -> Vec<&Entry> {
        let mut path = Vec::new();
        let mut next = id.and_then(|id| self.get(id));
        while let Some(entry) = next {
            // Bounded by the entry count, so a corrupt cycle cannot loop forever.
            if path.len() == self.entries.len() {
                break;
            }
            path.push(entry);
            next = entry.parent_id.as_deref().and_then(|p| self.get(p));
        }
        path.reverse();
        path
    }

    /// The ids on the path from the root to `id`, for constant-time "is it on the path?".
    pub fn path_ids(&self, id: Option<&str>) -> HashSet<&str> {
        self.path(id).into_iter().map(|e| e.id.as_str()).collect()
    }

    pub fn label(&self, id: &str) -> Option<&str> {
        self.labels.get(id).map(String::as_str)
    }
}

/// Labels from label entries in append order: the newest for each target wins, and an empty
/// label clears it.
fn labels_of<'a>(entries: impl Iterator<Item = &'a Entry>) -> HashMap<String, String> {
    let mut labels = HashMap::new();
    for entry in entries.filter(|e| e.kind == EntryKind::Label) {
        apply_label(&mut labels, entry);
    }
    labels
}

fn apply_label(labels: &mut HashMap<String, String>, entry: &Entry) {
    let Some(target) = entry.data.as_ref().and_then(|d| d.get("targetId")).and_then(|t| t.as_str()) else {
        return;
    };
    let label = entry.content.trim();
    if label.is_empty() {
        labels.remove(target);
    } else {
        labels.insert(target.to_string(), label.to_string());
    }
}

/// What an agent's context is made of on a path: the newest compaction's summary, then the
/// entries from its first kept entry on (compaction entries themselves left out).
#[derive(Debug, PartialEq)]
pub struct Resolved<'a> {
    pub summary: Option<&'a Entry>,
    pub kept: Vec<&'a Entry>,
}

/// Resolves compaction on a root-to-leaf path (see [`Resolved`]). A compaction whose first
/// kept entry is not on the path keeps what follows the compaction itself.
pub fn resolve<'a>(path: &[&'a Entry]) -> Resolved<'a> {
    let Some(at) = path.iter().rposition(|e| e.kind == EntryKind::Compaction) else {
        return Resolved { summary: None, kept: path.to_vec() };
    };
    let compaction = path[at];
    let first_kept =
        first_kept_id(compaction).and_then(|id| path[..at].iter().position(|e| e.id == id)).unwrap_or(at + 1);
    let kept = path[first_kept.min(path.len())..]
        .iter()
        .copied()
        .filter(|e| e.kind != EntryKind::Compaction)
        .collect();
    Resolved { summary: Some(compaction), kept }
}

/// A compaction entry's `firstKeptEntryId`.
pub fn first_kept_id(entry: &Entry) -> Option<&str> {
    entry.data.as_ref()?.get("firstKeptEntryId")?.as_str()
}

impl Store {
    /// One entry of a session.
    pub async fn entry(
        &self,
        learner: &LearnerId,
        session_id: &str,
        id: &str,
    ) -> Result<Option<Entry>, StoreError> {
        Ok(sqlx::query_as(select_entries!("WHERE id = $1 AND session_id = $2 AND owner_id = $3"))
            .bind(id)
            .bind(session_id)
            .bind(learner)
            .optional(self.read())
            .await?)
    }

    /// An entry's children, in append order.
    pub async fn children(
        &self,
        learner: &LearnerId,
        session_id: &str,
        id: &str,
    ) -> Result<Vec<Entry>, StoreError> {
        Ok(sqlx::query_as(select_entries!(
            "WHERE parent_id = $1 AND session_id = $2 AND owner_id = $3 ORDER BY seq"
        ))
        .bind(id)
        .bind(session_id)
        .bind(learner)
        .all(self.read())
        .await?)
    }

    /// The entries from the root to `id`, walking up parent by parent (a child is always
    /// appended after its parent, so `seq` orders the path). Empty for an unknown id.
    pub async fn path(
        &self,
        learner: &LearnerId,
        session_id: &str,
        id: &str,
    ) -> Result<Vec<Entry>, StoreError> {
        Ok(sqlx::query_as(select_entries!(
            "WHERE id IN (
                WITH RECURSIVE up(id, parent_id, depth) AS (
                    SELECT id, parent_id, 0 FROM session_entries
                     WHERE id = $1 AND session_id = $2 AND owner_id = $3
                    UNION ALL
                    SELECT e.id, e.parent_id, up.depth + 1 FROM session_entries e
                      JOIN up ON e.id = up.parent_id
                     WHERE e.session_id = $2 AND up.depth < 1000000
                )
                SELECT id FROM up
            ) ORDER BY seq"
        ))
        .bind(id)
        .bind(session_id)
        .bind(learner)
        .all(self.read())
        .await?)
    }

    /// The whole tree of a session with its row (which holds the leaf); `None` when the
    /// session is not the learner's. Entries are never changed or removed and `seq` only
    /// grows, so a tree read lately is brought up to date by reading the entries appended
    /// since (usually none), on any instance, instead of the whole session again.
    pub async fn tree(
        &self,
        learner: &LearnerId,
        session_id: &str,
    ) -> Result<Option<(SessionRow, Arc<Tree>)>, StoreError> {
        let Some(session) = self.session(learner, session_id).await? else {
            self.cache().forget(session_id);
            return Ok(None);
        };
        let cached = self.cache().take(session_id, learner);
        let mut tree = match cached {
            Some(tree) => tree,
            None => Arc::new(Tree::new(self.entries(learner, session_id).await?)),
        };
        let newer = self.entries_after(learner, session_id, tree.last_seq()).await?;
        if !newer.is_empty() {
            let tree = Arc::make_mut(&mut tree);
            for entry in newer {
                tree.push(entry);
            }
        }
        self.cache().keep(session_id, learner, tree.clone());
        Ok(Some((session, tree)))
    }

    /// Entries appended after `seq`, in order.
    async fn entries_after(
        &self,
        learner: &LearnerId,
        session_id: &str,
        seq: i64,
    ) -> Result<Vec<Entry>, StoreError> {
        Ok(sqlx::query_as(select_entries!(
            "WHERE session_id = $1 AND owner_id = $2 AND seq > $3 ORDER BY seq"
        ))
        .bind(session_id)
        .bind(learner)
        .bind(seq)
        .all(self.read())
        .await?)
    }

    /// Drops these sessions' trees from the cache (their rows are gone).
    pub(super) fn forget_trees(&self, sessions: &[String]) {
        let mut cache = self.cache();
        for id in sessions {
            cache.forget(id);
        }
    }

    fn cache(&self) -> std::sync::MutexGuard<'_, TreeCache> {
        // A panic while holding it leaves nothing half-written that matters: it is a cache.
        self.trees.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Moves the session's leaf to `id` (`None`: the next entry starts a new root). Kept in
    /// the database, so a branch with nothing appended yet survives a restart. False when the
    /// entry is not in the session.
    pub async fn set_leaf(
        &self,
        learner: &LearnerId,
        session_id: &str,
        id: Option<&str>,
    ) -> Result<bool, StoreError> {
        if let Some(id) = id
            && self.entry(learner, session_id, id).await?.is_none()
        {
            return Ok(false);
        }
        let done = self
            .write_one(
                sqlx::query(
                    "UPDATE sessions SET leaf_id = $1, updated_at = $2 WHERE id = $3 AND owner_id = $4",
                )
                .bind(id)
                .bind(super::now_ms())
                .bind(session_id)
                .bind(learner),
            )
            .await?;
        Ok(done == 1)
    }

    /// Appends a `branch_summary` under `from_id` and moves the leaf to it: the conversation
    /// goes on from `from_id` with a note of what the abandoned branch held. `None` when
    /// `from_id` is not in the session.
    pub async fn branch_with_summary(
        &self,
        learner: &LearnerId,
        session_id: &str,
        from_id: &str,
        summary: &str,
        data: serde_json::Value,
    ) -> Result<Option<Entry>, StoreError> {
        if self.entry(learner, session_id, from_id).await?.is_none() {
            return Ok(None);
        }
        let new = NewEntry::note(EntryKind::BranchSummary, summary, data);
        let Appended { entry, .. } = self.append_entry(learner, session_id, Some(from_id), new, true).await?;
        Ok(Some(entry))
    }

    /// Labels an entry (`None` or an empty label clears it) by appending a label entry. It
    /// hangs off the leaf without moving it: a label changes no agent's context. False when
    /// the target is not in the session or is itself a label.
    pub async fn set_label(
        &self,
        learner: &LearnerId,
        session_id: &str,
        target_id: &str,
        label: Option<&str>,
    ) -> Result<bool, StoreError> {
        let Some(session) = self.session(learner, session_id).await? else { return Ok(false) };
        match self.entry(learner, session_id, target_id).await? {
            Some(target) if target.kind != EntryKind::Label => {}
            Some(_) | None => return Ok(false),
        }
        let label: String =
            label.unwrap_or_default().trim().chars().take(warren_app::forms::limits::LABEL).collect();
        let new = NewEntry::note(EntryKind::Label, label, json!({ "targetId": target_id }));
        self.append_entry(learner, session_id, session.leaf_id.as_deref(), new, false).await?;
        Ok(true)
    }

    /// Each labelled entry's current label.
    pub async fn labels(
        &self,
        learner: &LearnerId,
        session_id: &str,
    ) -> Result<HashMap<String, String>, StoreError> {
        let entries: Vec<Entry> = sqlx::query_as(select_entries!(
            "WHERE session_id = $1 AND kind = 'label' AND owner_id = $2 ORDER BY seq"
        ))
        .bind(session_id)
        .bind(learner)
        .all(self.read())
        .await?;
        Ok(labels_of(entries.iter()))
    }
}

/// Trees read lately, least recently used dropped first once they hold more than
/// [`CACHED_ENTRIES`] entries together.
#[derive(Default)]
pub struct TreeCache {
    trees: HashMap<String, (LearnerId, Arc<Tree>, u64)>,
    clock: u64,
}

/// Entries the cache holds at most (a few hundred bytes each).
const CACHED_ENTRIES: usize = 100_000;

impl std::fmt::Debug for TreeCache {
    // Counts, not the learners' words.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let entries: usize = self.trees.values().map(|(_, tree, _)| tree.len()).sum();
        write!(f, "TreeCache {{ trees: {}, entries: {entries} }}", self.trees.len())
    }
}

impl TreeCache {
    /// The cached tree of a session, if it is the learner's.
    fn take(&mut self, session_id: &str, learner: &LearnerId) -> Option<Arc<Tree>> {
        self.trees.get(session_id).filter(|(o, _, _)| o == learner).map(|(_, tree, _)| tree.clone())
    }

    fn keep(&mut self, session_id: &str, learner: &LearnerId, tree: Arc<Tree>) {
        self.clock += 1;
        self.trees.insert(session_id.to_string(), (learner.clone(), tree, self.clock));
        while self.trees.values().map(|(_, t, _)| t.len()).sum::<usize>() > CACHED_ENTRIES
            && self.trees.len() > 1
        {
            let Some(oldest) =
                self.trees.iter().min_by_key(|(_, (_, _, used))| *used).map(|(id, _)| id.clone())
            else {
                break;
            };
            self.trees.remove(&oldest);
        }
    }

    fn forget(&mut self, session_id: &str) {
        self.trees.remove(session_id);
    }
}

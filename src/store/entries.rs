//! The session tree: append-only entries with `id`/`parent_id`, and a leaf pointer per session.

use std::collections::HashMap;

use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Store, StoreError, new_id, now_ms};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// A learner or agent message (`role`, `agent`, `content`).
    Message,
    /// Entering or leaving a rabbit hole (`data.mode`, `data.rabbitholeId`).
    ModeChange,
    /// What a finished branch explored, written where the main line resumes.
    BranchSummary,
    /// Stands in for older entries in agent context (`data.firstKeptEntryId`).
    Compaction,
    /// A learner's label on another entry (`data.targetId`).
    Label,
    /// Anything else worth keeping in the history (not sent to agents).
    Custom,
}

impl EntryKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::Message => "message",
            EntryKind::ModeChange => "mode_change",
            EntryKind::BranchSummary => "branch_summary",
            EntryKind::Compaction => "compaction",
            EntryKind::Label => "label",
            EntryKind::Custom => "custom",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "message" => EntryKind::Message,
            "mode_change" => EntryKind::ModeChange,
            "branch_summary" => EntryKind::BranchSummary,
            "compaction" => EntryKind::Compaction,
            "label" => EntryKind::Label,
            "custom" => EntryKind::Custom,
            _ => return None,
        })
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub id: String,
    pub session_id: String,
    pub parent_id: Option<String>,
    pub seq: i64,
    pub created_at: i64,
    pub kind: EntryKind,
    /// `user` or `assistant` for messages.
    pub role: Option<String>,
    /// `tutor` or `explorer` for assistant messages.
    pub agent: Option<String>,
    pub content: String,
    pub data: Option<serde_json::Value>,
    pub client_message_id: Option<String>,
}

#[derive(Clone, Debug, Default)]
pub struct NewEntry {
    pub parent_id: Option<String>,
    pub kind: Option<EntryKind>,
    pub role: Option<&'static str>,
    pub agent: Option<&'static str>,
    pub content: String,
    pub data: Option<serde_json::Value>,
    pub client_message_id: Option<String>,
}

macro_rules! entry_columns {
    () => {
        "id, session_id, parent_id, seq, created_at, kind, role, agent, content, data, client_message_id"
    };
}

fn entry(row: &AnyRow) -> Result<Entry, StoreError> {
    let kind: String = row.try_get("kind")?;
    let data: Option<String> = row.try_get("data")?;
    Ok(Entry {
        id: row.try_get("id")?,
        session_id: row.try_get("session_id")?,
        parent_id: row.try_get("parent_id")?,
        seq: row.try_get("seq")?,
        created_at: row.try_get("created_at")?,
        kind: EntryKind::parse(&kind).ok_or_else(|| StoreError::Corrupt(format!("entry kind '{kind}'")))?,
        role: row.try_get("role")?,
        agent: row.try_get("agent")?,
        content: row.try_get("content")?,
        data: data
            .map(|d| serde_json::from_str(&d))
            .transpose()
            .map_err(|e| StoreError::Corrupt(format!("entry data: {e}")))?,
        client_message_id: row.try_get("client_message_id")?,
    })
}

impl Store {
    /// Appends an entry and, when `advance_leaf`, points the session's leaf at it, in one
    /// transaction. An entry whose `client_message_id` is already stored is not written again:
    /// the stored one is returned with `false`.
    pub async fn append_entry(
        &self,
        owner: &str,
        session_id: &str,
        new: NewEntry,
        advance_leaf: bool,
    ) -> Result<(Entry, bool), StoreError> {
        let mut tx = self.write_transaction().await?;
        if let Some(client_id) = &new.client_message_id {
            let existing = sqlx::query(concat!(
                "SELECT ",
                entry_columns!(),
                " FROM session_entries
                 WHERE session_id = $1 AND client_message_id = $2 AND owner_id = $3"
            ))
            .bind(session_id)
            .bind(client_id)
            .bind(owner)
            .fetch_optional(&mut *tx)
            .await?;
            if let Some(row) = existing {
                return Ok((entry(&row)?, false));
            }
        }
        let seq: i64 = sqlx::query(
            "SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM session_entries WHERE session_id = $1",
        )
        .bind(session_id)
        .fetch_one(&mut *tx)
        .await?
        .try_get("next")?;
        let kind = new.kind.unwrap_or(EntryKind::Message);
        let stored = Entry {
            id: new_id(),
            session_id: session_id.to_string(),
            parent_id: new.parent_id,
            seq,
            created_at: now_ms(),
            kind,
            role: new.role.map(str::to_string),
            agent: new.agent.map(str::to_string),
            content: new.content,
            data: new.data,
            client_message_id: new.client_message_id,
        };
        sqlx::query(
            "INSERT INTO session_entries (id, session_id, owner_id, parent_id, seq, created_at, kind, role, agent,
                 content, data, client_message_id)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
        )
        .bind(&stored.id)
        .bind(session_id)
        .bind(owner)
        .bind(&stored.parent_id)
        .bind(stored.seq)
        .bind(stored.created_at)
        .bind(kind.as_str())
        .bind(&stored.role)
        .bind(&stored.agent)
        .bind(&stored.content)
        .bind(stored.data.as_ref().map(|d| d.to_string()))
        .bind(&stored.client_message_id)
        .execute(&mut *tx)
        .await?;
        if advance_leaf {
            sqlx::query("UPDATE sessions SET leaf_id = $1, updated_at = $2 WHERE id = $3 AND owner_id = $4")
                .bind(&stored.id)
                .bind(stored.created_at)
                .bind(session_id)
                .bind(owner)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok((stored, true))
    }

    /// Every entry of a session in append order.
    pub async fn entries(&self, owner: &str, session_id: &str) -> Result<Vec<Entry>, StoreError> {
        let rows = sqlx::query(concat!(
            "SELECT ",
            entry_columns!(),
            " FROM session_entries WHERE session_id = $1 AND owner_id = $2 ORDER BY seq"
        ))
        .bind(session_id)
        .bind(owner)
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(entry).collect()
    }
}

/// The entries from the root to `leaf`, in order (the context an agent sees, before compaction).
pub fn path_to<'a>(entries: &'a [Entry], leaf: Option<&str>) -> Vec<&'a Entry> {
    let by_id: HashMap<&str, &Entry> = entries.iter().map(|e| (e.id.as_str(), e)).collect();
    let mut path = Vec::new();
    let mut next = leaf;
    while let Some(entry) = next.and_then(|id| by_id.get(id)) {
        // Bounded by the entry count, so a corrupt cycle cannot loop forever.
        if path.len() == entries.len() {
            break;
        }
        path.push(*entry);
        next = entry.parent_id.as_deref();
    }
    path.reverse();
    path
}

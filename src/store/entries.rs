//! The session tree: append-only entries with `id`/`parent_id`, and a leaf pointer per session.
//! Who spoke is stored as `role` (`user`/`assistant`) and `agent` (`tutor`/`explorer`) and read
//! back as one [`Speaker`].

use warren_app::learner::LearnerId;
use warren_app::tree::{EntryKind, Speaker};

use sqlx::any::AnyArguments;
use sqlx::query::QueryAs;

use super::columns::{MaybeJson, MaybeName};
use super::writer::WriteTx;
use super::{Backend, Reads, Store, StoreError, new_id, now_ms};

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Entry {
    pub id: String,
    pub session_id: String,
    pub parent_id: Option<String>,
    pub seq: i64,
    pub created_at: i64,
    #[sqlx(try_from = "String")]
    pub kind: EntryKind,
    /// Who wrote it, for messages.
    #[sqlx(try_from = "MaybeName")]
    pub speaker: Option<Speaker>,
    pub content: String,
    #[sqlx(try_from = "MaybeJson")]
    pub data: Option<serde_json::Value>,
    pub client_message_id: Option<String>,
}

impl Entry {
    /// A message written by `speaker`.
    pub fn is_message_from(&self, speaker: Speaker) -> bool {
        self.kind == EntryKind::Message && self.speaker == Some(speaker)
    }
}

/// An entry to append; its parent is the session's leaf at the time.
#[derive(Clone, Debug, PartialEq)]
pub struct NewEntry {
    pub kind: EntryKind,
    pub speaker: Option<Speaker>,
    pub content: String,
    pub data: Option<serde_json::Value>,
    /// A learner message's id from the client: stored once, however often it is sent.
    pub client_message_id: Option<String>,
}

impl NewEntry {
    pub fn message(speaker: Speaker, content: impl Into<String>) -> Self {
        Self {
            kind: EntryKind::Message,
            speaker: Some(speaker),
            content: content.into(),
            data: None,
            client_message_id: None,
        }
    }

    /// A structural entry (mode change, branch summary, …) with its data.
    pub fn note(kind: EntryKind, content: impl Into<String>, data: serde_json::Value) -> Self {
        Self { kind, speaker: None, content: content.into(), data: Some(data), client_message_id: None }
    }
}

/// The `role` and `agent` columns for a speaker.
pub(super) fn role_and_agent(speaker: Option<Speaker>) -> (Option<&'static str>, Option<&'static str>) {
    match speaker {
        None => (None, None),
        Some(Speaker::Learner) => (Some("user"), None),
        Some(Speaker::Tutor) => (Some("assistant"), Some("tutor")),
        Some(Speaker::Explorer) => (Some("assistant"), Some("explorer")),
    }
}

/// `SELECT … FROM session_entries` followed by the given conditions.
macro_rules! select_entries {
    ($($rest:literal)+) => {
        concat!(
            "SELECT id, session_id, parent_id, seq, created_at, kind, ",
            "CASE WHEN role = 'user' THEN 'learner' WHEN role = 'assistant' THEN COALESCE(agent, 'tutor') END AS speaker, ",
            "content, data, client_message_id FROM session_entries ",
            $($rest),+
        )
    };
}
pub(super) use select_entries;

/// The insert of an append, its values bound by [`EntryValues::bind`]. The next `seq` is found
/// by the insert itself, and a learner message already stored (sent again after a reconnect)
/// inserts nothing and returns no row.
macro_rules! insert_entry {
    () => {
        "INSERT INTO session_entries (id, session_id, owner_id, parent_id, seq, created_at, kind, role, agent,
             content, data, client_message_id)
         VALUES ($1, $2, $3, $4, (SELECT COALESCE(MAX(seq), 0) + 1 FROM session_entries WHERE session_id = $2),
             $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (session_id, client_message_id) DO NOTHING
         RETURNING seq"
    };
}

/// [`insert_entry!`] as SQLite's append script runs it: only while the session's lease is
/// `$13` (bound `NULL` when the store is not fenced), checked in the same statement.
macro_rules! insert_entry_if_leased {
    () => {
        "INSERT INTO session_entries (id, session_id, owner_id, parent_id, seq, created_at, kind, role, agent,
             content, data, client_message_id)
         SELECT $1, $2, $3, $4, (SELECT COALESCE(MAX(seq), 0) + 1 FROM session_entries WHERE session_id = $2),
             $5, $6, $7, $8, $9, $10, $11
         WHERE $13 IS NULL OR EXISTS (SELECT 1 FROM session_leases WHERE session_id = $2 AND lease_id = $13)
         ON CONFLICT (session_id, client_message_id) DO NOTHING
         RETURNING seq"
    };
}

/// What an append left in the tree.
#[derive(Clone, Debug, PartialEq)]
pub struct Appended {
    /// The entry as stored.
    pub entry: Entry,
    /// False when the entry was already stored under its `client_message_id` (a learner
    /// message sent again after a reconnect): `entry` is the earlier one, and nothing moved.
    pub created: bool,
}

impl Store {
    /// Appends an entry under `parent_id` and, when `advance_leaf`, points the session's leaf
    /// at it, in one transaction. An entry whose `client_message_id` is already stored is not
    /// written again (see [`Appended::created`]).
    pub async fn append_entry(
        &self,
        learner: &LearnerId,
        session_id: &str,
        parent_id: Option<&str>,
        new: NewEntry,
        advance_leaf: bool,
    ) -> Result<Appended, StoreError> {
        if self.backend() == Backend::Sqlite {
            // On SQLite the transaction, the insert and the leaf go to the writing connection
            // as one script: one trip to its thread instead of four (a turn appends twice,
            // and each trip is two threads waking each other).
            const SCRIPT: &str = concat!(
                "BEGIN IMMEDIATE; ",
                insert_entry_if_leased!(),
                "; UPDATE sessions SET leaf_id = $1, updated_at = $5
                   WHERE $12 = 1 AND id = $2 AND owner_id = $3
                     AND EXISTS (SELECT 1 FROM session_entries WHERE id = $1); ",
                "COMMIT;"
            );
            let row = EntryValues::new(session_id, learner, parent_id, &new);
            let mut script = self.script_turn().await?;
            let lease = self.fence.as_ref().map(|f| f.lease_id());
            let seq: Vec<i64> = row
                .bind(sqlx::query_scalar(SCRIPT), &new)
                .bind(i64::from(advance_leaf))
                .bind(lease)
                .fetch_all(&mut *script)
                .await?;
            script.committed();
            return match (seq.first(), &self.fence) {
                (Some(&seq), _) => Ok(Appended { entry: row.into_entry(seq, new), created: true }),
                // Nothing inserted: the lease is gone, or the message is stored already.
                (None, Some(fence)) if !self.holds_lease(session_id, fence.lease_id()).await? => {
                    Err(fence.lost())
                }
                (None, _) => {
                    let stored =
                        stored_message(learner, session_id, &new.client_message_id).one(self.read()).await?;
                    Ok(Appended { entry: stored, created: false })
                }
            };
        }
        let mut tx = self.write_transaction().await?;
        let appended = append_in(&mut tx, learner, session_id, parent_id, new, advance_leaf).await?;
        tx.commit().await?;
        Ok(appended)
    }

    /// Every entry of a session in append order. The rows come back as one JSON array: a
    /// session can hold tens of thousands of entries, and one row crosses from the database
    /// driver far faster than as many rows as there are entries.
    pub async fn entries(&self, learner: &LearnerId, session_id: &str) -> Result<Vec<Entry>, StoreError> {
        let sql = match self.backend() {
            Backend::Sqlite => {
                "SELECT COALESCE(json_group_array(json_array(id, parent_id, seq, created_at, kind, role, agent,
                     content, data, client_message_id)), '[]')
                 FROM (SELECT * FROM session_entries WHERE session_id = $1 AND owner_id = $2 ORDER BY seq)"
            }
            Backend::Postgres => {
                "SELECT COALESCE(json_agg(json_build_array(id, parent_id, seq, created_at, kind, role, agent,
                     content, data, client_message_id) ORDER BY seq)::text, '[]')
                 FROM session_entries WHERE session_id = $1 AND owner_id = $2"
            }
        };
        let text: String = sqlx::query_scalar(sql).bind(session_id).bind(learner).one(self.read()).await?;
        let rows: Vec<EntryRow> =
            serde_json::from_str(&text).map_err(|e| StoreError::Corrupt(format!("session entries: {e}")))?;
        let mut entries =
            rows.into_iter().map(|row| entry_from(row, session_id)).collect::<Result<Vec<_>, _>>()?;
        // Already in order; kept so whatever the engine does with a subquery's order.
        entries.sort_by_key(|e| e.seq);
        Ok(entries)
    }
}

/// An entry as the JSON array `entries` reads.
type EntryRow = (
    String,
    Option<String>,
    i64,
    i64,
    String,
    Option<String>,
    Option<String>,
    String,
    Option<String>,
    Option<String>,
);

fn entry_from(row: EntryRow, session_id: &str) -> Result<Entry, StoreError> {
    let (id, parent_id, seq, created_at, kind, role, agent, content, data, client_message_id) = row;
    let corrupt = |what: String| StoreError::Corrupt(format!("entry {id}: {what}"));
    let kind = kind.parse().map_err(|e: warren_app::names::UnknownName| corrupt(e.to_string()))?;
    let speaker = match (role.as_deref(), agent.as_deref()) {
        (None, _) => None,
        (Some("user"), _) => Some(Speaker::Learner),
        (Some("assistant"), Some("explorer")) => Some(Speaker::Explorer),
        (Some("assistant"), _) => Some(Speaker::Tutor),
        (Some(other), _) => return Err(corrupt(format!("role {other}"))),
    };
    let data = match data {
        Some(text) => Some(serde_json::from_str(&text).map_err(|e| corrupt(e.to_string()))?),
        None => None,
    };
    Ok(Entry {
        id,
        session_id: session_id.to_string(),
        parent_id,
        seq,
        created_at,
        kind,
        speaker,
        content,
        data,
        client_message_id,
    })
}

/// The columns of a new entry, as `insert_entry!` binds them.
struct EntryValues<'a> {
    id: String,
    session_id: &'a str,
    learner: &'a LearnerId,
    parent_id: Option<&'a str>,
    created_at: i64,
    role: Option<&'static str>,
    agent: Option<&'static str>,
    data: Option<String>,
}

impl<'a> EntryValues<'a> {
    fn new(session_id: &'a str, learner: &'a LearnerId, parent_id: Option<&'a str>, new: &NewEntry) -> Self {
        let (role, agent) = role_and_agent(new.speaker);
        Self {
            id: new_id(),
            session_id,
            learner,
            parent_id,
            created_at: now_ms(),
            role,
            agent,
            data: new.data.as_ref().map(|d| d.to_string()),
        }
    }

    /// `$1` to `$11` of `insert_entry!`.
    fn bind<'q>(
        &'q self,
        query: sqlx::query::QueryScalar<'q, sqlx::Any, i64, sqlx::any::AnyArguments>,
        new: &'q NewEntry,
    ) -> sqlx::query::QueryScalar<'q, sqlx::Any, i64, sqlx::any::AnyArguments> {
        query
            .bind(&self.id)
            .bind(self.session_id)
            .bind(self.learner)
            .bind(self.parent_id)
            .bind(self.created_at)
            .bind(new.kind.as_str())
            .bind(self.role)
            .bind(self.agent)
            .bind(&new.content)
            .bind(&self.data)
            .bind(&new.client_message_id)
    }

    fn into_entry(self, seq: i64, new: NewEntry) -> Entry {
        Entry {
            id: self.id,
            session_id: self.session_id.to_string(),
            parent_id: self.parent_id.map(str::to_string),
            seq,
            created_at: self.created_at,
            kind: new.kind,
            speaker: new.speaker,
            content: new.content,
            data: new.data,
            client_message_id: new.client_message_id,
        }
    }
}

/// The query for the entry stored for a learner message's client id.
fn stored_message<'q>(
    learner: &'q LearnerId,
    session_id: &'q str,
    client_message_id: &'q Option<String>,
) -> QueryAs<'q, sqlx::Any, Entry, AnyArguments> {
    sqlx::query_as(select_entries!("WHERE session_id = $1 AND client_message_id = $2 AND owner_id = $3"))
        .bind(session_id)
        .bind(client_message_id)
        .bind(learner)
}

/// [`Store::append_entry`] inside a transaction the caller commits.
pub(super) async fn append_in(
    tx: &mut WriteTx,
    learner: &LearnerId,
    session_id: &str,
    parent_id: Option<&str>,
    new: NewEntry,
    advance_leaf: bool,
) -> Result<Appended, StoreError> {
    // Takes the session's row lock on PostgreSQL: appends to one session take turns, so
    // `seq` cannot be handed out twice. SQLite's one write lock is already held.
    if tx.backend() == Backend::Postgres {
        sqlx::query("UPDATE sessions SET updated_at = updated_at WHERE id = $1 AND owner_id = $2")
            .bind(session_id)
            .bind(learner)
            .execute(&mut **tx)
            .await?;
    }
    let row = EntryValues::new(session_id, learner, parent_id, &new);
    let seq: Option<i64> =
        row.bind(sqlx::query_scalar(insert_entry!()), &new).fetch_optional(&mut **tx).await?;
    let Some(seq) = seq else {
        let stored = stored_message(learner, session_id, &new.client_message_id).fetch_one(&mut **tx).await?;
        return Ok(Appended { entry: stored, created: false });
    };
    let stored = row.into_entry(seq, new);
    if advance_leaf {
        sqlx::query("UPDATE sessions SET leaf_id = $1, updated_at = $2 WHERE id = $3 AND owner_id = $4")
            .bind(&stored.id)
            .bind(stored.created_at)
            .bind(session_id)
            .bind(learner)
            .execute(&mut **tx)
            .await?;
    }
    Ok(Appended { entry: stored, created: true })
}

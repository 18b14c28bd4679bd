//! A learner's own material being drafted into points: the source (its passages, where the
//! drafting stands) and its drafts, kept until the learner keeps or drops them, a day at most.
//! Keeping writes the points, each linked to a text resource holding its passage, in one
//! transaction.

use sqlx::AnyConnection;
use warren_app::learner::LearnerId;

use super::points::{insert_point, owns_set, touch_set};
use super::resources::{NewResource, insert_resource};
use super::{FsrsCard, Reads, Store, StoreError, new_id, now_ms};
use warren_app::api::ResourceKind;

/// A source older than this is deleted by the hourly sweep, its drafts with it.
pub const SOURCE_LIFETIME_MS: i64 = 24 * 60 * 60 * 1000;
/// A source still drafting whose heartbeat is older than this stopped with its instance.
pub const SOURCE_LAPSE_MS: i64 = 60_000;
/// The run a new source is drafted as; "Draft again" starts the next.
pub const FIRST_RUN: i64 = 0;
/// How often a drafting under way says it is alive, whether or not a passage has finished
/// (a slow model may take longer than the lapse over one).
pub const SOURCE_BEAT_MS: i64 = SOURCE_LAPSE_MS / 4;

warren_app::named_enum! {
    /// Where a source's drafting stands.
    pub enum SourceStatus {
        Drafting = "drafting",
        Ready = "ready",
        Failed = "failed",
    }
}

#[derive(sqlx::FromRow)]
struct Row {
    id: String,
    set_id: Option<String>,
    set_name: String,
    title: String,
    passages: String,
    #[sqlx(try_from = "String")]
    status: SourceStatus,
    passages_done: i64,
    not_drafted: String,
    error: Option<String>,
    created_at: i64,
    heartbeat_at: i64,
}

/// A source, as its review page reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct Source {
    pub id: String,
    /// The set its points go to, or `None` for a new set called `set_name`.
    pub set_id: Option<String>,
    pub set_name: String,
    pub title: String,
    pub passages: Vec<String>,
    pub status: SourceStatus,
    pub passages_done: usize,
    /// Passages whose drafts could not be read.
    pub not_drafted: Vec<usize>,
    pub error: Option<String>,
    pub created_at: i64,
    pub heartbeat_at: i64,
}

impl TryFrom<Row> for Source {
    type Error = StoreError;

    fn try_from(row: Row) -> Result<Self, StoreError> {
        let corrupt =
            |what: &str| StoreError::Corrupt(format!("source {} has {what} Warren did not write", row.id));
        Ok(Source {
            passages: serde_json::from_str(&row.passages).map_err(|_| corrupt("passages"))?,
            not_drafted: serde_json::from_str(&row.not_drafted).map_err(|_| corrupt("a list of passages"))?,
            passages_done: usize::try_from(row.passages_done).unwrap_or(0),
            id: row.id,
            set_id: row.set_id,
            set_name: row.set_name,
            title: row.title,
            status: row.status,
            error: row.error,
            created_at: row.created_at,
            heartbeat_at: row.heartbeat_at,
        })
    }
}

/// A drafted point: its passage, and the exact words of the source it rests on.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct SourceDraft {
    pub id: String,
    pub passage: i64,
    pub position: i64,
    pub content: String,
    pub cue: String,
    pub quote: String,
}

/// A draft about to be written.
#[derive(Clone, Debug, PartialEq)]
pub struct NewDraft {
    pub passage: usize,
    pub content: String,
    pub cue: String,
    pub quote: String,
}

/// A point the learner keeps: its words as they left them, and its passage.
#[derive(Clone, Debug, PartialEq)]
pub struct KeptDraft {
    pub content: String,
    pub cue: String,
    pub passage: usize,
}

impl Store {
    /// A source to draft, under way from now.
    pub async fn create_source(
        &self,
        learner: &LearnerId,
        set_id: Option<&str>,
        set_name: &str,
        title: &str,
        passages: &[String],
    ) -> Result<String, StoreError> {
        let id = new_id();
        let now = now_ms();
        let passages = serde_json::to_string(passages).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        self.write_one(
            sqlx::query(
                "INSERT INTO sources (id, owner_id, set_id, set_name, title, passages, status, created_at, heartbeat_at)
                 VALUES ($1, $2, $3, $4, $5, $6, 'drafting', $7, $7)",
            )
            .bind(&id)
            .bind(learner)
            .bind(set_id)
            .bind(set_name)
            .bind(title)
            .bind(passages)
            .bind(now),
        )
        .await?;
        Ok(id)
    }

    /// A source of the learner's.
    pub async fn source(&self, learner: &LearnerId, id: &str) -> Result<Option<Source>, StoreError> {
        let row: Option<Row> = sqlx::query_as(
            "SELECT id, set_id, set_name, title, passages, status, passages_done, not_drafted, error,
                    created_at, heartbeat_at
               FROM sources WHERE id = $1 AND owner_id = $2",
        )
        .bind(id)
        .bind(learner)
        .optional(self.read())
        .await?;
        row.map(Source::try_from).transpose()
    }

    /// Takes a source over to draft it again: its next run, unless it is being drafted (with a
    /// fresh heartbeat) already. Its earlier drafts go, and the run it replaces can no longer
    /// record progress or write drafts.
    pub async fn claim_source(&self, learner: &LearnerId, id: &str) -> Result<Option<i64>, StoreError> {
        let now = now_ms();
        let mut tx = self.write_transaction().await?;
        let taken = sqlx::query(
            "UPDATE sources SET status = 'drafting', passages_done = 0, not_drafted = '[]', error = NULL,
                    heartbeat_at = $1, drafting_run = drafting_run + 1
              WHERE id = $2 AND owner_id = $3 AND (status <> 'drafting' OR heartbeat_at < $4)",
        )
        .bind(now)
        .bind(id)
        .bind(learner)
        .bind(now - SOURCE_LAPSE_MS)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if taken != 1 {
            return Ok(None);
        }
        sqlx::query("DELETE FROM source_drafts WHERE source_id = $1 AND owner_id = $2")
            .bind(id)
            .bind(learner)
            .execute(&mut *tx)
            .await?;
        let run: i64 = sqlx::query_scalar("SELECT drafting_run FROM sources WHERE id = $1")
            .bind(id)
            .fetch_one(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(Some(run))
    }

    /// Records how many passages `run` has drafted, or only that it is alive (`None`).
    pub async fn source_progress(
        &self,
        learner: &LearnerId,
        id: &str,
        run: i64,
        done: Option<usize>,
    ) -> Result<(), StoreError> {
        // Two statements rather than a NULL bound through `Any`, which PostgreSQL refuses.
        let query = match done {
            Some(_) => sqlx::query(
                "UPDATE sources SET heartbeat_at = $1, passages_done = $5
                  WHERE id = $2 AND owner_id = $3 AND status = 'drafting' AND drafting_run = $4",
            ),
            None => sqlx::query(
                "UPDATE sources SET heartbeat_at = $1
                  WHERE id = $2 AND owner_id = $3 AND status = 'drafting' AND drafting_run = $4",
            ),
        }
        .bind(now_ms())
        .bind(id)
        .bind(learner)
        .bind(run);
        self.write_one(match done {
            Some(done) => query.bind(i64::try_from(done).unwrap_or(i64::MAX)),
            None => query,
        })
        .await?;
        Ok(())
    }

    /// Writes the drafts of a source's `run`, in order, and marks it ready for review.
    pub async fn finish_source(
        &self,
        learner: &LearnerId,
        id: &str,
        run: i64,
        drafts: &[NewDraft],
        not_drafted: &[usize],
    ) -> Result<(), StoreError> {
        let mut tx = self.write_transaction().await?;
        // A source deleted while it was drafted (dropped, or swept) takes no drafts, nor does
        // one a newer run has taken over ("Draft again" after this run seemed to stop).
        let kept: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM sources
              WHERE id = $1 AND owner_id = $2 AND status = 'drafting' AND drafting_run = $3",
        )
        .bind(id)
        .bind(learner)
        .bind(run)
        .fetch_one(&mut *tx)
        .await?;
        if kept == 0 {
            return Ok(());
        }
        for (position, draft) in drafts.iter().enumerate() {
            sqlx::query(
                "INSERT INTO source_drafts (id, source_id, owner_id, passage, position, content, cue, quote)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind(new_id())
            .bind(id)
            .bind(learner)
            .bind(i64::try_from(draft.passage).unwrap_or(i64::MAX))
            .bind(i64::try_from(position).unwrap_or(i64::MAX))
            .bind(&draft.content)
            .bind(&draft.cue)
            .bind(&draft.quote)
            .execute(&mut *tx)
            .await?;
        }
        let not_drafted =
            serde_json::to_string(not_drafted).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        sqlx::query(
            "UPDATE sources SET status = 'ready', not_drafted = $1, heartbeat_at = $2
              WHERE id = $3 AND owner_id = $4",
        )
        .bind(not_drafted)
        .bind(now_ms())
        .bind(id)
        .bind(learner)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Marks a source's drafting (its `run`) failed, with why.
    pub async fn fail_source(
        &self,
        learner: &LearnerId,
        id: &str,
        run: i64,
        error: &str,
    ) -> Result<(), StoreError> {
        // Only the run that holds the source: one overtaken by "Draft again" leaves it alone.
        self.write_one(
            sqlx::query(
                "UPDATE sources SET status = 'failed', error = $1
                  WHERE id = $2 AND owner_id = $3 AND drafting_run = $4",
            )
            .bind(error)
            .bind(id)
            .bind(learner)
            .bind(run),
        )
        .await?;
        Ok(())
    }

    /// A source's drafts, in order.
    pub async fn source_drafts(&self, learner: &LearnerId, id: &str) -> Result<Vec<SourceDraft>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT id, passage, position, content, cue, quote FROM source_drafts
              WHERE source_id = $1 AND owner_id = $2 ORDER BY position",
        )
        .bind(id)
        .bind(learner)
        .all(self.read())
        .await?)
    }

    /// Keeps the learner's drafts as points, in one transaction: in the source's set, or a new
    /// set (named as the source says, or with " (2)" when that name is taken); each point
    /// linked to a text resource holding its passage (one resource a passage). The source
    /// and its drafts go. The set's id, or `None` when the source is not the learner's.
    pub async fn keep_drafts(
        &self,
        learner: &LearnerId,
        source_id: &str,
        kept: &[KeptDraft],
    ) -> Result<Option<String>, StoreError> {
        let Some(source) = self.source(learner, source_id).await? else { return Ok(None) };
        let name = match &source.set_id {
            Some(_) => source.set_name.clone(),
            None => self.free_name(learner, &source.set_name).await?,
        };
        let now = now_ms();
        let mut tx = self.write_transaction().await?;
        // The source goes first, so a form sent twice (a double click) keeps its drafts once:
        // the second finds nothing left to keep.
        if !drop_source(&mut tx, learner, source_id).await? {
            return Ok(None);
        }
        let set_id = match &source.set_id {
            Some(set_id) => {
                if !owns_set(&mut tx, learner, set_id).await? {
                    return Ok(None);
                }
                set_id.clone()
            }
            None => {
                let set_id = new_id();
                sqlx::query(
                    "INSERT INTO recall_sets (id, owner_id, name, description, guidelines, created_at, updated_at)
                     VALUES ($1, $2, $3, $4, '', $5, $5)",
                )
                .bind(&set_id)
                .bind(learner)
                .bind(&name)
                .bind(if source.title == name {
                    "Drafted from your notes.".to_string()
                } else {
                    format!("Drafted from “{}”.", source.title)
                })
                .bind(now)
                .execute(&mut *tx)
                .await?;
                set_id
            }
        };
        let mut next: i64 =
            sqlx::query_scalar("SELECT COALESCE(MAX(position), -1) + 1 FROM recall_points WHERE set_id = $1")
                .bind(&set_id)
                .fetch_one(&mut *tx)
                .await?;
        let mut by_passage: Vec<(usize, Vec<(String, f64)>)> = Vec::new();
        for draft in kept {
            let id = insert_point(
                &mut tx,
                learner,
                &set_id,
                next,
                &draft.content,
                &draft.cue,
                &FsrsCard::new(now),
            )
            .await?;
            next += 1;
            match by_passage.iter_mut().find(|(p, _)| *p == draft.passage) {
                Some((_, links)) => links.push((id, 1.0)),
                None => by_passage.push((draft.passage, vec![(id, 1.0)])),
            }
        }
        for (passage, links) in by_passage {
            let Some(body) = source.passages.get(passage) else { continue };
            let title = if source.passages.len() > 1 {
                format!("{}, passage {}", source.title, passage + 1)
            } else {
                source.title.clone()
            };
            let resource = NewResource {
                kind: ResourceKind::Text,
                title: title.chars().take(warren_app::forms::limits::RESOURCE_TITLE).collect(),
                body: body.clone(),
                ..NewResource::default()
            };
            insert_resource(&mut tx, learner, &set_id, &resource, &links).await?;
        }
        touch_set(&mut tx, learner, &set_id).await?;
        tx.commit().await?;
        Ok(Some(set_id))
    }

    /// Drops a source and its drafts; false when it is not the learner's.
    pub async fn delete_source(&self, learner: &LearnerId, id: &str) -> Result<bool, StoreError> {
        let mut tx = self.write_transaction().await?;
        let dropped = drop_source(&mut tx, learner, id).await?;
        tx.commit().await?;
        Ok(dropped)
    }

    /// Deletes sources nobody kept within a day; returns how many.
    pub async fn sweep_sources(&self) -> Result<u64, StoreError> {
        let before = now_ms() - SOURCE_LIFETIME_MS;
        let mut tx = self.write_transaction().await?;
        sqlx::query(
            "DELETE FROM source_drafts WHERE source_id IN (SELECT id FROM sources WHERE created_at < $1)",
        )
        .bind(before)
        .execute(&mut *tx)
        .await?;
        let done = sqlx::query("DELETE FROM sources WHERE created_at < $1")
            .bind(before)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        tx.commit().await?;
        Ok(done)
    }
}

/// Deletes a source and its drafts; false when it is not the learner's.
async fn drop_source(conn: &mut AnyConnection, learner: &LearnerId, id: &str) -> Result<bool, sqlx::Error> {
    sqlx::query("DELETE FROM source_drafts WHERE source_id = $1 AND owner_id = $2")
        .bind(id)
        .bind(learner)
        .execute(&mut *conn)
        .await?;
    let gone = sqlx::query("DELETE FROM sources WHERE id = $1 AND owner_id = $2")
        .bind(id)
        .bind(learner)
        .execute(&mut *conn)
        .await?;
    Ok(gone.rows_affected() == 1)
}

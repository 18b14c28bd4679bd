//! Session summaries: a `summary` entry in the session's tree (hanging off the leaf, like a
//! label, so no agent's context changes), linked from the session row with where writing it
//! stands. Writing them is the engine's (`engine::synthesis`).

use sqlx::Row;
use warren_app::api::TODAYS_REVIEW;
use warren_app::learner::LearnerId;
use warren_app::summary::SummaryStatus;

use super::entries::{append_in, select_entries};
use super::{Appended, Entry, EntryKind, NewEntry, Reads, Store, StoreError, now_ms};

/// A session's newest summary with the session it sums up, for the dashboard and the command
/// line.
#[derive(Clone, Debug)]
pub struct LatestSummary {
    pub session_id: String,
    /// `None` for today's review across sets.
    pub set_id: Option<String>,
    /// The set's name, or "Today's review".
    pub set_name: String,
    pub session_status: String,
    pub entry: Entry,
}

/// Whose summaries [`Store::latest_summaries`] reads.
#[derive(Clone, Copy, Debug)]
pub enum SummaryScope<'a> {
    /// Every session of the learner.
    Every,
    /// The sessions of one set.
    Set(&'a str),
    /// Today's reviews across sets.
    Reviews,
}

impl Store {
    /// Marks a session's summary as to be written. False when the session is not the learner's.
    pub async fn mark_summary_pending(
        &self,
        learner: &LearnerId,
        session_id: &str,
    ) -> Result<bool, StoreError> {
        let statement = sqlx::query(
            "UPDATE sessions SET summary_status = 'pending', summary_error = NULL WHERE id = $1 AND owner_id = $2",
        )
        .bind(session_id)
        .bind(learner);
        Ok(self.write_one(statement).await? > 0)
    }

    /// Claims a pending summary for `instance` to write: unclaimed, already its own, or
    /// claimed by an instance whose heartbeat is older than `lapse` (gone). False when it is
    /// not pending or another live instance writes it.
    pub async fn claim_summary(
        &self,
        learner: &LearnerId,
        session_id: &str,
        instance: &str,
        lapse: std::time::Duration,
    ) -> Result<bool, StoreError> {
        let now = now_ms();
        let alive_since = now - i64::try_from(lapse.as_millis()).unwrap_or(i64::MAX);
        let mut conn = self.write_turn().await?;
        let done = sqlx::query(
            "UPDATE sessions SET summary_claimed_by = $1, summary_claimed_at = $2
             WHERE id = $3 AND owner_id = $4 AND summary_status = 'pending'
               AND (summary_claimed_by IS NULL OR summary_claimed_by = $1
                    OR NOT EXISTS (SELECT 1 FROM warren_instances i
                                   WHERE i.id = sessions.summary_claimed_by AND i.heartbeat_at > $5))",
        )
        .bind(instance)
        .bind(now)
        .bind(session_id)
        .bind(learner)
        .bind(alive_since)
        .execute(&mut *conn)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Stores a summary under the session's leaf (the leaf stays) and links it from the
    /// session row, in one transaction, if `instance` still holds the claim on a pending
    /// summary; `None` (nothing stored) when it does not.
    pub async fn store_summary(
        &self,
        learner: &LearnerId,
        session_id: &str,
        instance: &str,
        text: String,
        data: serde_json::Value,
    ) -> Result<Option<Entry>, StoreError> {
        let mut tx = self.write_transaction().await?;
        let leaf: Option<String> =
            sqlx::query_scalar("SELECT leaf_id FROM sessions WHERE id = $1 AND owner_id = $2")
                .bind(session_id)
                .bind(learner)
                .fetch_optional(&mut *tx)
                .await?
                .flatten();
        let new = NewEntry::note(EntryKind::Summary, text, data);
        let Appended { entry, .. } =
            append_in(&mut tx, learner, session_id, leaf.as_deref(), new, false).await?;
        let linked = sqlx::query(
            "UPDATE sessions SET summary_entry_id = $1, summary_status = 'ready', summary_error = NULL,
                 summary_claimed_by = NULL
              WHERE id = $2 AND owner_id = $3 AND summary_status = 'pending' AND summary_claimed_by = $4",
        )
        .bind(&entry.id)
        .bind(session_id)
        .bind(learner)
        .bind(instance)
        .execute(&mut *tx)
        .await?;
        if linked.rows_affected() == 0 {
            // Dropped uncommitted: the entry goes with it.
            drop(tx);
            return Ok(None);
        }
        tx.commit().await?;
        Ok(Some(entry))
    }

    /// Every attempt failed: the history page offers to try again. Only the claimant of a
    /// pending summary records this, so a late failure never overwrites a summary written.
    pub async fn summary_failed(
        &self,
        learner: &LearnerId,
        session_id: &str,
        instance: &str,
        error: &str,
    ) -> Result<(), StoreError> {
        let mut conn = self.write_turn().await?;
        sqlx::query(
            "UPDATE sessions SET summary_status = 'failed', summary_error = $1, summary_claimed_by = NULL
             WHERE id = $2 AND owner_id = $3 AND summary_status = 'pending' AND summary_claimed_by = $4",
        )
        .bind(error)
        .bind(session_id)
        .bind(learner)
        .bind(instance)
        .execute(&mut *conn)
        .await?;
        Ok(())
    }

    /// Summaries left to write that no live instance has claimed (left by a restart, or by
    /// an instance that died): `(learner, session)` pairs, oldest first.
    pub async fn pending_summaries(
        &self,
        lapse: std::time::Duration,
    ) -> Result<Vec<(LearnerId, String)>, StoreError> {
        let alive_since = now_ms() - i64::try_from(lapse.as_millis()).unwrap_or(i64::MAX);
        Ok(sqlx::query_as(
            "SELECT owner_id, id FROM sessions s WHERE summary_status = 'pending'
               AND (summary_claimed_by IS NULL
                    OR NOT EXISTS (SELECT 1 FROM warren_instances i
                                   WHERE i.id = s.summary_claimed_by AND i.heartbeat_at > $1))
             ORDER BY updated_at",
        )
        .bind(alive_since)
        .all(self.read())
        .await?)
    }

    /// Where a session's summary stands, and its newest summary entry's id (a failed or
    /// pending rewrite keeps the one before). `None` when the session is not the learner's.
    pub async fn summary_link(
        &self,
        learner: &LearnerId,
        session_id: &str,
    ) -> Result<Option<(Option<SummaryStatus>, Option<String>)>, StoreError> {
        let row: Option<(Option<String>, Option<String>)> = sqlx::query_as(
            "SELECT summary_status, summary_entry_id FROM sessions WHERE id = $1 AND owner_id = $2",
        )
        .bind(session_id)
        .bind(learner)
        .optional(self.read())
        .await?;
        Ok(row.map(|(status, entry)| (status.and_then(|s| s.parse().ok()), entry)))
    }

    /// One of the learner's sessions whose summary is being written, if any.
    pub async fn summary_being_written(&self, learner: &LearnerId) -> Result<Option<String>, StoreError> {
        Ok(sqlx::query_scalar(
            "SELECT id FROM sessions WHERE owner_id = $1 AND summary_status = 'pending' ORDER BY updated_at DESC LIMIT 1",
        )
        .bind(learner)
        .optional(self.read())
        .await?)
    }

    /// The newest summaries of the learner's sessions in `scope`, newest first (`per_set`: only
    /// the newest of each set, today's reviews counting as one).
    pub async fn latest_summaries(
        &self,
        learner: &LearnerId,
        scope: SummaryScope<'_>,
        per_set: bool,
        limit: u32,
    ) -> Result<Vec<LatestSummary>, StoreError> {
        // Each set's newest summarised session has no newer summarised session of its set.
        let newest_of_set = if per_set {
            "AND NOT EXISTS (SELECT 1 FROM sessions n JOIN session_entries ne ON ne.id = n.summary_entry_id
                  WHERE n.owner_id = s.owner_id AND COALESCE(n.set_id, '') = COALESCE(s.set_id, '')
                    AND (ne.created_at > e.created_at OR (ne.created_at = e.created_at AND ne.id > e.id)))"
        } else {
            ""
        };
        // `$2`: '' for every session, a set's id for its sessions, '-' for today's reviews
        // (no set id is '-': ids are generated).
        let (scope_sql, bound) = match scope {
            SummaryScope::Every => ("$2 = ''", ""),
            SummaryScope::Set(id) => ("s.set_id = $2", id),
            SummaryScope::Reviews => ("(s.set_id IS NULL AND $2 = '-')", "-"),
        };
        let sql = format!(
            "SELECT s.id, s.set_id, sets.name, s.status, e.id AS entry_id
               FROM sessions s
               LEFT JOIN recall_sets sets ON sets.id = s.set_id
               JOIN session_entries e ON e.id = s.summary_entry_id
              WHERE s.owner_id = $1 AND {scope_sql} {newest_of_set}
              ORDER BY e.created_at DESC, e.id DESC LIMIT $3"
        );
        // The statement is fixed text; every value is bound.
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(learner)
            .bind(bound)
            .bind(i64::from(limit))
            .all(self.read())
            .await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let session_id: String = row.try_get(0)?;
            let entry_id: String = row.try_get(4)?;
            let entry: Option<Entry> =
                sqlx::query_as(select_entries!("WHERE id = $1 AND session_id = $2 AND owner_id = $3"))
                    .bind(&entry_id)
                    .bind(&session_id)
                    .bind(learner)
                    .optional(self.read())
                    .await?;
            let Some(entry) = entry else { continue };
            let set_name: Option<String> = row.try_get(2)?;
            out.push(LatestSummary {
                session_id,
                set_id: row.try_get(1)?,
                set_name: set_name.unwrap_or_else(|| TODAYS_REVIEW.to_string()),
                session_status: row.try_get(3)?,
                entry,
            });
        }
        Ok(out)
    }
}

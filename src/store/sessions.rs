//! Sessions and the recall outcomes they record.
//!
//! Long by design: a session row, the sets it draws on and its outcomes are written together,
//! in the same transactions, and read together by the engine when a session opens.

use std::collections::HashMap;
use warren_app::api::review_title;
use warren_app::learner::LearnerId;

use warren_app::protocol::{SessionMode, SessionStatus};
use warren_app::schedule::Rating;
use warren_app::summary::SummaryStatus;

use super::columns::{Flag, JsonText, json_text};
use super::reviews::{review_failures, review_recall};
use super::{Entry, EntryKind, Reads, RecallSet, Store, StoreError, new_id, now_ms};
use crate::schedule::FsrsCard;

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct SessionRow {
    pub id: String,
    #[sqlx(rename = "owner_id")]
    pub learner: LearnerId,
    /// The set it studies; `None` for today's review, whose points come from several sets
    /// (`session_sets` names them).
    pub set_id: Option<String>,
    #[sqlx(try_from = "JsonText")]
    pub target_point_ids: Vec<String>,
    pub leaf_id: Option<String>,
    pub started_at: i64,
    pub updated_at: i64,
    #[sqlx(flatten)]
    pub state: SessionState,
}

/// The parts of a session the engine changes as it goes.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct SessionState {
    #[sqlx(try_from = "String")]
    pub status: SessionStatus,
    #[sqlx(try_from = "String")]
    pub mode: SessionMode,
    pub active_rabbithole_id: Option<String>,
    pub decline_cooldown: i64,
    #[sqlx(try_from = "Flag")]
    pub overlay_dismissed: bool,
    /// Study time of finished stretches.
    pub active_ms: i64,
    /// Start of the current stretch, while a learner is attached.
    pub resumed_at: Option<i64>,
    pub ended_at: Option<i64>,
}

#[derive(Clone, Debug)]
pub struct NewOutcome {
    pub session_id: String,
    pub point_id: String,
    pub rating: Rating,
    pub confidence: f64,
    pub entry_id: Option<String>,
    pub in_rabbithole: bool,
    /// When it was recalled.
    pub at: i64,
}

/// Inserts a recall unless its session has one for that point; true when it did.
async fn insert_outcome(
    conn: &mut sqlx::AnyConnection,
    learner: &LearnerId,
    outcome: &NewOutcome,
) -> Result<bool, sqlx::Error> {
    let done = sqlx::query(
        "INSERT INTO recall_outcomes (id, session_id, point_id, owner_id, rating, confidence, entry_id,
             in_rabbithole, recalled_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (session_id, point_id) DO NOTHING",
    )
    .bind(new_id())
    .bind(&outcome.session_id)
    .bind(&outcome.point_id)
    .bind(learner)
    .bind(outcome.rating.as_str())
    .bind(outcome.confidence)
    .bind(&outcome.entry_id)
    .bind(i64::from(outcome.in_rabbithole))
    .bind(outcome.at)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct OutcomeRow {
    pub point_id: String,
    #[sqlx(try_from = "String")]
    pub rating: Rating,
    /// The evaluator's confidence in the recall.
    pub confidence: f64,
    /// The learner message that showed it.
    pub entry_id: Option<String>,
    #[sqlx(try_from = "Flag")]
    pub in_rabbithole: bool,
    pub recalled_at: i64,
}

/// `SELECT … FROM sessions` followed by the given conditions.
macro_rules! select_sessions {
    ($($rest:literal)+) => {
        concat!(
            "SELECT id, owner_id, set_id, status, target_point_ids, leaf_id, mode, active_rabbithole_id, ",
            "decline_cooldown, overlay_dismissed, active_ms, resumed_at, started_at, updated_at, ended_at ",
            "FROM sessions ",
            $($rest),+
        )
    };
}

impl Store {
    /// Starts a session over `target_point_ids` (in probe order), drawn from `sets`: a set
    /// session when `set_id` names one, else today's review across them.
    pub async fn create_session(
        &self,
        learner: &LearnerId,
        set_id: Option<&str>,
        sets: &[String],
        target_point_ids: &[String],
    ) -> Result<SessionRow, StoreError> {
        let id = new_id();
        let now = now_ms();
        let targets = json_text(&target_point_ids)?;
        let mut tx = self.write_transaction().await?;
        sqlx::query(
            "INSERT INTO sessions (id, owner_id, set_id, status, target_point_ids, started_at, updated_at)
             VALUES ($1, $2, $3, 'in_progress', $4, $5, $5)",
        )
        .bind(&id)
        .bind(learner)
        .bind(set_id)
        .bind(&targets)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        insert_session_sets(&mut tx, learner, &id, sets).await?;
        tx.commit().await?;
        self.session(learner, &id).await?.ok_or_else(|| StoreError::Corrupt("session vanished".into()))
    }

    /// The sets a session draws its points from, by name.
    pub async fn session_sets(&self, learner: &LearnerId, id: &str) -> Result<Vec<RecallSet>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT s.id, s.owner_id, s.name, s.description, s.guidelines, s.archived_at
               FROM session_sets ss JOIN recall_sets s ON s.id = ss.set_id
              WHERE ss.session_id = $1 AND ss.owner_id = $2 AND s.owner_id = $2
              ORDER BY s.name, s.id",
        )
        .bind(id)
        .bind(learner)
        .all(self.read())
        .await?)
    }

    /// What a session is called: its set's name, or for a review "Today's review: " and the
    /// sets it drew on.
    pub async fn session_title(&self, learner: &LearnerId, row: &SessionRow) -> Result<String, StoreError> {
        let names: Vec<String> =
            self.session_sets(learner, &row.id).await?.into_iter().map(|s| s.name).collect();
        Ok(match &row.set_id {
            Some(set_id) => match self.set(learner, set_id).await? {
                Some(set) => set.name,
                None => names.into_iter().next().unwrap_or_default(),
            },
            None => review_title(&names),
        })
    }

    /// The names of the sets each of the learner's sessions draws on, by session id.
    pub async fn session_set_names(
        &self,
        learner: &LearnerId,
    ) -> Result<HashMap<String, Vec<String>>, StoreError> {
        let rows: Vec<(String, String)> = sqlx::query_as(
            "SELECT ss.session_id, s.name FROM session_sets ss JOIN recall_sets s ON s.id = ss.set_id
              WHERE ss.owner_id = $1 AND s.owner_id = $1 ORDER BY s.name, s.id",
        )
        .bind(learner)
        .all(self.read())
        .await?;
        let mut names: HashMap<String, Vec<String>> = HashMap::new();
        for (session, name) in rows {
            names.entry(session).or_default().push(name);
        }
        Ok(names)
    }

    pub async fn session(&self, learner: &LearnerId, id: &str) -> Result<Option<SessionRow>, StoreError> {
        Ok(sqlx::query_as(select_sessions!("WHERE id = $1 AND owner_id = $2"))
            .bind(id)
            .bind(learner)
            .optional(self.read())
            .await?)
    }

    /// Points reviewed at or after `since` other than in session `id` (in another session, or
    /// brought in by an import).
    pub async fn reviewed_elsewhere(
        &self,
        learner: &LearnerId,
        id: &str,
        since: i64,
    ) -> Result<Vec<String>, StoreError> {
        Ok(sqlx::query_scalar(
            "SELECT DISTINCT point_id FROM reviews
             WHERE owner_id = $1 AND reviewed_at >= $2 AND (session_id IS NULL OR session_id <> $3)",
        )
        .bind(learner)
        .bind(since)
        .bind(id)
        .all(self.read())
        .await?)
    }

    /// Narrows a session to some of its points, in their order.
    pub async fn narrow_session(
        &self,
        learner: &LearnerId,
        id: &str,
        point_ids: &[String],
    ) -> Result<(), StoreError> {
        let statement =
            sqlx::query("UPDATE sessions SET target_point_ids = $1 WHERE id = $2 AND owner_id = $3");
        self.write_one(statement.bind(json_text(&point_ids)?).bind(id).bind(learner)).await?;
        Ok(())
    }

    /// The learner's sessions, most recently active first.
    pub async fn sessions(&self, learner: &LearnerId) -> Result<Vec<SessionRow>, StoreError> {
        Ok(sqlx::query_as(select_sessions!("WHERE owner_id = $1 ORDER BY updated_at DESC, id DESC"))
            .bind(learner)
            .all(self.read())
            .await?)
    }

    /// Writes what the engine changed. A session that has ended (completed, or abandoned for a
    /// newer one) is never written back to life by a stale copy.
    pub async fn save_session_state(
        &self,
        learner: &LearnerId,
        id: &str,
        state: &SessionState,
    ) -> Result<(), StoreError> {
        let ended = match state.status {
            SessionStatus::InProgress => false,
            SessionStatus::Paused | SessionStatus::Completed | SessionStatus::Abandoned => true,
        };
        let mut tx = self.write_transaction().await?;
        let saved = sqlx::query(
            "UPDATE sessions SET status = $1, mode = $2, active_rabbithole_id = $3, decline_cooldown = $4,
                 overlay_dismissed = $5, active_ms = $6, resumed_at = $7, ended_at = $8, updated_at = $9
             WHERE id = $10 AND owner_id = $11 AND status NOT IN ('completed', 'abandoned')",
        )
        .bind(state.status.as_str())
        .bind(state.mode.as_str())
        .bind(&state.active_rabbithole_id)
        .bind(state.decline_cooldown)
        .bind(i64::from(state.overlay_dismissed))
        .bind(state.active_ms)
        .bind(state.resumed_at)
        .bind(state.ended_at)
        .bind(now_ms())
        .bind(id)
        .bind(learner)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        // A session that has just ended: each point tried and not recalled is a review.
        if saved == 1 && ended {
            review_failures(&mut tx, learner, id, state.ended_at.unwrap_or_else(now_ms)).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Records a recall and its review together, and replays the point's schedule. Recalling a
    /// point twice in one session changes nothing the second time. Returns the point's new
    /// card, or `None` when this call recorded nothing.
    pub async fn record_recall(
        &self,
        learner: &LearnerId,
        outcome: &NewOutcome,
    ) -> Result<Option<FsrsCard>, StoreError> {
        let mut tx = self.write_transaction().await?;
        if !insert_outcome(&mut tx, learner, outcome).await? {
            return Ok(None);
        }
        let card = review_recall(
            &mut tx,
            learner,
            &outcome.session_id,
            &outcome.point_id,
            outcome.rating,
            outcome.at,
        )
        .await?;
        tx.commit().await?;
        Ok(card)
    }

    /// The points recalled in a session, in the order they were recalled.
    pub async fn outcomes(
        &self,
        learner: &LearnerId,
        session_id: &str,
    ) -> Result<Vec<OutcomeRow>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT point_id, rating, confidence, entry_id, in_rabbithole, recalled_at FROM recall_outcomes
             WHERE session_id = $1 AND owner_id = $2 ORDER BY recalled_at, id",
        )
        .bind(session_id)
        .bind(learner)
        .all(self.read())
        .await?)
    }

    /// How many points each of the learner's sessions has recalled.
    pub async fn recalled_counts(&self, learner: &LearnerId) -> Result<HashMap<String, i64>, StoreError> {
        let rows: Vec<(String, i64)> = sqlx::query_as(
            "SELECT session_id, COUNT(*) AS n FROM recall_outcomes WHERE owner_id = $1 GROUP BY session_id",
        )
        .bind(learner)
        .all(self.read())
        .await?;
        Ok(rows.into_iter().collect())
    }

    /// Marks a learner's open sessions of a set (or, for `None`, their open reviews) as
    /// abandoned, since a new one replaces them, adding any stretch under way to their study
    /// time. Returns their ids.
    pub async fn abandon_open_sessions(
        &self,
        learner: &LearnerId,
        set_id: Option<&str>,
    ) -> Result<Vec<String>, StoreError> {
        let now = now_ms();
        let mut tx = self.write_transaction().await?;
        // `$2 = ''` stands for "no set": today's reviews.
        let scope = set_id.unwrap_or_default();
        let ids: Vec<String> = sqlx::query_scalar(
            "SELECT id FROM sessions WHERE owner_id = $1 AND COALESCE(set_id, '') = $2
                AND status IN ('in_progress', 'paused')",
        )
        .bind(learner)
        .bind(scope)
        .fetch_all(&mut *tx)
        .await?;
        for id in &ids {
            sqlx::query(
                "UPDATE sessions SET status = 'abandoned', ended_at = $1, updated_at = $1,
                     active_ms = active_ms + CASE WHEN resumed_at IS NULL THEN 0 ELSE $1 - resumed_at END,
                     resumed_at = NULL
                 WHERE id = $2 AND owner_id = $3",
            )
            .bind(now)
            .bind(id)
            .bind(learner)
            .execute(&mut *tx)
            .await?;
            review_failures(&mut tx, learner, id, now).await?;
        }
        tx.commit().await?;
        Ok(ids)
    }
}

/// Records the sets a session draws on.
async fn insert_session_sets(
    conn: &mut sqlx::AnyConnection,
    learner: &LearnerId,
    session_id: &str,
    sets: &[String],
) -> Result<(), sqlx::Error> {
    for set in sets {
        sqlx::query(
            "INSERT INTO session_sets (session_id, set_id, owner_id) VALUES ($1, $2, $3)
             ON CONFLICT (session_id, set_id) DO NOTHING",
        )
        .bind(session_id)
        .bind(set)
        .bind(learner)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// A session read from a file, its ids settled, ready to be written in one go.
#[derive(Clone, Debug)]
pub struct ImportedSession {
    pub id: String,
    /// `None` for today's review across `sets`.
    pub set_id: Option<String>,
    /// The sets its points come from.
    pub sets: Vec<String>,
    pub status: SessionStatus,
    pub target_point_ids: Vec<String>,
    pub leaf_id: Option<String>,
    pub mode: SessionMode,
    pub active_rabbithole_id: Option<String>,
    pub decline_cooldown: i64,
    pub overlay_dismissed: bool,
    pub active_ms: i64,
    pub started_at: i64,
    pub updated_at: i64,
    pub ended_at: Option<i64>,
    /// In append order, parents first.
    pub entries: Vec<Entry>,
    pub recalled: Vec<ImportedRecall>,
    /// Every rabbit hole, `session_id` already this session's.
    pub rabbitholes: Vec<super::RabbitholeRow>,
    pub struggles: Vec<super::StruggleRow>,
    /// (resource id, when shown).
    pub shown: Vec<(String, i64)>,
}

/// A recall of an imported session.
#[derive(Clone, Debug)]
pub struct ImportedRecall {
    pub point_id: String,
    pub rating: Rating,
    pub confidence: f64,
    pub entry_id: Option<String>,
    pub in_rabbithole: bool,
    pub at: i64,
}

impl Store {
    /// Whether any learner has a session with this id.
    pub async fn session_exists(&self, id: &str) -> Result<bool, StoreError> {
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM sessions WHERE id = $1")
            .bind(id)
            .one(self.read())
            .await?;
        Ok(n > 0)
    }

    /// Whether any of these entry ids is taken (by any session of any learner).
    pub async fn any_entry_exists(&self, ids: &[&str]) -> Result<bool, StoreError> {
        self.any_id_taken("SELECT COUNT(*) FROM session_entries WHERE id IN ", ids).await
    }

    /// Whether any of these rabbit-hole ids is taken.
    pub async fn any_rabbithole_exists(&self, ids: &[&str]) -> Result<bool, StoreError> {
        self.any_id_taken("SELECT COUNT(*) FROM rabbithole_events WHERE id IN ", ids).await
    }

    /// Runs `count_in` (a fixed statement ending in `IN `) over `ids` in chunks.
    async fn any_id_taken(&self, count_in: &'static str, ids: &[&str]) -> Result<bool, StoreError> {
        for chunk in ids.chunks(500) {
            let marks: Vec<String> = (1..=chunk.len()).map(|i| format!("${i}")).collect();
            let sql = format!("{count_in}({})", marks.join(", "));
            // Only numbered placeholders are formatted in; the ids are bound.
            let mut query = sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(sql));
            for id in chunk {
                query = query.bind(*id);
            }
            if query.one(self.read()).await? > 0 {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Writes an imported session and everything it owns (entries, recalls, rabbit holes,
    /// struggles, resources shown) in one transaction, all owned by `learner`. An open (paused)
    /// session is kept open only if its set (or, for a review, today's review) has no other.
    pub async fn insert_imported_session(
        &self,
        learner: &LearnerId,
        s: &ImportedSession,
    ) -> Result<(), StoreError> {
        let mut tx = self.write_transaction().await?;
        let open: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM sessions WHERE owner_id = $1 AND COALESCE(set_id, '') = $2
                AND status IN ('in_progress', 'paused')",
        )
        .bind(learner)
        .bind(s.set_id.as_deref().unwrap_or_default())
        .fetch_one(&mut *tx)
        .await?;
        let status = match s.status {
            SessionStatus::InProgress | SessionStatus::Paused if open > 0 => SessionStatus::Abandoned,
            other @ (SessionStatus::InProgress
            | SessionStatus::Paused
            | SessionStatus::Completed
            | SessionStatus::Abandoned) => other,
        };
        sqlx::query(
            "INSERT INTO sessions (id, owner_id, set_id, status, target_point_ids, mode, active_rabbithole_id,
                 decline_cooldown, overlay_dismissed, active_ms, started_at, updated_at, ended_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
        )
        .bind(&s.id)
        .bind(learner)
        .bind(&s.set_id)
        .bind(status.as_str())
        .bind(json_text(&s.target_point_ids)?)
        .bind(s.mode.as_str())
        .bind(&s.active_rabbithole_id)
        .bind(s.decline_cooldown)
        .bind(i64::from(s.overlay_dismissed))
        .bind(s.active_ms)
        .bind(s.started_at)
        .bind(s.updated_at)
        .bind(s.ended_at)
        .execute(&mut *tx)
        .await?;
        insert_session_sets(&mut tx, learner, &s.id, &s.sets).await?;
        for e in &s.entries {
            let (role, agent) = super::entries::role_and_agent(e.speaker);
            sqlx::query(
                "INSERT INTO session_entries (id, session_id, owner_id, parent_id, seq, created_at, kind, role,
                     agent, content, data, client_message_id)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, NULL)",
            )
            .bind(&e.id)
            .bind(&s.id)
            .bind(learner)
            .bind(&e.parent_id)
            .bind(e.seq)
            .bind(e.created_at)
            .bind(e.kind.as_str())
            .bind(role)
            .bind(agent)
            .bind(&e.content)
            .bind(e.data.as_ref().map(|d| d.to_string()))
            .execute(&mut *tx)
            .await?;
        }
        // The leaf is set once its entry exists, and so is the link to the newest summary.
        let summary = s.entries.iter().filter(|e| e.kind == EntryKind::Summary).max_by_key(|e| e.seq);
        sqlx::query(
            "UPDATE sessions SET leaf_id = $1, summary_entry_id = $2, summary_status = $3
              WHERE id = $4 AND owner_id = $5",
        )
        .bind(&s.leaf_id)
        .bind(summary.map(|e| e.id.clone()))
        .bind(summary.map(|_| SummaryStatus::Ready.as_str()))
        .bind(&s.id)
        .bind(learner)
        .execute(&mut *tx)
        .await?;
        for r in &s.recalled {
            let outcome = NewOutcome {
                session_id: s.id.clone(),
                point_id: r.point_id.clone(),
                rating: r.rating,
                confidence: r.confidence,
                entry_id: r.entry_id.clone(),
                in_rabbithole: r.in_rabbithole,
                at: r.at,
            };
            insert_outcome(&mut tx, learner, &outcome).await?;
        }
        for h in &s.rabbitholes {
            sqlx::query(
                "INSERT INTO rabbithole_events (id, session_id, owner_id, topic, label, status, trigger_entry_id,
                     branch_from_id, conversation, detection, points_recalled, created_at, updated_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
            )
            .bind(&h.id)
            .bind(&s.id)
            .bind(learner)
            .bind(&h.topic)
            .bind(&h.label)
            .bind(h.status.as_str())
            .bind(&h.trigger_entry_id)
            .bind(&h.branch_from_id)
            .bind(h.conversation.as_ref().map(|c| c.to_string()))
            .bind(h.detection.as_ref().map(|d| d.to_string()))
            .bind(h.points_recalled)
            .bind(h.created_at)
            .bind(h.updated_at)
            .execute(&mut *tx)
            .await?;
        }
        for row in &s.struggles {
            let t = &row.struggle;
            sqlx::query(
                "INSERT INTO point_struggles (session_id, point_id, owner_id, attempts, hints, near_misses, rung,
                     revealed, parked, counted_entry_id, updated_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
                 ON CONFLICT (session_id, point_id) DO NOTHING",
            )
            .bind(&s.id)
            .bind(&row.point_id)
            .bind(learner)
            .bind(i64::from(t.attempts))
            .bind(i64::from(t.hints))
            .bind(i64::from(t.near_misses))
            .bind(t.rung.as_str())
            .bind(i64::from(t.revealed))
            .bind(i64::from(t.parked))
            .bind(&t.counted_entry_id)
            .bind(row.updated_at)
            .execute(&mut *tx)
            .await?;
        }
        for (resource, at) in &s.shown {
            sqlx::query(
                "INSERT INTO shown_resources (session_id, resource_id, owner_id, shown_at)
                 SELECT $1, id, $3, $4 FROM resources WHERE id = $2 AND owner_id = $3
                 ON CONFLICT (session_id, resource_id) DO NOTHING",
            )
            .bind(&s.id)
            .bind(resource)
            .bind(learner)
            .bind(at)
            .execute(&mut *tx)
            .await?;
        }
        // Its recalls stay out of the review log: the points' imported schedules already
        // count them (the files carry schedules, not the log).
        tx.commit().await?;
        Ok(())
    }
}

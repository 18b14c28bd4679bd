//! The review log and the schedules replayed from it (see `crate::schedule`). Reviews are
//! written in the transaction that records a recall or ends a session: a recall is reviewed
//! as rated, and when a session ends each point tried and not recalled in it is one Again
//! review. There is one review per session and point (a unique index), so crashes, resumes
//! and retries cannot double one.
//!
//! Long by design: writing a review and replaying the schedule it changes are one
//! transaction, so they live side by side.

use std::collections::HashMap;

use sqlx::AnyConnection;
use warren_app::clock::DAY_MS;
use warren_app::learner::LearnerId;
use warren_app::schedule::Rating;

use super::points::write_card;
use super::{Backend, Placeholders, Reads, Store, StoreError, new_id, now_ms};
use crate::schedule::{
    Carried, DEFAULT_LEECH_LAPSES, FsrsCard, LEECH_RANGE, Logged, Memory, RETENTION_RANGE, Scheduler, Step,
};

warren_app::named_enum! {
    /// Why a review is in the log.
    pub enum ReviewKind {
        /// A recall checked off.
        Recall = "recall",
        /// Tried in a session that ended without recalling it.
        Failure = "failure",
        /// Carried in by an import, from Warren or elsewhere.
        Imported = "imported",
    }
}

/// A point's log as a file carries it: where its memory stood before the log (if it came
/// with a schedule but not the reviews that made it), and its reviews since, oldest first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PointLog {
    pub carried: Option<Carried>,
    pub reviews: Vec<Logged>,
    /// When the point is due where it came from (an Anki card's due date): it stays due then,
    /// whatever the replay says, until its first review here.
    pub due_at: Option<i64>,
}

/// One review of a point, as the set page and the fitting read it.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct LoggedReview {
    pub point_id: String,
    pub session_id: Option<String>,
    #[sqlx(try_from = "String")]
    pub rating: Rating,
    #[sqlx(try_from = "String")]
    pub kind: ReviewKind,
    pub reviewed_at: i64,
}

/// The learner's scheduler, inside a transaction.
pub(super) async fn scheduler_in(
    conn: &mut AnyConnection,
    learner: &LearnerId,
) -> Result<Scheduler, StoreError> {
    let row: Option<(f64, String)> =
        sqlx::query_as("SELECT retention, parameters FROM learner_schedules WHERE owner_id = $1")
            .bind(learner)
            .fetch_optional(conn)
            .await?;
    Ok(scheduler_of(row))
}

/// A scheduler from its stored row: the retention, and the parameters as numbers separated by
/// commas (empty, or no row: the defaults).
fn scheduler_of(row: Option<(f64, String)>) -> Scheduler {
    match row {
        Some((retention, parameters)) => {
            let parameters: Vec<f32> = parameters.split(',').filter_map(|w| w.trim().parse().ok()).collect();
            Scheduler::new(&parameters, retention)
        }
        None => Scheduler::default(),
    }
}

/// Logs a recall as the session's review of the point (in place of a failure written when the
/// session was left before it was resumed) and replays the point. Returns its new card.
pub(super) async fn review_recall(
    conn: &mut AnyConnection,
    learner: &LearnerId,
    session_id: &str,
    point_id: &str,
    rating: Rating,
    at: i64,
) -> Result<Option<FsrsCard>, StoreError> {
    sqlx::query(
        "DELETE FROM reviews WHERE session_id = $1 AND point_id = $2 AND owner_id = $3 AND kind = 'failure'",
    )
    .bind(session_id)
    .bind(point_id)
    .bind(learner)
    .execute(&mut *conn)
    .await?;
    insert_review(conn, learner, point_id, session_id, rating, ReviewKind::Recall, at).await?;
    let scheduler = scheduler_in(conn, learner).await?;
    replay_point(conn, learner, point_id, &scheduler).await
}

/// Logs one Again review for each point tried in a session that has ended and not recalled
/// in it (one whose answer was given and never said back, one whose hints ran out), then
/// replays those points. A point never asked about gets nothing; a point already reviewed in
/// the session is left alone, so ending a session again adds nothing; a recall the learner
/// disputed leaves no review, whether the session had ended then or ends later.
pub(super) async fn review_failures(
    conn: &mut AnyConnection,
    learner: &LearnerId,
    session_id: &str,
    at: i64,
) -> Result<(), StoreError> {
    let failed: Vec<String> = sqlx::query_scalar(
        "SELECT s.point_id FROM point_struggles s
          WHERE s.session_id = $1 AND s.owner_id = $2
            AND (s.attempts > 0 OR s.hints > 0 OR s.revealed <> 0)
            AND NOT EXISTS (SELECT 1 FROM recall_outcomes o WHERE o.session_id = s.session_id AND o.point_id = s.point_id)
            AND NOT EXISTS (SELECT 1 FROM reviews r WHERE r.session_id = s.session_id AND r.point_id = s.point_id)
            AND NOT EXISTS (SELECT 1 FROM review_disputes d WHERE d.session_id = s.session_id AND d.point_id = s.point_id)
          ORDER BY s.point_id",
    )
    .bind(session_id)
    .bind(learner)
    .fetch_all(&mut *conn)
    .await?;
    if failed.is_empty() {
        return Ok(());
    }
    let scheduler = scheduler_in(conn, learner).await?;
    for point_id in failed {
        insert_review(conn, learner, &point_id, session_id, Rating::Again, ReviewKind::Failure, at).await?;
        replay_point(conn, learner, &point_id, &scheduler).await?;
    }
    Ok(())
}

async fn insert_review(
    conn: &mut AnyConnection,
    learner: &LearnerId,
    point_id: &str,
    session_id: &str,
    rating: Rating,
    kind: ReviewKind,
    at: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO reviews (id, owner_id, point_id, session_id, rating, kind, reviewed_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (session_id, point_id) DO NOTHING",
    )
    .bind(new_id())
    .bind(learner)
    .bind(point_id)
    .bind(session_id)
    .bind(rating.as_str())
    .bind(kind.as_str())
    .bind(at)
    .execute(conn)
    .await?;
    Ok(())
}

/// Writes imported points' logs, already replayed (each review's step from
/// [`Scheduler::replay`]), a few hundred rows a statement: a deck of ten thousand cards with
/// their histories is written in seconds, not a statement a review.
pub(super) async fn insert_replayed(
    conn: &mut AnyConnection,
    backend: Backend,
    learner: &LearnerId,
    logs: &[(&str, &[Logged], &[Step])],
) -> Result<(), sqlx::Error> {
    const ROWS: usize = 400;
    let rows: Vec<(&str, &Logged, &Step)> = logs
        .iter()
        .flat_map(|(point, reviews, steps)| {
            reviews.iter().zip(steps.iter()).map(move |(r, s)| (*point, r, s))
        })
        .collect();
    for chunk in rows.chunks(ROWS) {
        // A point's first review has no memory before it: NULL in the statement (see
        // `replay_point`).
        let mut placeholders = Placeholders::new(backend);
        let values: Vec<String> = chunk
            .iter()
            .map(|(_, _, step)| {
                // id, owner, point, (session), rating, (kind), time, elapsed days.
                let mut cells = placeholders.take(6);
                cells.insert(3, "NULL".into());
                cells.insert(5, format!("'{}'", ReviewKind::Imported.as_str()));
                match step.before {
                    Some(_) => cells.extend(placeholders.take(2)),
                    None => cells.extend(["NULL".to_string(), "NULL".to_string()]),
                }
                cells.extend(placeholders.take(2));
                format!("({})", cells.join(", "))
            })
            .collect();
        let sql = format!(
            "INSERT INTO reviews (id, owner_id, point_id, session_id, rating, kind, reviewed_at, elapsed_days,
                 stability_before, difficulty_before, stability_after, difficulty_after) VALUES {}",
            values.join(", ")
        );
        let mut insert = sqlx::query(sqlx::AssertSqlSafe(sql));
        for (point, review, step) in chunk {
            insert = insert
                .bind(new_id())
                .bind(learner.clone())
                .bind(point.to_string())
                .bind(review.rating.as_str())
                .bind(review.at)
                .bind(step.elapsed_days);
            if let Some(before) = step.before {
                insert = insert.bind(before.stability).bind(before.difficulty);
            }
            insert = insert.bind(step.after.stability).bind(step.after.difficulty);
        }
        insert.execute(&mut *conn).await?;
    }
    Ok(())
}

/// A point whose history came from elsewhere stays due when it was due there, until it is
/// first reviewed here.
pub(super) fn keep_imported_due(card: &mut FsrsCard, due_at: i64) {
    card.due_at = due_at;
    card.scheduled_days = card.last_review_at.map_or(0, |last| ((due_at - last) / DAY_MS).max(0));
}

/// What a point's replay starts from.
#[derive(sqlx::FromRow)]
struct PointSchedule {
    imported_due_at: Option<i64>,
    carried_stability: Option<f64>,
    carried_difficulty: Option<f64>,
    carried_at: Option<i64>,
    carried_reps: i64,
    carried_lapses: i64,
    schedule_reset_at: Option<i64>,
    created_at: i64,
}

/// Replays one point's log: every review's memory before and after, and the card it leaves.
/// `None` when the point is not the learner's.
pub(super) async fn replay_point(
    conn: &mut AnyConnection,
    learner: &LearnerId,
    point_id: &str,
    scheduler: &Scheduler,
) -> Result<Option<FsrsCard>, StoreError> {
    let point: Option<PointSchedule> = sqlx::query_as(
        "SELECT imported_due_at, carried_stability, carried_difficulty, carried_at, carried_reps, carried_lapses,
                schedule_reset_at, created_at
           FROM recall_points WHERE id = $1 AND owner_id = $2",
    )
    .bind(point_id)
    .bind(learner)
    .fetch_optional(&mut *conn)
    .await?;
    let Some(point) = point else { return Ok(None) };
    let carried = match (point.carried_stability, point.carried_difficulty, point.carried_at) {
        (Some(stability), Some(difficulty), Some(at)) => Some(Carried {
            memory: Memory { stability, difficulty },
            at,
            reps: point.carried_reps,
            lapses: point.carried_lapses,
        }),
        (None, _, _) | (_, None, _) | (_, _, None) => None,
    };
    let (reset_at, created_at) = (point.schedule_reset_at, point.created_at);
    let rows: Vec<(String, String, i64, String)> = sqlx::query_as(
        "SELECT id, rating, reviewed_at, kind FROM reviews WHERE point_id = $1 AND owner_id = $2
            AND reviewed_at >= $3
          ORDER BY reviewed_at, id",
    )
    .bind(point_id)
    .bind(learner)
    .bind(reset_at.unwrap_or(i64::MIN))
    .fetch_all(&mut *conn)
    .await?;
    let mut log = Vec::with_capacity(rows.len());
    for (id, rating, at, _) in &rows {
        let rating = rating
            .parse::<Rating>()
            .map_err(|_| StoreError::Corrupt(format!("review {id} has the rating {rating:?}")))?;
        log.push(Logged { rating, at: *at });
    }
    // With nothing to replay the point is new: due from when it was added, or reset.
    let mut replayed = scheduler.replay(carried, &log, reset_at.unwrap_or(created_at));
    // Due where it came from until it is reviewed here.
    let only_imported =
        !rows.is_empty() && rows.iter().all(|(_, _, _, kind)| kind == ReviewKind::Imported.as_str());
    if let (Some(due_at), true) = (point.imported_due_at, only_imported) {
        keep_imported_due(&mut replayed.card, due_at);
    }
    for ((id, _, _, _), step) in rows.iter().zip(&replayed.steps) {
        // A point's first review has no memory before it. Written as NULL in the statement:
        // `Any` sends a bound empty float in a form PostgreSQL refuses.
        let statement = match step.before {
            Some(before) => sqlx::query(
                "UPDATE reviews SET elapsed_days = $1, stability_after = $2, difficulty_after = $3,
                     stability_before = $4, difficulty_before = $5
                 WHERE id = $6",
            )
            .bind(step.elapsed_days)
            .bind(step.after.stability)
            .bind(step.after.difficulty)
            .bind(before.stability)
            .bind(before.difficulty)
            .bind(id),
            None => sqlx::query(
                "UPDATE reviews SET elapsed_days = $1, stability_after = $2, difficulty_after = $3,
                     stability_before = NULL, difficulty_before = NULL
                 WHERE id = $4",
            )
            .bind(step.elapsed_days)
            .bind(step.after.stability)
            .bind(step.after.difficulty)
            .bind(id),
        };
        statement.execute(&mut *conn).await?;
    }
    let card = replayed.card;
    write_card(conn, learner, point_id, &card).await?;
    Ok(Some(card))
}

impl Store {
    /// The learner's scheduler: their retention and parameters, or the defaults.
    pub async fn scheduler(&self, learner: &LearnerId) -> Result<Scheduler, StoreError> {
        let row: Option<(f64, String)> =
            sqlx::query_as("SELECT retention, parameters FROM learner_schedules WHERE owner_id = $1")
                .bind(learner)
                .optional(self.read())
                .await?;
        Ok(scheduler_of(row))
    }

    /// Failures after which the learner's points are flagged as leeches.
    pub async fn leech_lapses(&self, learner: &LearnerId) -> Result<u32, StoreError> {
        let lapses: Option<i64> =
            sqlx::query_scalar("SELECT leech_lapses FROM learner_schedules WHERE owner_id = $1")
                .bind(learner)
                .optional(self.read())
                .await?;
        Ok(lapses.and_then(|n| u32::try_from(n).ok()).unwrap_or(DEFAULT_LEECH_LAPSES))
    }

    /// Sets the retention the learner asks for and the failures that make a leech (each
    /// clamped to its range), then replays every point of theirs that has a schedule, so due
    /// dates follow at once. Returns how many due dates moved.
    pub async fn set_schedule(
        &self,
        learner: &LearnerId,
        retention: f64,
        leech_lapses: u32,
    ) -> Result<usize, StoreError> {
        let retention = retention.clamp(*RETENTION_RANGE.start(), *RETENTION_RANGE.end());
        let leech_lapses = leech_lapses.clamp(*LEECH_RANGE.start(), *LEECH_RANGE.end());
        let mut tx = self.write_transaction().await?;
        sqlx::query(
            "INSERT INTO learner_schedules (owner_id, retention, parameters, leech_lapses, updated_at)
             VALUES ($1, $2, '', $3, $4)
             ON CONFLICT (owner_id) DO UPDATE SET retention = excluded.retention,
                 leech_lapses = excluded.leech_lapses, updated_at = excluded.updated_at",
        )
        .bind(learner)
        .bind(retention)
        .bind(i64::from(leech_lapses))
        .bind(now_ms())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        self.replay_learner(learner).await
    }

    /// Replays every point of the learner's that has a log or a carried schedule, a few
    /// hundred to a transaction; returns how many due dates moved.
    pub async fn replay_learner(&self, learner: &LearnerId) -> Result<usize, StoreError> {
        let points: Vec<(String, i64)> = sqlx::query_as(
            "SELECT p.id, p.due_at FROM recall_points p
              WHERE p.owner_id = $1
                AND (p.carried_at IS NOT NULL OR EXISTS (SELECT 1 FROM reviews r WHERE r.point_id = p.id))
              ORDER BY p.id",
        )
        .bind(learner)
        .all(self.read())
        .await?;
        let mut moved = 0;
        for chunk in points.chunks(200) {
            let mut tx = self.write_transaction().await?;
            let scheduler = scheduler_in(&mut tx, learner).await?;
            for (point_id, due_at) in chunk {
                let card = replay_point(&mut tx, learner, point_id, &scheduler).await?;
                moved += usize::from(card.is_some_and(|c| c.due_at != *due_at));
            }
            tx.commit().await?;
        }
        Ok(moved)
    }

    /// The review log of a set's points, oldest first.
    pub async fn set_log(&self, learner: &LearnerId, set_id: &str) -> Result<Vec<LoggedReview>, StoreError> {
        const SQL: &str = "SELECT r.point_id, r.session_id, r.rating, r.kind, r.reviewed_at FROM reviews r
            JOIN recall_points p ON p.id = r.point_id
            WHERE p.set_id = $1 AND p.owner_id = $2 AND r.owner_id = $2
            ORDER BY r.reviewed_at, r.id";
        Ok(self.set_rows(SQL, learner, set_id).await?)
    }

    /// The log of each of a set's points that has one, as an export writes it: the carried
    /// start and the reviews that count (those since the point's schedule was last reset).
    pub async fn set_logs(
        &self,
        learner: &LearnerId,
        set_id: &str,
    ) -> Result<HashMap<String, PointLog>, StoreError> {
        const STARTS: &str =
            "SELECT id, carried_stability, carried_difficulty, carried_at, carried_reps, carried_lapses
            FROM recall_points
            WHERE set_id = $1 AND owner_id = $2 AND carried_stability IS NOT NULL
            AND carried_difficulty IS NOT NULL AND carried_at IS NOT NULL";
        let starts: Vec<(String, f64, f64, i64, i64, i64)> = self.set_rows(STARTS, learner, set_id).await?;
        const REVIEWS: &str = "SELECT r.id, r.point_id, r.rating, r.reviewed_at FROM reviews r
            JOIN recall_points p ON p.id = r.point_id
            WHERE p.set_id = $1 AND p.owner_id = $2 AND r.owner_id = $2
            AND r.reviewed_at >= COALESCE(p.schedule_reset_at, 0)
            ORDER BY r.reviewed_at, r.id";
        let reviews: Vec<(String, String, String, i64)> = self.set_rows(REVIEWS, learner, set_id).await?;
        let mut logs: HashMap<String, PointLog> = HashMap::new();
        for (point_id, stability, difficulty, at, reps, lapses) in starts {
            logs.entry(point_id).or_default().carried =
                Some(Carried { memory: Memory { stability, difficulty }, at, reps, lapses });
        }
        for (id, point_id, rating, at) in reviews {
            let rating = rating
                .parse::<Rating>()
                .map_err(|_| StoreError::Corrupt(format!("review {id} has the rating {rating:?}")))?;
            logs.entry(point_id).or_default().reviews.push(Logged { rating, at });
        }
        Ok(logs)
    }

    /// A point's reviews, oldest first.
    pub async fn point_reviews(
        &self,
        learner: &LearnerId,
        point_id: &str,
    ) -> Result<Vec<LoggedReview>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT point_id, session_id, rating, kind, reviewed_at FROM reviews
              WHERE point_id = $1 AND owner_id = $2 ORDER BY reviewed_at, id",
        )
        .bind(point_id)
        .bind(learner)
        .all(self.read())
        .await?)
    }

    /// Replays every point whose log has rows not replayed yet (the back-fill of the
    /// migration that began the log): at start-up, after migrating. Returns how many points.
    pub async fn replay_pending(&self) -> Result<usize, StoreError> {
        let pending: Vec<(String, LearnerId)> = sqlx::query_as(
            "SELECT DISTINCT r.point_id, r.owner_id FROM reviews r JOIN recall_points p ON p.id = r.point_id
              WHERE r.stability_after IS NULL AND r.reviewed_at >= COALESCE(p.schedule_reset_at, 0)
              ORDER BY r.point_id",
        )
        .all(self.read())
        .await?;
        for chunk in pending.chunks(200) {
            let mut tx = self.write_transaction().await?;
            for (point_id, learner) in chunk {
                let scheduler = scheduler_in(&mut tx, learner).await?;
                replay_point(&mut tx, learner, point_id, &scheduler).await?;
            }
            tx.commit().await?;
        }
        Ok(pending.len())
    }
}

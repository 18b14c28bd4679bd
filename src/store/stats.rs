//! What the dashboard's statistics are made of: the days a learner studied and the reviews
//! of each day, counted in the learner's own days (see `warren_app::clock`).

use super::{Reads, Store, StoreError};
use warren_app::learner::LearnerId;

impl Store {
    /// The learner's days on which they wrote in a session, newest first.
    pub async fn study_days(&self, learner: &LearnerId, utc_offset_min: i32) -> Result<Vec<i64>, StoreError> {
        Ok(sqlx::query_scalar(
            "SELECT DISTINCT (created_at + $2) / 86400000 AS day FROM session_entries
             WHERE owner_id = $1 AND kind = 'message' AND role = 'user' ORDER BY day DESC",
        )
        .bind(learner)
        .bind(i64::from(utc_offset_min) * 60_000)
        .all(self.read())
        .await?)
    }

    /// Points of sets not archived that fall due per learner's day before `until_ms`; points
    /// already due count on `today`.
    pub async fn due_per_day(
        &self,
        learner: &LearnerId,
        utc_offset_min: i32,
        today: i64,
        until_ms: i64,
    ) -> Result<Vec<(i64, i64)>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT CASE WHEN (p.due_at + $2) / 86400000 < $3 THEN $3 ELSE (p.due_at + $2) / 86400000 END AS day,
                    COUNT(*) AS points
               FROM recall_points p JOIN recall_sets s ON s.id = p.set_id
              WHERE p.owner_id = $1 AND s.owner_id = $1 AND s.archived_at IS NULL AND p.due_at < $4
              GROUP BY day ORDER BY day",
        )
        .bind(learner)
        .bind(i64::from(utc_offset_min) * 60_000)
        .bind(today)
        .bind(until_ms)
        .all(self.read())
        .await?)
    }

    /// Reviews (points recalled, each with its FSRS rating) per learner's day since `since_ms`.
    pub async fn reviews_per_day(
        &self,
        learner: &LearnerId,
        utc_offset_min: i32,
        since_ms: i64,
    ) -> Result<Vec<(i64, i64)>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT (recalled_at + $2) / 86400000 AS day, COUNT(*) AS reviews FROM recall_outcomes
             WHERE owner_id = $1 AND recalled_at >= $3 GROUP BY day ORDER BY day",
        )
        .bind(learner)
        .bind(i64::from(utc_offset_min) * 60_000)
        .bind(since_ms)
        .all(self.read())
        .await?)
    }

    /// Points recalled without being given the answer (any rating but `again`) in sessions
    /// started since `since_ms`.
    pub async fn recalled_unaided_since(
        &self,
        learner: &LearnerId,
        since_ms: i64,
    ) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar(
            "SELECT COUNT(*) FROM recall_outcomes o JOIN sessions s ON s.id = o.session_id
             WHERE o.owner_id = $1 AND s.owner_id = $1 AND s.started_at >= $2 AND o.rating <> 'again'",
        )
        .bind(learner)
        .bind(since_ms)
        .one(self.read())
        .await?)
    }
}

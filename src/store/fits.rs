//! Fitting runs (see `crate::fitting`): the latest run for each learner, claimed by the
//! instance that runs it and kept for the account page, with its progress and its figures.

use warren_app::learner::LearnerId;
use warren_app::schedule::Rating;

use super::{Reads, Store, StoreError, now_ms};
use crate::schedule::fit::{self, Fitted, History};

/// A running fit whose heartbeat is older than this is taken to have died with its instance.
pub const FIT_LAPSE_MS: i64 = 60_000;

warren_app::named_enum! {
    /// Where a fitting run stands.
    pub enum FitStatus {
        Running = "running",
        Done = "done",
        Failed = "failed",
    }
}

warren_app::named_enum! {
    /// Why a fit ran.
    pub enum FitReason {
        /// The learner pressed "Fit my schedule".
        Asked = "asked",
        /// The weekly fit of a learner with new reviews.
        Weekly = "weekly",
    }
}

/// A learner's latest fitting run.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct FitRow {
    #[sqlx(try_from = "String")]
    pub status: FitStatus,
    #[sqlx(try_from = "String")]
    pub reason: FitReason,
    pub started_at: i64,
    pub finished_at: Option<i64>,
    /// Written as a running fit goes: one older than [`FIT_LAPSE_MS`] died with its instance.
    pub heartbeat_at: i64,
    pub progress_done: i64,
    pub progress_total: i64,
    pub items: i64,
    pub log_loss_before: Option<f64>,
    pub rmse_before: Option<f64>,
    pub log_loss_after: Option<f64>,
    pub rmse_after: Option<f64>,
    pub adopted: i64,
    pub moved: i64,
    pub error: Option<String>,
}

/// Selects from the reviews a fit learns from: those of points whose whole history is in the
/// log (none carried in without its reviews), since each point's schedule was last reset.
macro_rules! fitted_reviews {
    ($columns:literal, $tail:literal) => {
        concat!(
            "SELECT ",
            $columns,
            " FROM reviews r JOIN recall_points p ON p.id = r.point_id
              WHERE r.owner_id = $1 AND p.owner_id = $1 AND p.carried_at IS NULL
                AND r.reviewed_at >= COALESCE(p.schedule_reset_at, 0) ",
            $tail
        )
    };
}

impl Store {
    /// The learner's latest fitting run, if any.
    pub async fn fit_run(&self, learner: &LearnerId) -> Result<Option<FitRow>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT status, reason, started_at, finished_at, heartbeat_at, progress_done, progress_total, items,
                    log_loss_before, rmse_before, log_loss_after, rmse_after, adopted, moved, error
               FROM schedule_fits WHERE owner_id = $1",
        )
        .bind(learner)
        .optional(self.read())
        .await?)
    }

    /// How many of the learner's reviews a fit would learn from: each that follows an earlier
    /// review of the same point, as the optimiser keeps them ([`fit::items`], [`fit::usable`]).
    pub async fn fit_items(&self, learner: &LearnerId) -> Result<usize, StoreError> {
        Ok(fit::usable(&fit::items(&self.review_histories(learner).await?)))
    }

    /// Each of the learner's points' history, as a fit reads it.
    pub async fn review_histories(&self, learner: &LearnerId) -> Result<Vec<History>, StoreError> {
        let rows: Vec<(String, String, String, i64)> = sqlx::query_as(fitted_reviews!(
            "r.id, r.point_id, r.rating, r.reviewed_at",
            "ORDER BY r.point_id, r.reviewed_at, r.id"
        ))
        .bind(learner)
        .all(self.read())
        .await?;
        let mut reviews = Vec::with_capacity(rows.len());
        for (id, point_id, rating, at) in rows {
            let rating = rating
                .parse::<Rating>()
                .map_err(|_| StoreError::Corrupt(format!("review {id} has the rating {rating:?}")))?;
            reviews.push((point_id, rating, at));
        }
        Ok(fit::histories(reviews))
    }

    /// Claims a fit of the learner's schedule: true unless one is running (with a fresh
    /// heartbeat) already. The run's earlier figures are cleared.
    pub async fn claim_fit(&self, learner: &LearnerId, reason: FitReason) -> Result<bool, StoreError> {
        let now = now_ms();
        let done = self
            .write_one(
                sqlx::query(
                    "INSERT INTO schedule_fits (owner_id, status, reason, started_at, heartbeat_at)
                     VALUES ($1, 'running', $2, $3, $3)
                     ON CONFLICT (owner_id) DO UPDATE SET status = 'running', reason = excluded.reason,
                         started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at,
                         finished_at = NULL, progress_done = 0, progress_total = 0, items = 0,
                         log_loss_before = NULL, rmse_before = NULL, log_loss_after = NULL, rmse_after = NULL,
                         adopted = 0, moved = 0, error = NULL
                     WHERE schedule_fits.status <> 'running' OR schedule_fits.heartbeat_at < $4",
                )
                .bind(learner)
                .bind(reason.as_str())
                .bind(now)
                .bind(now - FIT_LAPSE_MS),
            )
            .await?;
        Ok(done == 1)
    }

    /// Records a running fit's progress (and that it is alive).
    pub async fn fit_progress(
        &self,
        learner: &LearnerId,
        items: usize,
        done: usize,
        total: usize,
    ) -> Result<(), StoreError> {
        let n = |v: usize| i64::try_from(v).unwrap_or(i64::MAX);
        self.write_one(
            sqlx::query(
                "UPDATE schedule_fits SET items = $1, progress_done = $2, progress_total = $3, heartbeat_at = $4
                  WHERE owner_id = $5 AND status = 'running'",
            )
            .bind(n(items))
            .bind(n(done))
            .bind(n(total))
            .bind(now_ms())
            .bind(learner),
        )
        .await?;
        Ok(())
    }

    /// Finishes a fit: the new parameters replace those in use if they predict the reviews
    /// better, every due date is replayed from the log with them, and the run keeps the
    /// figures and how many due dates moved. Returns that number.
    pub async fn finish_fit(
        &self,
        learner: &LearnerId,
        items: usize,
        fitted: &Fitted,
    ) -> Result<usize, StoreError> {
        let adopted = fitted.better();
        let moved = if adopted {
            let parameters = fitted.parameters.iter().map(f32::to_string).collect::<Vec<_>>().join(",");
            self.write_one(
                sqlx::query(
                    "INSERT INTO learner_schedules (owner_id, parameters, updated_at) VALUES ($1, $2, $3)
                     ON CONFLICT (owner_id) DO UPDATE SET parameters = excluded.parameters,
                         updated_at = excluded.updated_at",
                )
                .bind(learner)
                .bind(parameters)
                .bind(now_ms()),
            )
            .await?;
            self.replay_learner(learner).await?
        } else {
            0
        };
        self.write_one(
            sqlx::query(
                "UPDATE schedule_fits SET status = 'done', finished_at = $1, heartbeat_at = $1, items = $2,
                     progress_done = progress_total, log_loss_before = $3, rmse_before = $4,
                     log_loss_after = $5, rmse_after = $6, adopted = $7, moved = $8
                  WHERE owner_id = $9",
            )
            .bind(now_ms())
            .bind(i64::try_from(items).unwrap_or(i64::MAX))
            .bind(fitted.before.log_loss)
            .bind(fitted.before.rmse)
            .bind(fitted.after.log_loss)
            .bind(fitted.after.rmse)
            .bind(i64::from(adopted))
            .bind(i64::try_from(moved).unwrap_or(i64::MAX))
            .bind(learner),
        )
        .await?;
        Ok(moved)
    }

    /// Ends a fit that could not finish; the schedule stays as it was.
    pub async fn fail_fit(&self, learner: &LearnerId, error: &str) -> Result<(), StoreError> {
        self.write_one(
            sqlx::query(
                "UPDATE schedule_fits SET status = 'failed', finished_at = $1, heartbeat_at = $1, error = $2
                  WHERE owner_id = $3",
            )
            .bind(now_ms())
            .bind(error)
            .bind(learner),
        )
        .await?;
        Ok(())
    }

    /// Learners due their weekly fit: enough reviews to fit, reviews since their last fit,
    /// and no fit started in the last `every_ms` (nor one running).
    pub async fn learners_due_a_fit(&self, every_ms: i64) -> Result<Vec<LearnerId>, StoreError> {
        let now = now_ms();
        Ok(sqlx::query_scalar(
            "SELECT r.owner_id FROM reviews r
               JOIN recall_points p ON p.id = r.point_id
               LEFT JOIN schedule_fits f ON f.owner_id = r.owner_id
              WHERE p.carried_at IS NULL AND r.reviewed_at >= COALESCE(p.schedule_reset_at, 0)
                AND (f.owner_id IS NULL
                     OR (f.started_at < $1 AND (f.status <> 'running' OR f.heartbeat_at < $2)))
              GROUP BY r.owner_id, f.started_at
             HAVING COUNT(*) - COUNT(DISTINCT r.point_id) >= $3 AND MAX(r.reviewed_at) > COALESCE(f.started_at, 0)
              ORDER BY r.owner_id",
        )
        .bind(now - every_ms)
        .bind(now - FIT_LAPSE_MS)
        .bind(i64::try_from(fit::ANY_FIT).unwrap_or(i64::MAX))
        .all(self.read())
        .await?)
    }
}

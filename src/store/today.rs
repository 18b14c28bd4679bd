//! What today's review reads: the learner's due points across their sets, the links between
//! them, the day's new points so far, their limits and their pace.

use warren_app::learner::LearnerId;
use warren_app::schedule::CardState;

use super::{Reads, Store, StoreError};
use crate::schedule::FsrsCard;
use crate::schedule::today::Candidate;

/// The learner's daily limits (the Account page's "Today's review").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DailyLimits {
    pub points_per_session: u32,
    pub new_per_day: u32,
}

impl DailyLimits {
    /// The ranges the limits may take (no new points at all is a choice too).
    pub const PER_SESSION: std::ops::RangeInclusive<u32> = 1..=500;
    pub const NEW_PER_DAY: std::ops::RangeInclusive<u32> = 0..=500;
}

impl Default for DailyLimits {
    fn default() -> Self {
        Self { points_per_session: 20, new_per_day: 10 }
    }
}

/// What the queue reads of a due point: no more, since a learner may have tens of thousands.
#[derive(sqlx::FromRow)]
struct DueRow {
    id: String,
    set_id: String,
    position: i64,
    #[sqlx(try_from = "String")]
    fsrs_state: CardState,
    stability: f64,
    difficulty: f64,
    last_review_at: Option<i64>,
}

impl DueRow {
    /// The card as far as its chance of recall goes.
    fn card(&self) -> FsrsCard {
        FsrsCard {
            state: self.fsrs_state,
            stability: self.stability,
            difficulty: self.difficulty,
            last_review_at: self.last_review_at,
            ..FsrsCard::new(0)
        }
    }
}

/// Today's due points and what they are linked by.
#[derive(Clone, Debug, Default)]
pub struct DuePoints {
    pub candidates: Vec<Candidate>,
    /// Pairs of due points that share a resource.
    pub links: Vec<(String, String)>,
}

impl Store {
    /// The points of the learner's sets (archived ones aside) due at `now`, except those
    /// recalled since `since` (the start of the learner's day), with their chance of recall.
    pub async fn due_points(
        &self,
        learner: &LearnerId,
        now: i64,
        since: i64,
    ) -> Result<DuePoints, StoreError> {
        let rows: Vec<DueRow> = sqlx::query_as(
            "SELECT p.id, p.set_id, p.position, p.fsrs_state, p.stability, p.difficulty, p.last_review_at
               FROM recall_points p JOIN recall_sets s ON s.id = p.set_id
              WHERE p.owner_id = $1 AND s.owner_id = $1 AND s.archived_at IS NULL AND p.due_at <= $2",
        )
        .bind(learner)
        .bind(now)
        .all(self.read())
        .await?;
        let recalled: std::collections::HashSet<String> = sqlx::query_scalar(
            "SELECT point_id FROM reviews WHERE owner_id = $1 AND reviewed_at >= $2 AND kind = 'recall'",
        )
        .bind(learner)
        .bind(since)
        .all(self.read())
        .await?
        .into_iter()
        .collect();
        let scheduler = self.scheduler(learner).await?;
        let candidates: Vec<Candidate> = rows
            .into_iter()
            .filter(|r| !recalled.contains(&r.id))
            .map(|r| Candidate {
                retrievability: match r.fsrs_state {
                    CardState::New => None,
                    // A point with a schedule but no memory yet is as good as forgotten.
                    CardState::Learning | CardState::Review | CardState::Relearning => {
                        Some(scheduler.retrievability(&r.card(), now).unwrap_or(0.0))
                    }
                },
                id: r.id,
                set_id: r.set_id,
                position: r.position,
            })
            .collect();
        let shared: Vec<(String, String)> = sqlx::query_as(
            "SELECT resource_id, point_id FROM point_resources WHERE owner_id = $1 ORDER BY resource_id, point_id",
        )
        .bind(learner)
        .all(self.read())
        .await?;
        let due: std::collections::HashSet<&str> = candidates.iter().map(|c| c.id.as_str()).collect();
        // Each resource's due points, chained: the queue keeps a chain together.
        let mut links = Vec::new();
        let mut previous: Option<(&str, &str)> = None;
        for (resource, point) in shared.iter().filter(|(_, p)| due.contains(p.as_str())) {
            if let Some((r, p)) = previous
                && r == resource.as_str()
            {
                links.push((p.to_string(), point.clone()));
            }
            previous = Some((resource.as_str(), point.as_str()));
        }
        Ok(DuePoints { candidates, links })
    }

    /// How many points had their first review since `since`: the new points introduced today.
    /// A point that came with a schedule from elsewhere was not new.
    pub async fn new_points_since(&self, learner: &LearnerId, since: i64) -> Result<u32, StoreError> {
        let n: i64 = sqlx::query_scalar(
            "SELECT COUNT(DISTINCT r.point_id) FROM reviews r JOIN recall_points p ON p.id = r.point_id
              WHERE r.owner_id = $1 AND r.reviewed_at >= $2 AND p.carried_at IS NULL
                AND NOT EXISTS (SELECT 1 FROM reviews e WHERE e.point_id = r.point_id AND e.reviewed_at < $2)",
        )
        .bind(learner)
        .bind(since)
        .one(self.read())
        .await?;
        Ok(u32::try_from(n).unwrap_or(u32::MAX))
    }

    /// The learner's recent time per point: study time over points reviewed, in their sessions
    /// started since `since`; `None` until there are five such points.
    pub async fn ms_per_point(&self, learner: &LearnerId, since: i64) -> Result<Option<u64>, StoreError> {
        let (active, reviewed): (i64, i64) = sqlx::query_as(
            "SELECT CAST(COALESCE(SUM(s.active_ms), 0) AS BIGINT),
                    (SELECT COUNT(*) FROM reviews r JOIN sessions t ON t.id = r.session_id
                      WHERE r.owner_id = $1 AND t.owner_id = $1 AND t.started_at >= $2)
               FROM sessions s WHERE s.owner_id = $1 AND s.started_at >= $2",
        )
        .bind(learner)
        .bind(since)
        .one(self.read())
        .await?;
        if reviewed < 5 || active <= 0 {
            return Ok(None);
        }
        Ok(u64::try_from(active / reviewed).ok())
    }

    pub async fn daily_limits(&self, learner: &LearnerId) -> Result<DailyLimits, StoreError> {
        let row: Option<(i64, i64)> =
            sqlx::query_as("SELECT review_points_per_session, new_points_per_day FROM users WHERE id = $1")
                .bind(learner)
                .optional(self.read())
                .await?;
        let within = |n: i64, range: std::ops::RangeInclusive<u32>| {
            u32::try_from(n).unwrap_or(0).clamp(*range.start(), *range.end())
        };
        Ok(row.map_or_else(DailyLimits::default, |(per_session, new)| DailyLimits {
            points_per_session: within(per_session, DailyLimits::PER_SESSION),
            new_per_day: within(new, DailyLimits::NEW_PER_DAY),
        }))
    }

    pub async fn set_daily_limits(&self, learner: &LearnerId, limits: DailyLimits) -> Result<(), StoreError> {
        self.write_one(
            sqlx::query(
                "UPDATE users SET review_points_per_session = $1, new_points_per_day = $2 WHERE id = $3",
            )
            .bind(i64::from(limits.points_per_session))
            .bind(i64::from(limits.new_per_day))
            .bind(learner),
        )
        .await?;
        Ok(())
    }
}

//! Per-point struggle in a session: tries, hints, the rung of the hint ladder, the answer
//! given (see `engine::struggle` for the rules).

use std::collections::HashMap;
use warren_app::learner::LearnerId;

use super::columns::Flag;
use super::{Reads, Store, StoreError, now_ms};
use warren_app::ladder::Rung;

/// One point's struggle in one session.
#[derive(Clone, Debug, Default, PartialEq, sqlx::FromRow)]
pub struct Struggle {
    /// Learner messages about this point that did not recall it.
    #[sqlx(try_from = "i64")]
    pub attempts: u32,
    /// Hints given: rungs past the cue, answers excluded.
    #[sqlx(try_from = "i64")]
    pub hints: u32,
    /// Times the learner got close without getting it all.
    #[sqlx(try_from = "i64")]
    pub near_misses: u32,
    /// The rung of the next reply about this point.
    #[sqlx(try_from = "String")]
    pub rung: Rung,
    /// The answer was given at least once.
    #[sqlx(try_from = "Flag")]
    pub revealed: bool,
    /// Revealed, answered, and set aside until the other points are done.
    #[sqlx(try_from = "Flag")]
    pub parked: bool,
    /// The learner message last counted, so that a message answered again after a restart
    /// climbs once.
    pub counted_entry_id: Option<String>,
}

/// A stored row, for a session's export.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct StruggleRow {
    pub point_id: String,
    #[sqlx(flatten)]
    pub struggle: Struggle,
    pub updated_at: i64,
}

impl Store {
    /// Every point's struggle in a session, by point id (points never struggled with are
    /// absent).
    pub async fn struggles(
        &self,
        learner: &LearnerId,
        session_id: &str,
    ) -> Result<HashMap<String, Struggle>, StoreError> {
        let rows = self.struggle_rows(learner, session_id).await?;
        Ok(rows.into_iter().map(|r| (r.point_id, r.struggle)).collect())
    }

    /// A session's struggles as stored, in point order.
    pub async fn struggle_rows(
        &self,
        learner: &LearnerId,
        session_id: &str,
    ) -> Result<Vec<StruggleRow>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT point_id, attempts, hints, near_misses, rung, revealed, parked, counted_entry_id, updated_at
             FROM point_struggles WHERE session_id = $1 AND owner_id = $2 ORDER BY point_id",
        )
        .bind(session_id)
        .bind(learner)
        .all(self.read())
        .await?)
    }

    /// Writes the given points' struggles, in one statement.
    pub async fn save_struggles(
        &self,
        learner: &LearnerId,
        session_id: &str,
        changed: &[(&str, &Struggle)],
    ) -> Result<(), StoreError> {
        // A point named twice would make PostgreSQL refuse the statement (a row changed twice).
        let mut seen = std::collections::HashSet::new();
        let changed: Vec<&(&str, &Struggle)> = changed.iter().filter(|(id, _)| seen.insert(*id)).collect();
        if changed.is_empty() {
            return Ok(());
        }
        // One statement for every row (a turn changes one or two): atomic without a
        // transaction, and one trip to the database.
        const COLUMNS: usize = 11;
        let rows: Vec<String> = (0..changed.len())
            .map(|row| {
                let params: Vec<String> = (1..=COLUMNS).map(|c| format!("${}", row * COLUMNS + c)).collect();
                format!("({})", params.join(", "))
            })
            .collect();
        let sql = format!(
            "INSERT INTO point_struggles (session_id, point_id, owner_id, attempts, hints, near_misses, rung,
                 revealed, parked, counted_entry_id, updated_at)
             VALUES {}
             ON CONFLICT (session_id, point_id) DO UPDATE SET attempts = excluded.attempts,
                 hints = excluded.hints, near_misses = excluded.near_misses, rung = excluded.rung, revealed = excluded.revealed,
                 parked = excluded.parked, counted_entry_id = excluded.counted_entry_id,
                 updated_at = excluded.updated_at",
            rows.join(", ")
        );
        let now = now_ms();
        // The statement is fixed text and placeholders; every value is bound.
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
        for (point_id, s) in changed {
            query = query
                .bind(session_id)
                .bind(*point_id)
                .bind(learner)
                .bind(i64::from(s.attempts))
                .bind(i64::from(s.hints))
                .bind(i64::from(s.near_misses))
                .bind(s.rung.as_str())
                .bind(i64::from(s.revealed))
                .bind(i64::from(s.parked))
                .bind(s.counted_entry_id.clone())
                .bind(now);
        }
        self.write_one(query).await?;
        Ok(())
    }
}

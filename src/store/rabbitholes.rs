//! Rabbit holes: detected tangents, whether the learner explored them, and what was said.

use super::columns::MaybeJson;
use super::{Reads, Store, StoreError, new_id, now_ms};
use warren_app::learner::LearnerId;

warren_app::named_enum! {
    /// Where a detected tangent stands.
    pub enum RabbitholeStatus {
        /// Offered to the learner, no answer yet.
        Detected = "detected",
        /// "Stay on track", or the learner carried on without answering.
        Declined = "declined",
        Entered = "entered",
        /// Explored and back on the main line.
        Returned = "returned",
    }
}

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct RabbitholeRow {
    pub id: String,
    pub session_id: String,
    pub topic: String,
    pub label: String,
    #[sqlx(try_from = "String")]
    pub status: RabbitholeStatus,
    pub trigger_entry_id: Option<String>,
    pub branch_from_id: Option<String>,
    #[sqlx(try_from = "MaybeJson")]
    pub conversation: Option<serde_json::Value>,
    /// What the detector saw (its verdict as JSON), for the record.
    #[sqlx(try_from = "MaybeJson")]
    pub detection: Option<serde_json::Value>,
    pub points_recalled: i64,
    pub created_at: i64,
    pub updated_at: i64,
}

/// `SELECT … FROM rabbithole_events` followed by the given conditions.
macro_rules! select_rabbitholes {
    ($($rest:literal)+) => {
        concat!(
            "SELECT id, session_id, topic, label, status, trigger_entry_id, branch_from_id, conversation, ",
            "detection, points_recalled, created_at, updated_at FROM rabbithole_events ",
            $($rest),+
        )
    };
}

impl Store {
    pub async fn create_rabbithole(
        &self,
        learner: &LearnerId,
        session_id: &str,
        topic: &str,
        label: &str,
        trigger_entry_id: Option<&str>,
        detection: &serde_json::Value,
    ) -> Result<String, StoreError> {
        let id = new_id();
        let now = now_ms();
        let statement = sqlx::query(
            "INSERT INTO rabbithole_events (id, session_id, owner_id, topic, label, status, trigger_entry_id,
                 detection, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, 'detected', $6, $7, $8, $8)",
        )
        .bind(&id)
        .bind(session_id)
        .bind(learner)
        .bind(topic)
        .bind(label)
        .bind(trigger_entry_id)
        .bind(detection.to_string())
        .bind(now);
        self.write_one(statement).await?;
        Ok(id)
    }

    pub async fn rabbithole(
        &self,
        learner: &LearnerId,
        id: &str,
    ) -> Result<Option<RabbitholeRow>, StoreError> {
        Ok(sqlx::query_as(select_rabbitholes!("WHERE id = $1 AND owner_id = $2"))
            .bind(id)
            .bind(learner)
            .optional(self.read())
            .await?)
    }

    pub async fn rabbitholes(
        &self,
        learner: &LearnerId,
        session_id: &str,
    ) -> Result<Vec<RabbitholeRow>, StoreError> {
        Ok(sqlx::query_as(select_rabbitholes!(
            "WHERE session_id = $1 AND owner_id = $2 ORDER BY created_at, id"
        ))
        .bind(session_id)
        .bind(learner)
        .all(self.read())
        .await?)
    }

    pub async fn set_rabbithole_status(
        &self,
        learner: &LearnerId,
        id: &str,
        status: RabbitholeStatus,
        branch_from_id: Option<&str>,
    ) -> Result<(), StoreError> {
        let statement = sqlx::query(
            "UPDATE rabbithole_events SET status = $1, branch_from_id = COALESCE($2, branch_from_id), updated_at = $3
             WHERE id = $4 AND owner_id = $5",
        )
        .bind(status.as_str())
        .bind(branch_from_id)
        .bind(now_ms())
        .bind(id)
        .bind(learner);
        self.write_one(statement).await?;
        Ok(())
    }

    /// Stores the explorer's conversation when the learner returns.
    pub async fn finish_rabbithole(
        &self,
        learner: &LearnerId,
        id: &str,
        conversation: &serde_json::Value,
        points_recalled: i64,
    ) -> Result<(), StoreError> {
        let statement = sqlx::query(
            "UPDATE rabbithole_events SET status = 'returned', conversation = $1, points_recalled = $2, updated_at = $3
             WHERE id = $4 AND owner_id = $5",
        )
        .bind(conversation.to_string())
        .bind(points_recalled)
        .bind(now_ms())
        .bind(id)
        .bind(learner);
        self.write_one(statement).await?;
        Ok(())
    }
}

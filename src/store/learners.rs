//! Learners.

use warren_app::learner::LearnerId;

use super::{Reads, Store, StoreError};

/// A learner as the pages name them.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Learner {
    pub id: LearnerId,
    pub username: String,
}

impl Store {
    pub async fn learner(&self, id: &LearnerId) -> Result<Option<Learner>, StoreError> {
        Ok(sqlx::query_as("SELECT id, username FROM users WHERE id = $1")
            .bind(id)
            .optional(self.read())
            .await?)
    }
}

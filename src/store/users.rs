//! Learners.

use sqlx::Row;

use super::{Store, StoreError, now_ms};

/// The owner of everything until accounts exist: a single local learner.
pub const LOCAL_USER_ID: &str = "local";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    pub id: String,
    pub username: String,
}

impl Store {
    /// Creates the local learner if missing; returns whether it was created just now.
    pub async fn ensure_local_user(&self) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "INSERT INTO users (id, username, password_hash, created_at) VALUES ($1, $2, NULL, $3)
             ON CONFLICT (id) DO NOTHING",
        )
        .bind(LOCAL_USER_ID)
        .bind("local")
        .bind(now_ms())
        .execute(self.pool())
        .await?;
        Ok(done.rows_affected() > 0)
    }

    pub async fn user(&self, id: &str) -> Result<Option<User>, StoreError> {
        let row = sqlx::query("SELECT id, username FROM users WHERE id = $1")
            .bind(id)
            .fetch_optional(self.pool())
            .await?;
        row.map(|r| Ok(User { id: r.try_get("id")?, username: r.try_get("username")? })).transpose()
    }
}

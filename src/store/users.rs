//! Learners.

use sqlx::Row;

use super::{Store, StoreError};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    pub id: String,
    pub username: String,
}

impl Store {
    pub async fn user(&self, id: &str) -> Result<Option<User>, StoreError> {
        let row = sqlx::query("SELECT id, username FROM users WHERE id = $1")
            .bind(id)
            .fetch_optional(self.pool())
            .await?;
        row.map(|r| Ok(User { id: r.try_get("id")?, username: r.try_get("username")? })).transpose()
    }
}

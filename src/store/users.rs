//! Learners.

use super::{Reads, Store, StoreError};

#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct User {
    pub id: String,
    pub username: String,
}

impl Store {
    pub async fn user(&self, id: &str) -> Result<Option<User>, StoreError> {
        Ok(sqlx::query_as("SELECT id, username FROM users WHERE id = $1")
            .bind(id)
            .optional(self.read())
            .await?)
    }
}

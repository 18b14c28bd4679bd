//! Files uploaded for import, kept between their preview and the learner's confirmation.

use super::{Reads, Store, StoreError, new_id, now_ms};
use warren_app::learner::LearnerId;

/// A draft older than this is deleted by the hourly sweep.
pub const DRAFT_LIFETIME_MS: i64 = 24 * 60 * 60 * 1000;

impl Store {
    pub async fn create_draft(
        &self,
        learner: &LearnerId,
        file_name: &str,
        bytes: &[u8],
    ) -> Result<String, StoreError> {
        let id = new_id();
        self.write_one(sqlx::query("INSERT INTO import_drafts (id, owner_id, file_name, bytes, created_at) VALUES ($1, $2, $3, $4, $5)")
            .bind(&id)
            .bind(learner)
            .bind(file_name)
            .bind(bytes)
            .bind(now_ms())).await?;
        Ok(id)
    }

    /// A draft's file name and bytes, if it is the learner's.
    pub async fn draft(
        &self,
        learner: &LearnerId,
        id: &str,
    ) -> Result<Option<(String, Vec<u8>)>, StoreError> {
        Ok(sqlx::query_as("SELECT file_name, bytes FROM import_drafts WHERE id = $1 AND owner_id = $2")
            .bind(id)
            .bind(learner)
            .optional(self.read())
            .await?)
    }

    pub async fn delete_draft(&self, learner: &LearnerId, id: &str) -> Result<bool, StoreError> {
        let done = self
            .write_one(
                sqlx::query("DELETE FROM import_drafts WHERE id = $1 AND owner_id = $2")
                    .bind(id)
                    .bind(learner),
            )
            .await?;
        Ok(done == 1)
    }

    /// Deletes drafts nobody confirmed within a day; returns how many.
    pub async fn sweep_drafts(&self) -> Result<u64, StoreError> {
        let done = self
            .write_one(
                sqlx::query("DELETE FROM import_drafts WHERE created_at < $1")
                    .bind(now_ms() - DRAFT_LIFETIME_MS),
            )
            .await?;
        Ok(done)
    }

    /// `name`, or `name (2)`, `name (3)`… whichever the learner does not have yet.
    pub async fn free_name(&self, learner: &LearnerId, name: &str) -> Result<String, StoreError> {
        if self.set_named(learner, name).await?.is_none() {
            return Ok(name.to_string());
        }
        for n in 2.. {
            let candidate = format!("{name} ({n})");
            if self.set_named(learner, &candidate).await?.is_none() {
                return Ok(candidate);
            }
        }
        Ok(name.to_string())
    }
}

//! Accounts and sign-in sessions. Passwords arrive here already hashed (see `web::auth`).

use async_trait::async_trait;
use tower_sessions::session::{Id, Record};
use tower_sessions::session_store::{self, SessionStore};

use super::{Store, StoreError, new_id, now_ms};

#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Account {
    pub id: String,
    pub username: String,
    pub password_hash: String,
}

impl Store {
    /// Creates an account; `None` when the username is taken.
    pub async fn create_account(
        &self,
        username: &str,
        password_hash: &str,
    ) -> Result<Option<String>, StoreError> {
        let id = new_id();
        let done = sqlx::query(
            "INSERT INTO users (id, username, password_hash, created_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (username) DO NOTHING",
        )
        .bind(&id)
        .bind(username)
        .bind(password_hash)
        .bind(now_ms())
        .execute(self.pool())
        .await?;
        Ok((done.rows_affected() == 1).then_some(id))
    }

    pub async fn account_by_username(&self, username: &str) -> Result<Option<Account>, StoreError> {
        // An account without a password (none exist yet) gets an empty hash, which never verifies.
        Ok(sqlx::query_as(
            "SELECT id, username, COALESCE(password_hash, '') AS password_hash FROM users WHERE username = $1",
        )
        .bind(username)
        .fetch_optional(self.pool())
        .await?)
    }

    pub async fn account_count(&self) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar("SELECT COUNT(*) FROM users").fetch_one(self.pool()).await?)
    }

    /// Removes expired sign-in sessions; returns how many.
    pub async fn delete_expired_auth_sessions(&self) -> Result<u64, StoreError> {
        let done = sqlx::query("DELETE FROM auth_sessions WHERE expires_at < $1")
            .bind(now_ms())
            .execute(self.pool())
            .await?;
        Ok(done.rows_affected())
    }
}

fn backend(err: impl std::fmt::Display) -> session_store::Error {
    session_store::Error::Backend(err.to_string())
}

fn encoded(record: &Record) -> session_store::Result<String> {
    serde_json::to_string(&record.data).map_err(|e| session_store::Error::Encode(e.to_string()))
}

fn expiry_ms(record: &Record) -> i64 {
    i64::try_from(record.expiry_date.unix_timestamp_nanos() / 1_000_000).unwrap_or(i64::MAX)
}

/// tower-sessions records in `auth_sessions`.
#[async_trait]
impl SessionStore for Store {
    async fn create(&self, record: &mut Record) -> session_store::Result<()> {
        let data = encoded(record)?;
        // Ids are random; on the rare collision, draw another.
        loop {
            let done = sqlx::query(
                "INSERT INTO auth_sessions (id, data, expires_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING",
            )
            .bind(record.id.to_string())
            .bind(&data)
            .bind(expiry_ms(record))
            .execute(self.pool())
            .await
            .map_err(backend)?;
            if done.rows_affected() == 1 {
                return Ok(());
            }
            record.id = Id::default();
        }
    }

    async fn save(&self, record: &Record) -> session_store::Result<()> {
        let data = encoded(record)?;
        sqlx::query(
            "INSERT INTO auth_sessions (id, data, expires_at) VALUES ($1, $2, $3)
             ON CONFLICT (id) DO UPDATE SET data = excluded.data, expires_at = excluded.expires_at",
        )
        .bind(record.id.to_string())
        .bind(&data)
        .bind(expiry_ms(record))
        .execute(self.pool())
        .await
        .map_err(backend)?;
        Ok(())
    }

    async fn load(&self, id: &Id) -> session_store::Result<Option<Record>> {
        let row: Option<(String, i64)> =
            sqlx::query_as("SELECT data, expires_at FROM auth_sessions WHERE id = $1 AND expires_at > $2")
                .bind(id.to_string())
                .bind(now_ms())
                .fetch_optional(self.pool())
                .await
                .map_err(backend)?;
        let Some((data, expires_at)) = row else { return Ok(None) };
        let expiry_date = time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(expires_at) * 1_000_000)
            .map_err(|e| session_store::Error::Decode(e.to_string()))?;
        let data = serde_json::from_str(&data).map_err(|e| session_store::Error::Decode(e.to_string()))?;
        Ok(Some(Record { id: *id, data, expiry_date }))
    }

    async fn delete(&self, id: &Id) -> session_store::Result<()> {
        sqlx::query("DELETE FROM auth_sessions WHERE id = $1")
            .bind(id.to_string())
            .execute(self.pool())
            .await
            .map_err(backend)?;
        Ok(())
    }
}

//! Accounts and sign-in sessions. Passwords arrive here already hashed (see `web::auth`).

use async_trait::async_trait;
use tower_sessions::session::{Id, Record};
use tower_sessions::session_store::{self, SessionStore};
use warren_app::learner::LearnerId;

use super::{Reads, Store, StoreError, new_id, now_ms};

/// What signing in checks: a learner's username and password hash.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Credentials {
    pub learner: LearnerId,
    pub username: String,
    pub password_hash: String,
}

impl Store {
    /// Creates an account; `None` when the username is taken.
    pub async fn create_account(
        &self,
        username: &str,
        password_hash: &str,
    ) -> Result<Option<LearnerId>, StoreError> {
        let id = LearnerId::new(new_id());
        let done = self
            .write_one(
                sqlx::query(
                    "INSERT INTO users (id, username, password_hash, created_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (username) DO NOTHING",
                )
                .bind(&id)
                .bind(username)
                .bind(password_hash)
                .bind(now_ms()),
            )
            .await?;
        Ok((done == 1).then_some(id))
    }

    pub async fn credentials(&self, username: &str) -> Result<Option<Credentials>, StoreError> {
        // An account without a password (none exist yet) gets an empty hash, which never verifies.
        Ok(sqlx::query_as(
            "SELECT id AS learner, username, COALESCE(password_hash, '') AS password_hash FROM users WHERE username = $1",
        )
        .bind(username)
        .optional(self.read())
        .await?)
    }

    pub async fn account_count(&self) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar("SELECT COUNT(*) FROM users").one(self.read()).await?)
    }

    /// Removes expired sign-in sessions; returns how many.
    pub async fn delete_expired_auth_sessions(&self) -> Result<u64, StoreError> {
        let done = self
            .write_one(sqlx::query("DELETE FROM auth_sessions WHERE expires_at < $1").bind(now_ms()))
            .await?;
        Ok(done)
    }
}

/// One of a learner's sign-ins, as the account page lists it.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct SignIn {
    /// Names it in pages and forms (its id is the cookie's secret).
    pub ref_id: String,
    pub signed_in_at: i64,
    pub address: String,
    pub user_agent: String,
}

/// The columns of `auth_sessions` read from a sign-in's data: whose it is and where it began
/// (written there by `web::auth` as `user_id` and `signed_in`).
fn described(record: &Record) -> (Option<String>, Option<i64>, Option<String>, Option<String>) {
    let text = |v: Option<&serde_json::Value>| v.and_then(|v| v.as_str()).map(str::to_string);
    let user = text(record.data.get("user_id"));
    let from = record.data.get("signed_in");
    let at = from.and_then(|f| f.get("at")).and_then(serde_json::Value::as_i64);
    (user, at, text(from.and_then(|f| f.get("address"))), text(from.and_then(|f| f.get("agent"))))
}

impl Store {
    /// A learner's sign-ins that have not expired, newest first.
    pub async fn sign_ins(&self, learner: &LearnerId) -> Result<Vec<SignIn>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT COALESCE(ref_id, '') AS ref_id, COALESCE(signed_in_at, 0) AS signed_in_at,
                    COALESCE(address, '') AS address, COALESCE(user_agent, '') AS user_agent
             FROM auth_sessions WHERE user_id = $1 AND expires_at > $2 ORDER BY signed_in_at DESC",
        )
        .bind(learner)
        .bind(now_ms())
        .all(self.read())
        .await?)
    }

    /// Whether the sign-in with this (cookie) id still stands.
    pub async fn sign_in_active(&self, session_id: &str) -> Result<bool, StoreError> {
        let found: Option<i64> =
            sqlx::query_scalar("SELECT 1 FROM auth_sessions WHERE id = $1 AND expires_at > $2")
                .bind(session_id)
                .bind(now_ms())
                .optional(self.read())
                .await?;
        Ok(found.is_some())
    }

    /// The `ref_id` of the sign-in with this (cookie) id.
    pub async fn sign_in_ref(&self, session_id: &str) -> Result<Option<String>, StoreError> {
        Ok(sqlx::query_scalar("SELECT ref_id FROM auth_sessions WHERE id = $1")
            .bind(session_id)
            .optional(self.read())
            .await?
            .flatten())
    }

    /// Ends one of the learner's sign-ins; `false` if they have none by that name.
    pub async fn end_sign_in(&self, learner: &LearnerId, ref_id: &str) -> Result<bool, StoreError> {
        let done = self
            .write_one(
                sqlx::query("DELETE FROM auth_sessions WHERE user_id = $1 AND ref_id = $2")
                    .bind(learner)
                    .bind(ref_id),
            )
            .await?;
        Ok(done > 0)
    }

    /// Ends every sign-in of the learner but the one with this (cookie) id; returns how many.
    pub async fn end_other_sign_ins(
        &self,
        learner: &LearnerId,
        keep_session_id: &str,
    ) -> Result<u64, StoreError> {
        let done = self
            .write_one(
                sqlx::query("DELETE FROM auth_sessions WHERE user_id = $1 AND id <> $2")
                    .bind(learner)
                    .bind(keep_session_id),
            )
            .await?;
        Ok(done)
    }

    /// Deletes the account and every row it owns, in one transaction: sets, points,
    /// schedules, resources and images, sessions with their trees, outcomes, struggles and
    /// rabbit holes, import drafts, sign-ins and the account's sign-in allowance. Session
    /// trees are append-only everywhere else; this is the one place their rows go. `false`
    /// when there is no such account.
    pub async fn delete_account(&self, learner: &LearnerId) -> Result<bool, StoreError> {
        let mut tx = self.write_transaction().await?;
        let username: Option<String> = sqlx::query_scalar("SELECT username FROM users WHERE id = $1")
            .bind(learner)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(username) = username else { return Ok(false) };
        let sessions: Vec<String> = sqlx::query_scalar("SELECT id FROM sessions WHERE owner_id = $1")
            .bind(learner)
            .fetch_all(&mut *tx)
            .await?;
        // Children before parents, so no statement leans on a cascade.
        const OWNED: [&str; 21] = [
            "DELETE FROM session_leases WHERE session_id IN (SELECT id FROM sessions WHERE owner_id = $1)",
            "DELETE FROM model_calls WHERE owner_id = $1",
            "DELETE FROM learner_budgets WHERE owner_id = $1",
            "DELETE FROM review_disputes WHERE owner_id = $1",
            "DELETE FROM schedule_fits WHERE owner_id = $1",
            "DELETE FROM reviews WHERE owner_id = $1",
            "DELETE FROM learner_schedules WHERE owner_id = $1",
            "DELETE FROM recall_outcomes WHERE owner_id = $1",
            "DELETE FROM point_struggles WHERE owner_id = $1",
            "DELETE FROM shown_resources WHERE owner_id = $1",
            "DELETE FROM rabbithole_events WHERE owner_id = $1",
            "DELETE FROM session_entries WHERE owner_id = $1",
            "DELETE FROM sessions WHERE owner_id = $1",
            "DELETE FROM point_resources WHERE owner_id = $1",
            "DELETE FROM resource_images WHERE owner_id = $1",
            "DELETE FROM resources WHERE owner_id = $1",
            "DELETE FROM source_drafts WHERE owner_id = $1",
            "DELETE FROM sources WHERE owner_id = $1",
            "DELETE FROM recall_points WHERE owner_id = $1",
            "DELETE FROM recall_sets WHERE owner_id = $1",
            "DELETE FROM import_drafts WHERE owner_id = $1",
        ];
        for statement in OWNED {
            sqlx::query(statement).bind(learner).execute(&mut *tx).await?;
        }
        // Sign-ins saved before they named their learner in a column name them in their data.
        sqlx::query(
            "DELETE FROM auth_sessions WHERE user_id = $1 OR (user_id IS NULL AND data LIKE '%' || $1 || '%')",
        )
        .bind(learner)
        .execute(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM rate_limits WHERE key = $1")
            .bind(format!("sign-in account {username}"))
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM users WHERE id = $1").bind(learner).execute(&mut *tx).await?;
        tx.commit().await?;
        // Nothing of theirs stays in memory either.
        self.forget_trees(&sessions);
        Ok(true)
    }

    /// The learner's sessions that an instance holds (or held) a lease on: the ones that may
    /// be running somewhere.
    pub async fn leased_sessions(&self, learner: &LearnerId) -> Result<Vec<String>, StoreError> {
        Ok(sqlx::query_scalar(
            "SELECT l.session_id FROM session_leases l JOIN sessions s ON s.id = l.session_id
             WHERE s.owner_id = $1",
        )
        .bind(learner)
        .all(self.read())
        .await?)
    }

    /// The learner's password hash, to check their current password.
    pub async fn password_hash(&self, learner: &LearnerId) -> Result<Option<String>, StoreError> {
        Ok(sqlx::query_scalar("SELECT password_hash FROM users WHERE id = $1")
            .bind(learner)
            .optional(self.read())
            .await?
            .flatten())
    }

    /// Replaces the learner's password (already hashed) and ends every other sign-in of
    /// theirs, in one transaction.
    pub async fn change_password(
        &self,
        learner: &LearnerId,
        password_hash: &str,
        keep_session_id: &str,
    ) -> Result<u64, StoreError> {
        let mut tx = self.write_transaction().await?;
        sqlx::query("UPDATE users SET password_hash = $1 WHERE id = $2")
            .bind(password_hash)
            .bind(learner)
            .execute(&mut *tx)
            .await?;
        let ended = sqlx::query("DELETE FROM auth_sessions WHERE user_id = $1 AND id <> $2")
            .bind(learner)
            .bind(keep_session_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(ended.rows_affected())
    }
}

fn backend(err: impl std::fmt::Display) -> session_store::Error {
    session_store::Error::Backend(err.to_string())
}

fn encoded(record: &Record) -> session_store::Result<String> {
    serde_json::to_string(&record.data).map_err(|e| session_store::Error::Encode(e.to_string()))
}

/// Binds a sign-in's columns as `$1`…`$8` of the insert that both `create` and `save` make:
/// id, data, expiry, whose it is, a new `ref_id`, and when and from where it began.
fn bind_sign_in<'q>(
    query: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments>,
    record: &Record,
    data: &str,
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments> {
    let (learner, at, address, agent) = described(record);
    query
        .bind(record.id.to_string())
        .bind(data.to_string())
        .bind(expiry_ms(record))
        .bind(learner)
        .bind(new_id())
        .bind(at)
        .bind(address)
        .bind(agent)
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
            let done = bind_sign_in(
                sqlx::query(
                    "INSERT INTO auth_sessions (id, data, expires_at, user_id, ref_id, signed_in_at, address, user_agent)
                     SELECT $1, $2, $3, $4, $5, $6, $7, $8 WHERE $4 IS NULL OR EXISTS (SELECT 1 FROM users WHERE id = $4)
                     ON CONFLICT (id) DO NOTHING",
                ),
                record,
                &data,
            )
            .execute(&mut *self.write_turn().await.map_err(backend)?)
            .await
            .map_err(backend)?;
            if done.rows_affected() == 1 {
                return Ok(());
            }
            let taken: Option<i64> = sqlx::query_scalar("SELECT 1 FROM auth_sessions WHERE id = $1")
                .bind(record.id.to_string())
                .optional(self.read())
                .await
                .map_err(backend)?;
            if taken.is_none() {
                // Not a collision: its learner's account was deleted meanwhile. Nothing is
                // kept, so the cookie signs no one in.
                return Ok(());
            }
            record.id = Id::default();
        }
    }

    async fn save(&self, record: &Record) -> session_store::Result<()> {
        let data = encoded(record)?;
        // Its `ref_id` is kept from the first save: the account page's links stay good. A
        // request that began before its account was deleted saves nothing when it ends.
        bind_sign_in(
            sqlx::query(
                "INSERT INTO auth_sessions (id, data, expires_at, user_id, ref_id, signed_in_at, address, user_agent)
                 SELECT $1, $2, $3, $4, $5, $6, $7, $8 WHERE $4 IS NULL OR EXISTS (SELECT 1 FROM users WHERE id = $4)
                 ON CONFLICT (id) DO UPDATE SET data = excluded.data, expires_at = excluded.expires_at,
                     user_id = excluded.user_id, signed_in_at = excluded.signed_in_at,
                     address = excluded.address, user_agent = excluded.user_agent",
            ),
            record,
            &data,
        )
        .execute(&mut *self.write_turn().await.map_err(backend)?)
        .await
        .map_err(backend)?;
        Ok(())
    }

    async fn load(&self, id: &Id) -> session_store::Result<Option<Record>> {
        let row: Option<(String, i64)> =
            sqlx::query_as("SELECT data, expires_at FROM auth_sessions WHERE id = $1 AND expires_at > $2")
                .bind(id.to_string())
                .bind(now_ms())
                .optional(self.read())
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
            .execute(&mut *self.write_turn().await.map_err(backend)?)
            .await
            .map_err(backend)?;
        Ok(())
    }
}

//! Several Warren processes on one database: each instance's heartbeat, the lease that makes
//! one instance at a time run a live session, and rate limits every instance shares.

use std::sync::Arc;
use std::time::Duration;

use super::writer::Fence;
use super::{Reads, Store, StoreError, new_id, now_ms};

/// Who runs a live session, as [`Store::take_lease`] found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lease {
    /// This instance holds it now, under this lease id.
    Taken(String),
    /// Another instance, alive, holds it.
    HeldBy { instance: String, address: String },
}

impl Store {
    /// This store for a live session run under `lease_id`: every write through it (the
    /// session's and any other) first checks that the lease still stands.
    pub fn fenced(&self, session_id: &str, lease_id: &str) -> Store {
        let fence = Fence::new(session_id, lease_id);
        let mut store = self.clone();
        store.fence = Some(Arc::new(fence));
        store
    }

    /// A write through this fenced store found its lease taken over: the session runs
    /// elsewhere now.
    pub fn lease_lost(&self) -> bool {
        self.fence.as_ref().is_some_and(|f| f.is_lost())
    }

    /// Whether `lease_id` is the session's lease now.
    pub(super) async fn holds_lease(&self, session_id: &str, lease_id: &str) -> Result<bool, StoreError> {
        let n: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM session_leases WHERE session_id = $1 AND lease_id = $2")
                .bind(session_id)
                .bind(lease_id)
                .one(self.read())
                .await?;
        Ok(n > 0)
    }

    /// Names this instance among those sharing the database, alive as of now.
    pub async fn register_instance(&self, id: &str, address: &str) -> Result<(), StoreError> {
        let now = now_ms();
        let mut tx = self.write_transaction().await?;
        sqlx::query(
            "INSERT INTO warren_instances (id, address, started_at, heartbeat_at) VALUES ($1, $2, $3, $3)
             ON CONFLICT (id) DO UPDATE SET address = excluded.address, heartbeat_at = excluded.heartbeat_at",
        )
        .bind(id)
        .bind(address)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// This instance is alive. Answers the sessions it holds that another instance asked for.
    pub async fn heartbeat(&self, id: &str, address: &str) -> Result<Vec<String>, StoreError> {
        let now = now_ms();
        let mut tx = self.write_transaction().await?;
        let beat = sqlx::query("UPDATE warren_instances SET heartbeat_at = $1 WHERE id = $2")
            .bind(now)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        if beat.rows_affected() == 0 {
            // Swept away while it could not beat: it says so again.
            self.register_instance(id, address).await?;
        }
        let wanted = sqlx::query_scalar(
            "SELECT session_id FROM session_leases WHERE instance_id = $1 AND wanted_at IS NOT NULL",
        )
        .bind(id)
        .all(self.read())
        .await?;
        Ok(wanted)
    }

    /// Takes the lease on a session for `instance`: free, already its own, or held by an
    /// instance whose last heartbeat is older than `lapse` (it is gone).
    pub async fn take_lease(
        &self,
        session_id: &str,
        instance: &str,
        lapse: Duration,
    ) -> Result<Lease, StoreError> {
        let now = now_ms();
        let lease_id = new_id();
        let alive_since = now - i64::try_from(lapse.as_millis()).unwrap_or(i64::MAX);
        let mut tx = self.write_transaction().await?;
        let taken: Option<String> = sqlx::query_scalar(
            "INSERT INTO session_leases (session_id, instance_id, lease_id, taken_at, wanted_at)
             VALUES ($1, $2, $3, $4, NULL)
             ON CONFLICT (session_id) DO UPDATE SET instance_id = excluded.instance_id,
                 lease_id = excluded.lease_id, taken_at = excluded.taken_at, wanted_at = NULL
             WHERE session_leases.instance_id = excluded.instance_id
                OR NOT EXISTS (SELECT 1 FROM warren_instances i
                               WHERE i.id = session_leases.instance_id AND i.heartbeat_at > $5)
             RETURNING lease_id",
        )
        .bind(session_id)
        .bind(instance)
        .bind(&lease_id)
        .bind(now)
        .bind(alive_since)
        .fetch_optional(&mut *tx)
        .await?;
        if let Some(lease_id) = taken {
            tx.commit().await?;
            return Ok(Lease::Taken(lease_id));
        }
        let (instance, address): (String, Option<String>) = sqlx::query_as(
            "SELECT l.instance_id, i.address FROM session_leases l
             LEFT JOIN warren_instances i ON i.id = l.instance_id WHERE l.session_id = $1",
        )
        .bind(session_id)
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Lease::HeldBy { instance, address: address.unwrap_or_default() })
    }

    /// Asks the holder of a session's lease to hand it over (it sees this on its heartbeat).
    pub async fn want_lease(&self, session_id: &str) -> Result<(), StoreError> {
        let mut tx = self.write_transaction().await?;
        sqlx::query("UPDATE session_leases SET wanted_at = $1 WHERE session_id = $2 AND wanted_at IS NULL")
            .bind(now_ms())
            .bind(session_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Gives a lease back, if it is still the one taken (not a successor's).
    pub async fn release_lease(&self, session_id: &str, lease_id: &str) -> Result<(), StoreError> {
        let mut tx = self.write_transaction().await?;
        sqlx::query("DELETE FROM session_leases WHERE session_id = $1 AND lease_id = $2")
            .bind(session_id)
            .bind(lease_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Gives back `instance`'s lease on a session that it no longer runs, if the lease was
    /// taken before `taken_before` (ms): a take after that is a start still under way.
    pub async fn release_idle_lease(
        &self,
        session_id: &str,
        instance: &str,
        taken_before: i64,
    ) -> Result<(), StoreError> {
        let mut tx = self.write_transaction().await?;
        sqlx::query(
            "DELETE FROM session_leases WHERE session_id = $1 AND instance_id = $2 AND taken_at < $3",
        )
        .bind(session_id)
        .bind(instance)
        .bind(taken_before)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// This instance stops: its leases are free at once, and it is no longer listed.
    pub async fn retire_instance(&self, id: &str) -> Result<(), StoreError> {
        let mut tx = self.write_transaction().await?;
        sqlx::query("DELETE FROM session_leases WHERE instance_id = $1").bind(id).execute(&mut *tx).await?;
        sqlx::query("DELETE FROM warren_instances WHERE id = $1").bind(id).execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Takes one token from the bucket named `key` (`burst` at most, one more every
    /// `interval`), shared by every instance. `false` when it is empty.
    pub async fn take_token(&self, key: &str, burst: u32, interval: Duration) -> Result<bool, StoreError> {
        let now = now_ms();
        let burst = f64::from(burst.max(1));
        let per_ms = 1.0 / (interval.as_secs_f64() * 1000.0).max(1.0);
        let mut tx = self.write_transaction().await?;
        // What the bucket holds now: what it held, plus the refill since, up to `burst`.
        let taken: Option<f64> = sqlx::query_scalar(
            "INSERT INTO rate_limits (key, tokens, updated_at) VALUES ($1, $2 - 1, $3)
             ON CONFLICT (key) DO UPDATE SET
                 tokens = CASE WHEN rate_limits.tokens + ($3 - rate_limits.updated_at) * $4 > $2 THEN $2
                               ELSE rate_limits.tokens + ($3 - rate_limits.updated_at) * $4 END - 1,
                 updated_at = $3
             WHERE rate_limits.tokens + ($3 - rate_limits.updated_at) * $4 >= 1
             RETURNING tokens",
        )
        .bind(key)
        .bind(burst)
        .bind(now)
        .bind(per_ms)
        .fetch_optional(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(taken.is_some())
    }

    /// Forgets buckets untouched for `idle` (full again by then), and instances that stopped
    /// beating that long ago.
    pub async fn sweep_instances_and_limits(&self, idle: Duration) -> Result<(), StoreError> {
        let before = now_ms() - i64::try_from(idle.as_millis()).unwrap_or(i64::MAX);
        let mut tx = self.write_transaction().await?;
        sqlx::query("DELETE FROM rate_limits WHERE updated_at < $1").bind(before).execute(&mut *tx).await?;
        sqlx::query("DELETE FROM warren_instances WHERE heartbeat_at < $1")
            .bind(before)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }
}

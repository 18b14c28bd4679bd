//! SQLite's connections: the settings each one gets, and the checkpointer that copies the
//! write-ahead log back into the database file beside the writers.

use sqlx::{Connection, Executor};

/// Opens one SQLite connection as the pool's are opened.
pub(super) async fn open_sqlite(
    url: &str,
    busy_timeout_ms: u128,
) -> Result<sqlx::AnyConnection, sqlx::Error> {
    let mut conn = sqlx::AnyConnection::connect(url).await?;
    sqlite_pragmas(&mut conn, busy_timeout_ms).await?;
    Ok(conn)
}

/// Every SQLite connection's settings.
pub(super) async fn sqlite_pragmas(
    conn: &mut sqlx::AnyConnection,
    busy_timeout_ms: u128,
) -> Result<(), sqlx::Error> {
    // WAL lets readers proceed during a write; NORMAL is durable with WAL.
    conn.execute("PRAGMA journal_mode = WAL").await?;
    conn.execute("PRAGMA synchronous = NORMAL").await?;
    conn.execute("PRAGMA foreign_keys = ON").await?;
    // SQLite has no statement timeout; the wait for its lock is bounded.
    conn.execute(sqlx::AssertSqlSafe(format!("PRAGMA busy_timeout = {busy_timeout_ms}"))).await?;
    // Checkpoints run beside the writers (`checkpoints`), not inside whichever commit
    // crosses the threshold: that commit used to wait several milliseconds for it, about
    // one turn in a hundred.
    conn.execute("PRAGMA wal_autocheckpoint = 0").await?;
    Ok(())
}

/// How often SQLite's write-ahead log is copied back into the database file.
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_millis(500);

/// Copies the write-ahead log into the database on its own connection (and its own thread,
/// as every sqlx SQLite connection has), so no commit waits for it. `PASSIVE` never blocks a
/// writer or a reader; once everything is copied, the next writer starts the log over, which
/// keeps it small.
pub(super) async fn checkpoints(mut conn: sqlx::AnyConnection, alive: std::sync::Weak<()>) {
    let mut tick = tokio::time::interval(CHECKPOINT_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if alive.strong_count() == 0 {
            break;
        }
        if let Err(err) = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").await {
            tracing::warn!("cannot checkpoint the database's write-ahead log: {err}");
        }
    }
    let _ = conn.close().await;
}

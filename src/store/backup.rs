//! Copies of a SQLite database taken while Warren serves (`warren backup`), and one put back
//! while nothing serves (`warren restore`). A copy is SQLite's `VACUUM INTO`: one read
//! transaction's snapshot, written as a new, compact file, while the writer goes on (in WAL
//! mode readers and the writer do not wait for each other). Every copy is checked with
//! `PRAGMA integrity_check` before it is called good, going out and coming back. PostgreSQL
//! has `pg_dump` and `pg_restore` for both (see the README).

use std::path::{Path, PathBuf};

use sqlx::Connection;

use super::{Backend, Store, now_ms};

/// Instances heard from more recently than this hold the database: a restore waits for them
/// to stop (an instance beats every second, and one that stops cleanly says so at once).
const HELD_WITHIN_MS: i64 = 15_000;

/// Why a copy could not be made or put back, in one sentence an operator can act on.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error(
        "warren backup and restore copy a SQLite database; for PostgreSQL use pg_dump and pg_restore (see the README)"
    )]
    NotSqlite,
    #[error("{0} exists already: name a new file for the copy")]
    Exists(String),
    #[error("there is no database at {0} to copy")]
    Missing(String),
    #[error("cannot copy the database to {path} ({source})")]
    Copy { path: String, source: sqlx::Error },
    #[error("cannot write {path} ({source})")]
    Write { path: String, source: std::io::Error },
    #[error("{path} is not a sound SQLite database ({problem}): nothing was changed")]
    Damaged { path: String, problem: String },
    #[error("{0} is not a Warren database (it has no record of Warren's migrations): nothing was changed")]
    NotWarren(String),
    #[error(
        "an instance of Warren holds {path} ({instance} at {address}, heard from {seconds} s ago): stop every instance, then restore"
    )]
    Held { path: String, instance: String, address: String, seconds: i64 },
}

/// A checked copy: how much it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Copied {
    pub path: PathBuf,
    pub bytes: u64,
    pub learners: i64,
    pub sessions: i64,
    pub entries: i64,
}

impl Store {
    /// Writes a consistent copy of the database to `to`, a new file, while Warren serves, and
    /// checks it.
    pub async fn backup(&self, to: &Path) -> Result<Copied, BackupError> {
        if self.backend != Backend::Sqlite {
            return Err(BackupError::NotSqlite);
        }
        if to.exists() {
            return Err(BackupError::Exists(to.display().to_string()));
        }
        if let Some(dir) = to.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|source| BackupError::Write { path: dir.display().to_string(), source })?;
        }
        let path = to.display().to_string();
        self.db.copy_into(&path).await.map_err(|source| BackupError::Copy { path: path.clone(), source })?;
        checked(to).await
    }
}

/// Puts the copy at `from` in place of the SQLite database `url` names, once the copy is
/// checked and no instance holds the database. The database's write-ahead log goes with it:
/// the copy is whole without one.
pub async fn restore(url: &str, from: &Path) -> Result<Copied, BackupError> {
    sqlx::any::install_default_drivers();
    let (backend, url) = super::db::normalise_url(url).map_err(|_| BackupError::NotSqlite)?;
    let target = match (backend, super::db::sqlite_file(&url)) {
        (Backend::Sqlite, Some(target)) => target,
        (Backend::Sqlite | Backend::Postgres, _) => return Err(BackupError::NotSqlite),
    };
    if !from.exists() {
        return Err(BackupError::Missing(from.display().to_string()));
    }
    let copy = checked(from).await?;
    if target.exists() {
        held(&target).await?;
    }
    let write = |path: &Path, source| BackupError::Write { path: path.display().to_string(), source };
    let mut staged = target.as_os_str().to_owned();
    staged.push(".restoring");
    let staged = PathBuf::from(staged);
    std::fs::copy(from, &staged).map_err(|e| write(&staged, e))?;
    std::fs::File::open(&staged).and_then(|f| f.sync_all()).map_err(|e| write(&staged, e))?;
    // The database's write-ahead log would be read into the copy: it is set aside first, and
    // put back if the copy cannot take the database's place.
    let beside = |suffix: &str| {
        let mut side = target.as_os_str().to_owned();
        side.push(suffix);
        PathBuf::from(side)
    };
    let mut set_aside = Vec::new();
    for suffix in ["-wal", "-shm"] {
        let (side, aside) = (beside(suffix), beside(&format!("{suffix}.before-restore")));
        match std::fs::rename(&side, &aside) {
            Ok(()) => set_aside.push((side, aside)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(write(&side, e)),
        }
    }
    if let Err(e) = std::fs::rename(&staged, &target) {
        for (side, aside) in &set_aside {
            let _ = std::fs::rename(aside, side);
        }
        return Err(write(&target, e));
    }
    for (_, aside) in &set_aside {
        let _ = std::fs::remove_file(aside);
    }
    Ok(Copied { path: target, ..copy })
}

/// The SQLite database file a `DATABASE_URL` names, if it names one.
pub fn sqlite_path(url: &str) -> Option<PathBuf> {
    let (backend, url) = super::db::normalise_url(url).ok()?;
    (backend == Backend::Sqlite).then(|| super::db::sqlite_file(&url)).flatten()
}

/// Opens a copy read-only and checks it: sound, and Warren's.
async fn checked(path: &Path) -> Result<Copied, BackupError> {
    let name = path.display().to_string();
    let damaged = |problem: String| BackupError::Damaged { path: name.clone(), problem };
    let mut conn = sqlx::AnyConnection::connect(&format!("sqlite://{name}?mode=ro"))
        .await
        .map_err(|e| damaged(e.to_string()))?;
    let verdict: String = sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_one(&mut conn)
        .await
        .map_err(|e| damaged(e.to_string()))?;
    if verdict != "ok" {
        return Err(damaged(verdict));
    }
    let migrations: Result<i64, _> =
        sqlx::query_scalar("SELECT COUNT(*) FROM _sqlx_migrations").fetch_one(&mut conn).await;
    if !matches!(migrations, Ok(n) if n > 0) {
        return Err(BackupError::NotWarren(name));
    }
    let mut counts = Vec::new();
    for table in ["users", "sessions", "session_entries"] {
        let query = sqlx::AssertSqlSafe(format!("SELECT COUNT(*) FROM {table}"));
        let n: i64 =
            sqlx::query_scalar(query).fetch_one(&mut conn).await.map_err(|e| damaged(e.to_string()))?;
        counts.push(n);
    }
    let _ = conn.close().await;
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    Ok(Copied {
        path: path.to_path_buf(),
        bytes,
        learners: counts[0],
        sessions: counts[1],
        entries: counts[2],
    })
}

/// Refuses when an instance has been heard from lately in the database at `target`.
async fn held(target: &Path) -> Result<(), BackupError> {
    let name = target.display().to_string();
    let Ok(mut conn) = sqlx::AnyConnection::connect(&format!("sqlite://{name}?mode=ro")).await else {
        // A file SQLite cannot open is not a database anything serves from.
        return Ok(());
    };
    let latest: Result<Option<(String, String, i64)>, _> = sqlx::query_as(
        "SELECT id, address, heartbeat_at FROM warren_instances ORDER BY heartbeat_at DESC LIMIT 1",
    )
    .fetch_optional(&mut conn)
    .await;
    let _ = conn.close().await;
    match latest {
        Ok(Some((instance, address, heard))) if heard > now_ms() - HELD_WITHIN_MS => Err(BackupError::Held {
            path: name,
            instance,
            address,
            seconds: (now_ms() - heard).max(0) / 1000,
        }),
        // Nobody, or nobody lately; or a database from before instances were recorded.
        Ok(Some(_) | None) | Err(_) => Ok(()),
    }
}

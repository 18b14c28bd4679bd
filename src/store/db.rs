//! Opening the database, migrations and readiness checks.

use std::path::Path;

use serde::Serialize;
use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::migrate::Migrator;
use sqlx::{Connection, Executor};

use super::sqlite::{checkpoints, open_sqlite, sqlite_pragmas};
use super::writer::{Database, Writer};
use super::{Backend, Reads, Store, StoreError};

static MIGRATOR: Migrator = sqlx::migrate!("./migrations");

/// The connection pool's size and time limits (`WARREN_DB_*`, see `config`).
#[derive(Clone, Debug)]
pub struct PoolSettings {
    /// Connections at most; by default 4 on SQLite (one writes at a time) and 10 on
    /// PostgreSQL (a small server's share of its default 100).
    pub size: Option<u32>,
    /// How long a request waits for a free connection before it fails with
    /// [`StoreError::PoolExhausted`].
    pub acquire_timeout: std::time::Duration,
    /// On PostgreSQL, how long one statement may run; on SQLite, how long a connection waits
    /// for the file's lock.
    pub statement_timeout: std::time::Duration,
}

impl Default for PoolSettings {
    fn default() -> Self {
        Self {
            size: None,
            acquire_timeout: std::time::Duration::from_secs(5),
            statement_timeout: std::time::Duration::from_secs(10),
        }
    }
}

/// One line of `/readyz`.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    pub name: &'static str,
    pub ok: bool,
    pub detail: String,
}

impl Store {
    /// Opens (and for SQLite creates) the database with the default pool. Does not migrate.
    pub async fn open(url: &str) -> Result<Self, StoreError> {
        Self::open_with(url, &PoolSettings::default()).await
    }

    /// Opens the database with the pool sized and timed as `settings` say. Does not migrate.
    pub async fn open_with(url: &str, settings: &PoolSettings) -> Result<Self, StoreError> {
        install_default_drivers();
        let (backend, url) = normalise_url(url)?;
        if backend == Backend::Postgres {
            create_postgres_database(&url).await;
        }
        let statement_timeout = settings.statement_timeout.as_millis();
        let pool = AnyPoolOptions::new()
            .max_connections(settings.size.unwrap_or(match backend {
                // One writer at a time is SQLite's model; a few readers share the file in WAL.
                Backend::Sqlite => 4,
                Backend::Postgres => 10,
            }))
            .acquire_timeout(settings.acquire_timeout)
            // A connection to a file does not go stale the way one over a network does, and
            // the check before each use is a round trip to its worker thread: a fifth of a
            // turn's trips to the database.
            .test_before_acquire(backend == Backend::Postgres)
            .after_connect(move |conn, _meta| {
                Box::pin(async move {
                    if backend == Backend::Postgres {
                        // A statement that runs away is stopped, not left holding locks.
                        conn.execute(sqlx::AssertSqlSafe(format!(
                            "SET statement_timeout = {statement_timeout}"
                        )))
                        .await?;
                    }
                    if backend == Backend::Sqlite {
                        sqlite_pragmas(conn, statement_timeout).await?;
                    }
                    Ok(())
                })
            })
            .connect(&url)
            .await
            .map_err(|source| StoreError::Connect { url: redact(&url), source })?;
        let alive = std::sync::Arc::new(());
        let mut writer = None;
        if backend == Backend::Sqlite {
            let connect_failed = |source| StoreError::Connect { url: redact(&url), source };
            let checkpointer = sqlx::AnyConnection::connect(&url).await.map_err(connect_failed)?;
            tokio::spawn(checkpoints(checkpointer, std::sync::Arc::downgrade(&alive)));
            let conn = open_sqlite(&url, statement_timeout).await.map_err(connect_failed)?;
            writer = Some(Writer::new(conn, url.clone(), statement_timeout));
        }
        Ok(Self {
            db: Database::new(pool, writer),
            backend,
            trees: Default::default(),
            _alive: alive,
            sqlite_path: sqlite_file(&url),
            fence: None,
        })
    }

    /// Applies every migration not yet applied. Instances starting together take turns: on
    /// PostgreSQL sqlx holds an advisory lock while it migrates; SQLite has none, so there
    /// they take turns on a lock file beside the database.
    pub async fn migrate(&self) -> Result<(), StoreError> {
        let _turn = match &self.sqlite_path {
            Some(path) => Some(migration_turn(path).await?),
            None => None,
        };
        self.db.migrate(&MIGRATOR).await?;
        // Reviews a migration wrote (the log's back-fill) get their schedules replayed.
        let replayed = self.replay_pending().await?;
        if replayed > 0 {
            tracing::info!(
                points = replayed,
                "replayed the schedules of points with new reviews in their log"
            );
        }
        Ok(())
    }

    /// The readiness checks: the database answers, and every known migration is applied.
    pub async fn readiness(&self) -> Vec<Check> {
        let database = match self.readiness_of_database().await {
            Ok(_) => Check {
                name: "database",
                ok: true,
                detail: format!("{:?} reachable", self.backend).to_lowercase(),
            },
            Err(err) => Check { name: "database", ok: false, detail: err.to_string() },
        };
        let migrations = match self.pending_migrations().await {
            Ok(0) => Check {
                name: "migrations",
                ok: true,
                detail: format!("{} applied, none pending", MIGRATOR.iter().count()),
            },
            Ok(n) => {
                Check { name: "migrations", ok: false, detail: format!("{n} pending; run `warren migrate`") }
            }
            Err(err) => Check { name: "migrations", ok: false, detail: err.to_string() },
        };
        vec![database, migrations]
    }

    /// The database answers a query.
    async fn readiness_of_database(&self) -> Result<(), StoreError> {
        let _: i64 = sqlx::query_scalar("SELECT CAST(1 AS BIGINT)").one(self.read()).await?;
        Ok(())
    }

    /// Migrations recorded as applied in the database.
    pub async fn applied_migrations(&self) -> Result<usize, StoreError> {
        Ok(self.db.applied_migrations(&MIGRATOR).await?.len())
    }

    async fn pending_migrations(&self) -> Result<usize, StoreError> {
        let applied = self.db.applied_migrations(&MIGRATOR).await?;
        Ok(MIGRATOR
            .iter()
            .filter(|m| !m.migration_type.is_down_migration())
            .filter(|m| !applied.iter().any(|a| a.version == m.version))
            .count())
    }
}

/// Creates the PostgreSQL database the URL names when it does not exist yet, as a SQLite file
/// is created: a new deployment needs only a server and a user allowed to create databases.
/// Anything that goes wrong here is left for the pool's own connection to report.
async fn create_postgres_database(url: &str) {
    use sqlx::migrate::MigrateDatabase;
    if let Ok(false) = sqlx::Any::database_exists(url).await {
        match sqlx::Any::create_database(url).await {
            Ok(()) => tracing::info!("created the database {}", redact(url)),
            // Another instance starting at the same moment may have just made it.
            Err(err) => tracing::debug!("did not create the database: {err}"),
        }
    }
}

/// Waits for this process's turn to migrate the SQLite file at `path`: an exclusive lock on
/// `path.migrating`, held until the returned file is dropped (or the process ends).
async fn migration_turn(path: &Path) -> Result<std::fs::File, StoreError> {
    let mut lock = path.as_os_str().to_owned();
    lock.push(".migrating");
    let lock = std::path::PathBuf::from(lock);
    let failed =
        |source: std::io::Error| StoreError::MigrationLock { path: lock.display().to_string(), source };
    let file =
        std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&lock).map_err(failed)?;
    tokio::task::spawn_blocking(move || file.lock().map(|()| file))
        .await
        .map_err(|join| failed(std::io::Error::other(join)))?
        .map_err(failed)
}

/// Recognises the backend and, for SQLite, creates the parent directory and asks for the file
/// to be created if missing.
pub(super) fn normalise_url(url: &str) -> Result<(Backend, String), StoreError> {
    let url = url.trim();
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        return Ok((Backend::Postgres, url.to_string()));
    }
    let Some(rest) = url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:")) else {
        return Err(StoreError::UnsupportedUrl(redact(url)));
    };
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    if path.is_empty() || path == ":memory:" {
        return Err(StoreError::UnsupportedUrl(url.to_string()));
    }
    if let Some(dir) = Path::new(path).parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|source| StoreError::CreateDir { dir: dir.display().to_string(), source })?;
    }
    let mut params: Vec<&str> = query.split('&').filter(|p| !p.is_empty()).collect();
    if !params.iter().any(|p| p.starts_with("mode=")) {
        params.push("mode=rwc");
    }
    Ok((Backend::Sqlite, format!("sqlite://{path}?{}", params.join("&"))))
}

/// The file of a normalised SQLite URL.
pub(super) fn sqlite_file(url: &str) -> Option<std::path::PathBuf> {
    let rest = url.strip_prefix("sqlite://")?;
    Some(std::path::PathBuf::from(rest.split_once('?').map_or(rest, |(path, _)| path)))
}

/// Hides a password in a connection URL before it goes into a message.
fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    match rest.split_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split(':').next().unwrap_or_default();
            format!("{scheme}://{user}:***@{host}")
        }
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_urls_get_create_mode() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}/sub/w.db", dir.path().display());
        let (backend, normalised) = normalise_url(&url).unwrap();
        assert_eq!(backend, Backend::Sqlite);
        assert!(normalised.ends_with("/sub/w.db?mode=rwc"), "{normalised}");
        assert!(dir.path().join("sub").is_dir());
    }

    #[test]
    fn explicit_mode_is_kept() {
        let (_, u) = normalise_url("sqlite://w.db?mode=ro").unwrap();
        assert_eq!(u, "sqlite://w.db?mode=ro");
    }

    #[test]
    fn other_schemes_are_refused_without_leaking_passwords() {
        let err = normalise_url("mysql://root:hunter2@db/x").unwrap_err().to_string();
        assert!(err.contains("sqlite://"), "{err}");
        assert!(!err.contains("hunter2"), "{err}");
    }

    /// A database on the PostgreSQL server scripts/test starts, or a SQLite file in `dir`.
    async fn database(dir: &tempfile::TempDir) -> String {
        match std::env::var("WARREN_TEST_POSTGRES_URL") {
            Ok(server) => {
                let (base, _) = server.rsplit_once('/').unwrap();
                format!("{base}/warren_db_test_{}", uuid::Uuid::now_v7().simple())
            }
            Err(_) => format!("sqlite://{}/w.db", dir.path().display()),
        }
    }

    #[tokio::test]
    async fn a_pool_that_stays_busy_fails_with_an_error_saying_so() {
        let dir = tempfile::tempdir().unwrap();
        let settings = PoolSettings {
            size: Some(1),
            acquire_timeout: std::time::Duration::from_millis(200),
            ..PoolSettings::default()
        };
        let store = Store::open_with(&database(&dir).await, &settings).await.unwrap();
        let held = store.db.pool().acquire().await.unwrap();
        let err = store.readiness_of_database().await.unwrap_err();
        assert!(matches!(err, StoreError::PoolExhausted), "{err:?}");
        assert!(err.to_string().contains("WARREN_DB_POOL_SIZE"), "{err}");
        drop(held);
        store.readiness_of_database().await.unwrap();
    }

    #[tokio::test]
    async fn a_statement_past_the_timeout_is_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let settings = PoolSettings {
            statement_timeout: std::time::Duration::from_millis(200),
            ..PoolSettings::default()
        };
        let store = Store::open_with(&database(&dir).await, &settings).await.unwrap();
        let started = std::time::Instant::now();
        let err = match store.backend() {
            Backend::Postgres => {
                sqlx::query("SELECT pg_sleep(5)").execute(store.db.pool()).await.unwrap_err()
            }
            // SQLite's wait for its lock is what is bounded: another connection holds it.
            Backend::Sqlite => {
                let mut other = store.db.pool().acquire().await.unwrap();
                other.execute("BEGIN IMMEDIATE").await.unwrap();
                store.db.pool().begin_with("BEGIN IMMEDIATE").await.map(drop).unwrap_err()
            }
        };
        assert!(
            started.elapsed() < std::time::Duration::from_secs(4),
            "stopped after {:?}",
            started.elapsed()
        );
        let text = err.to_string();
        assert!(text.contains("canceling statement") || text.contains("locked"), "{text}");
    }

    #[test]
    fn redact_hides_password() {
        assert_eq!(redact("postgres://u:secret@h:5432/d"), "postgres://u:***@h:5432/d");
        assert_eq!(redact("postgres://h/d"), "postgres://h/d");
    }
}

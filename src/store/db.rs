//! Opening the database, migrations and readiness checks.

use std::path::Path;

use serde::Serialize;
use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::migrate::{Migrate, Migrator};
use sqlx::{AnyPool, Connection, Executor};

static MIGRATOR: Migrator = sqlx::migrate!("./migrations");

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    Sqlite,
    Postgres,
}

#[derive(Clone, Debug)]
pub struct Store {
    pool: AnyPool,
    backend: Backend,
    /// Session trees read lately (see `tree.rs`).
    pub(super) trees: std::sync::Arc<std::sync::Mutex<super::tree::TreeCache>>,
    /// SQLite's one writer (see [`Writer`]); PostgreSQL writes on the pool.
    writer: Option<std::sync::Arc<tokio::sync::Mutex<Writer>>>,
    /// Held by every clone; the checkpointer stops when the last one goes.
    _alive: std::sync::Arc<()>,
    /// The database file, on SQLite.
    sqlite_path: Option<std::path::PathBuf>,
    /// Set on a live session's copy (see [`Store::fenced`]): its writes hold while the lease
    /// they are made under does.
    pub(super) fence: Option<std::sync::Arc<super::instances::Fence>>,
}

/// On SQLite, the connection every write transaction and single writing statement runs on,
/// taken in turn (first come, first served) before SQLite's one write lock is asked for.
/// Waiting on SQLite instead means its busy handler, which sleeps 1, 2, 5, 10 … ms between
/// tries, and that was most of a turn's worst case; and a connection of its own, not one from
/// the pool, spares every write the pool's check on taking a connection back (a round trip
/// to the connection's thread, as each statement is).
pub(crate) struct Writer {
    conn: sqlx::AnyConnection,
    /// A transaction on `conn` may be left without `COMMIT` (a [`WriteTx`] dropped, a script
    /// that failed or was given up midway): whoever takes the next turn rolls it back first.
    open: bool,
    url: String,
    busy_timeout_ms: u128,
}

impl std::fmt::Debug for Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer").field("open", &self.open).finish_non_exhaustive()
    }
}

impl Writer {
    /// The writer's next turn, first come, first served, ready to write.
    async fn turn(
        writer: &std::sync::Arc<tokio::sync::Mutex<Writer>>,
    ) -> tokio::sync::OwnedMutexGuard<Writer> {
        let mut turn = writer.clone().lock_owned().await;
        turn.settle().await;
        turn
    }

    /// Ready for the next writer: a transaction left open is rolled back. That fails only
    /// when SQLite already rolled it back itself, which is just as good.
    async fn settle(&mut self) {
        if self.open {
            let _ = self.conn.execute("ROLLBACK").await;
            self.open = false;
        }
    }

    /// `BEGIN IMMEDIATE`, on a new connection if this one cannot begin (its thread gone, say):
    /// one broken connection must not fail every write after it.
    async fn begin(&mut self) -> Result<(), sqlx::Error> {
        let Err(err) = self.conn.execute("BEGIN IMMEDIATE").await else {
            return Ok(());
        };
        let Ok(fresh) = open_sqlite(&self.url, self.busy_timeout_ms).await else {
            return Err(err);
        };
        tracing::warn!("opened the database's writing connection again after: {err}");
        // The old one's thread ends as it is dropped.
        self.conn = fresh;
        self.conn.execute("BEGIN IMMEDIATE").await?;
        Ok(())
    }
}

/// Opens one SQLite connection as the pool's are opened.
async fn open_sqlite(url: &str, busy_timeout_ms: u128) -> Result<sqlx::AnyConnection, sqlx::Error> {
    let mut conn = sqlx::AnyConnection::connect(url).await?;
    sqlite_pragmas(&mut conn, busy_timeout_ms).await?;
    Ok(conn)
}

/// Every SQLite connection's settings.
async fn sqlite_pragmas(conn: &mut sqlx::AnyConnection, busy_timeout_ms: u128) -> Result<(), sqlx::Error> {
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
async fn checkpoints(mut conn: sqlx::AnyConnection, alive: std::sync::Weak<()>) {
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

/// A transaction that writes: on SQLite, on the store's [`Writer`], whose turn it holds until
/// it ends; on PostgreSQL, on a connection of the pool. Used as the connection it runs on
/// (`&mut *tx`); `commit` ends it, dropping rolls back.
pub(crate) struct WriteTx(Tx);

enum Tx {
    Pooled(sqlx::Transaction<'static, sqlx::Any>),
    Writer(WriterTx),
}

struct WriterTx {
    turn: tokio::sync::OwnedMutexGuard<Writer>,
    committed: bool,
}

impl Drop for WriterTx {
    fn drop(&mut self) {
        if !self.committed {
            // Dropped midway: an error, or the caller's future given up.
            self.turn.open = true;
            settle_soon(&self.turn);
        }
    }
}

/// A transaction left open on the writer is rolled back by whoever takes the next turn, and by
/// a task as soon as this turn ends, so SQLite's lock is not held until someone writes again
/// (another process on the same file would wait for it).
fn settle_soon(turn: &tokio::sync::OwnedMutexGuard<Writer>) {
    if !turn.open {
        return;
    }
    let writer = tokio::sync::OwnedMutexGuard::mutex(turn).clone();
    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
        runtime.spawn(async move { drop(Writer::turn(&writer).await) });
    }
}

impl WriteTx {
    pub fn backend(&self) -> Backend {
        match self.0 {
            Tx::Pooled(_) => Backend::Postgres,
            Tx::Writer(_) => Backend::Sqlite,
        }
    }

    pub async fn commit(self) -> Result<(), sqlx::Error> {
        match self.0 {
            Tx::Pooled(tx) => tx.commit().await,
            Tx::Writer(mut tx) => {
                let done = tx.turn.conn.execute("COMMIT").await;
                // Left open if `COMMIT` failed; the next writer rolls it back.
                tx.turn.open = done.is_err();
                tx.committed = true;
                done.map(|_| ())
            }
        }
    }
}

impl std::ops::Deref for WriteTx {
    type Target = sqlx::AnyConnection;

    fn deref(&self) -> &sqlx::AnyConnection {
        match &self.0 {
            Tx::Pooled(tx) => tx,
            Tx::Writer(tx) => &tx.turn.conn,
        }
    }
}

impl std::ops::DerefMut for WriteTx {
    fn deref_mut(&mut self) -> &mut sqlx::AnyConnection {
        match &mut self.0 {
            Tx::Pooled(tx) => tx,
            Tx::Writer(tx) => &mut tx.turn.conn,
        }
    }
}

/// The connection for one writing statement, atomic on its own (see [`Store::write_turn`]).
pub(crate) enum WriteConn {
    Pooled(sqlx::pool::PoolConnection<sqlx::Any>),
    Writer(tokio::sync::OwnedMutexGuard<Writer>),
}

impl WriteConn {
    /// A script that begins and commits its own transaction is about to run on SQLite's
    /// writer: until [`WriteConn::end_script`], the next writer rolls back whatever it left
    /// open (it failed midway, or its future was dropped).
    pub(crate) fn begin_script(&mut self) {
        if let WriteConn::Writer(turn) = self {
            turn.open = true;
        }
    }

    /// The script ran to its `COMMIT`.
    pub(crate) fn end_script(&mut self) {
        if let WriteConn::Writer(turn) = self {
            turn.open = false;
        }
    }
}

impl Drop for WriteConn {
    fn drop(&mut self) {
        if let WriteConn::Writer(turn) = self {
            settle_soon(turn);
        }
    }
}

impl std::ops::Deref for WriteConn {
    type Target = sqlx::AnyConnection;

    fn deref(&self) -> &sqlx::AnyConnection {
        match self {
            WriteConn::Pooled(conn) => conn,
            WriteConn::Writer(turn) => &turn.conn,
        }
    }
}

impl std::ops::DerefMut for WriteConn {
    fn deref_mut(&mut self) -> &mut sqlx::AnyConnection {
        match self {
            WriteConn::Pooled(conn) => conn,
            WriteConn::Writer(turn) => &mut turn.conn,
        }
    }
}

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

/// Start-up failures, each worded as one sentence an operator can act on.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(
        "DATABASE_URL must start with sqlite:// or postgres:// (it is '{0}'); \
         for example sqlite://data/warren.db"
    )]
    UnsupportedUrl(String),
    #[error(
        "cannot create the database directory '{dir}' ({source}); set DATABASE_URL to a \
         writable location such as sqlite://data/warren.db"
    )]
    CreateDir { dir: String, source: std::io::Error },
    #[error(
        "cannot open the database at {url} ({source}); check DATABASE_URL and that the database is reachable"
    )]
    Connect { url: String, source: sqlx::Error },
    #[error(
        "cannot apply database migrations ({0}); the database may be from a newer Warren or \
         was changed by hand: restore a backup or point DATABASE_URL at a fresh database"
    )]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error(
        "no database connection came free in time: every one in the pool is busy \
         (raise WARREN_DB_POOL_SIZE, or find what is slowing the database)"
    )]
    PoolExhausted,
    #[error("cannot take the lock that lets one process at a time migrate the database ({path}: {source})")]
    MigrationLock { path: String, source: std::io::Error },
    #[error("database error: {0}")]
    Query(sqlx::Error),
    #[error("stored data is not what Warren wrote: {0}")]
    Corrupt(String),
    /// A learner already has a set of that name (names are unique per learner, ignoring case).
    #[error("a set named '{0}' exists already")]
    NameTaken(String),
    /// A live session's write after another instance took its lease over: nothing was written.
    #[error("session {0} is run by another instance now (its lease was taken over); nothing was written")]
    LeaseLost(String),
}

impl From<sqlx::Error> for StoreError {
    fn from(err: sqlx::Error) -> Self {
        if matches!(err, sqlx::Error::PoolTimedOut) {
            StoreError::PoolExhausted
        } else {
            StoreError::Query(err)
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
            writer = Some(std::sync::Arc::new(tokio::sync::Mutex::new(Writer {
                conn,
                open: false,
                url: url.clone(),
                busy_timeout_ms: statement_timeout,
            })));
        }
        let sqlite_path = sqlite_file(&url);
        Ok(Self { pool, backend, trees: Default::default(), writer, _alive: alive, sqlite_path, fence: None })
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    pub(crate) fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// A transaction that will write. On SQLite it runs on the store's [`Writer`] and takes
    /// the write lock up front (`BEGIN IMMEDIATE`): a deferred transaction that reads and then
    /// writes fails at once with "database is locked" when another connection (another
    /// process on the same file) wrote in between, and no busy timeout helps. PostgreSQL needs
    /// nothing special.
    ///
    /// On a store fenced by a session's lease, the transaction first checks that the lease is
    /// still the one its writes are made under, and holds it until the end (the lease's row
    /// is locked on PostgreSQL; on SQLite the write lock is held already): a successor's
    /// `take_lease` waits for it, or it fails with [`StoreError::LeaseLost`].
    pub(crate) async fn write_transaction(&self) -> Result<WriteTx, StoreError> {
        let mut tx = match &self.writer {
            Some(writer) => {
                let mut turn = Writer::turn(writer).await;
                turn.begin().await?;
                WriteTx(Tx::Writer(WriterTx { turn, committed: false }))
            }
            None => WriteTx(Tx::Pooled(self.pool.begin().await?)),
        };
        if let Some(fence) = &self.fence {
            fence.check(&mut tx).await?;
        }
        Ok(tx)
    }

    /// Runs one writing statement: in turn ([`Store::write_turn`]), or, on a fenced store, in
    /// a transaction that checks the lease first. Returns the rows it changed.
    pub(crate) async fn write_one<'q>(
        &self,
        statement: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments>,
    ) -> Result<u64, StoreError> {
        if self.fence.is_some() {
            let mut tx = self.write_transaction().await?;
            let changed = statement.execute(&mut *tx).await?.rows_affected();
            tx.commit().await?;
            return Ok(changed);
        }
        let mut conn = self.write_turn().await?;
        Ok(statement.execute(&mut *conn).await?.rows_affected())
    }

    /// The connection for a single writing statement, atomic on its own: on SQLite the
    /// [`Writer`], in turn with the transactions, without `BEGIN` and `COMMIT` (two trips to
    /// the connection's thread fewer); on PostgreSQL one of the pool's. Run the statement on
    /// `&mut *conn` and drop it. It knows no fence: a live session's writes use
    /// [`Store::write_one`] or [`Store::write_transaction`].
    pub(crate) async fn write_turn(&self) -> Result<WriteConn, sqlx::Error> {
        match &self.writer {
            Some(writer) => Ok(WriteConn::Writer(Writer::turn(writer).await)),
            None => Ok(WriteConn::Pooled(self.pool.acquire().await?)),
        }
    }

    /// Applies every migration not yet applied. Instances starting together take turns: on
    /// PostgreSQL sqlx holds an advisory lock while it migrates; SQLite has none, so there
    /// they take turns on a lock file beside the database.
    pub async fn migrate(&self) -> Result<(), StoreError> {
        let _turn = match &self.sqlite_path {
            Some(path) => Some(migration_turn(path).await?),
            None => None,
        };
        MIGRATOR.run(&self.pool).await?;
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
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    /// Migrations recorded as applied in the database.
    pub async fn applied_migrations(&self) -> Result<usize, StoreError> {
        let mut conn = self.pool.acquire().await?;
        Ok(conn.list_applied_migrations(&MIGRATOR.table_name).await?.len())
    }

    async fn pending_migrations(&self) -> Result<usize, StoreError> {
        let mut conn = self.pool.acquire().await?;
        let applied = conn.list_applied_migrations(&MIGRATOR.table_name).await?;
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
fn normalise_url(url: &str) -> Result<(Backend, String), StoreError> {
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
fn sqlite_file(url: &str) -> Option<std::path::PathBuf> {
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
        let held = store.pool().acquire().await.unwrap();
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
            Backend::Postgres => sqlx::query("SELECT pg_sleep(5)").execute(store.pool()).await.unwrap_err(),
            // SQLite's wait for its lock is what is bounded: another connection holds it.
            Backend::Sqlite => {
                let mut other = store.pool().acquire().await.unwrap();
                other.execute("BEGIN IMMEDIATE").await.unwrap();
                store.pool().begin_with("BEGIN IMMEDIATE").await.map(drop).unwrap_err()
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

//! Writing. On SQLite every write transaction and single writing statement runs on one
//! connection, the [`Writer`], taken in turn; on PostgreSQL on the pool. A store fenced by a
//! live session's lease ([`Fence`]) checks the lease in every write. Reading is
//! `read.rs`'s: the pool is private to this file (see [`Database`]), so writing any other way
//! does not compile.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use sqlx::migrate::{AppliedMigration, Migrate, Migrator};
use sqlx::{AnyPool, Executor};

use super::read::Read;
use super::sqlite::open_sqlite;
use super::{Backend, Store, StoreError};

/// The database's connections: a pool, and on SQLite the one [`Writer`]. Reading is done on
/// [`Database::read`]; writing only through [`Store::write_transaction`],
/// [`Store::write_one`], [`Store::write_turn`] or [`Store::script_turn`], which take their
/// turn. The pool is private to this file: no other code of the store can write around them.
#[derive(Clone, Debug)]
pub(super) struct Database {
    pool: AnyPool,
    /// SQLite's one writer; PostgreSQL writes on the pool.
    writer: Option<Arc<tokio::sync::Mutex<Writer>>>,
}

impl Database {
    pub(super) fn new(pool: AnyPool, writer: Option<Writer>) -> Self {
        Self { pool, writer: writer.map(|w| Arc::new(tokio::sync::Mutex::new(w))) }
    }

    pub(super) fn read(&self) -> Read<'_> {
        Read::new(&self.pool)
    }

    /// A transaction that will write (see [`Store::write_transaction`]).
    async fn transaction(&self) -> Result<WriteTx, sqlx::Error> {
        Ok(match &self.writer {
            Some(writer) => {
                let mut turn = Writer::turn(writer).await;
                turn.begin().await?;
                WriteTx(Tx::Writer(WriterTx { turn, committed: false }))
            }
            None => WriteTx(Tx::Pooled(self.pool.begin().await?)),
        })
    }

    async fn turn(&self) -> Result<WriteConn, sqlx::Error> {
        match &self.writer {
            Some(writer) => Ok(WriteConn::Writer(Writer::turn(writer).await)),
            None => Ok(WriteConn::Pooled(self.pool.acquire().await?)),
        }
    }

    /// Applies every migration not yet applied (they are writes too).
    pub(super) async fn migrate(&self, migrator: &Migrator) -> Result<(), sqlx::migrate::MigrateError> {
        migrator.run(&self.pool).await
    }

    /// The migrations recorded as applied.
    pub(super) async fn applied_migrations(
        &self,
        migrator: &Migrator,
    ) -> Result<Vec<AppliedMigration>, StoreError> {
        let mut conn = self.pool.acquire().await?;
        Ok(conn.list_applied_migrations(&migrator.table_name).await?)
    }

    /// Writes a snapshot of a SQLite database to a new file (`VACUUM INTO`): a read of the
    /// whole database, on a reading connection, beside the writer.
    pub(super) async fn copy_into(&self, path: &str) -> Result<(), sqlx::Error> {
        let mut conn = self.pool.acquire().await?;
        sqlx::query("VACUUM INTO $1").bind(path.to_string()).execute(&mut *conn).await?;
        Ok(())
    }

    /// The pool itself, for tests that hold its connections.
    #[cfg(test)]
    pub(super) fn pool(&self) -> &AnyPool {
        &self.pool
    }
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
    pub(super) fn new(conn: sqlx::AnyConnection, url: String, busy_timeout_ms: u128) -> Self {
        Self { conn, open: false, url, busy_timeout_ms }
    }

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
                // Left open if `COMMIT` failed: rolled back as soon as this turn ends, not when
                // this instance next writes (another process would wait on its lock till then).
                tx.turn.open = done.is_err();
                tx.committed = true;
                settle_soon(&tx.turn);
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

/// The connection for a script that commits its own transaction (see [`Store::script_turn`]).
pub(crate) struct Script(WriteConn);

impl Script {
    /// The script ran to its `COMMIT`.
    pub(crate) fn committed(mut self) {
        if let WriteConn::Writer(turn) = &mut self.0 {
            turn.open = false;
        }
    }
}

impl std::ops::Deref for Script {
    type Target = sqlx::AnyConnection;

    fn deref(&self) -> &sqlx::AnyConnection {
        &self.0
    }
}

impl std::ops::DerefMut for Script {
    fn deref_mut(&mut self) -> &mut sqlx::AnyConnection {
        &mut self.0
    }
}

/// The lease a live session's writes are made under (see [`Store::fenced`]). A holder frozen
/// past the lapse (a long pause, a suspended machine) may wake after a successor took the
/// session over: its writes then fail, and it stops.
#[derive(Debug)]
pub struct Fence {
    session_id: String,
    lease_id: String,
    /// A write found the lease gone.
    lost: AtomicBool,
}

impl Fence {
    pub(super) fn new(session_id: &str, lease_id: &str) -> Self {
        Self { session_id: session_id.into(), lease_id: lease_id.into(), lost: AtomicBool::new(false) }
    }

    /// A write found the lease gone.
    pub(super) fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Relaxed)
    }

    /// Inside a write transaction: the lease is still this one, and stays so until the
    /// transaction ends (on PostgreSQL the update locks the lease's row, so a successor's
    /// `take_lease` waits for this transaction; SQLite's writers take turns already).
    async fn check(&self, tx: &mut WriteTx) -> Result<(), StoreError> {
        let held = sqlx::query(
            "UPDATE session_leases SET taken_at = taken_at WHERE session_id = $1 AND lease_id = $2",
        )
        .bind(&self.session_id)
        .bind(&self.lease_id)
        .execute(&mut **tx)
        .await?
        .rows_affected()
            == 1;
        if held { Ok(()) } else { Err(self.lost()) }
    }

    /// Notes that the lease is gone; the error to return.
    pub(super) fn lost(&self) -> StoreError {
        self.lost.store(true, Ordering::Relaxed);
        StoreError::LeaseLost(self.session_id.clone())
    }

    pub(super) fn lease_id(&self) -> &str {
        &self.lease_id
    }
}

impl Store {
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
        let mut tx = self.db.transaction().await?;
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
        self.db.turn().await
    }

    /// The writer's connection for a script that begins and commits its own transaction
    /// (SQLite's append, one trip to the connection's thread): until [`Script::committed`],
    /// the transaction counts as open, so a failure midway, or the caller's future given up,
    /// leaves it to the next writer to roll back.
    pub(crate) async fn script_turn(&self) -> Result<Script, sqlx::Error> {
        let mut conn = self.db.turn().await?;
        if let WriteConn::Writer(turn) = &mut conn {
            turn.open = true;
        }
        Ok(Script(conn))
    }
}

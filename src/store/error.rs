//! The store's errors.

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

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

impl StoreError {
    /// The database cannot be reached or written to just now (down, restarting, locked by
    /// someone else past the wait, read-only, out of connections), as opposed to a mistake in
    /// what was asked: trying again later may work, and nothing was written.
    pub fn is_unavailable(&self) -> bool {
        match self {
            StoreError::PoolExhausted | StoreError::Connect { .. } => true,
            StoreError::Query(err) => unavailable(err),
            StoreError::UnsupportedUrl(_)
            | StoreError::CreateDir { .. }
            | StoreError::Migrate(_)
            | StoreError::MigrationLock { .. }
            | StoreError::Corrupt(_)
            | StoreError::NameTaken(_)
            | StoreError::LeaseLost(_) => false,
        }
    }
}

/// Whether sqlx's error says the database is out of reach rather than the query wrong.
fn unavailable(err: &sqlx::Error) -> bool {
    match err {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed
        | sqlx::Error::Protocol(_) => true,
        sqlx::Error::Database(db) => {
            let code = db.code().unwrap_or_default();
            // SQLite: busy, locked, read-only, I/O, full, cannot open (and their extended
            // codes, whose low byte is the primary one).
            let sqlite =
                code.parse::<i32>().ok().is_some_and(|c| matches!(c & 0xff, 5 | 6 | 8 | 10 | 13 | 14));
            // PostgreSQL: connection exceptions (08…), shutting down or starting (57P01-57P03),
            // out of resources (53…), a read-only server (25006, a replica).
            let postgres = code.starts_with("08")
                || code.starts_with("57P")
                || code.starts_with("53")
                || code == "25006";
            sqlite || postgres
        }
        sqlx::Error::Configuration(_)
        | sqlx::Error::InvalidArgument(_)
        | sqlx::Error::RowNotFound
        | sqlx::Error::TypeNotFound { .. }
        | sqlx::Error::ColumnIndexOutOfBounds { .. }
        | sqlx::Error::ColumnNotFound(_)
        | sqlx::Error::ColumnDecode { .. }
        | sqlx::Error::Encode(_)
        | sqlx::Error::Decode(_)
        | sqlx::Error::AnyDriverError(_)
        | sqlx::Error::Migrate(_)
        | sqlx::Error::InvalidSavePointStatement
        | sqlx::Error::BeginFailed => false,
        // sqlx may add kinds (the enum is non-exhaustive): a new one is a mistake until known.
        #[allow(clippy::wildcard_enum_match_arm)]
        _ => false,
    }
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

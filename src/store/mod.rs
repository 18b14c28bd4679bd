//! All SQL lives here. One code path serves SQLite and PostgreSQL through sqlx's `Any` driver:
//! queries use `$n` placeholders (both engines accept them), ids are text (UUID v7, so they sort
//! by creation), timestamps are integer milliseconds since the Unix epoch, integers are
//! `BIGINT`/`i64`, and JSON is stored as text. Every query on learner data is scoped by learner.

mod accounts;
mod backup;
mod columns;
mod db;
mod disputes;
mod drafts;
mod entries;
mod error;
mod fits;
mod history;
mod instances;
mod learners;
mod points;
mod rabbitholes;
mod read;
mod resources;
mod reviews;
mod sessions;
mod sets;
mod sources;
mod sqlite;
mod stats;
mod struggles;
mod summaries;
mod today;
mod tree;
mod usage;
mod writer;

pub use crate::schedule::FsrsCard;
pub use accounts::{Credentials, SignIn};
pub use backup::{BackupError, Copied, restore, sqlite_path};
pub use db::{Check, PoolSettings};
pub use disputes::{Dispute, DisputedCase};
pub use entries::{Appended, Entry, NewEntry};
pub use error::StoreError;
pub use fits::{FIT_LAPSE_MS, FitReason, FitRow, FitStatus};
pub use history::{HistoryQuery, HistoryRow};
pub use instances::Lease;
pub use learners::Learner;
pub use points::{Point, Review};
pub use rabbitholes::{RabbitholeRow, RabbitholeStatus};
pub use read::{Read, Reads};
pub use resources::{NewResource, Resource, ResourceEdit, image_type, media_url};
pub use reviews::{LoggedReview, PointLog, ReviewKind};
pub use sessions::{ImportedRecall, ImportedSession, NewOutcome, OutcomeRow, SessionRow, SessionState};
pub use sets::{NewPoint, NewSet, RecallSet, SetContents, SetSummary};
pub use sources::{
    FIRST_RUN, KeptDraft, NewDraft, SOURCE_BEAT_MS, SOURCE_LAPSE_MS, Source, SourceDraft, SourceStatus,
};
pub use struggles::{Struggle, StruggleRow};
pub use summaries::{LatestSummary, SummaryScope};
pub use today::{DailyLimits, DuePoints};
pub use tree::{Resolved, Tree, first_kept_id, resolve};
pub use usage::{CallSum, LearnerBudget, NewCall};
pub use warren_app::tree::{EntryKind, Speaker};

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// The placeholders of a statement of many rows, in order. PostgreSQL numbers its
/// placeholders; SQLite takes plain `?` (numbered ones make a statement with thousands of them
/// twenty times slower to bind).
struct Placeholders {
    backend: Backend,
    given: usize,
}

impl Placeholders {
    fn new(backend: Backend) -> Self {
        Placeholders { backend, given: 0 }
    }

    /// The next `count` placeholders.
    fn take(&mut self, count: usize) -> Vec<String> {
        (0..count)
            .map(|_| {
                self.given += 1;
                match self.backend {
                    Backend::Sqlite => "?".to_string(),
                    Backend::Postgres => format!("${}", self.given),
                }
            })
            .collect()
    }
}

/// The database, and what Warren keeps beside it. Cheap to clone: clones share everything
/// but the fence.
#[derive(Clone, Debug)]
pub struct Store {
    db: writer::Database,
    backend: Backend,
    /// Session trees read lately (see `tree.rs`).
    trees: std::sync::Arc<std::sync::Mutex<tree::TreeCache>>,
    /// Held by every clone; the checkpointer stops when the last one goes.
    _alive: std::sync::Arc<()>,
    /// The database file, on SQLite.
    sqlite_path: Option<std::path::PathBuf>,
    /// Set on a live session's copy (see [`Store::fenced`]): its writes hold while the lease
    /// they are made under does.
    fence: Option<std::sync::Arc<writer::Fence>>,
}

impl Store {
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The handle for reading (see [`Read`]).
    pub fn read(&self) -> Read<'_> {
        self.db.read()
    }

    /// The rows a query reads of one of a learner's sets: `$1` is the set, `$2` the learner,
    /// whose own the rows must be (each query says so in its `WHERE`).
    async fn set_rows<O>(
        &self,
        sql: &'static str,
        learner: &warren_app::learner::LearnerId,
        set_id: &str,
    ) -> Result<Vec<O>, sqlx::Error>
    where
        O: Send + Unpin + for<'r> sqlx::FromRow<'r, sqlx::any::AnyRow>,
    {
        sqlx::query_as(sql).bind(set_id).bind(learner).all(self.read()).await
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// A new, time-ordered id.
pub fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

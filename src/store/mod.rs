//! All SQL lives here. One code path serves SQLite and PostgreSQL through sqlx's `Any` driver:
//! queries use `$n` placeholders (both engines accept them), ids are text (UUID v7, so they sort
//! by creation), timestamps are integer milliseconds since the Unix epoch, integers are
//! `BIGINT`/`i64`, and JSON is stored as text. Every query on learner data is scoped by owner.

mod accounts;
mod columns;
mod db;
mod drafts;
mod entries;
mod history;
mod instances;
mod points;
mod rabbitholes;
mod resources;
mod sessions;
mod sets;
mod stats;
mod struggles;
mod summaries;
mod tree;
mod users;

pub use accounts::{Account, SignIn};
pub use db::{Backend, Check, PoolSettings, Store, StoreError};
pub use entries::{Entry, NewEntry};
pub use history::{HistoryQuery, HistoryRow};
pub use instances::Lease;
pub use points::{FsrsCard, Point, Review};
pub use rabbitholes::{RabbitholeRow, RabbitholeStatus};
pub use resources::{Resource, image_type, media_url};
pub use sessions::{ImportedRecall, ImportedSession, NewOutcome, OutcomeRow, SessionRow, SessionState};
pub use sets::{NewPoint, NewResource, NewSet, RecallSet, SetContents, SetSummary};
pub use struggles::{Struggle, StruggleRow};
pub use summaries::LatestSummary;
pub use tree::{MAX_LABEL, Resolved, Tree, first_kept_id, resolve};
pub use users::User;
pub use warren_app::tree::{EntryKind, Speaker};

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// A new, time-ordered id.
pub fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

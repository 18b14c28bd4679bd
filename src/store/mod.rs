//! All SQL lives here. One code path serves SQLite and PostgreSQL through sqlx's `Any` driver:
//! queries use `$n` placeholders (both engines accept them), ids are text, timestamps are
//! integer milliseconds since the Unix epoch and integers are `BIGINT`/`i64`.

mod db;

pub use db::{Backend, Check, Store, StoreError};

//! Reading: [`Read`], the handle every query that only reads runs on. It is not an sqlx
//! executor, so nothing can `execute` through it: a write has to go through the writer
//! (`writer.rs`), and "writes take turns" is kept by the compiler, but for one gap: a
//! statement that writes and returns rows could still be fetched through [`Reads`].
//!
//! ```
//! # async fn demo(store: &warren::store::Store) -> Result<(), sqlx::Error> {
//! use warren::store::Reads;
//! let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM users").one(store.read()).await?;
//! # Ok(()) }
//! ```
//!
//! ```compile_fail
//! # async fn demo(store: &warren::store::Store) -> Result<(), sqlx::Error> {
//! sqlx::query("DELETE FROM users").execute(store.read()).await?;
//! # Ok(()) }
//! ```

use sqlx::any::{AnyArguments, AnyRow};
use sqlx::query::{Query, QueryAs, QueryScalar};
use sqlx::{Any, AnyPool, FromRow};

/// The store's connections, for reading only (see the module's documentation).
#[derive(Clone, Copy)]
pub struct Read<'a>(&'a AnyPool);

impl<'a> Read<'a> {
    pub(super) fn new(pool: &'a AnyPool) -> Self {
        Self(pool)
    }
}

/// A query that reads: its rows fetched on a [`Read`] handle.
#[allow(async_fn_in_trait)]
pub trait Reads: Sized {
    type Output;

    async fn all(self, read: Read<'_>) -> Result<Vec<Self::Output>, sqlx::Error>;
    async fn one(self, read: Read<'_>) -> Result<Self::Output, sqlx::Error>;
    async fn optional(self, read: Read<'_>) -> Result<Option<Self::Output>, sqlx::Error>;
}

/// A query type's own fetches, on the read handle's pool.
macro_rules! fetches {
    ($out:ty) => {
        type Output = $out;

        async fn all(self, read: Read<'_>) -> Result<Vec<$out>, sqlx::Error> {
            self.fetch_all(read.0).await
        }

        async fn one(self, read: Read<'_>) -> Result<$out, sqlx::Error> {
            self.fetch_one(read.0).await
        }

        async fn optional(self, read: Read<'_>) -> Result<Option<$out>, sqlx::Error> {
            self.fetch_optional(read.0).await
        }
    };
}

impl<'q, O> Reads for QueryAs<'q, Any, O, AnyArguments>
where
    O: Send + Unpin + for<'r> FromRow<'r, AnyRow>,
{
    fetches!(O);
}

impl<'q, O> Reads for QueryScalar<'q, Any, O, AnyArguments>
where
    O: Send + Unpin,
    (O,): Send + Unpin + for<'r> FromRow<'r, AnyRow>,
{
    fetches!(O);
}

impl<'q> Reads for Query<'q, Any, AnyArguments> {
    fetches!(AnyRow);
}

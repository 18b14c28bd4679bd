//! A real SQLite store for the targets that import what they read: opened once per process
//! in a temporary directory, with one learner.

use std::sync::OnceLock;

use warren::store::Store;
use warren_app::learner::LearnerId;

pub struct Target {
    pub runtime: tokio::runtime::Runtime,
    pub store: Store,
    pub owner: LearnerId,
    _dir: tempfile::TempDir,
}

/// The store, or `None` if it could not be opened (the target then only reads).
pub fn target() -> Option<&'static Target> {
    static TARGET: OnceLock<Option<Target>> = OnceLock::new();
    TARGET
        .get_or_init(|| {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
            let dir = tempfile::tempdir().ok()?;
            let url = format!("sqlite://{}", dir.path().join("fuzz.db").display());
            let (store, owner) = runtime.block_on(async {
                let store = Store::open(&url).await.ok()?;
                store.migrate().await.ok()?;
                let owner = store.create_account("fuzz", "").await.ok()??;
                Some((store, owner))
            })?;
            Some(Target { runtime, store, owner, _dir: dir })
        })
        .as_ref()
}

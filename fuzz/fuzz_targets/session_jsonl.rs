//! Session files (JSONL): any text is read or refused with a reason, never a panic. A file
//! that is read writes out and reads back as itself, and imports into a real SQLite store.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use warren::store::Store;
use warren::transfer::session;

struct Target {
    runtime: tokio::runtime::Runtime,
    store: Store,
    owner: String,
    _dir: tempfile::TempDir,
}

fn target() -> Option<&'static Target> {
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

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(file) = session::read(text) else { return };
    let written = session::write(&file).expect("a file that was read can be written");
    assert_eq!(session::read(&written).as_ref(), Ok(&file), "it reads back as itself");
    let Some(target) = target() else { return };
    let imported = target.runtime.block_on(session::import(&target.store, &target.owner, file));
    assert!(imported.is_ok(), "a file that was read imports: {imported:?}");
});

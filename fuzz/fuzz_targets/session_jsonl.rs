//! Session files (JSONL): any text is read or refused with a reason, never a panic. A file
//! that is read writes out and reads back as itself, and imports into a real SQLite store.
#![no_main]

#[path = "store.rs"]
mod store;

use libfuzzer_sys::fuzz_target;
use warren::transfer::session;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(file) = session::read(text) else { return };
    let written = session::write(&file).expect("a file that was read can be written");
    assert_eq!(session::read(&written).as_ref(), Ok(&file), "it reads back as itself");
    let Some(target) = store::target() else { return };
    let imported = target.runtime.block_on(session::import(&target.store, &target.owner, file));
    assert!(imported.is_ok(), "a file that was read imports: {imported:?}");
});

//! Account archives. Raw bytes reach the zip reader; a structured archive (a real zip with a
//! manifest naming set and session files, each Warren's own or anything at all) reaches the
//! manifest, set and session parsing and the zip-bomb guard. Either is refused with a reason
//! or read, and an archive that was read imports into a real SQLite store. Never a panic.
#![no_main]

#[path = "store.rs"]
mod store;

use std::io::{Cursor, Write};

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use warren::transfer::archive;

#[derive(Arbitrary, Debug)]
enum Input {
    Raw(Vec<u8>),
    Archive(Structured),
}

#[derive(Arbitrary, Debug)]
struct Structured {
    /// The manifest as Warren writes it, or any text.
    manifest: Option<String>,
    version: u8,
    sets: Vec<(String, bool, Contents)>,
    sessions: Vec<(String, Contents)>,
    /// Files listed nowhere, or named twice.
    extra: Vec<(String, Vec<u8>)>,
    packed: bool,
}

/// A file's contents: a plausible one, or anything.
#[derive(Arbitrary, Debug)]
enum Contents {
    Set { name: String, points: Vec<String> },
    Session { id: String, set: String, says: Vec<String> },
    Text(String),
    Missing,
}

fn text(contents: &Contents) -> Option<String> {
    match contents {
        Contents::Set { name, points } => Some(
            serde_json::json!({
                "format": "warren-set", "version": 1, "name": name,
                "points": points.iter().map(|p| serde_json::json!({"content": p})).collect::<Vec<_>>(),
            })
            .to_string(),
        ),
        Contents::Session { id, set, says } => {
            let mut out = serde_json::json!({
                "type": "header", "format": "warren-session", "version": 2, "sessionId": id,
                "setName": set, "status": "completed", "startedAt": 1, "updatedAt": 2,
            })
            .to_string();
            let mut parent = serde_json::Value::Null;
            for (i, said) in says.iter().enumerate() {
                let id = format!("e{i}");
                let line = serde_json::json!({"type": "entry", "id": id, "parentId": parent,
                    "timestamp": i, "kind": "message", "speaker": "learner", "content": said});
                out.push('\n');
                out.push_str(&line.to_string());
                parent = serde_json::Value::String(id);
            }
            Some(out)
        }
        Contents::Text(text) => Some(text.clone()),
        Contents::Missing => None,
    }
}

fn build(input: &Structured) -> Option<Vec<u8>> {
    let method = if input.packed { zip::CompressionMethod::Deflated } else { zip::CompressionMethod::Stored };
    let options = zip::write::SimpleFileOptions::default().compression_method(method);
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let mut sets = Vec::new();
    let mut sessions = Vec::new();
    for (i, (name, archived, contents)) in input.sets.iter().enumerate() {
        let file = format!("sets/{i}.json");
        if let Some(text) = text(contents) {
            zip.start_file(file.as_str(), options).ok()?;
            zip.write_all(text.as_bytes()).ok()?;
        }
        sets.push(serde_json::json!({"name": name, "file": file, "archived": archived}));
    }
    for (i, (set, contents)) in input.sessions.iter().enumerate() {
        let file = format!("sessions/{i}.jsonl");
        if let Some(text) = text(contents) {
            zip.start_file(file.as_str(), options).ok()?;
            zip.write_all(text.as_bytes()).ok()?;
        }
        sessions.push(serde_json::json!({"id": i.to_string(), "setName": set, "file": file}));
    }
    for (name, bytes) in &input.extra {
        // A name written twice is refused by the writer; that input simply stops here.
        zip.start_file(name.as_str(), options).ok()?;
        zip.write_all(bytes).ok()?;
    }
    let manifest = match &input.manifest {
        Some(text) => text.clone(),
        None => serde_json::json!({
            "format": "warren-account", "version": input.version, "username": "fuzz", "exportedAt": 0,
            "sets": sets, "sessions": sessions,
        })
        .to_string(),
    };
    zip.start_file(archive::MANIFEST, options).ok()?;
    zip.write_all(manifest.as_bytes()).ok()?;
    Some(zip.finish().ok()?.into_inner())
}

fuzz_target!(|input: Input| {
    let bytes = match &input {
        Input::Raw(bytes) => bytes.clone(),
        Input::Archive(structured) => match build(structured) {
            Some(bytes) => bytes,
            None => return,
        },
    };
    let _ = archive::is_archive(&bytes);
    let Ok(read) = archive::read(&bytes) else { return };
    let Some(target) = store::target() else { return };
    let imported = target.runtime.block_on(archive::import(&target.store, &target.owner, read));
    assert!(imported.is_ok(), "an archive that was read imports: {imported:?}");
});

//! A learner's whole account as one zip archive, and back. Inside:
//!
//! - `manifest.json`: what the archive holds (format `warren-account`, versioned);
//! - `sets/*.json`: every set in Warren JSON, exactly as a set's own export (images inside,
//!   base64), so each imports on its own too;
//! - `sessions/*.jsonl`: every session as the versioned JSONL a session's export writes;
//! - `summaries.md`: every session summary, newest first, to read;
//! - `images/<set>/*`: every uploaded image as its own file, to look at;
//! - `README.txt`: the above, for whoever opens it.
//!
//! Import reads and checks every set and session before anything is written, then creates the
//! sets and hangs each session under its own set.

use std::collections::HashMap;
use std::io::{Cursor, Read, Write};
use warren_app::learner::LearnerId;

use serde::{Deserialize, Serialize};
use warren_app::forms::limits;
use zip::write::SimpleFileOptions;

use super::session::{self as session_file, SessionFile};
use super::{Format, ImportError, Preview, export, json};
use crate::store::{LatestSummary, Store, StoreError, SummaryScope, now_ms};

pub const FORMAT: &str = "warren-account";
/// Version 1 listed each session under one set; version 2 lists every set a session draws on
/// (today's review draws on several). A version 1 manifest reads as version 2 does.
pub const VERSION: u32 = 2;
pub const MANIFEST: &str = "manifest.json";
/// Files an archive may list.
const MAX_FILES: usize = 20_000;
/// What an archive may hold once unpacked, all files together: a guard against zip bombs.
const MAX_UNPACKED: u64 = 1024 * 1024 * 1024;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    pub format: String,
    pub version: u32,
    pub username: String,
    pub exported_at: i64,
    pub sets: Vec<SetEntry>,
    pub sessions: Vec<SessionEntry>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetEntry {
    pub name: String,
    pub file: String,
    #[serde(default)]
    pub archived: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionEntry {
    pub id: String,
    /// The set's name, or for a review "Today's review: " and its sets.
    pub set_name: String,
    /// Every set it draws on, by name (version 2).
    #[serde(default)]
    pub sets: Vec<String>,
    pub file: String,
}

/// The archive to download.
pub struct AccountExport {
    pub file_name: String,
    pub bytes: Vec<u8>,
}

/// Why an archive cannot be imported; nothing of it is written then.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ArchiveError {
    #[error("The archive is {0} MB; archives up to {max} MB can be imported.", max = limits::ARCHIVE_BYTES / 1_048_576)]
    TooLarge(u64),
    #[error("The archive cannot be read: {0}")]
    Broken(String),
    #[error("This archive's manifest is not one Warren wrote: {0}")]
    BadManifest(String),
    #[error("This archive is version {0}, newer than this Warren reads ({VERSION}); update Warren.")]
    TooNew(u32),
    #[error("The archive lists {0}, which it does not hold.")]
    Missing(String),
    #[error("The archive unpacks to more than {} MB.", MAX_UNPACKED / 1_048_576)]
    Unpacked,
    #[error("{file}: {why}")]
    Set { file: String, why: ImportError },
    #[error("{file}: {why}")]
    Session { file: String, why: session_file::SessionFileError },
}

/// An archive read and checked, ready to import.
#[derive(Debug)]
pub struct Archive {
    pub manifest: Manifest,
    /// Each set in the manifest's order, with whether it was archived.
    pub sets: Vec<(Preview, bool)>,
    pub sessions: Vec<SessionFile>,
}

/// What an import added.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Imported {
    pub sets: usize,
    pub sessions: usize,
    /// Rows of sets left out (each set's own reasons; none for an archive Warren wrote).
    pub left_out: usize,
}

/// Whether these bytes are an account archive (a zip with Warren's manifest), as opposed to
/// another zip such as an Anki package.
pub fn is_archive(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PK\x03\x04")
        && zip::ZipArchive::new(Cursor::new(bytes)).is_ok_and(|mut zip| zip.by_name(MANIFEST).is_ok())
}

/// Everything the learner owns, as one zip.
pub async fn export(store: &Store, learner: &LearnerId, username: &str) -> Result<AccountExport, StoreError> {
    let broken = |e: zip::result::ZipError| StoreError::Corrupt(e.to_string());
    let io = |e: std::io::Error| StoreError::Corrupt(e.to_string());
    let now = now_ms();
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let packed = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    let stored = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    let mut manifest = Manifest {
        format: FORMAT.into(),
        version: VERSION,
        username: username.to_string(),
        exported_at: now,
        sets: Vec::new(),
        sessions: Vec::new(),
    };
    let mut stems = Stems::default();
    // Each set's name by id, for the sessions' entries in the manifest.
    let mut names: HashMap<String, String> = HashMap::new();
    for set in store.list_sets(learner, now).await? {
        names.insert(set.id.clone(), set.name.clone());
        let Some(file) = export::export(store, learner, &set.id, Format::Json).await? else { continue };
        let stem = stems.unique(file.file_name.trim_end_matches(".json"));
        let path = format!("sets/{stem}.json");
        zip.start_file(path.as_str(), packed).map_err(broken)?;
        zip.write_all(&file.bytes).map_err(io)?;
        for resource in store.resources(learner, &set.id).await? {
            let Some((mime, bytes)) = store.resource_image(learner, &resource.id).await? else { continue };
            let extension = mime.rsplit('/').next().unwrap_or("bin").replace("jpeg", "jpg");
            zip.start_file(format!("images/{stem}/{}.{extension}", resource.id), stored).map_err(broken)?;
            zip.write_all(&bytes).map_err(io)?;
        }
        manifest.sets.push(SetEntry { name: set.name, file: path, archived: set.archived_at.is_some() });
    }
    for session in store.sessions(learner).await? {
        let Some(file) = session_file::export(store, learner, &session.id).await? else { continue };
        let path = format!("sessions/{}", file.file_name);
        zip.start_file(path.as_str(), packed).map_err(broken)?;
        zip.write_all(file.text.as_bytes()).map_err(io)?;
        let set_name = match &session.set_id {
            Some(set_id) => names.get(set_id).cloned().unwrap_or_default(),
            None => store.session_title(learner, &session).await?,
        };
        let sets = store.session_sets(learner, &session.id).await?.into_iter().map(|s| s.name).collect();
        manifest.sessions.push(SessionEntry { id: session.id, set_name, sets, file: path });
    }
    let summaries = store.latest_summaries(learner, SummaryScope::Every, false, u32::MAX).await?;
    zip.start_file("summaries.md", packed).map_err(broken)?;
    zip.write_all(summaries_text(&summaries).as_bytes()).map_err(io)?;
    zip.start_file("README.txt", packed).map_err(broken)?;
    zip.write_all(readme(username).as_bytes()).map_err(io)?;
    let text = serde_json::to_vec_pretty(&manifest).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    zip.start_file(MANIFEST, packed).map_err(broken)?;
    zip.write_all(&text).map_err(io)?;
    let bytes = zip.finish().map_err(broken)?.into_inner();
    let day = chrono::DateTime::from_timestamp_millis(now).map(|d| d.format("%Y-%m-%d").to_string());
    Ok(AccountExport { file_name: format!("warren-{username}-{}.zip", day.unwrap_or_default()), bytes })
}

/// Session summaries as Markdown: each under a line naming its set, session and date.
pub fn summaries_text(summaries: &[LatestSummary]) -> String {
    let mut out = String::new();
    if summaries.is_empty() {
        out.push_str("No session summaries yet.\n");
    }
    for (i, s) in summaries.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let when = chrono::DateTime::from_timestamp_millis(s.entry.created_at)
            .map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
            .unwrap_or_default();
        out.push_str(&format!("## {} · {when} · session {}\n", s.set_name, s.session_id));
        out.push_str(s.entry.content.trim());
        out.push('\n');
    }
    out
}

fn readme(username: &str) -> String {
    format!(
        "Everything {username} kept in Warren.\n\n\
         manifest.json   what this archive holds\n\
         sets/           each recall set in Warren JSON (images inside), with its schedule\n\
         sessions/       each session as Warren's session JSONL: every message, in order\n\
         summaries.md    every session summary, newest first\n\
         images/         each uploaded image, by set\n\n\
         To bring it all back, import this zip on Warren's Import page (or with\n\
         `warren import --user NAME FILE`). A single set's file or session's file\n\
         imports on its own too.\n"
    )
}

/// File names made unique by a number: `rome`, `rome-2`, ….
#[derive(Default)]
struct Stems(HashMap<String, usize>);

impl Stems {
    fn unique(&mut self, stem: &str) -> String {
        let seen = self.0.entry(stem.to_string()).or_insert(0);
        *seen += 1;
        if *seen == 1 { stem.to_string() } else { format!("{stem}-{seen}") }
    }
}

/// Reads an archive and checks every set and session in it.
pub fn read(bytes: &[u8]) -> Result<Archive, ArchiveError> {
    read_within(bytes, MAX_UNPACKED)
}

/// [`read`], unpacking at most `budget` bytes in all.
fn read_within(bytes: &[u8], mut budget: u64) -> Result<Archive, ArchiveError> {
    if bytes.len() > limits::ARCHIVE_BYTES {
        return Err(ArchiveError::TooLarge((bytes.len() as u64).div_ceil(1_048_576)));
    }
    let mut zip =
        zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| ArchiveError::Broken(e.to_string()))?;
    let manifest = unpack(&mut zip, MANIFEST, &mut budget)?;
    let manifest: Manifest =
        serde_json::from_slice(&manifest).map_err(|e| ArchiveError::BadManifest(e.to_string()))?;
    if manifest.format != FORMAT {
        return Err(ArchiveError::BadManifest(format!("its format is “{}”", manifest.format)));
    }
    if manifest.version > VERSION {
        return Err(ArchiveError::TooNew(manifest.version));
    }
    if manifest.sets.len() + manifest.sessions.len() > MAX_FILES {
        return Err(ArchiveError::BadManifest(format!("it lists more than {MAX_FILES} files")));
    }
    let mut sets = Vec::with_capacity(manifest.sets.len());
    for entry in &manifest.sets {
        let bytes = unpack(&mut zip, &entry.file, &mut budget)?;
        let bad = |why| ArchiveError::Set { file: entry.file.clone(), why };
        let text = std::str::from_utf8(&bytes).map_err(|_| bad(ImportError::NotUtf8))?;
        let preview = json::read(text).map_err(bad)?;
        if preview.set.points.is_empty() {
            return Err(bad(ImportError::NoPoints(String::new())));
        }
        sets.push((preview, entry.archived));
    }
    let mut sessions = Vec::with_capacity(manifest.sessions.len());
    for entry in &manifest.sessions {
        let bytes = unpack(&mut zip, &entry.file, &mut budget)?;
        let bad = |why| ArchiveError::Session { file: entry.file.clone(), why };
        let text = std::str::from_utf8(&bytes)
            .map_err(|_| bad(session_file::SessionFileError::BadLine { line: 1, why: "not UTF-8".into() }))?;
        sessions.push(session_file::read(text).map_err(bad)?);
    }
    Ok(Archive { manifest, sets, sessions })
}

/// One file of the archive, counted against what may be unpacked in all.
fn unpack(
    zip: &mut zip::ZipArchive<Cursor<&[u8]>>,
    name: &str,
    budget: &mut u64,
) -> Result<Vec<u8>, ArchiveError> {
    let file = zip.by_name(name).map_err(|_| ArchiveError::Missing(name.to_string()))?;
    let mut bytes = Vec::new();
    // The sizes a zip declares may lie: read at most what is left, and one byte more to know.
    file.take(*budget + 1).read_to_end(&mut bytes).map_err(|e| ArchiveError::Broken(e.to_string()))?;
    let read = bytes.len() as u64;
    if read > *budget {
        return Err(ArchiveError::Unpacked);
    }
    *budget -= read;
    Ok(bytes)
}

/// Imports a checked archive into the learner's account: its sets (an untouched set of the
/// same name and points, such as a new account's demo set, gives way to the archive's, which
/// carries its schedule and history; any other set of the same name stays and the archive's
/// gets a free name), then each session under its own set.
pub async fn import(store: &Store, learner: &LearnerId, archive: Archive) -> Result<Imported, StoreError> {
    let mut imported = Imported::default();
    let mut set_ids: HashMap<String, String> = HashMap::new();
    for (preview, archived) in archive.sets {
        let original = preview.set.name.clone();
        imported.left_out += preview.rejected.len();
        let mut set = preview.set;
        let replaced = match store.set_named(learner, &original).await? {
            Some(existing) if untouched_copy(store, learner, &existing.id, &set).await? => Some(existing),
            Some(_) | None => None,
        };
        set.name = store.free_name(learner, &original).await?;
        let id = store.create_set(learner, &set).await?;
        if let Some(existing) = replaced {
            // The new set is whole before the old one goes; the name follows.
            store.delete_set(learner, &existing.id).await?;
            store.update_set(learner, &id, &original, &set.description, &set.guidelines).await?;
        }
        if archived {
            store.set_archived(learner, &id, true).await?;
        }
        set_ids.insert(original.to_lowercase(), id);
        imported.sets += 1;
    }
    for file in archive.sessions {
        session_file::import_under(store, learner, file, &set_ids).await?;
        imported.sessions += 1;
    }
    Ok(imported)
}

/// Whether the learner's set `id` was never studied, and holds the same points and resources
/// as `set`: replacing it loses nothing.
async fn untouched_copy(
    store: &Store,
    learner: &LearnerId,
    id: &str,
    set: &crate::store::NewSet,
) -> Result<bool, StoreError> {
    if store.set_contents(learner, id).await?.sessions > 0 {
        return Ok(false);
    }
    let points = store.points(learner, id).await?;
    if points.iter().any(|p| p.card.reps > 0) {
        return Ok(false);
    }
    let mut ours: Vec<&str> = points.iter().map(|p| p.content.as_str()).collect();
    let mut theirs: Vec<&str> = set.points.iter().map(|p| p.content.as_str()).collect();
    ours.sort_unstable();
    theirs.sort_unstable();
    let mut our_resources: Vec<String> =
        store.resources(learner, id).await?.into_iter().map(|r| r.title).collect();
    let mut their_resources: Vec<String> = set.resources.iter().map(|r| r.title.clone()).collect();
    our_resources.sort_unstable();
    their_resources.sort_unstable();
    Ok(ours == theirs && our_resources == their_resources)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zip_of(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        for (name, bytes) in files {
            zip.start_file(*name, SimpleFileOptions::default()).unwrap();
            zip.write_all(bytes).unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    fn manifest(sets: &str, sessions: &str) -> String {
        format!(
            r#"{{"format":"warren-account","version":1,"username":"ada","exportedAt":0,"sets":{sets},"sessions":{sessions}}}"#
        )
    }

    const SET: &str =
        r#"{"format":"warren-set","version":1,"name":"Rome","points":[{"content":"Romulus founded Rome"}]}"#;
    const SESSION: &str = r#"{"type":"header","format":"warren-session","version":2,"sessionId":"s1","setName":"Rome","status":"completed","startedAt":1,"updatedAt":2,"endedAt":2,"leafId":"a"}
{"type":"entry","id":"a","parentId":null,"timestamp":1,"kind":"message","speaker":"tutor","content":"Who founded Rome?"}
"#;

    #[test]
    fn archives_are_told_from_other_zips() {
        let ours = zip_of(&[(MANIFEST, manifest("[]", "[]").as_bytes())]);
        assert!(is_archive(&ours));
        assert!(!is_archive(&zip_of(&[("collection.anki2", b"x")])));
        assert!(!is_archive(b"{\"format\":\"warren-account\"}"));
    }

    #[test]
    fn a_good_archive_reads_whole() {
        let m = manifest(
            r#"[{"name":"Rome","file":"sets/rome.json","archived":true}]"#,
            r#"[{"id":"s1","setName":"Rome","file":"sessions/s1.jsonl"}]"#,
        );
        let bytes = zip_of(&[
            (MANIFEST, m.as_bytes()),
            ("sets/rome.json", SET.as_bytes()),
            ("sessions/s1.jsonl", SESSION.as_bytes()),
        ]);
        let archive = read(&bytes).unwrap();
        assert_eq!(archive.sets.len(), 1);
        assert!(archive.sets[0].1, "archived");
        assert_eq!(archive.sets[0].0.set.name, "Rome");
        assert_eq!(archive.sessions[0].header.session_id, "s1");
    }

    #[test]
    fn broken_archives_say_which_file_and_why() {
        let m = manifest(r#"[{"name":"Rome","file":"sets/rome.json"}]"#, "[]");
        let missing = zip_of(&[(MANIFEST, m.as_bytes())]);
        assert_eq!(read(&missing).unwrap_err(), ArchiveError::Missing("sets/rome.json".into()));
        let bad_set = zip_of(&[(MANIFEST, m.as_bytes()), ("sets/rome.json", b"{")]);
        let err = read(&bad_set).unwrap_err().to_string();
        assert!(err.starts_with("sets/rome.json: The file is not Warren JSON"), "{err}");
        let m = manifest("[]", r#"[{"id":"s1","setName":"Rome","file":"s.jsonl"}]"#);
        let bad_session = zip_of(&[(MANIFEST, m.as_bytes()), ("s.jsonl", b"{\"format\":\"x\"}")]);
        let err = read(&bad_session).unwrap_err().to_string();
        assert!(err.starts_with("s.jsonl: This is not a Warren session file"), "{err}");
        let newer = manifest("[]", "[]").replace("\"version\":1", "\"version\":7");
        assert_eq!(read(&zip_of(&[(MANIFEST, newer.as_bytes())])).unwrap_err(), ArchiveError::TooNew(7));
        assert!(matches!(read(b"PK\x03\x04 not really"), Err(ArchiveError::Broken(_))));
    }

    #[test]
    fn an_archive_that_unpacks_too_far_is_refused() {
        let m = manifest(r#"[{"name":"Big","file":"big.json"}]"#, "[]");
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        zip.start_file(MANIFEST, SimpleFileOptions::default()).unwrap();
        zip.write_all(m.as_bytes()).unwrap();
        let packed = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        zip.start_file("big.json", packed).unwrap();
        zip.write_all(&vec![b' '; 2 << 20]).unwrap();
        let bytes = zip.finish().unwrap().into_inner();
        assert!(bytes.len() < 64 << 10, "a small file: {}", bytes.len());
        assert_eq!(read_within(&bytes, 1 << 20).unwrap_err(), ArchiveError::Unpacked);
    }

    #[test]
    fn file_names_stay_unique() {
        let mut stems = Stems::default();
        assert_eq!(stems.unique("rome"), "rome");
        assert_eq!(stems.unique("rome"), "rome-2");
        assert_eq!(stems.unique("nile"), "nile");
    }
}

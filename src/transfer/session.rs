//! A session as a file: versioned JSONL, a header line then one entry per line, in append
//! order. Import reads any earlier version through a chain of pure migrations, one per
//! version, up to [`VERSION`], and checks the tree (unique ids, parents before children, the
//! leaf among the entries) before anything is written.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use warren_app::protocol::SessionStatus;
use warren_app::tree::{EntryKind, Speaker};

use crate::store::{Entry, Store, StoreError};

pub const FORMAT: &str = "warren-session";
/// Version 1 had no labels and no leaf, and named its fields differently (see `v1_to_v2`).
pub const VERSION: u64 = 2;
/// Entries a file may hold.
pub const MAX_ENTRIES: usize = 200_000;

/// The first line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Header {
    #[serde(rename = "type")]
    pub line: String,
    pub format: String,
    pub version: u64,
    pub session_id: String,
    pub set_name: String,
    pub status: SessionStatus,
    pub started_at: i64,
    pub updated_at: i64,
    pub ended_at: Option<i64>,
    #[serde(default)]
    pub active_ms: i64,
    pub leaf_id: Option<String>,
    /// The contents of the points the session set out to recall, in order.
    #[serde(default)]
    pub points: Vec<String>,
    /// What was recalled, by index into `points`.
    #[serde(default)]
    pub recalled: Vec<RecalledLine>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecalledLine {
    pub point: usize,
    pub rating: String,
    #[serde(default)]
    pub in_rabbithole: bool,
    pub at: i64,
}

/// Every other line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EntryLine {
    #[serde(rename = "type")]
    pub line: String,
    pub id: String,
    pub parent_id: Option<String>,
    pub timestamp: i64,
    pub kind: EntryKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speaker: Option<Speaker>,
    #[serde(default)]
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// A session read from a file and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionFile {
    pub header: Header,
    pub entries: Vec<EntryLine>,
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SessionFileError {
    #[error("The file is empty.")]
    Empty,
    #[error("Line {line} is not JSON: {why}")]
    NotJson { line: usize, why: String },
    #[error("This is not a Warren session file (its first line names no \"{FORMAT}\" format).")]
    NotASession,
    #[error("This session file is version {0}, newer than this Warren reads ({VERSION}); update Warren.")]
    TooNew(u64),
    #[error("Line {line}: {why}")]
    BadLine { line: usize, why: String },
    #[error("The file holds more than {MAX_ENTRIES} entries.")]
    TooLarge,
}

/// A file to download.
pub struct SessionExport {
    pub file_name: String,
    pub text: String,
}

impl Header {
    fn new(
        session: &crate::store::SessionRow,
        set_name: &str,
        points: Vec<String>,
        recalled: Vec<RecalledLine>,
    ) -> Self {
        Header {
            line: "header".into(),
            format: FORMAT.into(),
            version: VERSION,
            session_id: session.id.clone(),
            set_name: set_name.to_string(),
            status: session.state.status,
            started_at: session.started_at,
            updated_at: session.updated_at,
            ended_at: session.state.ended_at,
            active_ms: session.state.active_ms,
            leaf_id: session.leaf_id.clone(),
            points,
            recalled,
        }
    }
}

impl From<&Entry> for EntryLine {
    fn from(e: &Entry) -> Self {
        EntryLine {
            line: "entry".into(),
            id: e.id.clone(),
            parent_id: e.parent_id.clone(),
            timestamp: e.created_at,
            kind: e.kind,
            speaker: e.speaker,
            content: e.content.clone(),
            data: e.data.clone(),
        }
    }
}

/// A session of the learner's as JSONL; `None` when it is not theirs.
pub async fn export(
    store: &Store,
    owner: &str,
    session_id: &str,
) -> Result<Option<SessionExport>, StoreError> {
    let Some((row, tree)) = store.tree(owner, session_id).await? else { return Ok(None) };
    let set = store.set(owner, &row.set_id).await?;
    let points = store.points(owner, &row.set_id).await?;
    let targets: Vec<&crate::store::Point> =
        row.target_point_ids.iter().filter_map(|id| points.iter().find(|p| &p.id == id)).collect();
    let recalled = store
        .outcomes(owner, session_id)
        .await?
        .into_iter()
        .filter_map(|o| {
            let point = targets.iter().position(|p| p.id == o.point_id)?;
            Some(RecalledLine { point, rating: o.rating, in_rabbithole: o.in_rabbithole, at: o.recalled_at })
        })
        .collect();
    let set_name = set.map(|s| s.name).unwrap_or_default();
    let contents = targets.iter().map(|p| p.content.clone()).collect();
    let file = SessionFile {
        header: Header::new(&row, &set_name, contents, recalled),
        entries: tree.entries.iter().map(EntryLine::from).collect(),
    };
    let day = chrono::DateTime::from_timestamp_millis(row.started_at)
        .map(|d| d.format("%Y-%m-%d").to_string())
        .unwrap_or_default();
    Ok(Some(SessionExport { file_name: format!("session-{day}-{}.jsonl", &row.id), text: write(&file)? }))
}

/// Imports a session file into the learner's account, under their set of the same name
/// (created, with the file's points, when they have none). The tree keeps its ids unless one
/// of them is already stored (the file imported twice, or another file using the same ids):
/// then every id is new and references follow.
/// Returns the session's id.
pub async fn import(store: &Store, owner: &str, file: SessionFile) -> Result<String, StoreError> {
    import_under(store, owner, file, None).await
}

/// [`import`] under the learner's set `set_id` when given (an account archive knows which of
/// the sets it created is the session's).
pub async fn import_under(
    store: &Store,
    owner: &str,
    file: SessionFile,
    set_id: Option<String>,
) -> Result<String, StoreError> {
    let SessionFile { header, entries } = file;
    let known = match set_id {
        Some(id) => store.set(owner, &id).await?,
        None => store.set_named(owner, &header.set_name).await?,
    };
    let set_id = match known {
        Some(set) => set.id,
        None => {
            let name = if header.set_name.trim().is_empty() { "Imported session" } else { &header.set_name };
            let set = crate::store::NewSet {
                name: store.free_name(owner, name).await?,
                points: header
                    .points
                    .iter()
                    .map(|content| crate::store::NewPoint {
                        content: content.clone(),
                        context: String::new(),
                        card: None,
                    })
                    .collect(),
                ..crate::store::NewSet::default()
            };
            store.create_set(owner, &set).await?
        }
    };
    // The session's points, matched by content in the set.
    let points = store.points(owner, &set_id).await?;
    let mut used = HashSet::new();
    let targets: Vec<Option<String>> = header
        .points
        .iter()
        .map(|content| {
            let point = points.iter().find(|p| p.content == *content && !used.contains(&p.id))?;
            used.insert(point.id.clone());
            Some(point.id.clone())
        })
        .collect();
    // Ids are global: a file imported twice, or another file reusing its entry ids, gets new ones.
    let entry_ids: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
    let taken = store.session_exists(&header.session_id).await? || store.any_entry_exists(&entry_ids).await?;
    let ids: std::collections::HashMap<String, String> = if taken {
        entries.iter().map(|e| (e.id.clone(), crate::store::new_id())).collect()
    } else {
        std::collections::HashMap::new()
    };
    let id = |old: &str| ids.get(old).cloned().unwrap_or_else(|| old.to_string());
    let session_id = if taken { crate::store::new_id() } else { header.session_id.clone() };
    let rows: Vec<Entry> = entries
        .into_iter()
        .enumerate()
        .map(|(i, e)| Entry {
            id: id(&e.id),
            session_id: session_id.clone(),
            parent_id: e.parent_id.as_deref().map(id),
            seq: i64::try_from(i).unwrap_or(i64::MAX) + 1,
            created_at: e.timestamp,
            kind: e.kind,
            speaker: e.speaker,
            content: e.content,
            data: e.data.map(|d| renamed(d, &ids)),
            client_message_id: None,
        })
        .collect();
    let status = match header.status {
        SessionStatus::InProgress | SessionStatus::Paused => SessionStatus::Paused,
        done @ (SessionStatus::Completed | SessionStatus::Abandoned) => done,
    };
    let recalled = header
        .recalled
        .iter()
        .filter_map(|r| {
            let point = targets.get(r.point)?.clone()?;
            Some((point, r.rating.clone(), r.in_rabbithole, r.at))
        })
        .collect();
    let imported = crate::store::ImportedSession {
        id: session_id.clone(),
        set_id,
        status,
        target_point_ids: targets.into_iter().flatten().collect(),
        leaf_id: header.leaf_id.as_deref().map(id),
        active_ms: header.active_ms.max(0),
        started_at: header.started_at,
        updated_at: header.updated_at,
        ended_at: header.ended_at,
        entries: rows,
        recalled,
    };
    store.insert_imported_session(owner, &imported).await?;
    Ok(session_id)
}

/// `value` with every string that is an old entry id replaced by its new one.
fn renamed(value: Value, ids: &std::collections::HashMap<String, String>) -> Value {
    match value {
        Value::String(s) => Value::String(ids.get(&s).cloned().unwrap_or(s)),
        Value::Array(items) => Value::Array(items.into_iter().map(|v| renamed(v, ids)).collect()),
        Value::Object(map) => Value::Object(map.into_iter().map(|(k, v)| (k, renamed(v, ids))).collect()),
        other @ (Value::Null | Value::Bool(_) | Value::Number(_)) => other,
    }
}

pub fn write(file: &SessionFile) -> Result<String, StoreError> {
    let mut text = encode(&file.header)?;
    text.push('\n');
    for entry in &file.entries {
        text.push_str(&encode(entry)?);
        text.push('\n');
    }
    Ok(text)
}

fn encode(line: &impl Serialize) -> Result<String, StoreError> {
    serde_json::to_string(line).map_err(|e| StoreError::Corrupt(e.to_string()))
}

/// Reads a session file of any version up to [`VERSION`] and checks its tree.
pub fn read(text: &str) -> Result<SessionFile, SessionFileError> {
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        if lines.len() > MAX_ENTRIES {
            return Err(SessionFileError::TooLarge);
        }
        let value: Value = serde_json::from_str(line)
            .map_err(|e| SessionFileError::NotJson { line: i + 1, why: e.to_string() })?;
        lines.push((i + 1, cleaned(value)));
    }
    let Some((_, header)) = lines.first() else { return Err(SessionFileError::Empty) };
    if header.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(SessionFileError::NotASession);
    }
    let version = header.get("version").and_then(Value::as_u64).unwrap_or(0);
    if version > VERSION {
        return Err(SessionFileError::TooNew(version));
    }
    let lines = migrate(lines, version)?;
    let mut lines = lines.into_iter();
    let Some((n, header)) = lines.next() else { return Err(SessionFileError::Empty) };
    let mut header: Header = serde_json::from_value(header)
        .map_err(|e| SessionFileError::BadLine { line: n, why: e.to_string() })?;
    header.set_name = warren_app::clean::line(&header.set_name).into_owned();
    if !plain_id(&header.session_id) {
        return Err(SessionFileError::BadLine {
            line: n,
            why: "the session's id must be 1 to 64 letters, digits, '-', '_', '.' or ':'".into(),
        });
    }
    let mut entries = Vec::new();
    let mut seen = HashSet::new();
    for (n, value) in lines {
        let entry: EntryLine = serde_json::from_value(value)
            .map_err(|e| SessionFileError::BadLine { line: n, why: e.to_string() })?;
        let bad = |why: &str| SessionFileError::BadLine { line: n, why: why.to_string() };
        if !plain_id(&entry.id) {
            return Err(bad("an entry's id must be 1 to 64 letters, digits, '-', '_', '.' or ':'"));
        }
        if let Some(parent) = &entry.parent_id
            && !seen.contains(parent.as_str())
        {
            return Err(bad("its parent is not an earlier entry"));
        }
        if !seen.insert(entry.id.clone()) {
            return Err(bad("its id is used twice"));
        }
        entries.push(entry);
    }
    if let Some(leaf) = &header.leaf_id
        && !seen.contains(leaf.as_str())
    {
        return Err(SessionFileError::BadLine { line: 1, why: "the leaf is not one of the entries".into() });
    }
    Ok(SessionFile { header, entries })
}

/// `value` with control characters taken out of every string in it (see `warren_app::clean`).
fn cleaned(value: Value) -> Value {
    match value {
        Value::String(s) => Value::String(warren_app::clean::text(&s).into_owned()),
        Value::Array(items) => Value::Array(items.into_iter().map(cleaned).collect()),
        Value::Object(map) => Value::Object(map.into_iter().map(|(k, v)| (k, cleaned(v))).collect()),
        other @ (Value::Null | Value::Bool(_) | Value::Number(_)) => other,
    }
}

/// Ids end up in addresses and pages: only plain characters are taken.
fn plain_id(id: &str) -> bool {
    (1..=64).contains(&id.len()) && id.chars().all(|c| c.is_ascii_alphanumeric() || "-_.:".contains(c))
}

type Lines = Vec<(usize, Value)>;

/// Runs the lines through every migration from `version` on: `MIGRATIONS[v - 1]` turns
/// version `v` into `v + 1`.
fn migrate(mut lines: Lines, version: u64) -> Result<Lines, SessionFileError> {
    const MIGRATIONS: [fn(Lines) -> Result<Lines, SessionFileError>; 1] = [v1_to_v2];
    let first = usize::try_from(version.max(1)).unwrap_or(usize::MAX);
    for step in MIGRATIONS.iter().skip(first - 1) {
        lines = step(lines)?;
    }
    Ok(lines)
}

/// Version 1: the header said `session`, `set`, `started`, `ended`; entries said `parent`,
/// `ts`, and `role` (`user`/`assistant`) with `agent` (`tutor`/`explorer`). There were no
/// labels and no leaf: the conversation ended at the last entry.
fn v1_to_v2(lines: Lines) -> Result<Lines, SessionFileError> {
    let mut lines = lines.into_iter();
    let Some((n, header)) = lines.next() else { return Err(SessionFileError::Empty) };
    let entries: Lines = lines
        .map(|(n, e)| {
            let role = e.get("role").and_then(Value::as_str);
            let speaker = match (role, e.get("agent").and_then(Value::as_str)) {
                (Some("user"), _) => Some("learner"),
                (Some("assistant"), Some("explorer")) => Some("explorer"),
                (Some("assistant"), _) => Some("tutor"),
                _ => None,
            };
            let line = json!({
                "type": "entry",
                "id": e.get("id"),
                "parentId": e.get("parent"),
                "timestamp": e.get("ts"),
                "kind": e.get("kind"),
                "speaker": speaker,
                "content": e.get("content").cloned().unwrap_or(json!("")),
                "data": e.get("data"),
            });
            (n, line)
        })
        .collect();
    let leaf = entries.last().and_then(|(_, e)| e.get("id").cloned());
    let started = header.get("started").cloned().unwrap_or(json!(0));
    let header = json!({
        "type": "header",
        "format": FORMAT,
        "version": 2,
        "sessionId": header.get("session"),
        "setName": header.get("set"),
        "status": header.get("status"),
        "startedAt": started,
        "updatedAt": header.get("ended").filter(|e| !e.is_null()).cloned().unwrap_or(started),
        "endedAt": header.get("ended"),
        "activeMs": 0,
        "leafId": leaf,
        "points": [],
        "recalled": [],
    });
    Ok(std::iter::once((n, header)).chain(entries).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const V1: &str = r#"{"format":"warren-session","version":1,"session":"s1","set":"Rome","status":"completed","started":1000,"ended":5000}
{"id":"a","parent":null,"ts":1000,"kind":"message","role":"assistant","agent":"tutor","content":"Who founded Rome?"}
{"id":"b","parent":"a","ts":2000,"kind":"message","role":"user","content":"Romulus"}
{"id":"c","parent":"b","ts":3000,"kind":"message","role":"assistant","content":"And then?"}
"#;

    #[test]
    fn version_one_is_migrated() {
        let file = read(V1).unwrap();
        assert_eq!(file.header.version, 2);
        assert_eq!(file.header.session_id, "s1");
        assert_eq!(file.header.set_name, "Rome");
        assert_eq!(file.header.status, SessionStatus::Completed);
        assert_eq!(file.header.updated_at, 5000);
        assert_eq!(file.header.leaf_id.as_deref(), Some("c"), "the leaf is the last entry");
        let speakers: Vec<_> = file.entries.iter().map(|e| e.speaker).collect();
        assert_eq!(speakers, vec![Some(Speaker::Tutor), Some(Speaker::Learner), Some(Speaker::Tutor)]);
        assert_eq!(file.entries[1].parent_id.as_deref(), Some("a"));
        assert_eq!(file.entries[2].timestamp, 3000);
    }

    #[test]
    fn the_current_version_round_trips() {
        let file = read(V1).unwrap();
        let again = read(&write(&file).unwrap()).unwrap();
        assert_eq!(again, file);
    }

    #[test]
    fn broken_files_say_what_is_wrong() {
        assert_eq!(read(""), Err(SessionFileError::Empty));
        assert!(matches!(read("not json"), Err(SessionFileError::NotJson { line: 1, .. })));
        assert_eq!(read(r#"{"format":"other"}"#), Err(SessionFileError::NotASession));
        assert_eq!(read(r#"{"format":"warren-session","version":9}"#), Err(SessionFileError::TooNew(9)));
        let orphan = V1.replace(r#""parent":"a""#, r#""parent":"zz""#);
        assert!(
            matches!(read(&orphan), Err(SessionFileError::BadLine { line: 3, .. })),
            "{:?}",
            read(&orphan)
        );
        let twice = V1.replace(r#""id":"c""#, r#""id":"a""#);
        assert!(matches!(read(&twice), Err(SessionFileError::BadLine { line: 4, .. })));
        let kind = V1.replace(r#""kind":"message","role":"user""#, r#""kind":"dance","role":"user""#);
        assert!(matches!(read(&kind), Err(SessionFileError::BadLine { line: 3, .. })));
        let quoted = V1
            .replace(r#""id":"b""#, r#""id":"b\"><script>""#)
            .replace(r#""parent":"b""#, r#""parent":"b\"><script>""#);
        assert!(
            matches!(read(&quoted), Err(SessionFileError::BadLine { line: 3, .. })),
            "{:?}",
            read(&quoted)
        );
    }
}

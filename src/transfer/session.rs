//! A session as a file: versioned JSONL, a header line then one entry per line, in append
//! order. The header carries everything else the session owns: its mode, recalls, rabbit
//! holes, struggles and the resources it showed. Import reads any earlier version through a
//! chain of pure migrations, one per version, up to [`VERSION`], and checks the tree (unique
//! ids, parents before children, the leaf among the entries) and every reference into it
//! before anything is written.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use warren_app::protocol::{SessionMode, SessionStatus};
use warren_app::schedule::Rating;
use warren_app::tree::{EntryKind, Speaker};

use crate::engine::agents::explorer;
use crate::store::{
    Entry, ImportedRecall, RabbitholeRow, RabbitholeStatus, Store, StoreError, Struggle, StruggleRow,
};
use warren_app::ladder::Rung;

pub const FORMAT: &str = "warren-session";
/// Version 1 had no labels and no leaf, and named its fields differently (see `v1_to_v2`).
/// Version 2 had no rabbit holes, mode, struggles or resources shown (see `v2_to_v3`).
pub const VERSION: u64 = 3;
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
    /// Recall, or inside the rabbit hole `active_rabbithole_id`.
    #[serde(default = "recall_mode")]
    pub mode: SessionMode,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_rabbithole_id: Option<String>,
    /// Learner messages left before another rabbit hole may be offered.
    #[serde(default)]
    pub decline_cooldown: i64,
    /// The learner closed the "all recalled" overlay.
    #[serde(default)]
    pub overlay_dismissed: bool,
    /// Every tangent detected, explored or not, in the order detected.
    #[serde(default)]
    pub rabbitholes: Vec<RabbitholeLine>,
    /// How hard each point has been, by index into `points`.
    #[serde(default)]
    pub struggles: Vec<StruggleLine>,
    /// Resources the session showed, by title in the set.
    #[serde(default)]
    pub shown_resources: Vec<ShownLine>,
}

fn recall_mode() -> SessionMode {
    SessionMode::Recall
}

fn full_confidence() -> f64 {
    1.0
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecalledLine {
    pub point: usize,
    pub rating: Rating,
    #[serde(default = "full_confidence")]
    pub confidence: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry_id: Option<String>,
    #[serde(default)]
    pub in_rabbithole: bool,
    pub at: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RabbitholeLine {
    pub id: String,
    pub topic: String,
    pub label: String,
    pub status: RabbitholeStatus,
    /// The learner message that set it off.
    #[serde(default)]
    pub trigger_entry_id: Option<String>,
    /// The entry its branch hangs from, once entered.
    #[serde(default)]
    pub branch_from_id: Option<String>,
    /// The explorer's conversation, `[{role, content}]`, once returned from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detection: Option<Value>,
    #[serde(default)]
    pub points_recalled: i64,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StruggleLine {
    pub point: usize,
    #[serde(default)]
    pub attempts: u32,
    #[serde(default)]
    pub hints: u32,
    #[serde(default)]
    pub near_misses: u32,
    pub rung: Rung,
    #[serde(default)]
    pub revealed: bool,
    #[serde(default)]
    pub parked: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counted_entry_id: Option<String>,
    pub updated_at: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShownLine {
    pub title: String,
    pub shown_at: i64,
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
    fn new(session: &crate::store::SessionRow, set_name: &str, points: Vec<String>) -> Self {
        let state = &session.state;
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
            recalled: Vec::new(),
            mode: state.mode,
            active_rabbithole_id: state.active_rabbithole_id.clone(),
            decline_cooldown: state.decline_cooldown,
            overlay_dismissed: state.overlay_dismissed,
            rabbitholes: Vec::new(),
            struggles: Vec::new(),
            shown_resources: Vec::new(),
        }
    }
}

impl From<RabbitholeRow> for RabbitholeLine {
    fn from(r: RabbitholeRow) -> Self {
        RabbitholeLine {
            id: r.id,
            topic: r.topic,
            label: r.label,
            status: r.status,
            trigger_entry_id: r.trigger_entry_id,
            branch_from_id: r.branch_from_id,
            conversation: r.conversation,
            detection: r.detection,
            points_recalled: r.points_recalled,
            created_at: r.created_at,
            updated_at: r.updated_at,
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
    let index = |id: &str| targets.iter().position(|p| p.id == id);
    let set_name = set.map(|s| s.name).unwrap_or_default();
    let mut header = Header::new(&row, &set_name, targets.iter().map(|p| p.content.clone()).collect());
    header.recalled = store
        .outcomes(owner, session_id)
        .await?
        .into_iter()
        .filter_map(|o| {
            Some(RecalledLine {
                point: index(&o.point_id)?,
                rating: o.rating,
                confidence: o.confidence,
                entry_id: o.entry_id,
                in_rabbithole: o.in_rabbithole,
                at: o.recalled_at,
            })
        })
        .collect();
    header.rabbitholes =
        store.rabbitholes(owner, session_id).await?.into_iter().map(RabbitholeLine::from).collect();
    header.struggles = store
        .struggle_rows(owner, session_id)
        .await?
        .into_iter()
        .filter_map(|r| {
            let s = r.struggle;
            Some(StruggleLine {
                point: index(&r.point_id)?,
                attempts: s.attempts,
                hints: s.hints,
                near_misses: s.near_misses,
                rung: s.rung,
                revealed: s.revealed,
                parked: s.parked,
                counted_entry_id: s.counted_entry_id,
                updated_at: r.updated_at,
            })
        })
        .collect();
    header.struggles.sort_by_key(|s| s.point);
    let resources = store.resources(owner, &row.set_id).await?;
    header.shown_resources = store
        .shown_resources_at(owner, session_id)
        .await?
        .into_iter()
        .filter_map(|(id, shown_at)| {
            let title = resources.iter().find(|r| r.id == id)?.title.clone();
            Some(ShownLine { title, shown_at })
        })
        .collect();
    let file = SessionFile { header, entries: tree.entries.iter().map(EntryLine::from).collect() };
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
    // Ids are global: a file imported twice, or another file reusing its ids, gets new ones.
    let entry_ids: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
    let hole_ids: Vec<&str> = header.rabbitholes.iter().map(|h| h.id.as_str()).collect();
    let taken = store.session_exists(&header.session_id).await?
        || store.any_entry_exists(&entry_ids).await?
        || store.any_rabbithole_exists(&hole_ids).await?;
    let ids: HashMap<String, String> = if taken {
        entry_ids.iter().chain(&hole_ids).map(|old| (old.to_string(), crate::store::new_id())).collect()
    } else {
        HashMap::new()
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
    let point = |i: usize| targets.get(i).cloned().flatten();
    let recalled = header
        .recalled
        .iter()
        .filter_map(|r| {
            Some(ImportedRecall {
                point_id: point(r.point)?,
                rating: r.rating,
                confidence: r.confidence,
                entry_id: r.entry_id.as_deref().map(id),
                in_rabbithole: r.in_rabbithole,
                at: r.at,
            })
        })
        .collect();
    let rabbitholes = header
        .rabbitholes
        .into_iter()
        .map(|h| RabbitholeRow {
            id: id(&h.id),
            session_id: session_id.clone(),
            topic: h.topic,
            label: h.label,
            status: h.status,
            trigger_entry_id: h.trigger_entry_id.as_deref().map(id),
            branch_from_id: h.branch_from_id.as_deref().map(id),
            conversation: h.conversation,
            detection: h.detection.map(|d| renamed(d, &ids)),
            points_recalled: h.points_recalled,
            created_at: h.created_at,
            updated_at: h.updated_at,
        })
        .collect();
    let struggles = header
        .struggles
        .iter()
        .filter_map(|s| {
            Some(StruggleRow {
                point_id: point(s.point)?,
                struggle: Struggle {
                    attempts: s.attempts,
                    hints: s.hints,
                    near_misses: s.near_misses,
                    rung: s.rung,
                    revealed: s.revealed,
                    parked: s.parked,
                    counted_entry_id: s.counted_entry_id.as_deref().map(id),
                },
                updated_at: s.updated_at,
            })
        })
        .collect();
    // Resources belong to the set: a shown one is found by its title there.
    let resources = store.resources(owner, &set_id).await?;
    let shown = header
        .shown_resources
        .iter()
        .filter_map(|line| {
            let resource = resources.iter().find(|r| r.title == line.title)?;
            Some((resource.id.clone(), line.shown_at))
        })
        .collect();
    let imported = crate::store::ImportedSession {
        id: session_id.clone(),
        set_id,
        status,
        target_point_ids: targets.into_iter().flatten().collect(),
        leaf_id: header.leaf_id.as_deref().map(id),
        mode: header.mode,
        active_rabbithole_id: header.active_rabbithole_id.as_deref().map(id),
        decline_cooldown: header.decline_cooldown.max(0),
        overlay_dismissed: header.overlay_dismissed,
        active_ms: header.active_ms.max(0),
        started_at: header.started_at,
        updated_at: header.updated_at,
        ended_at: header.ended_at,
        entries: rows,
        recalled,
        rabbitholes,
        struggles,
        shown,
    };
    store.insert_imported_session(owner, &imported).await?;
    Ok(session_id)
}

/// `value` with every string that is an old entry or rabbit-hole id replaced by its new one.
fn renamed(value: Value, ids: &HashMap<String, String>) -> Value {
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
    references(&header, &entries).map_err(|why| SessionFileError::BadLine { line: 1, why: why.into() })?;
    Ok(SessionFile { header, entries })
}

/// Checks that everything the header names (the leaf, points, entries, rabbit holes) is in
/// the file, and that a session in a rabbit hole has its leaf inside that hole's branch.
fn references(header: &Header, entries: &[EntryLine]) -> Result<(), &'static str> {
    let parents: HashMap<&str, Option<&str>> =
        entries.iter().map(|e| (e.id.as_str(), e.parent_id.as_deref())).collect();
    let entry = |id: &Option<String>| id.as_deref().is_none_or(|id| parents.contains_key(id));
    let point = |i: usize| i < header.points.len();
    if !entry(&header.leaf_id) {
        return Err("the leaf is not one of the entries");
    }
    if !header.recalled.iter().all(|r| point(r.point) && entry(&r.entry_id)) {
        return Err("a recall names a point or an entry the file does not hold");
    }
    if !header.struggles.iter().all(|s| point(s.point) && entry(&s.counted_entry_id)) {
        return Err("a struggle names a point or an entry the file does not hold");
    }
    let mut holes = HashSet::new();
    for hole in &header.rabbitholes {
        if !plain_id(&hole.id) || !holes.insert(hole.id.as_str()) {
            return Err("each rabbit hole needs its own id of 1 to 64 plain characters");
        }
        if !entry(&hole.trigger_entry_id) || !entry(&hole.branch_from_id) {
            return Err("a rabbit hole hangs from an entry the file does not hold");
        }
    }
    let active = header.active_rabbithole_id.as_deref();
    let entered = active.and_then(|id| header.rabbitholes.iter().find(|h| h.id == id));
    match (header.mode, entered) {
        (SessionMode::Recall, None) if active.is_none() => Ok(()),
        (SessionMode::Rabbithole, Some(hole)) if hole.status == RabbitholeStatus::Entered => {
            // The leaf's path passes the branch's opening, as it does while exploring.
            let openings: HashSet<&str> =
                entries.iter().filter(|e| e.kind == EntryKind::ModeChange).map(|e| e.id.as_str()).collect();
            let mut at = header.leaf_id.as_deref();
            while let Some(id) = at {
                if openings.contains(id) {
                    return Ok(());
                }
                at = parents.get(id).copied().flatten();
            }
            Err("the session is in a rabbit hole but its leaf is not inside one")
        }
        (SessionMode::Recall | SessionMode::Rabbithole, _) => {
            Err("the session's mode and its active rabbit hole disagree")
        }
    }
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
    const MIGRATIONS: [fn(Lines) -> Result<Lines, SessionFileError>; 2] = [v1_to_v2, v2_to_v3];
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

/// Version 2 kept rabbit holes only in the tree. Each branch opening (a `mode_change` entry
/// naming its hole) gives back the hole: entered, or returned when a branch summary names
/// it, with the explorer's conversation read off the branch. A leaf inside an open branch
/// puts the session back in that hole. Struggles and resources shown were not kept.
fn v2_to_v3(lines: Lines) -> Result<Lines, SessionFileError> {
    let mut lines = lines.into_iter();
    let Some((n, mut header)) = lines.next() else { return Err(SessionFileError::Empty) };
    let entries: Lines = lines.collect();
    let text = |e: &Value, key: &str| e.get(key).and_then(Value::as_str).map(str::to_string);
    let data = |e: &Value, key: &str| e.get("data").and_then(|d| d.get(key)).cloned();
    let by_id: HashMap<String, &Value> =
        entries.iter().filter_map(|(_, e)| Some((text(e, "id")?, e))).collect();
    let kind = |e: &Value| e.get("kind").and_then(Value::as_str).unwrap_or_default().to_string();
    // The entries from `leaf` up to (not including) `stop`, root-most first. Ids are not yet
    // checked here, so a file whose ids repeat can make a cycle: each entry is taken once.
    let path_up = |leaf: Option<String>, stop: &str| {
        let mut path = Vec::new();
        let mut visited = HashSet::new();
        let mut at = leaf;
        while let Some(e) = at
            .as_deref()
            .filter(|id| *id != stop && visited.insert(id.to_string()))
            .and_then(|id| by_id.get(id))
        {
            path.push(*e);
            at = text(e, "parentId");
        }
        path.reverse();
        path
    };
    let mut holes = Vec::new();
    let mut opening_of = HashMap::new();
    for (_, e) in &entries {
        let id = data(e, "rabbitholeId").and_then(|v| v.as_str().map(str::to_string));
        let (Some(hole), true) = (id, kind(e) == "mode_change") else { continue };
        let topic = data(e, "topic").and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        let at = e.get("timestamp").cloned().unwrap_or(json!(0));
        opening_of.insert(hole.clone(), (text(e, "id").unwrap_or_default(), holes.len()));
        holes.push(json!({
            "id": hole,
            "topic": topic,
            "label": topic,
            "status": "entered",
            "triggerEntryId": e.get("parentId"),
            "branchFromId": e.get("parentId"),
            "pointsRecalled": 0,
            "createdAt": at,
            "updatedAt": at,
        }));
    }
    for (_, e) in &entries {
        let id = data(e, "rabbitholeId").and_then(|v| v.as_str().map(str::to_string));
        let Some((opening, i)) =
            id.and_then(|id| opening_of.get(&id)).filter(|_| kind(e) == "branch_summary")
        else {
            continue;
        };
        let topic = holes[*i]["topic"].as_str().unwrap_or_default().to_string();
        let from = data(e, "fromLeafId").and_then(|v| v.as_str().map(str::to_string));
        let mut conversation = vec![json!({"role": "user", "content": explorer::opening_prompt(&topic)})];
        for said in path_up(from, opening) {
            let role = match said.get("speaker").and_then(Value::as_str) {
                Some("learner") => "user",
                Some("explorer" | "tutor") => "assistant",
                _ => continue,
            };
            if kind(said) == "message" {
                conversation.push(json!({"role": role, "content": said.get("content")}));
            }
        }
        let hole = &mut holes[*i];
        hole["status"] = json!("returned");
        hole["conversation"] = json!(conversation);
        hole["pointsRecalled"] = data(e, "pointsRecalledDuring").unwrap_or(json!(0));
        hole["updatedAt"] = e.get("timestamp").cloned().unwrap_or(json!(0));
    }
    // The session is inside the open hole whose opening is on the leaf's path.
    let leaf = header.get("leafId").and_then(Value::as_str).map(str::to_string);
    let inside = path_up(leaf, "").into_iter().find_map(|e| {
        let id = data(e, "rabbitholeId")?.as_str()?.to_string();
        let (_, i) = opening_of.get(&id)?;
        (kind(e) == "mode_change" && holes[*i]["status"] == "entered").then_some(id)
    });
    header["version"] = json!(3);
    header["mode"] = json!(if inside.is_some() { "rabbithole" } else { "recall" });
    header["activeRabbitholeId"] = json!(inside);
    header["rabbitholes"] = json!(holes);
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
        assert_eq!(file.header.version, 3);
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

    const V2: &str = r#"{"type":"header","format":"warren-session","version":2,"sessionId":"s2","setName":"Cell","status":"paused","startedAt":1,"updatedAt":11,"endedAt":null,"activeMs":5,"leafId":"k","points":["Ribosomes make proteins"],"recalled":[{"point":0,"rating":"good","inRabbithole":true,"at":6}]}
{"type":"entry","id":"a","parentId":null,"timestamp":1,"kind":"message","speaker":"tutor","content":"What do you remember?"}
{"type":"entry","id":"b","parentId":"a","timestamp":2,"kind":"message","speaker":"learner","content":"Mitochondria were bacteria?"}
{"type":"entry","id":"c","parentId":"b","timestamp":3,"kind":"mode_change","content":"","data":{"mode":"rabbithole","rabbitholeId":"h1","topic":"where mitochondria came from"}}
{"type":"entry","id":"d","parentId":"c","timestamp":4,"kind":"message","speaker":"explorer","content":"They were free-living once."}
{"type":"entry","id":"e","parentId":"d","timestamp":5,"kind":"message","speaker":"learner","content":"Swallowed whole?"}
{"type":"entry","id":"f","parentId":"e","timestamp":6,"kind":"message","speaker":"explorer","content":"Engulfed, yes."}
{"type":"entry","id":"g","parentId":"b","timestamp":7,"kind":"branch_summary","content":"Explored mitochondria.","data":{"rabbitholeId":"h1","fromLeafId":"f","pointsRecalledDuring":1}}
{"type":"entry","id":"h","parentId":"g","timestamp":8,"kind":"message","speaker":"tutor","content":"Back to it."}
{"type":"entry","id":"i","parentId":"h","timestamp":9,"kind":"message","speaker":"learner","content":"How do ribosomes read?"}
{"type":"entry","id":"j","parentId":"i","timestamp":10,"kind":"mode_change","content":"","data":{"mode":"rabbithole","rabbitholeId":"h2","topic":"how ribosomes read"}}
{"type":"entry","id":"k","parentId":"j","timestamp":11,"kind":"message","speaker":"explorer","content":"Three letters at a time."}
"#;

    #[test]
    fn version_two_gets_its_rabbit_holes_back_from_the_tree() {
        let file = read(V2).unwrap();
        let h = &file.header;
        assert_eq!(h.version, 3);
        assert_eq!((h.mode, h.active_rabbithole_id.as_deref()), (SessionMode::Rabbithole, Some("h2")));
        let holes: Vec<_> =
            h.rabbitholes.iter().map(|r| (r.id.as_str(), r.status, r.points_recalled)).collect();
        assert_eq!(holes, vec![("h1", RabbitholeStatus::Returned, 1), ("h2", RabbitholeStatus::Entered, 0)]);
        let first = &h.rabbitholes[0];
        assert_eq!(first.topic, "where mitochondria came from");
        assert_eq!(first.branch_from_id.as_deref(), Some("b"));
        assert_eq!((first.created_at, first.updated_at), (3, 7));
        let said: Vec<(&str, &str)> = first
            .conversation
            .as_ref()
            .and_then(Value::as_array)
            .unwrap()
            .iter()
            .map(|m| (m["role"].as_str().unwrap(), m["content"].as_str().unwrap()))
            .collect();
        assert_eq!(
            said,
            vec![
                ("user", "I'm curious about where mitochondria came from. Tell me more."),
                ("assistant", "They were free-living once."),
                ("user", "Swallowed whole?"),
                ("assistant", "Engulfed, yes."),
            ]
        );
        assert_eq!(h.rabbitholes[1].conversation, None);
        assert_eq!(h.recalled[0].confidence, 1.0);
        // Back on the main line, the session is in recall mode with no hole open.
        let back = V2.replace(r#""leafId":"k""#, r#""leafId":"h""#);
        let file = read(&back).unwrap();
        assert_eq!((file.header.mode, file.header.active_rabbithole_id), (SessionMode::Recall, None));
    }

    #[test]
    fn references_to_what_the_file_does_not_hold_are_refused() {
        let file = read(V2).unwrap();
        let bad = |change: &dyn Fn(&mut Header)| {
            let mut broken = file.clone();
            change(&mut broken.header);
            read(&write(&broken).unwrap())
        };
        assert!(bad(&|_| {}).is_ok());
        let refused = [
            bad(&|h| h.mode = SessionMode::Recall),
            bad(&|h| h.active_rabbithole_id = Some("h1".into())),
            bad(&|h| h.leaf_id = Some("h".into())),
            bad(&|h| h.rabbitholes[0].branch_from_id = Some("zz".into())),
            bad(&|h| h.rabbitholes[1].id = "h1".into()),
            bad(&|h| h.recalled[0].point = 3),
            bad(&|h| h.recalled[0].entry_id = Some("zz".into())),
        ];
        for (i, result) in refused.into_iter().enumerate() {
            assert!(matches!(result, Err(SessionFileError::BadLine { line: 1, .. })), "case {i}: {result:?}");
        }
    }

    #[test]
    fn the_current_version_round_trips() {
        let file = read(V2).unwrap();
        assert_eq!(read(&write(&file).unwrap()).unwrap(), file);
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

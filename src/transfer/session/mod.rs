//! A session as a file: versioned JSONL, a header line then one entry per line, in append
//! order. The header carries everything else the session owns: its mode, recalls, rabbit
//! holes, struggles and the resources it showed. Import reads any earlier version through a
//! chain of pure migrations, one per version, up to [`VERSION`], and checks the tree (unique
//! ids, parents before children, the leaf among the entries) and every reference into it
//! before anything is written.

mod migrate;
#[cfg(test)]
mod tests;
mod with_store;

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use warren_app::protocol::{SessionMode, SessionStatus};
use warren_app::schedule::Rating;
use warren_app::tree::{EntryKind, Speaker};

use crate::store::{Entry, RabbitholeRow, RabbitholeStatus, StoreError};
use warren_app::ladder::Rung;

pub use with_store::{export, import, import_under};

pub const FORMAT: &str = "warren-session";
/// Version 1 had no labels and no leaf, and named its fields differently (see `v1_to_v2`).
/// Version 2 had no rabbit holes, mode, struggles or resources shown (see `v2_to_v3`).
/// Version 3 had sessions of one set only (see `v3_to_v4`).
pub const VERSION: u64 = 4;
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
    /// Today's review across sets, rather than a session of the set `set_name`.
    #[serde(default)]
    pub review: bool,
    /// The name of each point's set, in the order of `points`.
    #[serde(default)]
    pub point_sets: Vec<String>,
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
    /// The name of the set of point `i` (a file without one names the session's set).
    pub fn set_of(&self, i: usize) -> &str {
        self.point_sets.get(i).map_or(self.set_name.as_str(), String::as_str)
    }

    fn new(
        session: &crate::store::SessionRow,
        set_name: &str,
        points: Vec<String>,
        point_sets: Vec<String>,
    ) -> Self {
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
            review: session.set_id.is_none(),
            point_sets,
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

/// The file as JSONL: the header line, then one line per entry.
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
    let lines = migrate::migrate(lines, version)?;
    let mut lines = lines.into_iter();
    let Some((n, header)) = lines.next() else { return Err(SessionFileError::Empty) };
    let mut header: Header = serde_json::from_value(header)
        .map_err(|e| SessionFileError::BadLine { line: n, why: e.to_string() })?;
    header.set_name = warren_app::clean::line(&header.set_name).into_owned();
    for name in &mut header.point_sets {
        *name = warren_app::clean::line(name).into_owned();
    }
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
    let named = header.point_sets.len() == header.points.len();
    if !(named || header.point_sets.is_empty() && !header.review) {
        return Err("each point needs the name of its set");
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

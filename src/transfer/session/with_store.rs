//! A session written from the store into a file, and a file imported into the store.

use std::collections::{HashMap, HashSet};
use warren_app::learner::LearnerId;

use serde_json::Value;
use warren_app::protocol::SessionStatus;

use crate::store::{Entry, ImportedRecall, RabbitholeRow, Store, StoreError, Struggle, StruggleRow};

use super::*;

/// A session of the learner's as JSONL; `None` when it is not theirs.
pub async fn export(
    store: &Store,
    learner: &LearnerId,
    session_id: &str,
) -> Result<Option<SessionExport>, StoreError> {
    let Some((row, tree)) = store.tree(learner, session_id).await? else { return Ok(None) };
    let points = store.session_points(learner, session_id).await?;
    let sets = store.session_sets(learner, session_id).await?;
    let targets: Vec<&crate::store::Point> =
        row.target_point_ids.iter().filter_map(|id| points.iter().find(|p| &p.id == id)).collect();
    let index = |id: &str| targets.iter().position(|p| p.id == id);
    let set_name = store.session_title(learner, &row).await?;
    let set_of = |p: &crate::store::Point| {
        sets.iter().find(|s| s.id == p.set_id).map(|s| s.name.clone()).unwrap_or_default()
    };
    let mut header = Header::new(
        &row,
        &set_name,
        targets.iter().map(|p| p.content.clone()).collect(),
        targets.iter().map(|p| set_of(p)).collect(),
    );
    header.recalled = store
        .outcomes(learner, session_id)
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
        store.rabbitholes(learner, session_id).await?.into_iter().map(RabbitholeLine::from).collect();
    header.struggles = store
        .struggle_rows(learner, session_id)
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
    let mut resources = Vec::new();
    for set in &sets {
        resources.extend(store.resources(learner, &set.id).await?);
    }
    header.shown_resources = store
        .shown_resources_at(learner, session_id)
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

/// Imports a session file into the learner's account, each point under the learner's set of
/// its set's name (created, with the file's points of that set, when they have none). The
/// tree keeps its ids unless one of them is already stored (the file imported twice, or
/// another file using the same ids): then every id is new and references follow.
/// Returns the session's id.
pub async fn import(store: &Store, learner: &LearnerId, file: SessionFile) -> Result<String, StoreError> {
    import_under(store, learner, file, &HashMap::new()).await
}

/// [`import`], taking a set from `sets` (lower-cased names to the learner's set ids) when it
/// is there: an account archive knows which of the sets it created is which.
pub async fn import_under(
    store: &Store,
    learner: &LearnerId,
    file: SessionFile,
    sets: &HashMap<String, String>,
) -> Result<String, StoreError> {
    let SessionFile { header, entries } = file;
    // The set of each point, found or made once per name, in the order they appear.
    let mut set_ids: Vec<(String, String)> = Vec::new();
    for i in 0..header.points.len().max(1) {
        let name = header.set_of(i).to_string();
        if set_ids.iter().any(|(n, _)| *n == name) {
            continue;
        }
        let known = match sets.get(&name.to_lowercase()) {
            Some(id) => store.set(learner, id).await?,
            None => store.set_named(learner, &name).await?,
        };
        let id = match known {
            Some(set) => set.id,
            None => {
                let title = if name.trim().is_empty() { "Imported session" } else { &name };
                let set = crate::store::NewSet {
                    name: store.free_name(learner, title).await?,
                    points: header
                        .points
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| header.set_of(*i) == name)
                        .map(|(_, content)| crate::store::NewPoint {
                            content: content.clone(),
                            context: String::new(),
                            card: None,
                            log: None,
                        })
                        .collect(),
                    ..crate::store::NewSet::default()
                };
                store.create_set(learner, &set).await?
            }
        };
        set_ids.push((name, id));
    }
    let set_id_of = |i: usize| set_ids.iter().find(|(n, _)| n == header.set_of(i)).map(|(_, id)| id.clone());
    // The session's points, matched by content in their set.
    let mut points = Vec::new();
    for (_, id) in &set_ids {
        points.extend(store.points(learner, id).await?);
    }
    let mut used = HashSet::new();
    let targets: Vec<Option<String>> = header
        .points
        .iter()
        .enumerate()
        .map(|(i, content)| {
            let set = set_id_of(i)?;
            let point =
                points.iter().find(|p| p.set_id == set && p.content == *content && !used.contains(&p.id))?;
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
    // Resources belong to the sets: a shown one is found by its title there.
    let mut resources = Vec::new();
    for (_, id) in &set_ids {
        resources.extend(store.resources(learner, id).await?);
    }
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
        set_id: if header.review { None } else { set_ids.first().map(|(_, id)| id.clone()) },
        sets: set_ids.iter().map(|(_, id)| id.clone()).collect(),
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
    store.insert_imported_session(learner, &imported).await?;
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

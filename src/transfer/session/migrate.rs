//! Earlier versions of the file, read up to the current one: one pure step per version.

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};

use crate::engine::agents::explorer;

use super::*;

pub(super) type Lines = Vec<(usize, Value)>;

/// Runs the lines through every migration from `version` on: `MIGRATIONS[v - 1]` turns
/// version `v` into `v + 1`.
pub(super) fn migrate(mut lines: Lines, version: u64) -> Result<Lines, SessionFileError> {
    const MIGRATIONS: [fn(Lines) -> Result<Lines, SessionFileError>; 3] = [v1_to_v2, v2_to_v3, v3_to_v4];
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

/// Version 3: every session was of one set, `setName`; each point now names its own set.
fn v3_to_v4(lines: Lines) -> Result<Lines, SessionFileError> {
    let mut lines = lines.into_iter();
    let Some((n, mut header)) = lines.next() else { return Err(SessionFileError::Empty) };
    let set = header.get("setName").cloned().unwrap_or(json!(""));
    let count = header.get("points").and_then(Value::as_array).map_or(0, Vec::len);
    header["version"] = json!(4);
    header["review"] = json!(false);
    header["pointSets"] = json!(vec![set; count]);
    Ok(std::iter::once((n, header)).chain(lines).collect())
}

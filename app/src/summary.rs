//! A session's summary, as the summariser writes it when the learner leaves or completes a
//! session: kept as readable text (the entry's content, which history search reads) and as
//! this structured JSON (the entry's `data`), which the dashboard, the history page and the
//! next session's opening read.
//!
//! Schema rules: [`SUMMARY_VERSION`] is the version written now. Fields are only ever added,
//! each with a default, so a summary written by an older version reads as this one with the
//! missing fields empty; a change that cannot be read that way bumps the version and adds a
//! step to [`SessionSummary::from_data`]. A summary from a newer version than this one is
//! read for the fields it shares, and its text is shown as written.

use serde::{Deserialize, Serialize};

/// The version of the JSON schema written now.
pub const SUMMARY_VERSION: u32 = 1;

crate::named_enum! {
    /// Where a session's summary stands.
    pub enum SummaryStatus {
        /// Being written (or waiting to be retried).
        Pending = "pending",
        Ready = "ready",
        /// Every attempt failed; the learner can ask again.
        Failed = "failed",
    }
}

crate::named_enum! {
    /// How a point came back to the learner.
    pub enum RecallHow {
        /// Without a hint or a near miss first.
        Unprompted = "unprompted",
        /// After getting close without getting it all.
        AfterNearMiss = "after_near_miss",
        /// After one or more hints.
        AfterHints = "after_hints",
        /// After the answer was given and the point asked again later.
        AfterAnswer = "after_answer",
    }
}

impl RecallHow {
    pub fn describe(self) -> &'static str {
        match self {
            RecallHow::Unprompted => "unprompted",
            RecallHow::AfterNearMiss => "after a near miss",
            RecallHow::AfterHints => "after hints",
            RecallHow::AfterAnswer => "after being given the answer",
        }
    }
}

/// Summary JSON, version 1. Every field has a default (see the module's schema rules).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SessionSummary {
    /// The schema version this was written with.
    pub version: u32,
    pub set_name: String,
    /// Every point of the session recalled (otherwise the session was left with some open).
    pub completed: bool,
    /// The session was replaced by a newer one of its set before it ended ("Start over").
    #[serde(default)]
    pub abandoned: bool,
    /// When it was written (ms since the epoch).
    pub written_at: i64,
    pub study_ms: i64,
    /// Points in the session.
    pub total: u32,
    /// Two or three sentences on how the session went.
    pub overview: String,
    /// In the order they were recalled.
    pub recalled: Vec<RecalledPoint>,
    pub open: Vec<OpenPoint>,
    pub rabbitholes: Vec<ExploredTopic>,
    /// What was hard, a line each.
    pub hard: Vec<String>,
    /// One to three things to do next.
    pub next_steps: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecalledPoint {
    pub point_id: String,
    pub point: String,
    pub how: RecallHow,
    /// Recalled while exploring a rabbit hole.
    #[serde(default)]
    pub in_rabbithole: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OpenPoint {
    pub point_id: String,
    pub point: String,
    /// Messages about it that did not recall it, and hints given.
    pub attempts: u32,
    pub hints: u32,
    pub near_misses: u32,
    /// Its answer was given in this session.
    pub revealed: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ExploredTopic {
    pub topic: String,
    /// The learner's messages in it.
    pub messages: u32,
    pub points_recalled: u32,
    /// What came up, in a sentence or two.
    pub came_up: String,
}

impl ExploredTopic {
    /// As a summary lists it: the topic, a capital first ("Why the Senate feared Caesar: You
    /// asked…"), and what came up.
    pub fn line(&self) -> String {
        let mut chars = self.topic.trim().chars();
        let topic =
            chars.next().map(|c| c.to_uppercase().collect::<String>() + chars.as_str()).unwrap_or_default();
        match self.came_up.trim() {
            "" => topic,
            came_up => format!("{topic}: {came_up}"),
        }
    }
}

impl SessionSummary {
    /// Reads a summary entry's `data`: this version, an older one (missing fields empty), or a
    /// newer one (the fields it shares). `None` when it is not a summary object at all.
    pub fn from_data(data: &serde_json::Value) -> Option<Self> {
        // Version 1 is the current shape, and later versions only add fields.
        let version = data.get("version").and_then(serde_json::Value::as_u64)?;
        if version == 0 {
            return None;
        }
        serde_json::from_value(data.clone()).ok()
    }

    /// The readable text: what is stored as the entry's content, searched by the history
    /// list and printed by `warren summaries`.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let outcome = if self.completed {
            format!(
                "Completed {}: {} recalled.",
                self.set_name,
                crate::format::all_of(i64::from(self.total), "point")
            )
        } else {
            format!("Left {} with {} of {} points recalled.", self.set_name, self.recalled.len(), self.total)
        };
        out.push_str(&outcome);
        if !self.overview.trim().is_empty() {
            out.push(' ');
            out.push_str(self.overview.trim());
        }
        let mut section = |title: &str, lines: Vec<String>| {
            if lines.is_empty() {
                return;
            }
            out.push_str("\n\n");
            out.push_str(title);
            for line in lines {
                out.push_str("\n- ");
                out.push_str(&line);
            }
        };
        section(
            "Recalled:",
            self.recalled
                .iter()
                .map(|r| {
                    let place = if r.in_rabbithole { ", in a rabbit hole" } else { "" };
                    format!("{} ({}{place})", r.point.trim(), r.how.describe())
                })
                .collect(),
        );
        section("Still open:", self.open.iter().map(|p| p.point.trim().to_string()).collect());
        section("Rabbit holes:", self.rabbitholes.iter().map(ExploredTopic::line).collect());
        section("What was hard:", self.hard.clone());
        section("Next steps:", self.next_steps.clone());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn older_and_newer_versions_read() {
        // Written before `hard` and `nextSteps` existed: they read as empty.
        let old = serde_json::json!({
            "version": 1,
            "setName": "Cells",
            "total": 2,
            "recalled": [{"pointId": "p1", "point": "Mitochondria make ATP", "how": "unprompted"}],
            "open": [{"pointId": "p2", "point": "Ribosomes make proteins"}]
        });
        let s = SessionSummary::from_data(&old).unwrap();
        assert!(s.hard.is_empty() && s.next_steps.is_empty());
        let text = s.text();
        assert!(text.starts_with("Left Cells with 1 of 2 points recalled."), "{text}");
        assert!(text.contains("- Mitochondria make ATP (unprompted)"), "{text}");
        assert!(text.contains("Still open:\n- Ribosomes make proteins"), "{text}");
        // A newer version with a field this one does not know still reads.
        let newer =
            serde_json::json!({"version": 7, "setName": "Cells", "mood": "keen", "overview": "Good."});
        assert_eq!(SessionSummary::from_data(&newer).unwrap().overview, "Good.");
        assert!(SessionSummary::from_data(&serde_json::json!({"text": "no version"})).is_none());
    }
}

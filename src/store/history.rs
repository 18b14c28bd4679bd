//! The history list: a learner's sessions, filtered and searched in the database, a page at a
//! time, newest first, each with what its row in the list shows.

use std::ops::Range;
use warren_app::learner::LearnerId;

use warren_app::protocol::SessionStatus;

use super::{Reads, Store, StoreError};

/// What the list is narrowed to.
#[derive(Clone, Debug, Default)]
pub struct HistoryQuery {
    pub set_id: Option<String>,
    pub status: Option<SessionStatus>,
    /// Start times, in milliseconds.
    pub started: Option<Range<i64>>,
    /// Words each of which must appear in the set's name, or in a message or the summary of
    /// the session.
    pub terms: Vec<String>,
}

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct HistoryRow {
    pub id: String,
    /// `None` for today's review across sets.
    pub set_id: Option<String>,
    pub set_name: Option<String>,
    #[sqlx(try_from = "String")]
    pub status: SessionStatus,
    pub target_point_ids: String,
    pub recalled: i64,
    pub rabbitholes: i64,
    pub active_ms: i64,
    pub resumed_at: Option<i64>,
    pub started_at: i64,
    pub updated_at: i64,
    /// The newest summary's JSON.
    pub summary_data: Option<String>,
}

impl HistoryRow {
    pub fn total_points(&self) -> usize {
        serde_json::from_str::<Vec<String>>(&self.target_point_ids).map_or(0, |ids| ids.len())
    }
}

/// `term` for `LIKE`, its wildcards taken literally.
fn like(term: &str) -> String {
    let escaped = term.to_lowercase().replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
    format!("%{escaped}%")
}

impl Store {
    /// One page of the learner's sessions that match, and how many match in all.
    pub async fn history(
        &self,
        learner: &LearnerId,
        query: &HistoryQuery,
        limit: u32,
        offset: u32,
    ) -> Result<(Vec<HistoryRow>, u64), StoreError> {
        // Conditions with numbered parameters, bound below in the same order.
        let mut conditions = vec!["s.owner_id = $1".to_string()];
        let mut params: Vec<Param> = vec![Param::Text(learner.to_string())];
        let next = |params: &mut Vec<Param>, value: Param| {
            params.push(value);
            format!("${}", params.len())
        };
        if let Some(set) = &query.set_id {
            let p = next(&mut params, Param::Text(set.clone()));
            // A set's sessions, and the reviews that drew on it.
            conditions.push(format!(
                "EXISTS (SELECT 1 FROM session_sets ss WHERE ss.session_id = s.id AND ss.set_id = {p})"
            ));
        }
        if let Some(status) = query.status {
            let p = next(&mut params, Param::Text(status.as_str().to_string()));
            conditions.push(format!("s.status = {p}"));
        }
        if let Some(range) = &query.started {
            let (a, b) =
                (next(&mut params, Param::Int(range.start)), next(&mut params, Param::Int(range.end)));
            conditions.push(format!("s.started_at >= {a} AND s.started_at < {b}"));
        }
        for term in query.terms.iter().filter(|t| !t.is_empty()).take(8) {
            let p = next(&mut params, Param::Text(like(term)));
            conditions.push(format!(
                "(EXISTS (SELECT 1 FROM session_sets ss JOIN recall_sets n ON n.id = ss.set_id
                    WHERE ss.session_id = s.id AND LOWER(n.name) LIKE {p} ESCAPE '\\')
                  OR EXISTS (SELECT 1 FROM session_entries e
                    WHERE e.session_id = s.id AND e.kind IN ('message', 'summary')
                      AND LOWER(e.content) LIKE {p} ESCAPE '\\'))"
            ));
        }
        let filter = conditions.join(" AND ");
        let from = format!("FROM sessions s LEFT JOIN recall_sets sets ON sets.id = s.set_id WHERE {filter}");
        let total_sql = format!("SELECT COUNT(*) {from}");
        let (l, o) = (params.len() + 1, params.len() + 2);
        let page_sql = format!(
            "SELECT s.id, s.set_id, sets.name AS set_name, s.status, s.target_point_ids,
                (SELECT COUNT(*) FROM recall_outcomes o WHERE o.session_id = s.id) AS recalled,
                (SELECT COUNT(*) FROM rabbithole_events r WHERE r.session_id = s.id
                    AND r.status IN ('entered', 'returned')) AS rabbitholes,
                s.active_ms, s.resumed_at, s.started_at, s.updated_at,
                (SELECT e.data FROM session_entries e WHERE e.id = s.summary_entry_id) AS summary_data
             {from} ORDER BY s.started_at DESC, s.id DESC LIMIT ${l} OFFSET ${o}"
        );
        // Both statements are fixed fragments and numbered placeholders; every value is bound.
        let mut total = sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(total_sql));
        for p in &params {
            total = match p {
                Param::Text(t) => total.bind(t.clone()),
                Param::Int(i) => total.bind(*i),
            };
        }
        let total = total.one(self.read()).await?;
        let mut page = sqlx::query_as::<_, HistoryRow>(sqlx::AssertSqlSafe(page_sql));
        for p in &params {
            page = match p {
                Param::Text(t) => page.bind(t.clone()),
                Param::Int(i) => page.bind(*i),
            };
        }
        let rows = page.bind(i64::from(limit)).bind(i64::from(offset)).all(self.read()).await?;
        Ok((rows, u64::try_from(total).unwrap_or(0)))
    }
}

enum Param {
    Text(String),
    Int(i64),
}

impl Store {
    /// The learner's sets that have sessions (archived ones too), by name: what the list can
    /// be filtered by.
    pub async fn sets_with_sessions(&self, learner: &LearnerId) -> Result<Vec<(String, String)>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT sets.id, sets.name FROM recall_sets sets
              WHERE sets.owner_id = $1 AND EXISTS (SELECT 1 FROM session_sets ss WHERE ss.set_id = sets.id)
              ORDER BY LOWER(sets.name)",
        )
        .bind(learner)
        .all(self.read())
        .await?)
    }
}

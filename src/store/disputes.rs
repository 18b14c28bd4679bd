//! Disputed recalls: the learner said a check-off was not a recall. Its review leaves the log
//! and its outcome goes (the point is as if never recalled in that session), the point's
//! schedule is replayed, and the dispute stays, with the message and the point, as an
//! evaluator case (`warren disputes`).

use warren_app::learner::LearnerId;
use warren_app::tree::{EntryKind, Speaker};

use super::reviews::{replay_point, scheduler_in};
use super::{Reads, Store, StoreError, new_id, now_ms};

/// One disputed recall, as its history page marks it.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Dispute {
    pub point_id: String,
    /// The learner's message the recall was credited to.
    pub entry_id: Option<String>,
    pub disputed_at: i64,
}

/// A disputed recall with what an evaluator case needs: the set, its points, the points still
/// open when the message was sent, the conversation just before it, and the message.
#[derive(Clone, Debug, PartialEq)]
pub struct DisputedCase {
    pub set_name: String,
    /// The set's points still open (not yet recalled in the session) when the message was sent,
    /// as (id, content), in the set's order. The disputed point is among them.
    pub open: Vec<(String, String)>,
    pub disputed: String,
    /// Other points the same message recalled, not disputed: still taken as recalled.
    pub also_recalled: Vec<String>,
    /// The tutor's and the learner's messages before it, alternating, the tutor's first.
    pub recent: Vec<String>,
    pub message: String,
}

/// Messages of the conversation kept before a disputed message.
const RECENT: usize = 3;

impl Store {
    /// Disputes a recall of `point_id` in the learner's session `session_id`: false when there
    /// is no such recall of theirs (or it was disputed already), and nothing changes.
    pub async fn dispute_recall(
        &self,
        learner: &LearnerId,
        session_id: &str,
        point_id: &str,
    ) -> Result<bool, StoreError> {
        let mut tx = self.write_transaction().await?;
        let outcome: Option<(Option<String>, String, i64)> = sqlx::query_as(
            "SELECT entry_id, rating, recalled_at FROM recall_outcomes
              WHERE session_id = $1 AND point_id = $2 AND owner_id = $3",
        )
        .bind(session_id)
        .bind(point_id)
        .bind(learner)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((entry_id, rating, recalled_at)) = outcome else { return Ok(false) };
        // The session's review of the point; or, for a session imported beside its set, the
        // review the set's file carried for that recall (same point, same moment).
        sqlx::query(
            "DELETE FROM reviews WHERE point_id = $2 AND owner_id = $3
                AND (session_id = $1 OR (session_id IS NULL AND kind = 'imported' AND reviewed_at = $4))",
        )
        .bind(session_id)
        .bind(point_id)
        .bind(learner)
        .bind(recalled_at)
        .execute(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM recall_outcomes WHERE session_id = $1 AND point_id = $2 AND owner_id = $3")
            .bind(session_id)
            .bind(point_id)
            .bind(learner)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "INSERT INTO review_disputes (id, owner_id, session_id, point_id, entry_id, rating, disputed_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (session_id, point_id) DO NOTHING",
        )
        .bind(new_id())
        .bind(learner)
        .bind(session_id)
        .bind(point_id)
        .bind(&entry_id)
        .bind(&rating)
        .bind(now_ms())
        .execute(&mut *tx)
        .await?;
        let scheduler = scheduler_in(&mut tx, learner).await?;
        replay_point(&mut tx, learner, point_id, &scheduler).await?;
        tx.commit().await?;
        Ok(true)
    }

    /// The recalls disputed in one of the learner's sessions.
    pub async fn disputes(&self, learner: &LearnerId, session_id: &str) -> Result<Vec<Dispute>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT point_id, entry_id, disputed_at FROM review_disputes
              WHERE session_id = $1 AND owner_id = $2 ORDER BY disputed_at, id",
        )
        .bind(session_id)
        .bind(learner)
        .all(self.read())
        .await?)
    }

    /// Every recall the learner disputed, oldest first, as evaluator cases. A dispute whose
    /// message is gone (or was never known) makes no case.
    pub async fn disputed_cases(&self, learner: &LearnerId) -> Result<Vec<DisputedCase>, StoreError> {
        let disputes: Vec<(String, String, String)> = sqlx::query_as(
            "SELECT session_id, point_id, entry_id FROM review_disputes
              WHERE owner_id = $1 AND entry_id IS NOT NULL ORDER BY disputed_at, id",
        )
        .bind(learner)
        .all(self.read())
        .await?;
        let mut cases = Vec::with_capacity(disputes.len());
        for (session_id, point_id, entry_id) in disputes {
            let Some((session, tree)) = self.tree(learner, &session_id).await? else { continue };
            let Some(message) = tree.get(&entry_id) else { continue };
            // The disputed point's own set (a review draws on several).
            let Some(point) = self.point(learner, &point_id).await? else { continue };
            let Some(set) = self.set(learner, &point.set_id).await? else { continue };
            let outcomes = self.outcomes(learner, &session_id).await?;
            // Recalled before this message: no longer open when it was sent.
            let closed: Vec<&str> = outcomes
                .iter()
                .filter(|o| {
                    o.recalled_at < message.created_at && o.entry_id.as_deref() != Some(entry_id.as_str())
                })
                .map(|o| o.point_id.as_str())
                .collect();
            let also_recalled = outcomes
                .iter()
                .filter(|o| o.entry_id.as_deref() == Some(entry_id.as_str()))
                .map(|o| o.point_id.clone())
                .collect();
            let open = self
                .session_points(learner, &session.id)
                .await?
                .into_iter()
                .filter(|p| !closed.contains(&p.id.as_str()))
                .map(|p| (p.id, p.content))
                .collect();
            // The conversation just before, alternating and starting with the tutor.
            let before: Vec<(Speaker, &str)> = tree
                .path(Some(&entry_id))
                .into_iter()
                .rev()
                .skip(1)
                .filter(|e| e.kind == EntryKind::Message)
                .filter_map(|e| e.speaker.map(|s| (s, e.content.as_str())))
                .collect();
            let mut recent = Vec::new();
            let mut want = Speaker::Tutor;
            for (speaker, content) in before {
                if speaker != want || recent.len() == RECENT {
                    break;
                }
                recent.push(content.to_string());
                want = if want == Speaker::Tutor { Speaker::Learner } else { Speaker::Tutor };
            }
            if recent.len() % 2 == 0 {
                // Ending (going back) on a learner's message: the oldest must be the tutor's.
                recent.pop();
            }
            recent.reverse();
            cases.push(DisputedCase {
                set_name: set.name,
                open,
                disputed: point_id,
                also_recalled,
                recent,
                message: message.content.clone(),
            });
        }
        Ok(cases)
    }
}

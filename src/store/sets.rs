//! Recall sets: created whole (with points and resources, as the demo sets and imports are),
//! edited, archived and deleted. A set's name is unique per learner, ignoring case.

use super::points::{PointRow, insert_points};
use super::resources::{NewResource, insert_resource};
use super::reviews::{PointLog, insert_replayed, keep_imported_due, scheduler_in};
use super::writer::WriteTx;
use super::{FsrsCard, Reads, Store, StoreError, new_id, now_ms};
use crate::schedule::{Carried, Logged, Memory, Replayed, Step};
use warren_app::learner::LearnerId;

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct RecallSet {
    pub id: String,
    #[sqlx(rename = "owner_id")]
    pub learner: LearnerId,
    pub name: String,
    pub description: String,
    pub guidelines: String,
    /// Set when archived: off the dashboard, not startable, its history kept.
    pub archived_at: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct SetSummary {
    pub id: String,
    pub name: String,
    pub description: String,
    pub point_count: i64,
    pub due_count: i64,
    pub next_due_at: Option<i64>,
    pub archived_at: Option<i64>,
}

/// What deleting a set takes with it.
#[derive(Clone, Debug, Default, PartialEq, sqlx::FromRow)]
pub struct SetContents {
    pub points: i64,
    pub resources: i64,
    pub sessions: i64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct NewSet {
    pub name: String,
    pub description: String,
    pub guidelines: String,
    pub points: Vec<NewPoint>,
    pub resources: Vec<NewResource>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct NewPoint {
    pub content: String,
    pub context: String,
    /// Its schedule so far (an import keeps it); a new card due now otherwise.
    pub card: Option<FsrsCard>,
    /// Its review log, when the import carries one: the schedule is then replayed from it.
    pub log: Option<PointLog>,
}

/// Maps a unique-name violation to [`StoreError::NameTaken`].
fn name_taken(name: &str) -> impl FnOnce(sqlx::Error) -> StoreError + '_ {
    move |err| {
        let unique = err.as_database_error().is_some_and(|db| db.is_unique_violation());
        if unique { StoreError::NameTaken(name.to_string()) } else { StoreError::Query(err) }
    }
}

impl Store {
    /// Creates a set with its points and resources in one transaction: all of it or nothing.
    /// Returns its id.
    pub async fn create_set(&self, learner: &LearnerId, set: &NewSet) -> Result<String, StoreError> {
        let mut tx = self.write_transaction().await?;
        let set_id = self.insert_set(&mut tx, learner, set).await?;
        tx.commit().await?;
        Ok(set_id)
    }

    /// Creates several imported sets (an Anki package's decks) in one transaction, each under
    /// a name no set of the learner's has yet ("Biology (2)"), and deletes the import draft
    /// they came from in it too: all of them are kept, or none. Their ids, in order.
    pub async fn import_sets(
        &self,
        learner: &LearnerId,
        sets: &mut [NewSet],
        draft: Option<&str>,
    ) -> Result<Vec<String>, StoreError> {
        let mut names: Vec<String> = Vec::with_capacity(sets.len());
        for set in sets.iter_mut() {
            let mut name = self.free_name(learner, &set.name).await?;
            // Two decks of one package that would both become "Biology (2)".
            let mut n = 2;
            while names.iter().any(|taken| taken.eq_ignore_ascii_case(&name)) {
                name = self.free_name(learner, &format!("{} ({n})", set.name)).await?;
                n += 1;
            }
            names.push(name.clone());
            set.name = name;
        }
        let mut tx = self.write_transaction().await?;
        let mut ids = Vec::with_capacity(sets.len());
        for set in sets.iter() {
            ids.push(self.insert_set(&mut tx, learner, set).await?);
        }
        if let Some(draft) = draft {
            sqlx::query("DELETE FROM import_drafts WHERE id = $1 AND owner_id = $2")
                .bind(draft)
                .bind(learner)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(ids)
    }

    /// Writes a set, its points with their logs replayed, its resources and links, in `tx`.
    async fn insert_set(
        &self,
        tx: &mut WriteTx,
        learner: &LearnerId,
        set: &NewSet,
    ) -> Result<String, StoreError> {
        let now = now_ms();
        let set_id = new_id();
        sqlx::query(
            "INSERT INTO recall_sets (id, owner_id, name, description, guidelines, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $6)",
        )
        .bind(&set_id)
        .bind(learner)
        .bind(&set.name)
        .bind(&set.description)
        .bind(&set.guidelines)
        .bind(now)
        .execute(&mut **tx)
        .await
        .map_err(name_taken(&set.name))?;
        // A point that comes with its review log gets the replay of it (and its steps are
        // written with its reviews); one that comes with only a schedule starts its log from it.
        let scheduler = scheduler_in(&mut *tx, learner).await?;
        let replays: Vec<Option<Replayed>> = set
            .points
            .iter()
            .map(|p| {
                p.log.as_ref().filter(|log| !log.reviews.is_empty() || log.carried.is_some()).map(|log| {
                    let mut replayed = scheduler.replay(log.carried, &log.reviews, now);
                    if let (Some(due_at), false) = (log.due_at, log.reviews.is_empty()) {
                        keep_imported_due(&mut replayed.card, due_at);
                    }
                    replayed
                })
            })
            .collect();
        let rows: Vec<PointRow<'_>> = set
            .points
            .iter()
            .zip(&replays)
            .map(|(p, replayed)| {
                let card = match (replayed, &p.card) {
                    (Some(replayed), _) => replayed.card.clone(),
                    (None, Some(card)) => card.clone(),
                    (None, None) => FsrsCard::new(now),
                };
                let carried = match (&p.log, &card) {
                    (Some(log), _) => log.carried,
                    (None, card) => card
                        .last_review_at
                        .filter(|_| card.reps > 0 && card.stability > 0.0)
                        .map(|at| Carried {
                            memory: Memory { stability: card.stability, difficulty: card.difficulty },
                            at,
                            reps: card.reps,
                            lapses: card.lapses,
                        }),
                };
                let imported_due_at = p.log.as_ref().and_then(|log| log.due_at);
                PointRow { content: &p.content, context: &p.context, card, carried, imported_due_at }
            })
            .collect();
        let point_ids = insert_points(&mut *tx, self.backend(), learner, &set_id, &rows).await?;
        let logs: Vec<(&str, &[Logged], &[Step])> = point_ids
            .iter()
            .zip(set.points.iter().zip(&replays))
            .filter_map(|(id, (p, replayed))| {
                let (log, replayed) = (p.log.as_ref()?, replayed.as_ref()?);
                Some((id.as_str(), log.reviews.as_slice(), replayed.steps.as_slice()))
            })
            .collect();
        insert_replayed(&mut *tx, self.backend(), learner, &logs).await?;
        for resource in &set.resources {
            let links: Vec<(String, f64)> = resource
                .points
                .iter()
                .filter_map(|(index, relevance)| point_ids.get(*index).map(|id| (id.clone(), *relevance)))
                .collect();
            insert_resource(&mut *tx, learner, &set_id, resource, &links).await?;
        }
        Ok(set_id)
    }

    /// Changes a set's name, description and guidelines; false when it is not the learner's.
    pub async fn update_set(
        &self,
        learner: &LearnerId,
        set_id: &str,
        name: &str,
        description: &str,
        guidelines: &str,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE recall_sets SET name = $1, description = $2, guidelines = $3, updated_at = $4
             WHERE id = $5 AND owner_id = $6",
        )
        .bind(name)
        .bind(description)
        .bind(guidelines)
        .bind(now_ms())
        .bind(set_id)
        .bind(learner)
        .execute(&mut *self.write_turn().await?)
        .await
        .map_err(name_taken(name))?;
        Ok(done.rows_affected() == 1)
    }

    /// Archives or brings back a set; false when it is not the learner's.
    pub async fn set_archived(
        &self,
        learner: &LearnerId,
        set_id: &str,
        archived: bool,
    ) -> Result<bool, StoreError> {
        let now = now_ms();
        let done = self.write_one(sqlx::query(
            "UPDATE recall_sets SET archived_at = $1, updated_at = $2 WHERE id = $3 AND owner_id = $4",
        )
        .bind(archived.then_some(now))
        .bind(now)
        .bind(set_id)
        .bind(learner)).await?;
        Ok(done == 1)
    }

    /// What deleting a set would take with it.
    pub async fn set_contents(&self, learner: &LearnerId, set_id: &str) -> Result<SetContents, StoreError> {
        Ok(sqlx::query_as(
            "SELECT (SELECT COUNT(*) FROM recall_points WHERE set_id = $1 AND owner_id = $2) AS points,
                    (SELECT COUNT(*) FROM resources WHERE set_id = $1 AND owner_id = $2) AS resources,
                    (SELECT COUNT(*) FROM sessions WHERE set_id = $1 AND owner_id = $2) AS sessions",
        )
        .bind(set_id)
        .bind(learner)
        .one(self.read())
        .await?)
    }

    /// Deletes a set with its points, resources, schedule and sessions (the database
    /// cascades); false when it is not the learner's.
    pub async fn delete_set(&self, learner: &LearnerId, set_id: &str) -> Result<bool, StoreError> {
        let statement = sqlx::query("DELETE FROM recall_sets WHERE id = $1 AND owner_id = $2");
        Ok(self.write_one(statement.bind(set_id).bind(learner)).await? == 1)
    }

    pub async fn set_count(&self, learner: &LearnerId) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar("SELECT COUNT(*) FROM recall_sets WHERE owner_id = $1")
            .bind(learner)
            .one(self.read())
            .await?)
    }

    /// The learner's sets, archived ones included, with point and due counts, oldest first.
    pub async fn list_sets(&self, learner: &LearnerId, now: i64) -> Result<Vec<SetSummary>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT s.id, s.name, s.description, s.archived_at,
                    COUNT(p.id) AS point_count,
                    COALESCE(SUM(CASE WHEN p.due_at <= $2 THEN 1 ELSE 0 END), 0) AS due_count,
                    MIN(p.due_at) AS next_due_at
             FROM recall_sets s LEFT JOIN recall_points p ON p.set_id = s.id
             WHERE s.owner_id = $1
             GROUP BY s.id, s.name, s.description, s.archived_at, s.created_at
             ORDER BY s.created_at, s.id",
        )
        .bind(learner)
        .bind(now)
        .all(self.read())
        .await?)
    }

    pub async fn set(&self, learner: &LearnerId, set_id: &str) -> Result<Option<RecallSet>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT id, owner_id, name, description, guidelines, archived_at FROM recall_sets
             WHERE id = $1 AND owner_id = $2",
        )
        .bind(set_id)
        .bind(learner)
        .optional(self.read())
        .await?)
    }

    /// The learner's set of this name (ignoring case), if any.
    pub async fn set_named(&self, learner: &LearnerId, name: &str) -> Result<Option<RecallSet>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT id, owner_id, name, description, guidelines, archived_at FROM recall_sets
             WHERE owner_id = $1 AND lower(name) = lower($2)",
        )
        .bind(learner)
        .bind(name)
        .optional(self.read())
        .await?)
    }
}

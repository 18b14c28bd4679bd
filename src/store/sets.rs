//! Recall sets, their points (with FSRS state) and their resources.

use super::{Store, StoreError, new_id, now_ms};

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct RecallSet {
    pub id: String,
    pub owner_id: String,
    pub name: String,
    pub description: String,
    pub guidelines: String,
}

/// FSRS card state as stored; `state` is new | learning | review | relearning.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct FsrsCard {
    #[sqlx(rename = "fsrs_state")]
    pub state: String,
    pub due_at: i64,
    pub stability: f64,
    pub difficulty: f64,
    pub elapsed_days: i64,
    pub scheduled_days: i64,
    pub reps: i64,
    pub lapses: i64,
    pub last_review_at: Option<i64>,
}

impl FsrsCard {
    /// A card never reviewed, due at `due_at`.
    pub fn new(due_at: i64) -> Self {
        FsrsCard {
            state: "new".into(),
            due_at,
            stability: 0.0,
            difficulty: 0.0,
            elapsed_days: 0,
            scheduled_days: 0,
            reps: 0,
            lapses: 0,
            last_review_at: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Point {
    pub id: String,
    pub set_id: String,
    pub position: i64,
    pub content: String,
    pub context: String,
    #[sqlx(flatten)]
    pub card: FsrsCard,
}

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Resource {
    pub id: String,
    pub kind: String,
    pub title: String,
    pub body: String,
    pub url: Option<String>,
    pub mime_type: Option<String>,
    pub licence: Option<String>,
    /// Points this resource supports, with relevance 0..1.
    #[sqlx(skip)]
    pub points: Vec<(String, f64)>,
}

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct SetSummary {
    pub id: String,
    pub name: String,
    pub description: String,
    pub point_count: i64,
    pub due_count: i64,
    pub next_due_at: Option<i64>,
}

#[derive(Clone, Debug, Default)]
pub struct NewSet {
    pub name: String,
    pub description: String,
    pub guidelines: String,
    pub points: Vec<NewPoint>,
    pub resources: Vec<NewResource>,
}

#[derive(Clone, Debug, Default)]
pub struct NewPoint {
    pub content: String,
    pub context: String,
}

#[derive(Clone, Debug, Default)]
pub struct NewResource {
    pub kind: String,
    pub title: String,
    pub body: String,
    pub url: Option<String>,
    pub mime_type: Option<String>,
    pub licence: Option<String>,
    /// Indexes into `NewSet::points`, with relevance.
    pub points: Vec<(usize, f64)>,
}

impl Store {
    /// Creates a set with its points and resources in one transaction; returns its id.
    pub async fn create_set(&self, owner: &str, set: &NewSet) -> Result<String, StoreError> {
        let now = now_ms();
        let set_id = new_id();
        let mut tx = self.write_transaction().await?;
        sqlx::query(
            "INSERT INTO recall_sets (id, owner_id, name, description, guidelines, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $6)",
        )
        .bind(&set_id)
        .bind(owner)
        .bind(&set.name)
        .bind(&set.description)
        .bind(&set.guidelines)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        let mut point_ids = Vec::with_capacity(set.points.len());
        for (position, p) in set.points.iter().enumerate() {
            let id = new_id();
            sqlx::query(
                "INSERT INTO recall_points (id, set_id, owner_id, position, content, context, due_at, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $7)",
            )
            .bind(&id)
            .bind(&set_id)
            .bind(owner)
            .bind(position as i64)
            .bind(&p.content)
            .bind(&p.context)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            point_ids.push(id);
        }
        for r in &set.resources {
            let id = new_id();
            sqlx::query(
                "INSERT INTO resources (id, set_id, owner_id, kind, title, body, url, mime_type, licence, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
            )
            .bind(&id)
            .bind(&set_id)
            .bind(owner)
            .bind(&r.kind)
            .bind(&r.title)
            .bind(&r.body)
            .bind(&r.url)
            .bind(&r.mime_type)
            .bind(&r.licence)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            for (index, relevance) in &r.points {
                let Some(point_id) = point_ids.get(*index) else { continue };
                sqlx::query(
                    "INSERT INTO point_resources (point_id, resource_id, owner_id, relevance) VALUES ($1, $2, $3, $4)",
                )
                .bind(point_id)
                .bind(&id)
                .bind(owner)
                .bind(*relevance)
                .execute(&mut *tx)
                .await?;
            }
        }
        tx.commit().await?;
        Ok(set_id)
    }

    pub async fn set_count(&self, owner: &str) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar("SELECT COUNT(*) FROM recall_sets WHERE owner_id = $1")
            .bind(owner)
            .fetch_one(self.pool())
            .await?)
    }

    /// The learner's sets with point and due counts, oldest first.
    pub async fn list_sets(&self, owner: &str, now: i64) -> Result<Vec<SetSummary>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT s.id, s.name, s.description,
                    COUNT(p.id) AS point_count,
                    COALESCE(SUM(CASE WHEN p.due_at <= $2 THEN 1 ELSE 0 END), 0) AS due_count,
                    MIN(p.due_at) AS next_due_at
             FROM recall_sets s LEFT JOIN recall_points p ON p.set_id = s.id
             WHERE s.owner_id = $1
             GROUP BY s.id, s.name, s.description, s.created_at
             ORDER BY s.created_at, s.id",
        )
        .bind(owner)
        .bind(now)
        .fetch_all(self.pool())
        .await?)
    }

    pub async fn set(&self, owner: &str, set_id: &str) -> Result<Option<RecallSet>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT id, owner_id, name, description, guidelines FROM recall_sets WHERE id = $1 AND owner_id = $2",
        )
        .bind(set_id)
        .bind(owner)
        .fetch_optional(self.pool())
        .await?)
    }

    /// A set's points in their order.
    pub async fn points(&self, owner: &str, set_id: &str) -> Result<Vec<Point>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT id, set_id, position, content, context, fsrs_state, due_at, stability, difficulty,
                 elapsed_days, scheduled_days, reps, lapses, last_review_at
             FROM recall_points WHERE set_id = $1 AND owner_id = $2 ORDER BY position, id",
        )
        .bind(set_id)
        .bind(owner)
        .fetch_all(self.pool())
        .await?)
    }

    pub async fn resources(&self, owner: &str, set_id: &str) -> Result<Vec<Resource>, StoreError> {
        let mut resources: Vec<Resource> = sqlx::query_as(
            "SELECT id, kind, title, body, url, mime_type, licence FROM resources
             WHERE set_id = $1 AND owner_id = $2 ORDER BY created_at, id",
        )
        .bind(set_id)
        .bind(owner)
        .fetch_all(self.pool())
        .await?;
        let links: Vec<(String, String, f64)> = sqlx::query_as(
            "SELECT pr.resource_id, pr.point_id, pr.relevance FROM point_resources pr
             JOIN resources r ON r.id = pr.resource_id
             WHERE r.set_id = $1 AND r.owner_id = $2 AND pr.owner_id = $2",
        )
        .bind(set_id)
        .bind(owner)
        .fetch_all(self.pool())
        .await?;
        for (resource_id, point_id, relevance) in links {
            if let Some(r) = resources.iter_mut().find(|r| r.id == resource_id) {
                r.points.push((point_id, relevance));
            }
        }
        Ok(resources)
    }
}

/// Writes a point's new FSRS state inside the caller's transaction.
pub(super) async fn write_card(
    conn: &mut sqlx::AnyConnection,
    owner: &str,
    point_id: &str,
    card: &FsrsCard,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE recall_points SET fsrs_state = $1, due_at = $2, stability = $3, difficulty = $4,
             elapsed_days = $5, scheduled_days = $6, reps = $7, lapses = $8, last_review_at = $9
         WHERE id = $10 AND owner_id = $11",
    )
    .bind(&card.state)
    .bind(card.due_at)
    .bind(card.stability)
    .bind(card.difficulty)
    .bind(card.elapsed_days)
    .bind(card.scheduled_days)
    .bind(card.reps)
    .bind(card.lapses)
    .bind(card.last_review_at)
    .bind(point_id)
    .bind(owner)
    .execute(conn)
    .await?;
    Ok(())
}

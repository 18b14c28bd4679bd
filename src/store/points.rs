//! Recall points with their FSRS state: added, edited (keeping or resetting the schedule),
//! deleted and reordered, and the history of their reviews.

use sqlx::AnyConnection;
use warren_app::learner::LearnerId;

use warren_app::schedule::Rating;

use super::{Backend, Placeholders, Reads, Store, StoreError, new_id, now_ms};
use crate::schedule::{Carried, FsrsCard};

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

/// One recall of a point: when, how it was rated, in which session, by which message.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Review {
    pub point_id: String,
    pub session_id: String,
    #[sqlx(try_from = "String")]
    pub rating: Rating,
    pub recalled_at: i64,
    /// The learner message that earned it.
    pub entry_id: Option<String>,
}

/// `SELECT … FROM recall_points` followed by the given conditions.
macro_rules! select_points {
    ($($rest:literal)+) => {
        concat!(
            "SELECT id, set_id, position, content, context, fsrs_state, due_at, stability, difficulty, ",
            "elapsed_days, scheduled_days, reps, lapses, last_review_at FROM recall_points ",
            $($rest),+
        )
    };
}

/// Inserts a point inside the caller's transaction; returns its id.
pub(super) async fn insert_point(
    conn: &mut AnyConnection,
    learner: &LearnerId,
    set_id: &str,
    position: i64,
    content: &str,
    context: &str,
    card: &FsrsCard,
) -> Result<String, sqlx::Error> {
    let id = new_id();
    let query = sqlx::query(
        "INSERT INTO recall_points (id, set_id, owner_id, position, content, context, fsrs_state, due_at,
             stability, difficulty, elapsed_days, scheduled_days, reps, lapses, last_review_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
    )
    .bind(&id)
    .bind(set_id)
    .bind(learner)
    .bind(position)
    .bind(content)
    .bind(context);
    bind_card(query, card).bind(now_ms()).execute(conn).await?;
    Ok(id)
}

/// A point to insert with [`insert_points`].
pub(super) struct PointRow<'a> {
    pub content: &'a str,
    pub context: &'a str,
    pub card: FsrsCard,
    /// Where its log starts (a schedule carried in without its reviews).
    pub carried: Option<Carried>,
    /// When it is due where its history came from, until its first review here.
    pub imported_due_at: Option<i64>,
}

/// Inserts many points at positions `0..`, a few hundred rows a statement (a set of ten
/// thousand points is written in a second's fraction, not one statement a point); returns
/// their ids in order.
pub(super) async fn insert_points(
    conn: &mut AnyConnection,
    backend: Backend,
    learner: &LearnerId,
    set_id: &str,
    points: &[PointRow<'_>],
) -> Result<Vec<String>, sqlx::Error> {
    /// Rows a statement: 22 parameters each stays far below both engines' limits.
    const ROWS: usize = 500;
    let now = now_ms();
    let ids: Vec<String> = points.iter().map(|_| new_id()).collect();
    for (chunk, start) in points.chunks(ROWS).zip((0..).step_by(ROWS)) {
        // An absent carried schedule is written as NULL in the statement: `Any` sends a bound
        // empty float in a form PostgreSQL refuses.
        let mut placeholders = Placeholders::new(backend);
        let rows: Vec<String> = chunk
            .iter()
            .map(|point| {
                let mut cells = placeholders.take(16);
                match point.carried {
                    Some(_) => cells.extend(placeholders.take(5)),
                    None => cells.extend(["NULL", "NULL", "NULL", "0", "0"].map(String::from)),
                }
                cells.extend(placeholders.take(1));
                format!("({})", cells.join(", "))
            })
            .collect();
        let sql = format!(
            "INSERT INTO recall_points (id, set_id, owner_id, position, content, context, fsrs_state, due_at, \
             stability, difficulty, elapsed_days, scheduled_days, reps, lapses, last_review_at, created_at, \
             carried_stability, carried_difficulty, carried_at, carried_reps, carried_lapses, imported_due_at) \
             VALUES {}",
            rows.join(", ")
        );
        let mut insert = sqlx::query(sqlx::AssertSqlSafe(sql));
        for (offset, point) in chunk.iter().enumerate() {
            let position = start + offset;
            insert = insert
                .bind(ids[position].clone())
                .bind(set_id.to_string())
                .bind(learner.clone())
                .bind(position as i64)
                .bind(point.content.to_string())
                .bind(point.context.to_string());
            insert = bind_card(insert, &point.card).bind(now);
            if let Some(carried) = point.carried {
                insert =
                    insert.bind(carried.memory.stability).bind(carried.memory.difficulty).bind(carried.at);
                insert = insert.bind(carried.reps).bind(carried.lapses);
            }
            insert = insert.bind(point.imported_due_at);
        }
        insert.execute(&mut *conn).await?;
    }
    Ok(ids)
}

/// Binds a card's nine columns next, in the order `recall_points` lists them.
fn bind_card<'q>(
    query: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments>,
    card: &FsrsCard,
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments> {
    query
        .bind(card.state.as_str())
        .bind(card.due_at)
        .bind(card.stability)
        .bind(card.difficulty)
        .bind(card.elapsed_days)
        .bind(card.scheduled_days)
        .bind(card.reps)
        .bind(card.lapses)
        .bind(card.last_review_at)
}

/// Writes a point's new FSRS state inside the caller's transaction.
pub(super) async fn write_card(
    conn: &mut AnyConnection,
    learner: &LearnerId,
    point_id: &str,
    card: &FsrsCard,
) -> Result<(), sqlx::Error> {
    let query = sqlx::query(
        "UPDATE recall_points SET fsrs_state = $1, due_at = $2, stability = $3, difficulty = $4,
             elapsed_days = $5, scheduled_days = $6, reps = $7, lapses = $8, last_review_at = $9
         WHERE id = $10 AND owner_id = $11",
    );
    bind_card(query, card).bind(point_id).bind(learner).execute(conn).await?;
    Ok(())
}

impl Store {
    /// A set's points in their order.
    pub async fn points(&self, learner: &LearnerId, set_id: &str) -> Result<Vec<Point>, StoreError> {
        const SQL: &str = select_points!("WHERE set_id = $1 AND owner_id = $2 ORDER BY position, id");
        Ok(self.set_rows(SQL, learner, set_id).await?)
    }

    /// The points of every set a session draws on (its own set's, or a review's sets').
    pub async fn session_points(
        &self,
        learner: &LearnerId,
        session_id: &str,
    ) -> Result<Vec<Point>, StoreError> {
        Ok(sqlx::query_as(select_points!(
            "WHERE owner_id = $2 AND set_id IN (SELECT set_id FROM session_sets WHERE session_id = $1 AND owner_id = $2)"
            " ORDER BY set_id, position, id"
        ))
        .bind(session_id)
        .bind(learner)
        .all(self.read())
        .await?)
    }

    pub async fn point(&self, learner: &LearnerId, point_id: &str) -> Result<Option<Point>, StoreError> {
        Ok(sqlx::query_as(select_points!("WHERE id = $1 AND owner_id = $2"))
            .bind(point_id)
            .bind(learner)
            .optional(self.read())
            .await?)
    }

    /// Adds a point at the end of a set; `None` when the set is not the learner's.
    pub async fn add_point(
        &self,
        learner: &LearnerId,
        set_id: &str,
        content: &str,
        context: &str,
    ) -> Result<Option<String>, StoreError> {
        let mut tx = self.write_transaction().await?;
        if !owns_set(&mut tx, learner, set_id).await? {
            return Ok(None);
        }
        let next: i64 =
            sqlx::query_scalar("SELECT COALESCE(MAX(position), -1) + 1 FROM recall_points WHERE set_id = $1")
                .bind(set_id)
                .fetch_one(&mut *tx)
                .await?;
        let id =
            insert_point(&mut tx, learner, set_id, next, content, context, &FsrsCard::new(now_ms())).await?;
        touch_set(&mut tx, learner, set_id).await?;
        tx.commit().await?;
        Ok(Some(id))
    }

    /// Changes a point's words, keeping its schedule unless `reset`; false when it is not the
    /// learner's.
    pub async fn update_point(
        &self,
        learner: &LearnerId,
        point_id: &str,
        content: &str,
        context: &str,
        reset: bool,
    ) -> Result<bool, StoreError> {
        let mut tx = self.write_transaction().await?;
        let done = sqlx::query(
            "UPDATE recall_points SET content = $1, context = $2 WHERE id = $3 AND owner_id = $4",
        )
        .bind(content)
        .bind(context)
        .bind(point_id)
        .bind(learner)
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() == 1 && reset {
            // Its reviews stay in the log, but the schedule starts again from now.
            let now = now_ms();
            sqlx::query(
                "UPDATE recall_points SET schedule_reset_at = $1, imported_due_at = NULL, carried_stability = NULL,
                     carried_difficulty = NULL, carried_at = NULL, carried_reps = 0, carried_lapses = 0
                 WHERE id = $2 AND owner_id = $3",
            )
            .bind(now)
            .bind(point_id)
            .bind(learner)
            .execute(&mut *tx)
            .await?;
            write_card(&mut tx, learner, point_id, &FsrsCard::new(now)).await?;
        }
        tx.commit().await?;
        Ok(done.rows_affected() == 1)
    }

    /// Deletes a point (its reviews and links go with it); false when it is not the learner's.
    pub async fn delete_point(&self, learner: &LearnerId, point_id: &str) -> Result<bool, StoreError> {
        let statement = sqlx::query("DELETE FROM recall_points WHERE id = $1 AND owner_id = $2");
        Ok(self.write_one(statement.bind(point_id).bind(learner)).await? == 1)
    }

    /// Moves a point one place up or down in its set; false when it is not the learner's or
    /// already at that end.
    pub async fn move_point(
        &self,
        learner: &LearnerId,
        point_id: &str,
        up: bool,
    ) -> Result<bool, StoreError> {
        let mut tx = self.write_transaction().await?;
        let ordered: Vec<(String, i64)> = sqlx::query_as(
            "SELECT id, position FROM recall_points WHERE owner_id = $1 AND set_id =
                 (SELECT set_id FROM recall_points WHERE id = $2 AND owner_id = $1)
             ORDER BY position, id",
        )
        .bind(learner)
        .bind(point_id)
        .fetch_all(&mut *tx)
        .await?;
        let Some(at) = ordered.iter().position(|(id, _)| id == point_id) else { return Ok(false) };
        let other = if up { at.checked_sub(1) } else { Some(at + 1).filter(|i| *i < ordered.len()) };
        let Some(other) = other else { return Ok(false) };
        // Positions are rewritten as 0..n so that ties left by older data cannot block a move.
        let mut ids: Vec<&str> = ordered.iter().map(|(id, _)| id.as_str()).collect();
        ids.swap(at, other);
        for (position, id) in ids.iter().enumerate() {
            sqlx::query("UPDATE recall_points SET position = $1 WHERE id = $2 AND owner_id = $3")
                .bind(position as i64)
                .bind(id)
                .bind(learner)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(true)
    }

    /// Every recall of a set's points, oldest first.
    pub async fn reviews(&self, learner: &LearnerId, set_id: &str) -> Result<Vec<Review>, StoreError> {
        const SQL: &str =
            "SELECT o.point_id, o.session_id, o.rating, o.recalled_at, o.entry_id FROM recall_outcomes o
            JOIN recall_points p ON p.id = o.point_id
            WHERE p.set_id = $1 AND p.owner_id = $2 AND o.owner_id = $2
            ORDER BY o.recalled_at, o.id";
        Ok(self.set_rows(SQL, learner, set_id).await?)
    }
}

/// Whether the set is the learner's, read inside the caller's transaction.
pub(super) async fn owns_set(
    conn: &mut AnyConnection,
    learner: &LearnerId,
    set_id: &str,
) -> Result<bool, sqlx::Error> {
    let owned: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM recall_sets WHERE id = $1 AND owner_id = $2")
        .bind(set_id)
        .bind(learner)
        .fetch_one(conn)
        .await?;
    Ok(owned > 0)
}

/// Marks a set as changed now.
pub(super) async fn touch_set(
    conn: &mut AnyConnection,
    learner: &LearnerId,
    set_id: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE recall_sets SET updated_at = $1 WHERE id = $2 AND owner_id = $3")
        .bind(now_ms())
        .bind(set_id)
        .bind(learner)
        .execute(conn)
        .await?;
    Ok(())
}

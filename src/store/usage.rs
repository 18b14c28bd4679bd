//! What each call to a language model used (`model_calls`), added up by session, learner,
//! agent and model; and the operator's word on a learner's allowance (`learner_budgets`).

use warren_app::learner::LearnerId;
use warren_app::usage::Agent;

use super::{Reads, Store, StoreError, new_id, now_ms};

/// One call, as it ended.
#[derive(Clone, Debug, PartialEq)]
pub struct NewCall {
    pub learner: LearnerId,
    /// `None` outside a session (drafting, a spoken answer's clean-up).
    pub session_id: Option<String>,
    pub agent: Agent,
    pub model: String,
    pub input: u64,
    pub cached_input: u64,
    pub output: u64,
    /// Read to its end (not cut off).
    pub finished: bool,
}

/// Calls of one agent and model, added up.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct CallSum {
    /// Whose, for tables across learners.
    pub username: String,
    #[sqlx(try_from = "String")]
    pub agent: Agent,
    pub model: String,
    pub calls: i64,
    pub input: i64,
    pub cached_input: i64,
    pub output: i64,
}

/// A learner's allowance as the operator set it; `None` fields follow the server's defaults.
#[derive(Clone, Debug, Default, PartialEq, Eq, sqlx::FromRow)]
pub struct LearnerBudget {
    pub daily_tokens: Option<i64>,
    pub monthly_tokens: Option<i64>,
    /// No cap until then (ms).
    pub lifted_until: Option<i64>,
}

const SUMS: &str = "SELECT u.username, c.agent, c.model, COUNT(*) AS calls,
        CAST(COALESCE(SUM(c.input_tokens), 0) AS BIGINT) AS input,
        CAST(COALESCE(SUM(c.cached_input_tokens), 0) AS BIGINT) AS cached_input,
        CAST(COALESCE(SUM(c.output_tokens), 0) AS BIGINT) AS output
   FROM model_calls c JOIN users u ON u.id = c.owner_id";
const GROUPED: &str = "GROUP BY u.username, c.agent, c.model ORDER BY u.username, c.agent, c.model";

impl Store {
    /// Records a call. Its session may have gone meanwhile: the call is kept without it.
    pub async fn record_call(&self, call: &NewCall) -> Result<(), StoreError> {
        let n = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        self.write_one(
            sqlx::query(
                "INSERT INTO model_calls (id, owner_id, session_id, agent, model, input_tokens,
                        cached_input_tokens, output_tokens, finished, at)
                 SELECT $1, $2, (SELECT id FROM sessions WHERE id = $3 AND owner_id = $2), $4, $5, $6, $7, $8, $9, $10",
            )
            .bind(new_id())
            .bind(&call.learner)
            .bind(call.session_id.as_deref().unwrap_or_default())
            .bind(call.agent.as_str())
            .bind(&call.model)
            .bind(n(call.input))
            .bind(n(call.cached_input))
            .bind(n(call.output))
            .bind(i64::from(call.finished))
            .bind(now_ms()),
        )
        .await?;
        Ok(())
    }

    /// Tokens (input and output) the learner's calls used since `since`.
    pub async fn tokens_since(&self, learner: &LearnerId, since: i64) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar(
            "SELECT CAST(COALESCE(SUM(input_tokens + output_tokens), 0) AS BIGINT) FROM model_calls
              WHERE owner_id = $1 AND at >= $2",
        )
        .bind(learner)
        .bind(since)
        .one(self.read())
        .await?)
    }

    /// A session's calls, by agent and model.
    pub async fn session_calls(
        &self,
        learner: &LearnerId,
        session_id: &str,
    ) -> Result<Vec<CallSum>, StoreError> {
        let query =
            sqlx::AssertSqlSafe(format!("{SUMS} WHERE c.owner_id = $1 AND c.session_id = $2 {GROUPED}"));
        Ok(sqlx::query_as(query).bind(learner).bind(session_id).all(self.read()).await?)
    }

    /// Calls since `since`, by learner (or one learner's), agent and model.
    pub async fn calls_since(
        &self,
        learner: Option<&LearnerId>,
        since: i64,
    ) -> Result<Vec<CallSum>, StoreError> {
        Ok(match learner {
            Some(learner) => {
                let query =
                    sqlx::AssertSqlSafe(format!("{SUMS} WHERE c.owner_id = $1 AND c.at >= $2 {GROUPED}"));
                sqlx::query_as(query).bind(learner).bind(since).all(self.read()).await?
            }
            None => {
                let query = sqlx::AssertSqlSafe(format!("{SUMS} WHERE c.at >= $1 {GROUPED}"));
                sqlx::query_as(query).bind(since).all(self.read()).await?
            }
        })
    }

    /// The operator's word on a learner's allowance (nothing said: the defaults).
    pub async fn budget(&self, learner: &LearnerId) -> Result<LearnerBudget, StoreError> {
        Ok(sqlx::query_as(
            "SELECT daily_tokens, monthly_tokens, lifted_until FROM learner_budgets WHERE owner_id = $1",
        )
        .bind(learner)
        .optional(self.read())
        .await?
        .unwrap_or_default())
    }

    /// Sets a learner's allowance (`None` fields: the server's defaults).
    pub async fn set_budget(&self, learner: &LearnerId, budget: &LearnerBudget) -> Result<(), StoreError> {
        let mut tx = self.write_transaction().await?;
        sqlx::query("DELETE FROM learner_budgets WHERE owner_id = $1")
            .bind(learner)
            .execute(&mut *tx)
            .await?;
        // Written only when it says something, and NULLs through `Any` are left to the SQL.
        if *budget != LearnerBudget::default() {
            sqlx::query("INSERT INTO learner_budgets (owner_id) VALUES ($1)")
                .bind(learner)
                .execute(&mut *tx)
                .await?;
            for (column, value) in [
                ("daily_tokens", budget.daily_tokens),
                ("monthly_tokens", budget.monthly_tokens),
                ("lifted_until", budget.lifted_until),
            ] {
                if let Some(value) = value {
                    let query = sqlx::AssertSqlSafe(format!(
                        "UPDATE learner_budgets SET {column} = $1 WHERE owner_id = $2"
                    ));
                    sqlx::query(query).bind(value).bind(learner).execute(&mut *tx).await?;
                }
            }
        }
        tx.commit().await?;
        Ok(())
    }
}

//! `warren usage`: what the language models were asked to do, by learner, agent and model,
//! with tokens and cost; and `warren allowance`: an operator's word on one learner's
//! allowance (a cap of their own, back to the defaults, or lifted for now).

use chrono::NaiveDate;

use super::CliError;
use super::transfer::{learner, open_as};
use crate::config::Config;
use crate::engine::usage::{Prices, periods};
use crate::startup::open_and_migrate;
use crate::store::{LearnerBudget, now_ms};

/// Why `warren usage` or `warren allowance` could not do its job.
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    #[error("--since takes a date such as 2026-11-01 (it is “{0}”)")]
    Date(String),
    #[error(transparent)]
    Prices(#[from] crate::engine::usage::PricesError),
    #[error("say what to change: --daily, --monthly, --lift HOURS or --defaults")]
    Nothing,
}

pub async fn usage(config: &Config, user: Option<&str>, since: Option<&str>) -> Result<(), CliError> {
    let store = open_and_migrate(config).await?;
    let since_ms = match since {
        Some(date) => NaiveDate::parse_from_str(date.trim(), "%Y-%m-%d")
            .ok()
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .map(|t| t.and_utc().timestamp_millis())
            .ok_or_else(|| UsageError::Date(date.to_string()))?,
        // This month (UTC).
        None => periods(now_ms()).2,
    };
    let prices = match &config.prices {
        Some(path) => Prices::load(path).map_err(UsageError::from)?,
        None => Prices::default(),
    };
    let who = match user {
        Some(name) => Some(learner(&store, name).await?),
        None => None,
    };
    let sums = store.calls_since(who.as_ref(), since_ms).await?;
    let from = chrono::DateTime::from_timestamp_millis(since_ms).map(|t| t.format("%Y-%m-%d").to_string());
    println!("Language-model calls since {} (UTC):", from.unwrap_or_default());
    if sums.is_empty() {
        println!("none.");
        return Ok(());
    }
    let rows: Vec<[String; 8]> = sums
        .iter()
        .map(|s| {
            let priced = prices.priced(s);
            [
                s.username.clone(),
                s.agent.as_str().to_string(),
                s.model.clone(),
                s.calls.to_string(),
                s.input.to_string(),
                s.cached_input.to_string(),
                s.output.to_string(),
                priced.cost_usd.map_or_else(|| "-".to_string(), |c| format!("{c:.4}")),
            ]
        })
        .collect();
    let mut total = warren_app::usage::Tokens::default();
    for sum in &sums {
        total.add(&prices.priced(sum));
    }
    let head = ["learner", "agent", "model", "calls", "input", "cached", "output", "cost (USD)"];
    let footer = [
        "total".to_string(),
        String::new(),
        String::new(),
        total.calls.to_string(),
        total.input.to_string(),
        total.cached_input.to_string(),
        total.output.to_string(),
        total.cost_usd.map_or_else(|| "-".to_string(), |c| format!("{c:.4}")),
    ];
    let widths: Vec<usize> = (0..8)
        .map(|i| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([head[i].len(), footer[i].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[String]| {
        let padded: Vec<String> =
            cells
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    if i < 3 { format!("{c:<w$}", w = widths[i]) } else { format!("{c:>w$}", w = widths[i]) }
                })
                .collect();
        println!("{}", padded.join("  ").trim_end());
    };
    line(&head.map(str::to_string));
    for row in &rows {
        line(row);
    }
    line(&footer);
    Ok(())
}

/// What `warren allowance` is told to do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllowanceChange {
    pub daily: Option<u64>,
    pub monthly: Option<u64>,
    pub lift_hours: Option<u64>,
    pub defaults: bool,
}

pub async fn allowance(config: &Config, user: &str, change: AllowanceChange) -> Result<(), CliError> {
    if change == AllowanceChange::default() {
        return Err(UsageError::Nothing.into());
    }
    let (store, learner) = open_as(config, user).await?;
    let mut budget = if change.defaults { LearnerBudget::default() } else { store.budget(&learner).await? };
    let n = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
    if let Some(daily) = change.daily {
        budget.daily_tokens = Some(n(daily));
    }
    if let Some(monthly) = change.monthly {
        budget.monthly_tokens = Some(n(monthly));
    }
    if let Some(hours) = change.lift_hours {
        budget.lifted_until = Some(now_ms().saturating_add(n(hours).saturating_mul(3_600_000)));
    }
    store.set_budget(&learner, &budget).await?;
    let cap = |own: Option<i64>, default: Option<u64>| match (own, default) {
        (Some(own), _) => format!("{own} tokens (their own)"),
        (None, Some(default)) => format!("{default} tokens (the server's)"),
        (None, None) => "none".to_string(),
    };
    println!(
        "{user}: a day {}; a month {}{}.",
        cap(budget.daily_tokens, config.daily_tokens_per_learner),
        cap(budget.monthly_tokens, config.monthly_tokens_per_learner),
        budget
            .lifted_until
            .and_then(chrono::DateTime::from_timestamp_millis)
            .map(|t| format!("; lifted until {} UTC", t.format("%Y-%m-%d %H:%M")))
            .unwrap_or_default()
    );
    Ok(())
}

//! What the language models are asked to do for each learner, what it costs, and how much of
//! them a learner may use.
//!
//! Every call to a network model made for a learner goes through [`Metered`], which records
//! the provider's own usage figures (`model_calls`: input, cached input and output tokens,
//! against the session and agent; a reply cut off before its provider said, as a speculative
//! reply the evaluator overruled is, is recorded by its request and what it wrote, at four
//! characters a token) and checks the learner's allowance first. Once the day's or month's
//! allowance (`WARREN_DAILY_TOKENS_PER_LEARNER`, `WARREN_MONTHLY_TOKENS_PER_LEARNER`, or the
//! operator's word for that learner) is spent, the call goes to the offline tutor instead,
//! until the allowance comes round again: the learner goes on studying, and the session says
//! so. The allowance is read from the database before each call, so every instance sees the
//! same. Days and months are UTC's. The offline provider costs nothing and is not recorded.

use std::collections::HashMap;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::task::{Context, Poll};

use async_trait::async_trait;
use chrono::{Datelike, TimeZone, Utc};
use futures_util::Stream;
use warren_app::learner::LearnerId;
use warren_app::protocol::ProviderInfo;
use warren_app::usage::{Agent, AgentTokens, Tokens};

use super::metrics::Metrics;
use crate::llm::{LlmError, Output, Provider, Purpose, ReplyStream, Request, SharedProvider, Tier, Usage};
use crate::store::{CallSum, LearnerBudget, NewCall, Store, StoreError, now_ms};

/// What a model costs, in US dollars per million tokens.
#[derive(Clone, Copy, Debug, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub input: f64,
    /// Input read from the provider's prompt cache; the input price when not given.
    #[serde(default)]
    pub cached_input: Option<f64>,
    pub output: f64,
}

/// The operator's price list (`WARREN_PRICES`): model name to [`Price`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Prices(HashMap<String, Price>);

/// Why the price list could not be read, in one sentence.
#[derive(Debug, thiserror::Error)]
pub enum PricesError {
    #[error("cannot read the price list {path} ({source}); check WARREN_PRICES")]
    Read { path: String, source: std::io::Error },
    #[error(
        "the price list {path} is not what Warren reads ({why}): a JSON object of model names, each {{\"input\": 3.0, \"cached_input\": 0.3, \"output\": 15.0}} in US dollars per million tokens"
    )]
    Format { path: String, why: String },
}

impl Prices {
    /// Reads a price list: a JSON object from model name to its [`Price`].
    pub fn load(path: &Path) -> Result<Prices, PricesError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|source| PricesError::Read { path: name.clone(), source })?;
        let prices: HashMap<String, Price> = serde_json::from_str(&text)
            .map_err(|e| PricesError::Format { path: name.clone(), why: e.to_string() })?;
        let negative = prices.iter().find(|(_, p)| {
            [p.input, p.output, p.cached_input.unwrap_or(0.0)].iter().any(|v| !v.is_finite() || *v < 0.0)
        });
        if let Some((model, _)) = negative {
            return Err(PricesError::Format { path: name, why: format!("{model} has a price below zero") });
        }
        Ok(Prices(prices))
    }

    /// What tokens of `model` cost, if it has a price.
    pub fn cost(&self, model: &str, input: i64, cached_input: i64, output: i64) -> Option<f64> {
        let price = self.0.get(model)?;
        let per = |n: i64, dollars: f64| n.max(0) as f64 * dollars / 1_000_000.0;
        let cached = cached_input.clamp(0, input.max(0));
        Some(
            per(input - cached, price.input)
                + per(cached, price.cached_input.unwrap_or(price.input))
                + per(output, price.output),
        )
    }

    /// Sums by agent, priced (in [`Agent`] order; agents with no calls left out).
    pub fn by_agent(&self, sums: &[CallSum]) -> Vec<AgentTokens> {
        Agent::ALL
            .iter()
            .filter_map(|agent| {
                let mut tokens = Tokens::default();
                for sum in sums.iter().filter(|s| s.agent == *agent) {
                    tokens.add(&self.priced(sum));
                }
                (tokens.calls > 0).then_some(AgentTokens { agent: *agent, tokens })
            })
            .collect()
    }

    /// One sum, priced.
    pub fn priced(&self, sum: &CallSum) -> Tokens {
        Tokens {
            calls: sum.calls,
            input: sum.input,
            cached_input: sum.cached_input,
            output: sum.output,
            cost_usd: self.cost(&sum.model, sum.input, sum.cached_input, sum.output),
        }
    }
}

/// The server's default allowances, in tokens (input and output) a learner may use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Budgets {
    pub daily: Option<u64>,
    pub monthly: Option<u64>,
}

/// Where a learner stands against their allowance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Allowance {
    Open,
    /// Spent: the offline tutor answers until then (ms), the next UTC day or (`monthly`) month.
    Spent {
        until: i64,
        monthly: bool,
    },
}

/// What metering needs, shared by every session: the store, the price list, the defaults,
/// the offline tutor that takes over at a cap, and the counters.
#[derive(Clone)]
pub struct Meter {
    pub store: Store,
    pub prices: Arc<Prices>,
    pub budgets: Budgets,
    pub offline: SharedProvider,
    pub metrics: Arc<Metrics>,
}

impl Meter {
    /// A learner's caps a day and a month: the operator's word for them, or the defaults.
    pub fn caps(&self, budget: &LearnerBudget) -> (Option<i64>, Option<i64>) {
        let cap = |set: Option<i64>, default: Option<u64>| {
            set.or_else(|| default.map(|d| i64::try_from(d).unwrap_or(i64::MAX)))
        };
        (cap(budget.daily_tokens, self.budgets.daily), cap(budget.monthly_tokens, self.budgets.monthly))
    }

    /// Where `learner` stands at `now`: their caps for today (UTC) and this month, as the
    /// operator set them or by default, and what their calls used (read only for a cap there is).
    pub async fn standing(&self, learner: &LearnerId, now: i64) -> Result<Standing, StoreError> {
        let budget = self.store.budget(learner).await?;
        let (day, next_day, month, next_month) = periods(now);
        let (daily, monthly) = self.caps(&budget);
        let lifted = budget.lifted_until.is_some_and(|until| until > now);
        let used = async |cap: Option<i64>, since: i64| match cap {
            Some(_) if !lifted => self.store.tokens_since(learner, since).await,
            Some(_) | None => Ok(0),
        };
        Ok(Standing {
            daily,
            monthly,
            today: used(daily, day).await?,
            this_month: used(monthly, month).await?,
            lifted,
            next_day,
            next_month,
        })
    }

    /// `provider`, metered for `learner` (in `session`, if any).
    pub fn wrap(&self, provider: SharedProvider, learner: &LearnerId, session: Option<&str>) -> Arc<Metered> {
        Arc::new(Metered {
            inner: provider,
            meter: self.clone(),
            learner: learner.clone(),
            session: session.map(str::to_string),
            spent: AtomicBool::new(false),
            checked: std::sync::Mutex::new(None),
            added: Arc::default(),
        })
    }
}

/// A learner's caps and what they used when last read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Standing {
    daily: Option<i64>,
    monthly: Option<i64>,
    today: i64,
    this_month: i64,
    lifted: bool,
    next_day: i64,
    next_month: i64,
}

impl Standing {
    /// The allowance, with `added` tokens used since it was read.
    fn allowance(&self, added: i64) -> Allowance {
        if self.lifted {
            return Allowance::Open;
        }
        if self.daily.is_some_and(|cap| self.today.saturating_add(added) >= cap) {
            return Allowance::Spent { until: self.next_day, monthly: false };
        }
        if self.monthly.is_some_and(|cap| self.this_month.saturating_add(added) >= cap) {
            return Allowance::Spent { until: self.next_month, monthly: true };
        }
        Allowance::Open
    }
}

/// The start of `now`'s UTC day, of the next, of its month, and of the next month (ms).
pub fn periods(now: i64) -> (i64, i64, i64, i64) {
    const DAY: i64 = 86_400_000;
    let day = now.div_euclid(DAY) * DAY;
    let date =
        Utc.timestamp_millis_opt(now).single().map_or_else(|| Utc::now().date_naive(), |t| t.date_naive());
    let first = |y: i32, m: u32| {
        chrono::NaiveDate::from_ymd_opt(y, m, 1)
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .map_or(day, |t| t.and_utc().timestamp_millis())
    };
    let (next_y, next_m) =
        if date.month() == 12 { (date.year() + 1, 1) } else { (date.year(), date.month() + 1) };
    (day, day + DAY, first(date.year(), date.month()), first(next_y, next_m))
}

/// Which agent a request is from (`None` for a configuration check).
fn agent_of(purpose: &Purpose) -> Option<Agent> {
    match purpose {
        Purpose::Tutor(_) => Some(Agent::Tutor),
        Purpose::Evaluator(_) => Some(Agent::Evaluator),
        Purpose::Detector(_) => Some(Agent::Detector),
        Purpose::Explorer(_) => Some(Agent::Explorer),
        Purpose::Summariser(_) => Some(Agent::Summariser),
        Purpose::Cleanup(_) => Some(Agent::Cleanup),
        Purpose::Drafter(_) => Some(Agent::Drafter),
        Purpose::Probe => None,
    }
}

/// A provider metered for one learner (and session): see the module's notes.
pub struct Metered {
    inner: SharedProvider,
    meter: Meter,
    learner: LearnerId,
    session: Option<String>,
    /// The last check found the allowance spent.
    spent: AtomicBool,
    /// Where the learner stood when last read, and when: a turn's calls (evaluator, detector,
    /// tutor) share one reading.
    checked: std::sync::Mutex<Option<(std::time::Instant, Standing)>>,
    /// Tokens this provider's own calls used since that reading: its own calls count at once.
    added: Arc<AtomicU64>,
}

/// How long a reading of the learner's standing serves: a turn's calls share it, and what the
/// learner's other sessions (on any instance) spend counts a few seconds late at most.
const CHECK_STANDS: std::time::Duration = std::time::Duration::from_secs(3);

impl Metered {
    /// The learner's allowance, read again unless a check stands (see [`CHECK_STANDS`]);
    /// remembered for [`Metered::spent`] and `info`.
    pub async fn check(&self) -> Allowance {
        let added = || i64::try_from(self.added.load(Ordering::Relaxed)).unwrap_or(i64::MAX);
        let standing = *self.checked.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let allowance = match standing {
            Some((at, standing)) if at.elapsed() < CHECK_STANDS => standing.allowance(added()),
            Some(_) | None => match self.meter.standing(&self.learner, now_ms()).await {
                Ok(standing) => {
                    self.added.store(0, Ordering::Relaxed);
                    *self.checked.lock().unwrap_or_else(std::sync::PoisonError::into_inner) =
                        Some((std::time::Instant::now(), standing));
                    standing.allowance(0)
                }
                Err(err) => {
                    // A database that cannot say is no reason to stop a learner mid-sentence.
                    tracing::warn!("cannot read a learner's model allowance: {err}");
                    Allowance::Open
                }
            },
        };
        self.spent.store(matches!(allowance, Allowance::Spent { .. }), Ordering::Relaxed);
        allowance
    }

    /// Whether the last check found the allowance spent.
    pub fn spent(&self) -> bool {
        self.spent.load(Ordering::Relaxed)
    }

    /// Whether calls cost anything at all (not the offline tutor).
    pub fn metered(&self) -> bool {
        !self.inner.info().offline
    }
}

#[async_trait]
impl Provider for Metered {
    /// The offline tutor's, while it stands in at a cap.
    fn info(&self) -> ProviderInfo {
        if self.spent() { self.meter.offline.info() } else { self.inner.info() }
    }

    fn model(&self, tier: Tier) -> String {
        self.inner.model(tier)
    }

    async fn stream(&self, request: &Request) -> Result<ReplyStream, LlmError> {
        let Some(agent) = agent_of(&request.purpose).filter(|_| self.metered()) else {
            return self.inner.stream(request).await;
        };
        if let Allowance::Spent { .. } = self.check().await {
            return self.meter.offline.stream(request).await;
        }
        // What a reply cut off before its provider said anything is taken to have used: its
        // request, at four characters a token (the providers report usage at the end).
        let sent: usize = request.system.len()
            + request.messages.iter().map(|m| m.content.len()).sum::<usize>()
            + request
                .tools
                .iter()
                .map(|t| t.description.len() + t.input_schema.to_string().len())
                .sum::<usize>();
        let call = NewCall {
            learner: self.learner.clone(),
            session_id: self.session.clone(),
            agent,
            model: self.inner.model(request.tier),
            input: u64::try_from(sent.div_ceil(4)).unwrap_or(u64::MAX),
            cached_input: 0,
            output: 0,
            finished: false,
        };
        // Recording from the moment the request goes: one given up before its reply began (an
        // early tutor reply the evaluator overruled) has still reached the provider.
        let mut recording = Recording {
            inner: Box::pin(futures_util::stream::empty()),
            usage: None,
            written: 0,
            failed: false,
            call: Some(call),
            meter: self.meter.clone(),
            added: self.added.clone(),
        };
        match self.inner.stream(request).await {
            Ok(stream) => {
                recording.inner = stream;
                Ok(Box::pin(recording))
            }
            Err(err) => {
                // Refused: nothing to pay for.
                recording.call = None;
                Err(err)
            }
        }
    }

    async fn probe(&self) -> Result<(), LlmError> {
        self.inner.probe().await
    }

    async fn prepare(&self, texts: Vec<String>) {
        self.inner.prepare(texts).await;
    }
}

/// A metered reply: passes every piece on, keeps the provider's usage figures, and records
/// the call when it ends or is dropped (a reply cut off still cost what it cost: without the
/// provider's figures, its request and what it wrote, at four characters a token).
struct Recording {
    inner: ReplyStream,
    usage: Option<Usage>,
    /// Characters of text received, for a reply cut off before its usage came.
    written: usize,
    /// The reply failed part-way (a finished stream after an error is no finished reply).
    failed: bool,
    call: Option<NewCall>,
    meter: Meter,
    /// Its provider's count of tokens used since the learner's standing was read.
    added: Arc<AtomicU64>,
}

impl Stream for Recording {
    type Item = Result<Output, LlmError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let polled = self.inner.as_mut().poll_next(cx);
        match &polled {
            Poll::Ready(Some(Ok(Output::Usage(usage)))) => self.usage = Some(*usage),
            Poll::Ready(Some(Ok(Output::Text(text)))) => self.written += text.len(),
            Poll::Ready(Some(Err(_))) => self.failed = true,
            Poll::Ready(None) => {
                let finished = !self.failed;
                if let Some(call) = self.call.as_mut() {
                    call.finished = finished;
                }
                self.record();
            }
            Poll::Ready(Some(Ok(Output::Tool(_)))) | Poll::Pending => {}
        }
        polled
    }
}

impl Recording {
    /// Writes the call down, once, in the background.
    fn record(&mut self) {
        let Some(mut call) = self.call.take() else { return };
        match self.usage {
            Some(usage) => {
                (call.input, call.cached_input, call.output) = (usage.input, usage.cached_input, usage.output)
            }
            None => call.output = u64::try_from(self.written.div_ceil(4)).unwrap_or(u64::MAX),
        }
        self.meter.metrics.model_call(call.agent, call.input, call.cached_input, call.output);
        self.added.fetch_add(call.input.saturating_add(call.output), Ordering::Relaxed);
        let store = self.meter.store.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Err(err) = store.record_call(&call).await {
                    tracing::warn!("cannot record a model call's usage: {err}");
                }
            });
        }
    }
}

impl Drop for Recording {
    fn drop(&mut self) {
        self.record();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_are_utc_days_and_months() {
        // 2026-12-31 23:30 UTC.
        let now = Utc.with_ymd_and_hms(2026, 12, 31, 23, 30, 0).unwrap().timestamp_millis();
        let (day, next_day, month, next_month) = periods(now);
        let at = |y, m, d| Utc.with_ymd_and_hms(y, m, d, 0, 0, 0).unwrap().timestamp_millis();
        assert_eq!((day, next_day), (at(2026, 12, 31), at(2027, 1, 1)));
        assert_eq!((month, next_month), (at(2026, 12, 1), at(2027, 1, 1)));
    }

    #[test]
    fn a_standing_counts_what_was_used_since_it_was_read() {
        let standing = Standing {
            daily: Some(1_000),
            monthly: Some(5_000),
            today: 900,
            this_month: 900,
            lifted: false,
            next_day: 1,
            next_month: 2,
        };
        assert_eq!(standing.allowance(0), Allowance::Open);
        assert_eq!(standing.allowance(100), Allowance::Spent { until: 1, monthly: false });
        let month = Standing { daily: None, this_month: 4_990, ..standing };
        assert_eq!(month.allowance(10), Allowance::Spent { until: 2, monthly: true });
        assert_eq!(Standing { lifted: true, ..standing }.allowance(10_000), Allowance::Open);
    }

    #[test]
    fn tokens_are_priced_with_cached_input_at_its_own_price() {
        let prices = Prices(HashMap::from([(
            "m".to_string(),
            Price { input: 3.0, cached_input: Some(0.3), output: 15.0 },
        )]));
        // 1M input of which 400k cached, 100k output: 0.6M × 3 + 0.4M × 0.3 + 0.1M × 15.
        let cost = prices.cost("m", 1_000_000, 400_000, 100_000).unwrap();
        assert!((cost - (1.8 + 0.12 + 1.5)).abs() < 1e-9, "{cost}");
        assert_eq!(prices.cost("unknown", 1, 0, 1), None);
    }
}

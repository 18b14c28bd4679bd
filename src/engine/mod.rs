//! The session engine: one actor per live session (see `actor`), agents that each own their
//! prompt (`agents`), turns of model work (`turn`), the hint ladder per point (`struggle`), FSRS
//! scheduling (`fsrs`), counters of what happened (`metrics`) and the demo sets every learner starts with (`demo`).

mod actor;
pub mod agents;
pub mod demo;
mod instances;
pub mod rating;
pub use instances::Instance;
pub mod metrics;
pub mod rate;
pub mod reply_check;
mod session;
pub use session::tokens;
pub mod struggle;
mod synthesis;
pub mod today;
mod turn;
pub mod usage;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use warren_app::learner::LearnerId;

use tokio::sync::{mpsc, oneshot};
use tracing::Instrument;
use warren_app::protocol::{ClientMessage, ErrorPayload, ProviderInfo};

use crate::llm::SharedProvider;
use crate::store::{SessionRow, Store, StoreError, now_ms};
use actor::{Actor, Command};
use metrics::Metrics;
use session::LiveSession;

#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// Learner messages after a declined rabbit hole before the detector may fire again.
    pub decline_cooldown: u32,
    /// Learner messages at the start of a session during which the detector stays quiet.
    pub quiet_exchanges: usize,
    /// How long a session actor with no socket lingers before it stops (state is durable).
    pub idle_shutdown: Duration,
    /// Client messages that may wait behind a reply in progress.
    pub max_queued: usize,
    /// Learner messages per session: a burst, then one per interval.
    pub message_burst: u32,
    pub message_interval: Duration,
    /// Frames buffered per socket before a slow one is dropped (it reconnects and resyncs).
    pub socket_buffer: usize,
    /// Start the tutor alongside the evaluator, on the in-process judge's verdict (or as if
    /// the message recalls nothing, without one), and keep its reply when the evaluator finds
    /// the same: one model round trip to the first word instead of two.
    pub speculative_tutor: bool,
    /// Tokens of conversation an agent is sent; past three quarters of it the older part of
    /// the session is compacted into a summary.
    pub context_tokens: usize,
    /// Tries at a session's summary before it is shown as unavailable, and the wait before
    /// the second (each later wait is four times the one before).
    pub summary_attempts: u32,
    pub summary_backoff: Duration,
    /// How long the return from a rabbit hole waits for the summariser's note on it before
    /// it writes a plainer one.
    pub branch_summary_timeout: Duration,
    /// This process among the instances sharing the database (see `instances`).
    pub instance: Instance,
    /// How often this instance tells the database it is alive, and how long after its last
    /// word its sessions may be taken over by another instance.
    pub heartbeat: Duration,
    pub lease_lapse: Duration,
    /// What models cost (`WARREN_PRICES`), and how many tokens a learner may use by default.
    pub prices: Arc<usage::Prices>,
    pub budgets: usage::Budgets,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            decline_cooldown: 3,
            quiet_exchanges: 2,
            idle_shutdown: Duration::from_secs(600),
            max_queued: 8,
            message_burst: 12,
            message_interval: Duration::from_secs(1),
            socket_buffer: 512,
            speculative_tutor: false,
            context_tokens: 6000,
            summary_attempts: 3,
            summary_backoff: Duration::from_secs(2),
            branch_summary_timeout: Duration::from_secs(20),
            instance: Instance::default(),
            heartbeat: Duration::from_secs(1),
            lease_lapse: Duration::from_secs(5),
            prices: Arc::default(),
            budgets: usage::Budgets::default(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// No such session or set, or not this learner's: the two are never told apart.
    #[error("not found")]
    NotFound,
    #[error("this recall set has no points to recall")]
    EmptySet,
    #[error("this recall set is archived")]
    Archived,
    /// Nothing is due; the next point is due at this time (ms).
    #[error("nothing in this recall set is due yet")]
    NothingDue(i64),
    #[error("the session stopped; reconnect")]
    Gone,
    /// Another instance runs the session and did not hand it over in time.
    #[error("instance {instance} ({address}) runs this session and has not handed it over")]
    Elsewhere { instance: String, address: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What the engine has beside its provider: what it judges with in process, and the
/// provider's health, which each turn's outcome informs.
#[derive(Clone, Default)]
pub struct InProcess {
    /// Judges that answer in milliseconds, quickest first, which the speculative tutor
    /// guesses with rather than assume nothing is recalled (see `turn::Guess`).
    pub judges: Vec<SharedProvider>,
    /// The sentence model, with which the reply check also catches a point not yet tried
    /// given away in other words.
    pub embedder: Option<Arc<crate::embed::Embedder>>,
    /// Whether the provider answers, told of each turn's outcome (see `llm::health`).
    pub health: Option<Arc<crate::llm::health::ProviderHealth>>,
    /// The offline tutor that answers a learner whose allowance of the model is spent (see
    /// `usage`); one that compares words when not given.
    pub offline: Option<SharedProvider>,
}

pub(crate) struct Shared {
    pub store: Store,
    pub provider: SharedProvider,
    /// The in-process judges the speculative tutor guesses with (see `turn::Guess`).
    pub local_judges: Vec<SharedProvider>,
    /// The sentence model the reply check reads the tutor's statements with.
    pub embedder: Option<Arc<crate::embed::Embedder>>,
    pub health: Option<Arc<crate::llm::health::ProviderHealth>>,
    pub config: EngineConfig,
    pub metrics: Arc<Metrics>,
    pub synthesis: synthesis::Synthesis,
    /// Every call for a learner is metered (see `usage`).
    pub meter: usage::Meter,
    /// Whether this instance's last heartbeat could be written, and if not, why.
    pub writes: std::sync::Mutex<Result<(), String>>,
}

#[derive(Clone)]
pub struct Engine {
    shared: Arc<Shared>,
    live: Arc<Mutex<HashMap<String, mpsc::Sender<Command>>>>,
    /// Sessions whose actor is being started here (lease taken or being taken, not yet in
    /// `live`), with how many starts are under way.
    starting: Arc<Mutex<HashMap<String, usize>>>,
    /// Learners some of whose sign-ins just ended here: their sockets check theirs at once
    /// (sockets on other instances find out on their next periodic check).
    sign_ins: tokio::sync::broadcast::Sender<LearnerId>,
}

/// What a learner is told while nothing can be saved (`ErrorCode::StorageUnavailable`).
pub const STORAGE_PAUSED: &str = "Saving is paused: Warren cannot reach its database just now. What you wrote \
is back in the box; the session goes on by itself once the database is back.";

/// What a socket receives from its session.
pub enum Outbound {
    /// A frame of the session's stream, written once for every socket (it carries its `seq`).
    Frame(Arc<str>),
    /// A newer socket took the session over: this one sends the error and closes (4409).
    TakenOver(ErrorPayload),
    /// The learner's account is being deleted: this one sends the error and closes (4401).
    SignedOut(ErrorPayload),
    /// The database has been out of reach too long to go on: this one sends the error and
    /// closes (1013), and the page tries again until the session can be opened.
    Paused(ErrorPayload),
}

/// A socket's connection to a session actor. Dropping it detaches.
pub struct Attachment {
    id: u64,
    commands: mpsc::Sender<Command>,
    pub messages: mpsc::Receiver<Outbound>,
}

impl Attachment {
    /// Hands a validated client message to the session, in order.
    pub async fn send(&self, message: ClientMessage) -> Result<(), EngineError> {
        self.commands.send(Command::Client { from: self.id, message }).await.map_err(|_| EngineError::Gone)
    }
}

impl Drop for Attachment {
    fn drop(&mut self) {
        let detach = Command::Detach(self.id);
        if let Err(mpsc::error::TrySendError::Full(detach)) = self.commands.try_send(detach) {
            let commands = self.commands.clone();
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(async move {
                    let _ = commands.send(detach).await;
                });
            }
        }
    }
}

impl Engine {
    pub fn new(store: Store, provider: SharedProvider, config: EngineConfig) -> Self {
        Self::judged(store, provider, InProcess::default(), config)
    }

    /// An engine that also judges in process (see [`InProcess`]).
    pub fn judged(
        store: Store,
        provider: SharedProvider,
        in_process: InProcess,
        config: EngineConfig,
    ) -> Self {
        let metrics = Arc::new(Metrics::default());
        let meter = usage::Meter {
            store: store.clone(),
            prices: config.prices.clone(),
            budgets: config.budgets,
            offline: in_process.offline.unwrap_or_else(|| {
                Arc::new(crate::llm::offline::Offline::new(Duration::ZERO, None)) as SharedProvider
            }),
            metrics: metrics.clone(),
        };
        let shared = Shared {
            store,
            provider,
            local_judges: in_process.judges,
            embedder: in_process.embedder,
            health: in_process.health,
            config,
            metrics,
            synthesis: Default::default(),
            meter,
            writes: std::sync::Mutex::new(Ok(())),
        };
        let (sign_ins, _) = tokio::sync::broadcast::channel(64);
        Self { shared: Arc::new(shared), live: Arc::default(), starting: Arc::default(), sign_ins }
    }

    /// Some of the learner's sign-ins have ended (signed out, a new password, ended from the
    /// account page): their open sockets check whether theirs was one.
    pub fn sign_ins_ended(&self, learner: &LearnerId) {
        // No socket listening is no one to tell.
        let _ = self.sign_ins.send(learner.clone());
    }

    /// Stops every session of the learner's that may be running, here or on another
    /// instance, before their account is deleted. Actors here stop without writing again;
    /// sessions another instance runs are handed over to this one, which then holds their
    /// leases until the account's rows (leases included) are deleted. `Elsewhere` when an
    /// instance does not hand over in time: nothing is deleted then.
    pub async fn stop_sessions_of(&self, learner: &LearnerId) -> Result<(), EngineError> {
        for session in self.shared.store.leased_sessions(learner).await? {
            if let Some(actor) = self.running(&session) {
                let (done, stopped) = oneshot::channel();
                if actor.send(Command::Stop(done)).await.is_ok() {
                    // An actor that ended meanwhile drops `done`; either way it is stopped.
                    let _ = stopped.await;
                }
            } else {
                self.lease(&session).await?;
            }
        }
        Ok(())
    }

    /// The session's stored rows changed outside its actor (see [`Command::Changed`]).
    pub async fn changed(&self, session_id: &str) {
        if let Some(actor) = self.running(session_id) {
            // An actor that ended meanwhile has nothing to load again: the next one loads
            // what is stored.
            let _ = actor.send(Command::Changed).await;
        }
    }

    /// Learners whose sign-ins ended, as they end (see [`Engine::sign_ins_ended`]).
    pub fn watch_sign_ins(&self) -> tokio::sync::broadcast::Receiver<LearnerId> {
        self.sign_ins.subscribe()
    }

    /// What the engine has counted since start-up.
    pub fn metrics(&self) -> &Metrics {
        &self.shared.metrics
    }

    /// The provider, metered for `learner` (and `session`): for calls made outside a live
    /// session's actor (drafting, a spoken answer's clean-up, a session's summary).
    pub fn metered(&self, learner: &LearnerId, session: Option<&str>) -> Arc<usage::Metered> {
        self.shared.meter.wrap(self.shared.provider.clone(), learner, session)
    }

    /// Whether the database takes writes, as this instance's heartbeat last found it (every
    /// second): `Err` with why while it does not.
    pub fn writes(&self) -> Result<(), String> {
        self.shared.writes.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// What models cost, and the usual allowances.
    pub fn meter(&self) -> &usage::Meter {
        &self.shared.meter
    }

    pub fn provider_info(&self) -> ProviderInfo {
        self.shared.provider.info()
    }

    /// The language model the sessions use (the transcript clean-up uses it too).
    pub fn provider(&self) -> SharedProvider {
        self.shared.provider.clone()
    }

    pub fn store(&self) -> &Store {
        &self.shared.store
    }

    /// Starts a session on a set: the points due now, or every point when `all` (a learner
    /// who wants to study anyway). Open sessions of that set are abandoned: one set, one
    /// session under way. An archived set cannot be started.
    pub async fn start_session(
        &self,
        learner: &LearnerId,
        set_id: &str,
        all: bool,
    ) -> Result<SessionRow, EngineError> {
        let store = &self.shared.store;
        let set = store.set(learner, set_id).await?.ok_or(EngineError::NotFound)?;
        if set.archived_at.is_some() {
            return Err(EngineError::Archived);
        }
        let points = store.points(learner, set_id).await?;
        if points.is_empty() {
            return Err(EngineError::EmptySet);
        }
        let now = now_ms();
        let targets: Vec<String> =
            points.iter().filter(|p| all || p.card.due_at <= now).map(|p| p.id.clone()).collect();
        if targets.is_empty() {
            let next = points.iter().map(|p| p.card.due_at).min().unwrap_or(now);
            return Err(EngineError::NothingDue(next));
        }
        self.replace_open(learner, Some(set_id)).await?;
        Ok(store.create_session(learner, Some(set_id), &[set_id.to_string()], &targets).await?)
    }

    /// Starts today's review: the learner's due points across every set (archived ones
    /// aside), within their daily limits, in the queue's order (see `schedule::today`). An
    /// open review is abandoned first, so the points it tried count as reviewed: one review
    /// under way at a time.
    pub async fn start_review(
        &self,
        learner: &LearnerId,
        utc_offset_min: i32,
    ) -> Result<SessionRow, EngineError> {
        let store = &self.shared.store;
        if today::plan(store, learner, now_ms(), utc_offset_min).await?.queue.points.is_empty() {
            return Err(EngineError::NothingDue(now_ms()));
        }
        self.replace_open(learner, None).await?;
        let plan = today::plan(store, learner, now_ms(), utc_offset_min).await?;
        if plan.queue.points.is_empty() {
            return Err(EngineError::NothingDue(now_ms()));
        }
        Ok(store.create_session(learner, None, &plan.set_ids(), &plan.point_ids()).await?)
    }

    /// Abandons the learner's open sessions of a set (`None`: their open reviews), telling
    /// whoever runs them.
    async fn replace_open(&self, learner: &LearnerId, set_id: Option<&str>) -> Result<(), EngineError> {
        for replaced in self.shared.store.abandon_open_sessions(learner, set_id).await? {
            // Its sockets learn it has ended (the database says so already); its rabbit hole,
            // if it was in one, is closed and its summary written, here or by its actor.
            let told = match self.running(&replaced) {
                Some(actor) => actor.send(Command::Abandoned).await.is_ok(),
                None => false,
            };
            if !told {
                self.close_replaced(learner, &replaced).await?;
            }
        }
        Ok(())
    }

    /// A session replaced while no actor here runs it: its rabbit hole closed, its summary
    /// asked for. (One another instance runs finds its row abandoned and stops.)
    async fn close_replaced(&self, learner: &LearnerId, session_id: &str) -> Result<(), EngineError> {
        let store = &self.shared.store;
        if let Some(mut session) = LiveSession::load(store, learner, session_id).await? {
            session.close_rabbithole(store).await?;
        }
        store.mark_summary_pending(learner, session_id).await?;
        drop(synthesis::request(&self.shared, learner, session_id));
        Ok(())
    }

    /// Attaches a socket to a session, starting its actor if need be. `since` is the last
    /// `seq` the page saw, when it is reconnecting (see the protocol's `ServerFrame`).
    pub async fn attach(
        &self,
        learner: &LearnerId,
        session_id: &str,
        since: Option<u64>,
    ) -> Result<Attachment, EngineError> {
        // A stopping actor may refuse the first try; a fresh one is started for the second.
        for _ in 0..2 {
            let commands = self.actor(learner, session_id).await?;
            let (tx, messages) = mpsc::channel(self.shared.config.socket_buffer);
            let (reply, answer) = oneshot::channel();
            if commands.send(Command::Attach { learner: learner.clone(), since, tx, reply }).await.is_err() {
                self.forget(session_id, &commands);
                continue;
            }
            match answer.await {
                Ok(Ok(id)) => return Ok(Attachment { id, commands, messages }),
                Ok(Err(err)) => return Err(err),
                Err(_) => self.forget(session_id, &commands),
            }
        }
        Err(EngineError::Gone)
    }

    async fn actor(
        &self,
        learner: &LearnerId,
        session_id: &str,
    ) -> Result<mpsc::Sender<Command>, EngineError> {
        if let Some(running) = self.running(session_id) {
            return Ok(running);
        }
        // Checked before the lease, so another learner's id never waits or takes anything.
        if self.shared.store.session(learner, session_id).await?.is_none() {
            return Err(EngineError::NotFound);
        }
        let _starting = instances::Starting::new(&self.starting, session_id);
        let lease = self.lease(session_id).await?;
        // Loaded once the lease is held: what the previous holder stored is all there.
        let session =
            LiveSession::load(&self.shared.store, learner, session_id).await?.ok_or(EngineError::NotFound)?;
        let (commands, inbox) = mpsc::channel(64);
        // Another socket may have started it while this one loaded: use theirs.
        let chosen = {
            let mut live = self.live.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            match live.get(session_id).filter(|c| !c.is_closed()) {
                // Its own lease (taken by this instance too) stands; this one is not used.
                Some(existing) => return Ok(existing.clone()),
                None => {
                    live.insert(session_id.to_string(), commands.clone());
                    commands
                }
            }
        };
        let store = self.shared.store.fenced(session_id, &lease);
        let actor = Actor::new(self.shared.clone(), store, session);
        let live = self.live.clone();
        let id = session_id.to_string();
        let mine = chosen.clone();
        let store = self.shared.store.clone();
        let span = tracing::info_span!("session", id = session_id);
        tokio::spawn(async move {
            actor.run(inbox).instrument(span).await;
            {
                let mut live = live.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                if live.get(&id).is_some_and(|c| c.same_channel(&mine)) {
                    live.remove(&id);
                }
            }
            if let Err(err) = store.release_lease(&id, &lease).await {
                // It lapses on its own once this instance stops beating.
                tracing::warn!(session = id, "cannot give back a session's lease: {err}");
            }
        });
        Ok(chosen)
    }

    fn running(&self, session_id: &str) -> Option<mpsc::Sender<Command>> {
        let live = self.live.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        live.get(session_id).filter(|c| !c.is_closed()).cloned()
    }

    fn forget(&self, session_id: &str, commands: &mpsc::Sender<Command>) {
        let mut live = self.live.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if live.get(session_id).is_some_and(|c| c.same_channel(commands)) {
            live.remove(session_id);
        }
    }
}

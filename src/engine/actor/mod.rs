//! The session actor: the one learner of a live session's state. Sockets talk to it through a
//! channel; it never holds a lock across an `.await`. Client messages are handled one at a
//! time, in arrival order: while a turn (language-model work) is under way, later messages
//! wait in a bounded queue. Every change is written to the database before it is announced.
//!
//! This module is the command loop and delivery; `attach` draws a socket's view when it
//! attaches (and opens or resumes the session), `client` handles each client message,
//! `rabbithole` the side conversations, `turns` the model work and what it reports, and
//! `assess` the evaluator's and detector's findings. Client messages also wait while a return
//! from a rabbit hole waits for the summariser's note on it.

mod assess;
mod attach;
mod client;
mod compact;
mod rabbithole;
mod replay;
mod turns;

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;
use warren_app::learner::LearnerId;

use tokio::sync::{mpsc, oneshot};
use warren_app::protocol::{
    ClientMessage, ErrorCode, ErrorPayload, Notice, ServerFrame, ServerMessage, SessionEvent, SessionStatus,
};

use super::rate::TokenBucket;
use super::session::LiveSession;
use super::synthesis;
use super::usage::Metered;
use super::{EngineError, Outbound, STORAGE_PAUSED, Shared};
use crate::store::{Store, StoreError, now_ms};
use compact::Compaction;
use replay::FrameLog;
use turns::ActiveTurn;

pub enum Command {
    Attach {
        learner: LearnerId,
        /// The last `seq` the page saw, when it is reconnecting.
        since: Option<u64>,
        tx: mpsc::Sender<Outbound>,
        reply: oneshot::Sender<Result<u64, EngineError>>,
    },
    Detach(u64),
    Client {
        from: u64,
        message: ClientMessage,
    },
    /// A newer session of the same set replaced this one (already written to the database).
    Abandoned,
    /// Another instance wants the session (a newer socket reached it): stop now, leaving
    /// everything to what is stored.
    HandOver,
    /// The database has been out of reach for so long that this instance's lease may have
    /// lapsed: stop now, telling every socket that saving is paused (they try again, and
    /// attach wherever the session runs once the database is back).
    StoragePaused,
    /// The learner's account is being deleted: stop at once, writing nothing more, and say
    /// so once stopped.
    Stop(oneshot::Sender<()>),
    /// Its stored rows changed outside it (a recall disputed on the history page): the next
    /// page to attach gets the session as stored, not the progress the actor had. A page
    /// already attached keeps its session as it is.
    Changed,
}

/// Who receives a frame.
#[derive(Clone, Copy)]
enum Audience {
    All,
    One(u64),
}

/// Why a client message was refused; the learner's socket gets an `error` frame.
enum Refusal {
    Client(ErrorCode, String),
    Store(StoreError),
}

impl From<StoreError> for Refusal {
    fn from(err: StoreError) -> Self {
        Refusal::Store(err)
    }
}

type Handled = Result<(), Refusal>;

fn refuse(code: ErrorCode, message: impl Into<String>) -> Handled {
    Err(Refusal::Client(code, message.into()))
}

pub struct Actor {
    shared: Arc<Shared>,
    /// The provider, metered for this session's learner (see `usage`).
    provider: Arc<Metered>,
    /// The store fenced by the session's lease: every write checks the lease still stands.
    store: Store,
    session: LiveSession,
    subscribers: Vec<(u64, mpsc::Sender<Outbound>)>,
    log: FrameLog,
    next_subscriber: u64,
    /// Client messages waiting, with when each arrived.
    queue: VecDeque<(u64, ClientMessage, Instant)>,
    /// When the learner message the turn under way answers arrived (for the turn-time metric).
    answering: Option<Instant>,
    turn: Option<ActiveTurn>,
    compaction: Option<Compaction>,
    /// A return from a rabbit hole waiting for the summariser's note on it.
    returning: Option<rabbithole::Returning>,
    /// Learner messages per session. It holds across instances because one instance at a
    /// time runs the session (its lease); a handover starts the next holder's bucket full.
    learner_rate: TokenBucket,
    /// Stopping for another instance (see `hand_over`).
    handed_over: bool,
    /// Its stored rows changed outside it ([`Command::Changed`]): loaded again at the next
    /// attach.
    stale: bool,
    /// Said when the learner's allowance of the model ran out; in force until it comes round.
    allowance_notice: Option<Notice>,
}

impl Actor {
    /// An actor for `session`, writing through `store` (fenced by the session's lease).
    pub fn new(shared: Arc<Shared>, store: Store, session: LiveSession) -> Self {
        let learner_rate = TokenBucket::new(shared.config.message_burst, shared.config.message_interval);
        let provider = shared.meter.wrap(shared.provider.clone(), session.learner(), Some(session.id()));
        Self {
            provider,
            shared,
            store,
            session,
            subscribers: Vec::new(),
            log: FrameLog::new(now_ms()),
            next_subscriber: 1,
            queue: VecDeque::new(),
            answering: None,
            turn: None,
            compaction: None,
            returning: None,
            learner_rate,
            handed_over: false,
            stale: false,
            allowance_notice: None,
        }
    }

    pub async fn run(mut self, mut commands: mpsc::Receiver<Command>) {
        loop {
            let idle = self.subscribers.is_empty()
                && self.turn.is_none()
                && self.queue.is_empty()
                && self.compaction.is_none()
                && self.returning.is_none();
            tokio::select! {
                command = commands.recv() => match command {
                    Some(command) => self.on_command(command).await,
                    None => break,
                },
                event = turns::next_event(&mut self.turn) => self.on_turn_event(event).await,
                done = compact::next_summary(&mut self.compaction) => self.on_summary(done),
                note = rabbithole::next_note(&mut self.returning) => self.finish_return(note).await,
                () = tokio::time::sleep(self.shared.config.idle_shutdown), if idle => break,
            }
            if self.store.lease_lost() {
                self.lost_lease();
            }
            if self.handed_over {
                break;
            }
            self.apply_compaction().await;
            while self.turn.is_none() && self.returning.is_none() {
                let Some((from, message, arrived)) = self.queue.pop_front() else { break };
                let answers = matches!(message, ClientMessage::UserMessage { .. });
                self.handle(from, message).await;
                if answers {
                    self.answering = self.turn.is_some().then_some(arrived);
                }
            }
        }
        tracing::debug!(session = self.session.id(), "session actor stopped");
    }

    async fn on_command(&mut self, command: Command) {
        match command {
            Command::Attach { learner, since, tx, reply } => {
                if learner != *self.session.learner() {
                    let _ = reply.send(Err(EngineError::NotFound));
                    return;
                }
                let id = self.next_subscriber;
                self.next_subscriber += 1;
                // One socket per session: the newest (a reload, another tab or device) takes
                // over, and the others are told why before they close (4409), so two pages
                // never both stream or send.
                self.close_as_taken_over(
                    "This session was opened in another tab or window; reload this page to study here.",
                );
                self.load_again_if_stale().await;
                self.subscribers.push((id, tx));
                let _ = reply.send(Ok(id));
                if let Err(err) = self.on_attach(id, since).await {
                    self.report(id, Refusal::Store(err), None);
                }
            }
            Command::Detach(id) => {
                self.subscribers.retain(|(s, _)| *s != id);
                if self.subscribers.is_empty()
                    && let Err(err) = self.stop_clock().await
                {
                    tracing::error!(session = self.session.id(), "cannot save study time: {err}");
                }
            }
            Command::Abandoned => {
                self.session.fold_clock(now_ms());
                self.session.row.state.status = SessionStatus::Abandoned;
                self.queue.clear();
                // A rabbit hole it was in is closed (its conversation kept), and the session
                // gets its summary like any that ends.
                let closed = self.session.close_rabbithole(&self.store).await;
                if let Err(err) = closed {
                    tracing::error!(
                        session = self.session.id(),
                        "cannot close the rabbit hole of a replaced session: {err}"
                    );
                }
                self.summarise().await;
                self.shared.metrics.error(ErrorCode::SessionEnded);
                let frame = ServerMessage::Error(ErrorPayload::new(
                    ErrorCode::SessionEnded,
                    "A newer session of this set replaced this one.",
                    false,
                ));
                self.send(Audience::All, frame);
            }
            Command::HandOver => self.hand_over().await,
            Command::Changed => self.stale = true,
            Command::StoragePaused => self.storage_paused(),
            Command::Stop(done) => {
                self.turn = None;
                self.compaction = None;
                self.returning = None;
                self.queue.clear();
                // Signed out for good: the pages do not come back to start it again.
                let gone =
                    ErrorPayload::new(ErrorCode::Unauthorized, "Your account is being deleted.", false);
                for (_, socket) in self.subscribers.drain(..) {
                    self.shared.metrics.error(ErrorCode::Unauthorized);
                    let _ = socket.try_send(Outbound::SignedOut(gone.clone()));
                }
                self.handed_over = true;
                let _ = done.send(());
            }
            Command::Client { from, message } => {
                if self.queue.len() >= self.shared.config.max_queued {
                    let busy = "Messages are arriving faster than they can be answered; wait for the reply.";
                    let refused = message.client_message_id().map(str::to_string);
                    self.report(from, Refusal::Client(ErrorCode::Busy, busy.into()), refused);
                } else {
                    self.queue.push_back((from, message, Instant::now()));
                }
            }
        }
    }

    /// Marks the session's summary as to be written and starts writing it, in the background.
    async fn summarise(&self) {
        let (learner, id) = (self.session.learner(), self.session.id());
        match self.store.mark_summary_pending(learner, id).await {
            Ok(_) => drop(synthesis::request(&self.shared, learner, id)),
            Err(err) => tracing::error!(session = id, "cannot ask for the session's summary: {err}"),
        }
    }

    /// Tells one socket why something it sent was refused; `refused` names the learner
    /// message, so the page gives exactly that text back.
    fn report(&mut self, to: u64, refusal: Refusal, refused: Option<String>) {
        if let Refusal::Store(StoreError::LeaseLost(_)) = refusal {
            // Every socket is told the session is elsewhere as the actor stops (see `run`).
            return;
        }
        let (code, message) = match refusal {
            Refusal::Client(code, message) => (code, message),
            Refusal::Store(err) if err.is_unavailable() => {
                tracing::warn!(session = self.session.id(), "the database is out of reach: {err}");
                (ErrorCode::StorageUnavailable, STORAGE_PAUSED.into())
            }
            Refusal::Store(err) => {
                tracing::error!(session = self.session.id(), "storage failed: {err}");
                (
                    ErrorCode::Internal,
                    "The server could not save that; nothing you wrote was lost. Try again.".into(),
                )
            }
        };
        self.shared.metrics.error(code);
        let frame = ServerMessage::Error(ErrorPayload {
            client_message_id: refused,
            ..ErrorPayload::new(code, message, true)
        });
        self.send(Audience::One(to), frame);
    }

    /// Tells every socket attached that the session is now elsewhere (each closes, 4409).
    fn close_as_taken_over(&mut self, why: &str) {
        let taken = ErrorPayload::new(ErrorCode::SessionTakenOver, why, false);
        for (_, socket) in self.subscribers.drain(..) {
            self.shared.metrics.error(ErrorCode::SessionTakenOver);
            let _ = socket.try_send(Outbound::TakenOver(taken.clone()));
        }
    }

    /// Closes every socket as taken over and stops. A reply under way is dropped, neither
    /// shown in full nor stored: the next holder answers the learner's message.
    async fn hand_over(&mut self) {
        self.close_as_taken_over(
            "This session was opened somewhere else (another tab, window or server); reload this page to study here.",
        );
        self.turn = None;
        self.compaction = None;
        self.returning = None;
        self.queue.clear();
        if let Err(err) = self.stop_clock().await {
            tracing::error!(session = self.session.id(), "cannot save study time: {err}");
        }
        self.handed_over = true;
        tracing::info!(session = self.session.id(), "handed the session over to another instance");
    }

    /// The database has been out of reach so long that another instance may run the session
    /// once it is back: stop at once, writing nothing (nothing could be written), and tell
    /// every page that saving is paused. Each tries again until the session can be opened;
    /// what it had not yet had stored it sends again then, so nothing is lost.
    fn storage_paused(&mut self) {
        let paused = ErrorPayload::new(ErrorCode::StorageUnavailable, STORAGE_PAUSED, true);
        for (_, socket) in self.subscribers.drain(..) {
            self.shared.metrics.error(ErrorCode::StorageUnavailable);
            let _ = socket.try_send(Outbound::Paused(paused.clone()));
        }
        self.turn = None;
        self.compaction = None;
        self.returning = None;
        self.queue.clear();
        self.handed_over = true;
        tracing::warn!(session = self.session.id(), "stopped: the database is out of reach");
    }

    /// A write found the session's lease taken over (this instance was frozen past the lapse,
    /// and another runs the session now): stop at once, writing nothing more. The learner's
    /// page reconnects to the instance that runs it.
    fn lost_lease(&mut self) {
        tracing::error!(
            session = self.session.id(),
            "another instance took this session over while this one was not heard from; stopping without writing"
        );
        self.close_as_taken_over(
            "This session is running somewhere else now (another server took it over); reload this page to study here.",
        );
        self.turn = None;
        self.compaction = None;
        self.returning = None;
        self.queue.clear();
        self.handed_over = true;
    }

    /// The session as stored, after a change made outside the actor; kept as it is while a
    /// turn, a summary or a return from a rabbit hole is under way (the next attach tries
    /// again).
    async fn load_again_if_stale(&mut self) {
        if !self.stale || self.turn.is_some() || self.compaction.is_some() || self.returning.is_some() {
            return;
        }
        if let Err(err) = self.stop_clock().await {
            tracing::error!(session = self.session.id(), "cannot save study time: {err}");
            return;
        }
        let learner = self.session.learner().clone();
        match LiveSession::load(&self.store, &learner, self.session.id()).await {
            Ok(Some(session)) => {
                self.session = session;
                self.stale = false;
            }
            Ok(None) => {}
            Err(err) => tracing::error!(session = self.session.id(), "cannot load the session again: {err}"),
        }
    }

    async fn stop_clock(&mut self) -> Result<(), StoreError> {
        if self.session.row.state.resumed_at.is_none() {
            return Ok(());
        }
        self.session.fold_clock(now_ms());
        self.session.save(&self.store).await
    }

    /// Tells the event's listeners (the engine's counters, then the learner's sockets).
    fn emit(&mut self, event: SessionEvent, audience: Audience) {
        self.shared.metrics.observe(&event);
        if let Some(message) = event.into_server_message() {
            self.send(audience, message);
        }
    }

    fn send_error(&mut self, audience: Audience, code: ErrorCode, message: impl Into<String>) {
        self.shared.metrics.error(code);
        let frame = ServerMessage::Error(ErrorPayload::new(code, message, true));
        self.send(audience, frame);
    }

    /// Numbers a frame, keeps it when it is for the whole session (see `replay`) and delivers
    /// it.
    fn send(&mut self, audience: Audience, message: ServerMessage) {
        let seq = self.log.next_seq();
        let text: Arc<str> = match serde_json::to_string(&ServerFrame {
            message,
            seq: Some(seq),
            timestamp: Some(now_ms()),
        }) {
            Ok(text) => text.into(),
            Err(err) => {
                tracing::error!(session = self.session.id(), "cannot write a frame: {err}");
                return;
            }
        };
        if let Audience::All = audience {
            self.log.keep(seq, text.clone());
        }
        self.deliver(audience, &text);
    }

    /// Hands a written frame to its sockets. A socket that cannot keep up is dropped; it
    /// reconnects and catches up.
    fn deliver(&mut self, audience: Audience, text: &Arc<str>) {
        self.subscribers.retain(|(id, tx)| match audience {
            Audience::One(target) if *id != target => true,
            Audience::One(_) | Audience::All => tx.try_send(Outbound::Frame(text.clone())).is_ok(),
        });
    }
}

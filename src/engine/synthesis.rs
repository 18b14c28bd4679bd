//! Session synthesis: when a learner leaves or completes a session, its summary is written in
//! the background (Done and Leave never wait for it). The request is durable: the session row
//! says `pending` before the work starts, so a restart picks it up again (see
//! [`Engine::resume_summaries`]). A failure is retried with backoff; after the last attempt the
//! row says `failed` and the history page offers Retry.
//!
//! The facts of a summary (what was recalled and how, what is open, the rabbit holes) are read
//! from the stored rows here; the summariser agent adds the prose.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use warren_app::learner::LearnerId;

use tokio::sync::{Semaphore, oneshot};
use warren_app::summary::{OpenPoint, RecallHow, RecalledPoint, SessionSummary};

use super::agents::summariser;
use super::session::LiveSession;
use super::{Engine, EngineError, Shared};
use crate::llm::Message;
use crate::llm::brief::{BranchDigest, Recap, SessionDigest};
use crate::store::{RabbitholeStatus, StoreError, Struggle, now_ms};

/// Summaries written at once, whatever the number of sessions ending.
const WRITERS: usize = 2;

/// Summaries being written, by session: a request for one under way is remembered and run
/// once more when it ends (the session changed since it started).
pub(crate) struct Synthesis {
    running: Mutex<HashMap<String, Running>>,
    writers: Semaphore,
}

#[derive(Default)]
struct Running {
    again: bool,
    waiting: Vec<oneshot::Sender<()>>,
}

impl Default for Synthesis {
    fn default() -> Self {
        Self { running: Mutex::default(), writers: Semaphore::new(WRITERS) }
    }
}

/// Starts writing a session's summary (already marked pending); the receiver hears when this
/// request's summary is stored or has finally failed.
pub(crate) fn request(shared: &Arc<Shared>, learner: &LearnerId, session_id: &str) -> oneshot::Receiver<()> {
    let (tx, rx) = oneshot::channel();
    {
        let mut running = shared.synthesis.running.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(run) = running.get_mut(session_id) {
            run.again = true;
            run.waiting.push(tx);
            return rx;
        }
        running.insert(session_id.to_string(), Running { again: false, waiting: vec![tx] });
    }
    let shared = shared.clone();
    let (learner, session_id) = (learner.clone(), session_id.to_string());
    tokio::spawn(async move {
        loop {
            write_with_retries(&shared, &learner, &session_id).await;
            // Asked for again while it was being written: run once more; else done.
            let again = {
                let mut running = shared.synthesis.running.lock().unwrap_or_else(|p| p.into_inner());
                let Some(run) = running.get_mut(&session_id) else { break };
                let again = std::mem::take(&mut run.again);
                if !again && let Some(run) = running.remove(&session_id) {
                    for waiting in run.waiting {
                        let _ = waiting.send(());
                    }
                }
                again
            };
            if !again {
                break;
            }
            // The summary just written (or given up) settled the row: it is asked for anew.
            if let Err(err) = shared.store.mark_summary_pending(&learner, &session_id).await {
                tracing::error!(session = session_id, "cannot ask for the summary again: {err}");
            }
        }
    });
    rx
}

async fn write_with_retries(shared: &Shared, learner: &LearnerId, session_id: &str) {
    let me = &shared.config.instance.id;
    match shared.store.claim_summary(learner, session_id, me, shared.config.lease_lapse).await {
        Ok(true) => {}
        Ok(false) => {
            tracing::debug!(session = session_id, "summary written elsewhere, or no longer pending");
            return;
        }
        Err(err) => {
            // Left pending: a later sweep or start-up claims it.
            tracing::error!(session = session_id, "cannot claim the summary to write: {err}");
            return;
        }
    }
    let attempts = shared.config.summary_attempts.max(1);
    let mut delay = shared.config.summary_backoff;
    for attempt in 1..=attempts {
        let result = {
            let Ok(_writer) = shared.synthesis.writers.acquire().await else { return };
            write(shared, learner, session_id).await
        };
        match result {
            Ok(()) => return,
            Err(err) if attempt < attempts => {
                tracing::warn!(
                    session = session_id,
                    attempt,
                    "summary failed, trying again in {delay:?}: {err}"
                );
                tokio::time::sleep(delay).await;
                delay *= 4;
            }
            Err(err) => {
                tracing::error!(session = session_id, attempts, "summary unavailable: {err}");
                if let Err(err) = shared.store.summary_failed(learner, session_id, me, &err.to_string()).await
                {
                    tracing::error!(session = session_id, "cannot record a failed summary: {err}");
                }
            }
        }
    }
}

#[derive(Debug, thiserror::Error)]
enum WriteError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Llm(#[from] crate::llm::LlmError),
}

async fn write(shared: &Shared, learner: &LearnerId, session_id: &str) -> Result<(), WriteError> {
    let Some(session) = LiveSession::load(&shared.store, learner, session_id).await? else {
        // Deleted since: nothing to sum up.
        return Ok(());
    };
    let digest = digest(&session, now_ms());
    let provider = shared.meter.wrap(shared.provider.clone(), learner, Some(session_id));
    let summary = summariser::summarise_session(&*provider, &session.full_title(), digest).await?;
    let data = serde_json::to_value(&summary).unwrap_or_default();
    let me = &shared.config.instance.id;
    if shared.store.store_summary(learner, session_id, me, summary.text(), data).await?.is_none() {
        // Its claim lapsed (this instance went quiet) and another instance took it over.
        tracing::warn!(session = session_id, "summary not stored: another instance writes it now");
    }
    Ok(())
}

/// The facts of a session's summary, from its rows.
pub(crate) fn digest(session: &LiveSession, now: i64) -> SessionDigest {
    let struggle = |id: &str| session.struggles.get(id).cloned().unwrap_or_default();
    let point_text = |id: &str| session.points.iter().find(|p| p.id == id).map(|p| p.content.clone());
    let recalled = session
        .outcomes
        .iter()
        .filter_map(|o| {
            Some(RecalledPoint {
                point: point_text(&o.point_id)?,
                how: how(&struggle(&o.point_id)),
                in_rabbithole: o.in_rabbithole,
                point_id: o.point_id.clone(),
            })
        })
        .collect();
    let open = session
        .pending()
        .into_iter()
        .map(|p| {
            let s = struggle(&p.id);
            OpenPoint {
                point_id: p.id.clone(),
                point: p.content.clone(),
                attempts: s.attempts,
                hints: s.hints,
                near_misses: s.near_misses,
                revealed: s.revealed,
            }
        })
        .collect();
    let rabbitholes = session
        .rabbitholes
        .iter()
        .filter(|r| r.status == RabbitholeStatus::Returned)
        .map(|r| BranchDigest {
            topic: r.topic.clone(),
            conversation: conversation(r.conversation.as_ref()),
            points_recalled: u32::try_from(r.points_recalled).unwrap_or(0),
        })
        .collect();
    SessionDigest {
        completed: session.all_recalled(),
        review: session.is_review(),
        abandoned: session.status() == warren_app::protocol::SessionStatus::Abandoned,
        study_ms: i64::try_from(session.elapsed_ms(now)).unwrap_or(i64::MAX),
        total: session.total(),
        recalled,
        open,
        rabbitholes,
        messages: session.tutor_context(),
        next_due: session.points.iter().map(|p| p.card.due_at).min(),
        now,
    }
}

/// How a recalled point came back, from its struggle in the session.
fn how(s: &Struggle) -> RecallHow {
    if s.revealed {
        RecallHow::AfterAnswer
    } else if s.hints > 0 || s.attempts > 0 {
        RecallHow::AfterHints
    } else if s.near_misses > 0 {
        RecallHow::AfterNearMiss
    } else {
        RecallHow::Unprompted
    }
}

/// A finished rabbit hole's stored conversation (`[{role, content}]`).
fn conversation(stored: Option<&serde_json::Value>) -> Vec<Message> {
    stored
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
        .filter_map(|m| {
            let content = m.get("content")?.as_str()?;
            match m.get("role")?.as_str()? {
                "user" => Some(Message::user(content)),
                "assistant" => Some(Message::assistant(content)),
                _ => None,
            }
        })
        .collect()
}

/// What the tutor may say of a summarised session.
pub(crate) fn recap(summary: &SessionSummary, now: i64) -> Recap {
    Recap {
        at: summary.written_at,
        now,
        completed: summary.completed,
        topics: summary.rabbitholes.iter().map(|t| t.topic.clone()).collect(),
        last_said: None,
    }
}

impl Engine {
    /// Writes the summaries left pending that no live instance is writing: at start-up, and
    /// now and then after (an instance that died mid-summary leaves one behind).
    pub async fn resume_summaries(&self) -> Result<usize, EngineError> {
        let pending = self.shared.store.pending_summaries(self.shared.config.lease_lapse).await?;
        for (learner, session_id) in &pending {
            drop(request(&self.shared, learner, session_id));
        }
        Ok(pending.len())
    }

    /// The learner's Retry: writes the session's summary again, and waits up to `wait` for it
    /// (it goes on in the background after that).
    pub async fn retry_summary(
        &self,
        learner: &LearnerId,
        session_id: &str,
        wait: Duration,
    ) -> Result<(), EngineError> {
        if !self.shared.store.mark_summary_pending(learner, session_id).await? {
            return Err(EngineError::NotFound);
        }
        let done = request(&self.shared, learner, session_id);
        let _ = tokio::time::timeout(wait, done).await;
        Ok(())
    }
}

//! Compaction: once a reply is stored and the tutor's conversation has grown past its share
//! of the budget, the summariser condenses the older part in its own task; the actor writes
//! the `compaction` entry when no turn is under way. Nothing is deleted: the entries stay in
//! the tree and the history, and only the agents' context changes.

use tokio::sync::oneshot;

use super::Actor;
use crate::engine::agents::summariser;
use crate::engine::session::CompactionPlan;
use crate::llm::LlmError;
use crate::llm::brief::{SummaryBrief, SummaryTask};

/// A compaction under way, or written by the summariser and waiting for the turn to end.
pub(super) enum Compaction {
    Running(oneshot::Receiver<Compacted>),
    Ready(Compacted),
}

pub(super) struct Compacted {
    plan: CompactionPlan,
    summary: Result<String, LlmError>,
}

/// The summariser's answer; never resolves when none is awaited.
pub(super) async fn next_summary(compaction: &mut Option<Compaction>) -> Option<Compacted> {
    match compaction {
        Some(Compaction::Running(rx)) => rx.await.ok(),
        Some(Compaction::Ready(_)) | None => std::future::pending().await,
    }
}

impl Actor {
    /// Starts the summariser if the tutor's conversation is over its share of the budget and
    /// none is running.
    pub(super) fn compact_if_needed(&mut self) {
        if self.compaction.is_some() {
            return;
        }
        let Some(plan) = self.session.compaction_plan(self.shared.config.context_tokens) else { return };
        let brief = SummaryBrief {
            set_name: self.session.full_title(),
            task: SummaryTask::Compaction {
                previous: plan.previous.clone(),
                messages: plan.messages.clone(),
            },
        };
        let provider = self.provider.clone();
        let (tx, rx) = oneshot::channel();
        tokio::spawn(async move {
            let summary = summariser::summarise(&*provider, brief).await;
            let _ = tx.send(Compacted { plan, summary });
        });
        self.compaction = Some(Compaction::Running(rx));
    }

    pub(super) fn on_summary(&mut self, done: Option<Compacted>) {
        self.compaction = done.map(Compaction::Ready);
    }

    /// Writes a finished compaction once no turn is under way. One that no longer fits the
    /// session (a rabbit hole began, a message waits for its answer) or that failed is let
    /// go: the next stored reply asks again.
    pub(super) async fn apply_compaction(&mut self) {
        if self.turn.is_some() || !matches!(self.compaction, Some(Compaction::Ready(_))) {
            return;
        }
        let Some(Compaction::Ready(Compacted { plan, summary })) = self.compaction.take() else { return };
        let id = self.session.id().to_string();
        match summary {
            Ok(summary) => match self.session.compact(&self.store, &plan, summary).await {
                Ok(true) => tracing::info!(
                    session = id,
                    tokens_before = plan.tokens_before,
                    condensed = plan.messages.len(),
                    "compacted the older part of the session"
                ),
                Ok(false) => tracing::debug!(session = id, "a compaction no longer fitted the session"),
                Err(err) => tracing::error!(session = id, "cannot store a compaction: {err}"),
            },
            Err(err) => tracing::warn!(session = id, "the summariser failed; compaction waits: {err}"),
        }
    }
}

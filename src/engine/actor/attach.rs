//! A socket attaching: the session resumed, opened or its unanswered message answered, and the
//! socket sent what it needs to draw the view (the frames it missed, or the whole state).

use warren_app::protocol::{Resumed, ServerMessage, SessionEvent, SessionMode, SessionStatus};
use warren_app::summary::SessionSummary;

use super::{Actor, Audience};
use crate::engine::session::OVERLAY_MESSAGE;
use crate::engine::struggle;
use crate::engine::synthesis;
use crate::engine::turn::{TurnKind, TutorPlan};
use crate::llm::Provider;
use crate::llm::brief::Recap;
use crate::store::{Speaker, StoreError, SummaryScope, now_ms};

impl Actor {
    /// A socket attached: resume a paused session, open a new one, or answer a message left
    /// unanswered by a restart; then tell this socket everything it needs to draw the view:
    /// the frames it missed, when it reconnects with `since` and they are all still kept, or
    /// else the whole state.
    pub(super) async fn on_attach(&mut self, subscriber: u64, since: Option<u64>) -> Result<(), StoreError> {
        let now = now_ms();
        let before = self.session.row.state.clone();
        let mut next = None;
        match self.session.status() {
            SessionStatus::Paused => {
                // What was reviewed meanwhile elsewhere (another session, an import) is not
                // asked again today.
                let reviewed = self
                    .store
                    .reviewed_elsewhere(
                        self.session.learner(),
                        self.session.id(),
                        self.session.row.started_at,
                    )
                    .await?;
                let gone = self.session.leave_out(&reviewed);
                if !gone.is_empty() {
                    tracing::info!(
                        points = gone.len(),
                        "left out of the resumed session: reviewed elsewhere since it began"
                    );
                    let learner = self.session.learner().clone();
                    let (id, targets) =
                        (self.session.id().to_string(), self.session.row.target_point_ids.clone());
                    self.store.narrow_session(&learner, &id, &targets).await?;
                }
                self.session.row.state.status = SessionStatus::InProgress;
                let mut plan = self.first_plan().await?;
                plan.recap = Some(self.session.recap(now));
                next = Some((TurnKind::Resume(plan), Speaker::Tutor));
            }
            SessionStatus::InProgress if self.turn.is_none() => {
                if self.session.tree.is_empty() {
                    let mut plan = self.first_plan().await?;
                    plan.recap = self.last_time(now).await?;
                    next = Some((TurnKind::Opening(plan), Speaker::Tutor));
                } else if let Some(waiting) = self.session.unanswered_message()
                    // A last recall is answered by the overlay, not by the tutor.
                    && self.session.overlay(now).is_none()
                {
                    let message = waiting.content.clone();
                    next = Some(match self.session.mode() {
                        SessionMode::Recall => {
                            let guess = self.guess();
                            (TurnKind::Recall { message, run_detector: false, guess }, Speaker::Tutor)
                        }
                        SessionMode::Rabbithole => {
                            (TurnKind::Explore { message: Some(message) }, Speaker::Explorer)
                        }
                    });
                }
            }
            SessionStatus::InProgress | SessionStatus::Completed | SessionStatus::Abandoned => {}
        }
        if self.session.status() == SessionStatus::InProgress && self.session.row.state.resumed_at.is_none() {
            self.session.row.state.resumed_at = Some(now);
        }
        if self.session.row.state != before {
            self.session.save(&self.store).await?;
        }
        // The page is told in its first frame whether the offline tutor stands in for the model.
        self.check_allowance(false).await;

        let fresh = matches!(&next, Some((TurnKind::Opening(_) | TurnKind::Resume(_), _)));
        let missed = since
            .filter(|_| before.status == SessionStatus::InProgress && !fresh)
            .and_then(|since| self.log.after(since));
        match missed {
            Some(missed) => {
                let replayed = u32::try_from(missed.len()).unwrap_or(u32::MAX);
                for frame in missed {
                    self.deliver(Audience::One(subscriber), &frame);
                }
                let resumed = Resumed {
                    replayed,
                    elapsed_ms: self.session.elapsed_ms(now),
                    last_client_message_id: self.session.last_client_message_id(),
                };
                self.send(Audience::One(subscriber), ServerMessage::Resumed(resumed));
            }
            None => {
                let opening = if fresh {
                    String::new()
                } else if self.session.overlay(now).is_some() && self.session.unanswered_message().is_some() {
                    // The overlay answered the last recall: its words, not the question answered.
                    OVERLAY_MESSAGE.to_string()
                } else {
                    self.session.current_agent_text()
                };
                let streaming = self.turn.as_ref().map(|t| t.streamed.clone()).filter(|s| !s.is_empty());
                let started = self.session.started_payload(
                    self.provider.info(),
                    self.allowance_notice.clone(),
                    opening,
                    streaming,
                    now,
                );
                self.emit(SessionEvent::SessionStarted(Box::new(started)), Audience::One(subscriber));
            }
        }
        if fresh {
            let points = self.session.pending().into_iter().map(|p| p.content.clone()).collect();
            self.read_ahead(points);
        }
        if let Some((kind, speaker)) = next {
            self.start_turn(kind, speaker);
        }
        Ok(())
    }

    /// Has the judges read `texts` now, in the background, so the next evaluation need not
    /// (the offline judges' sentence model keeps what it reads; see `Provider::prepare`).
    pub(super) fn read_ahead(&self, texts: Vec<String>) {
        let judges = std::iter::once(&self.shared.provider).chain(&self.shared.local_judges);
        for judge in judges {
            let (judge, texts) = (judge.clone(), texts.clone());
            tokio::spawn(async move { judge.prepare(texts).await });
        }
    }

    /// What the tutor asks first, on opening or resuming: the point whose turn it is (a parked
    /// one whose turn has come is asked fresh, and that is saved first).
    pub(super) async fn first_plan(&mut self) -> Result<TutorPlan, StoreError> {
        let mut struggles = self.session.struggles.clone();
        let (next, revisit) = {
            let pending = self.session.pending();
            struggle::next_point(&mut struggles, &pending, self.session.ask_order())
        };
        if revisit && let Some(id) = &next {
            self.session.save_struggles(&self.store, struggles, std::slice::from_ref(id)).await?;
        }
        Ok(self.session.plan(next.as_deref(), revisit))
    }

    /// What the opening may say of the set's previous session (a review's: the previous
    /// review), from its newest summary.
    async fn last_time(&self, now: i64) -> Result<Option<Recap>, StoreError> {
        let scope = match &self.session.row.set_id {
            Some(set_id) => SummaryScope::Set(set_id),
            None => SummaryScope::Reviews,
        };
        let newest = self.shared.store.latest_summaries(self.session.learner(), scope, false, 2).await?;
        Ok(newest
            .into_iter()
            .filter(|s| s.session_id != self.session.id())
            .find_map(|s| s.entry.data.as_ref().and_then(SessionSummary::from_data))
            .map(|summary| synthesis::recap(&summary, now)))
    }
}

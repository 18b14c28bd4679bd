//! Starting a turn of model work and handling what it reports: streamed text, the assessment,
//! the finished reply (stored before it is announced) or a failure.

use tokio::sync::mpsc;
use warren_app::protocol::{AssistantChunk, ErrorCode, Notice, NoticeCode, ServerMessage, SessionEvent};

use super::{Actor, Audience};
use crate::engine::session::OVERLAY_MESSAGE;
use crate::engine::turn::{self, TurnEvent, TurnInput, TurnKind};
use crate::engine::usage::Allowance;
use crate::llm::brief::{SetBrief, ShowTool};
use crate::llm::{LlmError, ToolCall};
use crate::store::{NewEntry, RecallSet, Speaker, StoreError};

pub(super) struct ActiveTurn {
    events: mpsc::Receiver<TurnEvent>,
    speaker: Speaker,
    /// The reply so far, for sockets that attach mid-stream.
    pub(super) streamed: String,
}

/// The next event of the turn under way; never resolves when there is none.
pub(super) async fn next_event(turn: &mut Option<ActiveTurn>) -> Option<TurnEvent> {
    match turn {
        Some(turn) => turn.events.recv().await,
        None => std::future::pending().await,
    }
}

impl Actor {
    /// Before a learner message's turn (and when a page attaches, `announce` false: the
    /// notice then goes in `session_started`): if their allowance of the model is spent, says
    /// so once (the offline tutor answers until it comes round; see `usage`), and lifts the
    /// notice once it has come round.
    pub(super) async fn check_allowance(&mut self, announce: bool) {
        if !self.provider.metered() {
            return;
        }
        match self.provider.check().await {
            Allowance::Spent { until, monthly } if self.allowance_notice.is_none() => {
                let when = if monthly { "on the first of next month (UTC)" } else { "at midnight (UTC)" };
                let notice = Notice {
                    code: NoticeCode::ModelAllowanceSpent,
                    message: format!(
                        "You have used your allowance of the language model for now: the built-in offline \
                         tutor answers until it comes round again, {when}."
                    ),
                    until: Some(until),
                };
                self.allowance_notice = Some(notice.clone());
                if announce {
                    self.emit(SessionEvent::Notice(notice), Audience::All);
                }
            }
            Allowance::Spent { .. } => {}
            // It came round (or the operator lifted it): the page is told the model is back.
            Allowance::Open => {
                if self.allowance_notice.take().is_some() && announce {
                    let notice = Notice {
                        code: NoticeCode::ModelAllowanceRestored,
                        message: "The language model answers again.".to_string(),
                        until: None,
                    };
                    self.emit(SessionEvent::Notice(notice), Audience::All);
                }
            }
        }
    }

    pub(super) fn start_turn(&mut self, kind: TurnKind, speaker: Speaker) {
        let s = &self.session;
        let in_play = s.set_in_play();
        let of = |set: &RecallSet| SetBrief {
            name: set.name.clone(),
            description: set.description.clone(),
            guidelines: set.guidelines.clone(),
        };
        let input = TurnInput {
            kind,
            set_name: in_play.map_or_else(|| s.title(), |set| set.name.clone()),
            set_description: in_play.map(|set| set.description.clone()).unwrap_or_default(),
            guidelines: in_play.map(|set| set.guidelines.clone()).unwrap_or_default(),
            review: if s.is_review() { s.sets.iter().map(of).collect() } else { Vec::new() },
            creditable: s.creditable_briefs(),
            all_points: s.points.iter().map(|p| s.point_brief(p)).collect(),
            tutor_context: s.tutor_context(),
            judge_context: s.judge_context(),
            rabbithole_topic: s.active_rabbithole().map(|r| r.topic.clone()).unwrap_or_default(),
            explorer_history: s.explorer_history(),
            resources: s.resource_briefs(),
            embedder: self.shared.embedder.clone(),
        };
        let events = turn::spawn(self.provider.clone(), input);
        self.turn = Some(ActiveTurn { events, speaker, streamed: String::new() });
    }

    /// A tool call from the tutor, checked against the session's own resources: a tool it was
    /// not given, or an id that is not one of this set's resources of the tool's kind, is
    /// dropped and logged, never sent.
    async fn show_called(&mut self, call: &ToolCall) -> Result<(), StoreError> {
        let tool = call.name.parse::<ShowTool>().ok();
        let id = call.input.get("resource_id").and_then(|v| v.as_str()).unwrap_or_default();
        let known = tool.is_some()
            && self.session.resources.iter().any(|r| {
                r.id == id
                    && Some(ShowTool::for_kind(r.kind)) == tool
                    && (tool != Some(ShowTool::Image) || r.url.is_some())
            });
        if !known {
            tracing::warn!(
                session = self.session.id(),
                tool = %call.name,
                resource = id,
                "dropped a tool call naming no resource of this session"
            );
            return Ok(());
        }
        self.show_resource(id, false).await
    }

    pub(super) async fn on_turn_event(&mut self, event: Option<TurnEvent>) {
        let event = event.unwrap_or_else(|| {
            TurnEvent::Failed(LlmError::Interrupted("the reply stopped unexpectedly".into()))
        });
        match event {
            TurnEvent::Assessed { evaluation, detection, plan } => {
                if let Err(err) = self.apply_assessment(evaluation, detection, plan).await {
                    tracing::error!(session = self.session.id(), "cannot record recall: {err}");
                    self.send_error(
                        Audience::All,
                        ErrorCode::Internal,
                        "What you said could not be saved as checked; it is kept and will be checked again.",
                    );
                }
            }
            TurnEvent::Guessed { evaluation, plan } => {
                // A turn no longer waiting is no one to tell.
                let _ = plan.send(self.guessed_plan(&evaluation));
            }
            TurnEvent::Chunk(piece) => {
                let Some(turn) = self.turn.as_mut() else { return };
                let first = turn.streamed.is_empty();
                turn.streamed.push_str(&piece);
                if first {
                    self.emit(SessionEvent::AssistantStreamingStart, Audience::All);
                }
                self.send(Audience::All, ServerMessage::AssistantChunk(AssistantChunk { content: piece }));
            }
            TurnEvent::Speculated { kept, wasted_chars } => {
                self.shared.metrics.speculated(kept, wasted_chars);
                if !kept {
                    // Providers bill by the token; about four characters make one.
                    tracing::info!(
                        session = self.session.id(),
                        wasted_chars,
                        wasted_tokens = wasted_chars.div_ceil(4),
                        "threw away a tutor reply started before the evaluator found something"
                    );
                }
            }
            TurnEvent::Removed { rule, sentence } => {
                self.shared.metrics.removed(rule);
                tracing::warn!(
                    session = self.session.id(),
                    rule = rule.as_str(),
                    sentence,
                    "took a sentence out of the tutor's reply"
                );
            }
            TurnEvent::Show(call) => {
                if let Err(err) = self.show_called(&call).await {
                    // Showing is a nicety: the reply goes on without it.
                    tracing::error!(session = self.session.id(), "cannot record a shown resource: {err}");
                }
            }
            TurnEvent::Finished { text, chunks, usage } => {
                if let Some(health) = &self.shared.health {
                    health.turn_succeeded();
                }
                let speaker = self.turn.take().map_or(Speaker::Tutor, |t| t.speaker);
                let reply = NewEntry::message(speaker, text.clone());
                if let Err(err) = self.session.append(&self.store, reply).await {
                    if matches!(err, StoreError::LeaseLost(_)) {
                        // Another instance runs the session now: the actor stops (see `run`).
                        return;
                    }
                    // Shown only once stored: a reply that cannot be kept is not given.
                    tracing::error!(session = self.session.id(), "cannot store reply: {err}");
                    self.send_error(
                        Audience::All,
                        ErrorCode::Internal,
                        "The reply could not be saved. Your message is kept; reconnect to get the reply again.",
                    );
                    return;
                }
                self.emit(
                    SessionEvent::AssistantStreamingEnd {
                        full_content: text.clone(),
                        total_chunks: chunks,
                        html: warren_app::markdown_html(&text),
                    },
                    Audience::All,
                );
                if let Some(arrived) = self.answering.take() {
                    self.shared.metrics.turn_took(arrived.elapsed());
                }
                if speaker == Speaker::Tutor {
                    // The learner's next message is judged against this question.
                    self.read_ahead(vec![text.clone()]);
                }
                let message = SessionEvent::AssistantMessage {
                    content: text,
                    token_count: usage.map(|u| u.output),
                    input_token_count: usage.map(|u| u.input),
                };
                self.emit(message, Audience::All);
                if speaker == Speaker::Tutor {
                    self.compact_if_needed();
                }
            }
            TurnEvent::Silent => {
                self.turn = None;
                // The overlay answered the last recall: its words are kept as the tutor's, so the
                // history, and a page opened later, end where the learner saw the session end.
                if self.session.all_recalled() && self.session.unanswered_message().is_some() {
                    let last = NewEntry::message(Speaker::Tutor, OVERLAY_MESSAGE.to_string());
                    if let Err(err) = self.session.append(&self.store, last).await {
                        tracing::error!(session = self.session.id(), "cannot store the closing words: {err}");
                    }
                }
            }
            TurnEvent::Failed(err) => {
                self.turn = None;
                if let Some(health) = &self.shared.health {
                    health.turn_failed();
                }
                tracing::warn!(session = self.session.id(), "reply failed: {err}");
                self.send_error(
                    Audience::All,
                    ErrorCode::ProviderError,
                    format!("The reply could not be completed ({err}). Your message is saved; send it again or carry on."),
                );
            }
        }
    }
}

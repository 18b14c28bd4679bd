//! The server's answers to the app's server functions (`warren_app::api::Backend`): every
//! query scoped by the learner, every missing-or-foreign id a `NotFound`. Long by design: one
//! short method per page's data, in the trait's order, so the trait and its answers read alike.

use std::collections::HashMap;
use std::sync::Arc;
use warren_app::learner::LearnerId;

use async_trait::async_trait;
use warren_app::api::{
    AccountPage, Allowance, DraftView, FitFigures, FitRun, LeftOff, PreviewSet, ScheduleFit, SignInRow,
    SourceForm, SourceStage, SourceView, SummaryView, TodayReview, review_title,
};
use warren_app::api::{
    ApiError, Backend, Dashboard, HistoryFilter, HistoryItem, HistoryList, ImportPreview, PointPage,
    PointView, ProviderNotice, Recalled, ResourcePage, ResourceView, SessionCard, SessionHeader, SetCard,
    SetChoice, SetDeletion, SetDetail, Transcript, TranscriptQuery, Viewer,
};
use warren_app::protocol::SessionStatus;
use warren_app::summary::{SessionSummary, SummaryStatus};

use crate::drafting;
use crate::engine::{Engine, EngineError, today};
use crate::llm::health::ProviderHealth;
use crate::schedule::fit;
use crate::store::{
    Entry, FIT_LAPSE_MS, FitReason, FitStatus, HistoryQuery, SOURCE_LAPSE_MS, SessionRow, SetSummary,
    SourceStatus, Store, StoreError, SummaryScope, now_ms,
};
use crate::transfer;

use super::{stats, transcript};

/// How many recent sessions the dashboard lists, and how many sets' summaries.
const RECENT: usize = 8;
const LEFT_OFF: u32 = 4;

pub struct ServerBackend {
    pub store: Store,
    pub engine: Engine,
    pub provider_health: Arc<ProviderHealth>,
    /// Through what spoken answers are transcribed, when voice is on.
    pub voice: Option<String>,
    /// The sentence model, when installed: a draft the set already has is found by meaning.
    pub embedder: Option<Arc<crate::embed::Embedder>>,
}

fn internal(err: StoreError) -> ApiError {
    tracing::error!("storage failed: {err}");
    ApiError::Internal
}

fn count(n: impl TryInto<u32>) -> u32 {
    n.try_into().unwrap_or(u32::MAX)
}

/// A retention as the account page shows it: a whole percentage.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // a share between 0.7 and 0.97
fn retention_percent(retention: f64) -> u32 {
    (retention * 100.0).round() as u32
}

fn card(row: &SessionRow, set_name: &str, counts: &HashMap<String, i64>) -> SessionCard {
    SessionCard {
        id: row.id.clone(),
        set_id: row.set_id.clone(),
        set_name: set_name.to_string(),
        status: row.state.status,
        recalled_count: count(counts.get(&row.id).copied().unwrap_or(0)),
        total_points: count(row.target_point_ids.len()),
        started_at: row.started_at,
        updated_at: row.updated_at,
    }
}

/// A summary entry (if any) as the pages show it.
fn summary_view(status: Option<SummaryStatus>, entry: Option<&Entry>) -> SummaryView {
    SummaryView {
        status,
        summary: entry.and_then(|e| e.data.as_ref()).and_then(SessionSummary::from_data),
        text: entry.map(|e| e.content.clone()).unwrap_or_default(),
        written_at: entry.map_or(0, |e| e.created_at),
    }
}

impl ServerBackend {
    fn provider(&self) -> ProviderNotice {
        let info = self.engine.provider_info();
        let status = self.provider_health.status();
        ProviderNotice {
            label: info.label,
            offline: info.offline,
            ok: status.ok,
            detail: status.detail,
            by_meaning: status.by_meaning,
            judge: status.judge,
            voice: self.voice.clone(),
        }
    }

    /// Recalled points per session, in one query.
    async fn counts(&self, learner: &LearnerId) -> Result<HashMap<String, i64>, ApiError> {
        self.store.recalled_counts(learner).await.map_err(internal)
    }

    /// What a session is called: its set's name, or for a review the sets it drew on.
    async fn session_name(&self, learner: &LearnerId, row: &SessionRow) -> Result<String, ApiError> {
        self.store.session_title(learner, row).await.map_err(internal)
    }

    fn set_card(summary: SetSummary, sessions: &[SessionRow], counts: &HashMap<String, i64>) -> SetCard {
        let open = sessions.iter().find(|s| {
            s.set_id.as_ref() == Some(&summary.id)
                && matches!(s.state.status, SessionStatus::InProgress | SessionStatus::Paused)
        });
        SetCard {
            open_session: open.map(|row| card(row, &summary.name, counts)),
            id: summary.id,
            name: summary.name,
            description: summary.description,
            point_count: count(summary.point_count),
            due_count: count(summary.due_count),
            next_due_at: summary.next_due_at,
            archived: summary.archived_at.is_some(),
        }
    }

    /// One set's card, or `NotFound`.
    async fn set_summary(&self, learner: &LearnerId, id: &str) -> Result<SetCard, ApiError> {
        let summary = self
            .store
            .list_sets(learner, now_ms())
            .await
            .map_err(internal)?
            .into_iter()
            .find(|s| s.id == id)
            .ok_or(ApiError::NotFound)?;
        let sessions = self.store.sessions(learner).await.map_err(internal)?;
        let counts = self.counts(learner).await?;
        Ok(Self::set_card(summary, &sessions, &counts))
    }

    /// A set's points with their schedules and the sessions that recalled them.
    async fn point_views(&self, learner: &LearnerId, set_id: &str) -> Result<Vec<PointView>, ApiError> {
        let points = self.store.points(learner, set_id).await.map_err(internal)?;
        let recalls = self.store.reviews(learner, set_id).await.map_err(internal)?;
        let log = self.store.set_log(learner, set_id).await.map_err(internal)?;
        let scheduler = self.store.scheduler(learner).await.map_err(internal)?;
        let leech_lapses = self.store.leech_lapses(learner).await.map_err(internal)?;
        let now = now_ms();
        Ok(points
            .into_iter()
            .map(|p| {
                let recalled_in: Vec<Recalled> = recalls
                    .iter()
                    .filter(|r| r.point_id == p.id)
                    .map(|r| Recalled {
                        session_id: r.session_id.clone(),
                        recalled_at: r.recalled_at,
                        rating: r.rating,
                        entry_id: r.entry_id.clone(),
                    })
                    .collect();
                let lapses = count(p.card.lapses);
                PointView {
                    last_rating: log.iter().rev().find(|r| r.point_id == p.id).map(|r| r.rating),
                    retrievability: scheduler.retrievability(&p.card, now),
                    lapses,
                    leech: lapses >= leech_lapses,
                    recalled_in,
                    id: p.id,
                    content: p.content,
                    context: p.context,
                    state: p.card.state,
                    due_at: p.card.due_at,
                    stability: p.card.stability,
                    difficulty: p.card.difficulty,
                    reps: count(p.card.reps),
                    last_review_at: p.card.last_review_at,
                }
            })
            .collect())
    }

    async fn resource_views(&self, learner: &LearnerId, set_id: &str) -> Result<Vec<ResourceView>, ApiError> {
        let resources = self.store.resources(learner, set_id).await.map_err(internal)?;
        Ok(resources
            .into_iter()
            .map(|r| ResourceView {
                id: r.id,
                kind: r.kind,
                title: r.title,
                body: r.body,
                url: r.url,
                licence: r.licence,
                point_ids: r.points.into_iter().map(|(p, _)| p).collect(),
            })
            .collect())
    }

    /// The account page's view of fitting: reviews to learn from and the latest run.
    async fn schedule_fit(&self, learner: &LearnerId) -> Result<ScheduleFit, ApiError> {
        let count = |n: i64| u32::try_from(n.max(0)).unwrap_or(u32::MAX);
        let items = self.store.fit_items(learner).await.map_err(internal)?;
        let lapsed = now_ms() - FIT_LAPSE_MS;
        let run = self.store.fit_run(learner).await.map_err(internal)?.map(|row| match row.status {
            // A run whose instance stopped mid-way: the learner may start another.
            FitStatus::Running if row.heartbeat_at < lapsed => {
                FitRun::Failed { finished_at: row.heartbeat_at }
            }
            FitStatus::Running => {
                FitRun::Running { done: count(row.progress_done), total: count(row.progress_total) }
            }
            FitStatus::Done => {
                let figures = |log_loss: Option<f64>, rmse: Option<f64>| FitFigures {
                    log_loss: log_loss.unwrap_or(f64::NAN),
                    rmse: rmse.unwrap_or(f64::NAN),
                };
                FitRun::Done {
                    weekly: row.reason == FitReason::Weekly,
                    finished_at: row.finished_at.unwrap_or(row.started_at),
                    items: count(row.items),
                    before: figures(row.log_loss_before, row.rmse_before),
                    after: figures(row.log_loss_after, row.rmse_after),
                    adopted: row.adopted != 0,
                    moved: count(row.moved),
                }
            }
            FitStatus::Failed => FitRun::Failed { finished_at: row.finished_at.unwrap_or(row.started_at) },
        });
        Ok(ScheduleFit {
            items: u32::try_from(items).unwrap_or(u32::MAX),
            any_fit: u32::try_from(fit::ANY_FIT).unwrap_or(u32::MAX),
            full_fit: u32::try_from(fit::FULL_FIT).unwrap_or(u32::MAX),
            run,
        })
    }

    async fn owned_session(&self, learner: &LearnerId, id: &str) -> Result<SessionRow, ApiError> {
        self.store.session(learner, id).await.map_err(internal)?.ok_or(ApiError::NotFound)
    }
}

#[async_trait]
impl Backend for ServerBackend {
    async fn account(&self, viewer: &Viewer, current: Option<&str>) -> Result<AccountPage, ApiError> {
        let current_ref = match current {
            Some(id) => self.store.sign_in_ref(id).await.map_err(internal)?,
            None => None,
        };
        let sign_ins = self.store.sign_ins(&viewer.learner).await.map_err(internal)?;
        let scheduler = self.store.scheduler(&viewer.learner).await.map_err(internal)?;
        let limits = self.store.daily_limits(&viewer.learner).await.map_err(internal)?;
        let now = now_ms();
        let (day, _, month, _) = crate::engine::usage::periods(now);
        let meter = self.engine.meter();
        let calls = self.store.calls_since(Some(&viewer.learner), month).await.map_err(internal)?;
        let budget = self.store.budget(&viewer.learner).await.map_err(internal)?;
        let (daily, monthly) = meter.caps(&budget);
        let allowance = Allowance {
            daily,
            monthly,
            used_today: self.store.tokens_since(&viewer.learner, day).await.map_err(internal)?,
            used_this_month: calls.iter().map(|c| c.input + c.output).sum(),
            lifted_until: budget.lifted_until.filter(|until| *until > now),
        };
        Ok(AccountPage {
            month_usage: meter.prices.by_agent(&calls),
            allowance,
            username: viewer.username.clone(),
            now,
            retention_percent: retention_percent(scheduler.retention()),
            leech_lapses: self.store.leech_lapses(&viewer.learner).await.map_err(internal)?,
            review_points_per_session: limits.points_per_session,
            new_points_per_day: limits.new_per_day,
            fit: self.schedule_fit(&viewer.learner).await?,
            sign_ins: sign_ins
                .into_iter()
                .map(|s| SignInRow {
                    current: current_ref.as_deref() == Some(s.ref_id.as_str()),
                    ref_id: s.ref_id,
                    signed_in_at: s.signed_in_at,
                    address: s.address,
                    user_agent: s.user_agent,
                })
                .collect(),
        })
    }

    async fn dashboard(&self, viewer: &Viewer) -> Result<Dashboard, ApiError> {
        let learner = &viewer.learner;
        let sets = self.store.list_sets(learner, now_ms()).await.map_err(internal)?;
        let sessions = self.store.sessions(learner).await.map_err(internal)?;
        let counts = self.counts(learner).await?;
        let cards: Vec<SetCard> =
            sets.iter().cloned().map(|summary| Self::set_card(summary, &sessions, &counts)).collect();
        let set_names = self.store.session_set_names(learner).await.map_err(internal)?;
        let name_of = |row: &SessionRow| match &row.set_id {
            Some(id) => sets.iter().find(|s| &s.id == id).map(|s| s.name.clone()).unwrap_or_default(),
            None => review_title(set_names.get(&row.id).map_or(&[][..], Vec::as_slice)),
        };
        let recent = sessions.iter().take(RECENT).map(|row| card(row, &name_of(row), &counts)).collect();
        let now = now_ms();
        let due_now = cards.iter().filter(|c: &&SetCard| !c.archived).map(|c| c.due_count).sum();
        let stats = stats::study_stats(&self.store, learner, viewer.utc_offset_min, now, &sessions, due_now)
            .await
            .map_err(internal)?;
        let left_off = self
            .store
            .latest_summaries(learner, SummaryScope::Every, true, LEFT_OFF)
            .await
            .map_err(internal)?
            .into_iter()
            .map(|latest| LeftOff {
                status: latest.session_status.parse().unwrap_or(SessionStatus::Paused),
                session_id: latest.session_id,
                set_id: latest.set_id,
                summary: summary_view(Some(SummaryStatus::Ready), Some(&latest.entry)),
            })
            .collect();
        let writing = self.store.summary_being_written(learner).await.map_err(internal)?;
        let open_review = sessions
            .iter()
            .find(|s| {
                s.set_id.is_none()
                    && matches!(s.state.status, SessionStatus::InProgress | SessionStatus::Paused)
            })
            .map(|row| card(row, &name_of(row), &counts));
        let plan = today::plan(&self.store, learner, now, viewer.utc_offset_min).await.map_err(internal)?;
        // Also when nothing can be taken today only because the day's new points are used up:
        // the dashboard says so rather than leaving what is due unexplained.
        let today =
            (!plan.queue.points.is_empty() || open_review.is_some() || plan.queue.new_held > 0).then(|| {
                TodayReview {
                    points: count(plan.queue.points.len()),
                    sets: count(plan.set_ids().len()),
                    minutes: u32::try_from(plan.minutes).unwrap_or(u32::MAX),
                    default_pace: plan.default_pace,
                    left: count(plan.queue.left),
                    new_held: count(plan.queue.new_held),
                    open_session: open_review,
                }
            });
        Ok(Dashboard { now, sets: cards, recent, provider: self.provider(), stats, left_off, writing, today })
    }

    async fn recall_set(&self, viewer: &Viewer, id: &str) -> Result<SetDetail, ApiError> {
        let learner = &viewer.learner;
        let card = self.set_summary(learner, id).await?;
        let set = self.store.set(learner, id).await.map_err(internal)?.ok_or(ApiError::NotFound)?;
        Ok(SetDetail {
            now: now_ms(),
            card,
            guidelines: set.guidelines,
            points: self.point_views(learner, id).await?,
            resources: self.resource_views(learner, id).await?,
        })
    }

    async fn point(&self, viewer: &Viewer, set_id: &str, point_id: &str) -> Result<PointPage, ApiError> {
        let learner = &viewer.learner;
        let set = self.store.set(learner, set_id).await.map_err(internal)?.ok_or(ApiError::NotFound)?;
        let point = self.point_views(learner, set_id).await?.into_iter().find(|p| p.id == point_id);
        let point = point.ok_or(ApiError::NotFound)?;
        Ok(PointPage { set_id: set.id, set_name: set.name, point })
    }

    async fn resource(
        &self,
        viewer: &Viewer,
        set_id: &str,
        resource_id: &str,
    ) -> Result<ResourcePage, ApiError> {
        let learner = &viewer.learner;
        let set = self.store.set(learner, set_id).await.map_err(internal)?.ok_or(ApiError::NotFound)?;
        let resource = self.resource_views(learner, set_id).await?.into_iter().find(|r| r.id == resource_id);
        let resource = resource.ok_or(ApiError::NotFound)?;
        let points =
            self.point_views(learner, set_id).await?.into_iter().map(|p| (p.id, p.content)).collect();
        Ok(ResourcePage { set_id: set.id, set_name: set.name, resource, points })
    }

    async fn source_form(&self, viewer: &Viewer, set_id: Option<&str>) -> Result<SourceForm, ApiError> {
        let Some(set_id) = set_id else { return Ok(SourceForm { set_id: None, set_name: None }) };
        let set =
            self.store.set(&viewer.learner, set_id).await.map_err(internal)?.ok_or(ApiError::NotFound)?;
        Ok(SourceForm { set_id: Some(set.id), set_name: Some(set.name) })
    }

    async fn source(&self, viewer: &Viewer, id: &str) -> Result<SourceView, ApiError> {
        let learner = &viewer.learner;
        let source = self.store.source(learner, id).await.map_err(internal)?.ok_or(ApiError::NotFound)?;
        let stage = match source.status {
            SourceStatus::Drafting if source.heartbeat_at < now_ms() - SOURCE_LAPSE_MS => {
                SourceStage::Stopped
            }
            SourceStatus::Drafting => SourceStage::Drafting,
            SourceStatus::Ready => SourceStage::Ready,
            SourceStatus::Failed => SourceStage::Failed(source.error.clone().unwrap_or_default()),
        };
        let drafts = match stage {
            SourceStage::Ready => drafting::reviewed(&self.store, self.embedder.as_ref(), learner, &source)
                .await
                .map_err(internal)?,
            SourceStage::Drafting | SourceStage::Stopped | SourceStage::Failed(_) => Vec::new(),
        };
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Ok(SourceView {
            id: source.id.clone(),
            title: source.title.clone(),
            set_id: source.set_id.clone(),
            set_name: source.set_name.clone(),
            stage,
            passages: count(source.passages.len()),
            passages_done: count(source.passages_done),
            drafts: drafts
                .into_iter()
                .map(|(d, checks)| DraftView {
                    checks,
                    passage: count(usize::try_from(d.passage).unwrap_or(0) + 1),
                    content: d.content,
                    cue: d.cue,
                    quote: d.quote,
                })
                .collect(),
            not_drafted: source.not_drafted.iter().map(|&p| count(p + 1)).collect(),
        })
    }

    async fn set_deletion(&self, viewer: &Viewer, id: &str) -> Result<SetDeletion, ApiError> {
        let learner = &viewer.learner;
        let set = self.store.set(learner, id).await.map_err(internal)?.ok_or(ApiError::NotFound)?;
        let contents = self.store.set_contents(learner, id).await.map_err(internal)?;
        Ok(SetDeletion {
            id: set.id,
            name: set.name,
            points: count(contents.points),
            resources: count(contents.resources),
            sessions: count(contents.sessions),
        })
    }

    async fn import_preview(&self, viewer: &Viewer, draft_id: &str) -> Result<ImportPreview, ApiError> {
        /// How many points the preview lists; the rest are counted.
        const SHOWN: usize = 200;
        let learner = &viewer.learner;
        let (file_name, bytes) =
            self.store.draft(learner, draft_id).await.map_err(internal)?.ok_or(ApiError::NotFound)?;
        let mut preview = ImportPreview {
            draft_id: draft_id.to_string(),
            file_name: file_name.clone(),
            format: String::new(),
            sets: Vec::new(),
            error: None,
        };
        match transfer::read(&file_name, &bytes).await {
            Err(err) => preview.error = Some(err.to_string()),
            Ok((format, previews)) => {
                preview.format = format.label().to_string();
                for read in previews {
                    let name = self.store.free_name(learner, &read.set.name).await.map_err(internal)?;
                    let suspended = read
                        .suspended
                        .iter()
                        .filter_map(|&i| read.set.points.get(i))
                        .map(|p| p.content.clone())
                        .collect();
                    preview.sets.push(PreviewSet {
                        renamed_from: (name != read.set.name).then(|| read.set.name.clone()),
                        name,
                        description: read.set.description.clone(),
                        point_count: count(read.set.points.len() - read.suspended.len()),
                        resource_count: count(read.set.resources.len()),
                        review_count: count(read.reviews()),
                        suspended,
                        points: read
                            .set
                            .points
                            .into_iter()
                            .take(SHOWN)
                            .map(|p| (p.content, p.context))
                            .collect(),
                        rejected: read.rejected.into_iter().map(|r| (r.place, r.reason)).collect(),
                    });
                }
            }
        }
        Ok(preview)
    }

    async fn start_session(&self, viewer: &Viewer, set_id: &str, all: bool) -> Result<String, ApiError> {
        match self.engine.start_session(&viewer.learner, set_id, all).await {
            Ok(row) => Ok(row.id),
            Err(EngineError::NotFound) => Err(ApiError::NotFound),
            Err(EngineError::EmptySet) => {
                Err(ApiError::Invalid("This recall set has no points yet: add one, then start.".into()))
            }
            Err(EngineError::Archived) => {
                Err(ApiError::Invalid("This recall set is archived: bring it back to study it.".into()))
            }
            Err(EngineError::NothingDue(_)) => Err(ApiError::Invalid(
                "Nothing here is due yet: choose “Study all anyway” to go over it now.".into(),
            )),
            Err(EngineError::Gone | EngineError::Elsewhere { .. }) => Err(ApiError::Internal),
            Err(EngineError::Store(err)) => Err(internal(err)),
        }
    }

    async fn start_review(&self, viewer: &Viewer) -> Result<String, ApiError> {
        match self.engine.start_review(&viewer.learner, viewer.utc_offset_min).await {
            Ok(row) => Ok(row.id),
            Err(EngineError::NothingDue(_)) => {
                Err(ApiError::Invalid("Nothing is due for review now: every set is up to date.".into()))
            }
            Err(EngineError::NotFound | EngineError::EmptySet | EngineError::Archived) => {
                Err(ApiError::NotFound)
            }
            Err(EngineError::Gone | EngineError::Elsewhere { .. }) => Err(ApiError::Internal),
            Err(EngineError::Store(err)) => Err(internal(err)),
        }
    }

    async fn session_header(&self, viewer: &Viewer, id: &str) -> Result<SessionHeader, ApiError> {
        let row = self.owned_session(&viewer.learner, id).await?;
        let name = self.session_name(&viewer.learner, &row).await?;
        let counts = self.counts(&viewer.learner).await?;
        Ok(SessionHeader { card: card(&row, &name, &counts), provider: self.provider() })
    }

    async fn history(&self, viewer: &Viewer, filter: HistoryFilter) -> Result<HistoryList, ApiError> {
        const PAGE: u32 = 50;
        let learner = &viewer.learner;
        let now = now_ms();
        let (range, filter_error) = stats::date_range(&filter, viewer.utc_offset_min);
        let text =
            |v: &Option<String>| v.as_deref().map(str::trim).filter(|v| !v.is_empty()).map(str::to_string);
        // An unknown status filters to nothing, like an unknown set.
        let status = text(&filter.status).map(|s| s.parse::<SessionStatus>());
        let unknown_status = matches!(status, Some(Err(_)));
        let store_query = HistoryQuery {
            set_id: text(&filter.set),
            status: status.and_then(Result::ok),
            started: (range != (i64::MIN..i64::MAX)).then_some(range),
            // Searched as stored text is: without control characters (see `warren_app::clean`).
            terms: text(&filter.q)
                .map(|q| warren_app::clean::line(&q).split_whitespace().map(str::to_string).collect())
                .unwrap_or_default(),
        };
        let page = filter.page.unwrap_or(1).max(1);
        let (rows, total) = if unknown_status {
            (Vec::new(), 0)
        } else {
            self.store
                .history(learner, &store_query, PAGE, (page - 1).saturating_mul(PAGE))
                .await
                .map_err(internal)?
        };
        let set_names = self.store.session_set_names(learner).await.map_err(internal)?;
        let sessions = rows
            .into_iter()
            .map(|row| HistoryItem {
                card: SessionCard {
                    total_points: count(row.total_points()),
                    set_name: row.set_name.clone().unwrap_or_else(|| {
                        review_title(set_names.get(&row.id).map_or(&[][..], Vec::as_slice))
                    }),
                    id: row.id,
                    set_id: row.set_id,
                    status: row.status,
                    recalled_count: count(row.recalled),
                    started_at: row.started_at,
                    updated_at: row.updated_at,
                },
                study_ms: row.active_ms + row.resumed_at.map_or(0, |start| (now - start).max(0)),
                rabbitholes: count(row.rabbitholes),
                overview: row
                    .summary_data
                    .as_deref()
                    .and_then(|data| serde_json::from_str(data).ok())
                    .and_then(|data| SessionSummary::from_data(&data))
                    .map(|summary| summary.overview)
                    .filter(|overview| !overview.is_empty()),
            })
            .collect();
        let choices = self
            .store
            .sets_with_sessions(learner)
            .await
            .map_err(internal)?
            .into_iter()
            .map(|(id, name)| SetChoice { id, name })
            .collect();
        let pages = u32::try_from(total.div_ceil(u64::from(PAGE))).unwrap_or(u32::MAX).max(1);
        Ok(HistoryList { now, sessions, total, page, pages, sets: choices, filter, filter_error })
    }

    async fn transcript(
        &self,
        viewer: &Viewer,
        id: &str,
        query: TranscriptQuery,
    ) -> Result<Transcript, ApiError> {
        let learner = &viewer.learner;
        let (row, tree) = self.store.tree(learner, id).await.map_err(internal)?.ok_or(ApiError::NotFound)?;
        let name = self.session_name(learner, &row).await?;
        let outcomes = self.store.outcomes(learner, id).await.map_err(internal)?;
        let recalled = outcomes.len();
        // Each recall beside the message that earned it.
        let points = self.store.session_points(learner, id).await.map_err(internal)?;
        let disputes = self.store.disputes(learner, id).await.map_err(internal)?;
        let mut recalls = transcript::Recalls::new();
        let credited = outcomes
            .iter()
            .map(|o| (&o.entry_id, &o.point_id, false))
            .chain(disputes.iter().map(|d| (&d.entry_id, &d.point_id, true)));
        for (entry, point_id, disputed) in credited {
            let point = points.iter().find(|p| &p.id == point_id);
            if let (Some(entry), Some(point)) = (entry, point) {
                recalls.entry(entry.clone()).or_default().push(transcript::RecallMark {
                    point_id: point.id.clone(),
                    content: point.content.clone(),
                    disputed,
                });
            }
        }
        let written = transcript::write(
            &tree,
            &row.id,
            row.leaf_id.as_deref(),
            &query,
            transcript::Links::Page,
            &recalls,
        );
        let counts = HashMap::from([(row.id.clone(), i64::try_from(recalled).unwrap_or(i64::MAX))]);
        let (status, entry_id) =
            self.store.summary_link(learner, id).await.map_err(internal)?.unwrap_or_default();
        let summary = summary_view(status, entry_id.as_deref().and_then(|e| tree.get(e)));
        let calls = self.store.session_calls(learner, id).await.map_err(internal)?;
        Ok(Transcript {
            usage: self.engine.meter().prices.by_agent(&calls),
            now: now_ms(),
            card: card(&row, &name, &counts),
            study_ms: row.state.active_ms,
            query,
            leaf_id: written.leaf_id,
            shown: written.shown,
            total: written.total,
            html: written.html,
            summary,
        })
    }
}

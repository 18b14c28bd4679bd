//! What pages ask the server for: the view types (shared by both builds) and the server
//! functions that return them. On the server, each function finds the signed-in learner in the
//! request and asks the [`Backend`] (implemented by the server crate, which owns the storage);
//! another learner's ids are answered exactly like ids that do not exist: 404.
//!
//! Long by design: each page's view type sits beside the function that returns it.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::learner::LearnerId;
use crate::protocol::SessionStatus;
use crate::schedule::{CardState, Rating};
use crate::summary::{SessionSummary, SummaryStatus};

/// The signed-in learner. The server's sign-in middleware puts it into each request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Viewer {
    pub learner: LearnerId,
    pub username: String,
    /// Minutes the learner's clock is ahead of UTC (from the `tz` cookie the page sets; 0
    /// until it has): their days, for statistics and date filters, begin at their midnight.
    #[serde(default)]
    pub utc_offset_min: i32,
}

/// Which language model answers, and whether it passed its start-up check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderNotice {
    pub label: String,
    pub offline: bool,
    pub ok: bool,
    pub detail: String,
    /// The offline judges compare meaning (their sentence model is loaded), not words alone.
    pub by_meaning: bool,
    /// How the offline judges compare text, and without the model how to install it.
    pub judge: String,
    /// Through what spoken answers are transcribed ("whisper-1 at https://…"); `None` when
    /// answering by voice is off.
    pub voice: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SetCard {
    pub id: String,
    pub name: String,
    pub description: String,
    pub point_count: u32,
    pub due_count: u32,
    pub next_due_at: Option<i64>,
    /// A paused or in-progress session of this set, to resume.
    pub open_session: Option<SessionCard>,
    /// Archived: off the dashboard and not startable; its history stays.
    pub archived: bool,
}

/// What a session over several sets is called wherever a set's name would stand.
pub const TODAYS_REVIEW: &str = "Today's review";

/// A review's title with the sets it drew on: "Today's review: Cells, Rome and Verbs".
pub fn review_title(set_names: &[String]) -> String {
    match set_names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{TODAYS_REVIEW}: {} and {last}", rest.join(", ")),
        Some((only, _)) => format!("{TODAYS_REVIEW}: {only}"),
        None => TODAYS_REVIEW.to_string(),
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SessionCard {
    pub id: String,
    /// `None` for today's review across sets.
    pub set_id: Option<String>,
    /// The set's name, or "Today's review".
    pub set_name: String,
    pub status: SessionStatus,
    pub recalled_count: u32,
    pub total_points: u32,
    pub started_at: i64,
    pub updated_at: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dashboard {
    /// The server's clock when this was made: relative times are computed from it, so the
    /// server's render and the browser's agree.
    pub now: i64,
    pub sets: Vec<SetCard>,
    pub recent: Vec<SessionCard>,
    pub provider: ProviderNotice,
    pub stats: StudyStats,
    /// The newest summary of each set, newest first: where the learner left off.
    pub left_off: Vec<LeftOff>,
    /// A session whose summary is being written (the page looks again when it is).
    pub writing: Option<String>,
    /// Today's review across sets: `None` when nothing is due and none is open.
    pub today: Option<TodayReview>,
}

/// "Review today" on the dashboard: one session over what is due in every set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TodayReview {
    /// Points the next session would take, and from how many sets.
    pub points: u32,
    pub sets: u32,
    /// About how long it takes, from the learner's recent pace (or a stated default).
    pub minutes: u32,
    /// The estimate is the default pace, not yet the learner's own.
    pub default_pace: bool,
    /// Due points the session limit leaves for another session today.
    pub left: u32,
    /// New points the day's allowance holds back until tomorrow.
    pub new_held: u32,
    /// Today's review under way, to resume.
    pub open_session: Option<SessionCard>,
}

/// A set's newest session summary, on the dashboard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeftOff {
    pub session_id: String,
    /// `None` for today's review across sets.
    pub set_id: Option<String>,
    pub status: SessionStatus,
    pub summary: SummaryView,
}

/// A session's summary as the pages show it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SummaryView {
    /// `None` when none was ever asked for (the session has not been left yet).
    pub status: Option<SummaryStatus>,
    /// The newest summary, read from its JSON (`None` when there is none yet, or its JSON
    /// cannot be read: then `text` is shown as written).
    pub summary: Option<SessionSummary>,
    pub text: String,
    pub written_at: i64,
}

/// How study has gone lately, counted in the learner's own days.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudyStats {
    /// Sessions started today, and the study time in them.
    pub sessions_today: u32,
    pub study_ms_today: i64,
    /// Points due now, in sets on the dashboard.
    pub due_now: u32,
    /// Days in a row with study, up to today (or yesterday, when today has none yet).
    pub streak_days: u32,
    pub studied_today: bool,
    /// Points asked in sessions started in the last 7 days, and how many of them were
    /// recalled without being given the answer.
    pub asked_7d: u32,
    pub recalled_7d: u32,
    /// Reviews on each of the last 30 days, oldest first; the last is today.
    pub reviews: Vec<DayReviews>,
    /// Points falling due on each of the next 30 days, today first (with what is overdue).
    pub forecast: Vec<DayReviews>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DayReviews {
    /// The day, written out ("Sun 22 Nov").
    pub label: String,
    pub count: u32,
}

/// A recall point with its schedule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointView {
    pub id: String,
    pub content: String,
    /// The cue (also seen by the evaluator).
    pub context: String,
    pub state: CardState,
    pub due_at: i64,
    pub stability: f64,
    pub difficulty: f64,
    pub reps: u32,
    /// Failures in its log.
    pub lapses: u32,
    /// Failed at least as often as the learner's leech threshold.
    pub leech: bool,
    /// The chance of recalling it now (FSRS's forgetting curve); `None` before its first
    /// review.
    pub retrievability: Option<f64>,
    /// The last review's rating, if reviewed.
    pub last_rating: Option<Rating>,
    pub last_review_at: Option<i64>,
    /// Sessions in which it was reviewed (recalled, or not), oldest first.
    pub recalled_in: Vec<Recalled>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Recalled {
    pub session_id: String,
    pub recalled_at: i64,
    pub rating: Rating,
    /// The learner message that earned it.
    pub entry_id: Option<String>,
}

crate::named_enum! {
    /// What a resource of a set is.
    #[derive(Default)]
    pub enum ResourceKind {
        /// An excerpt of the learner's material (Markdown).
        #[default]
        Text = "text",
        /// An image, uploaded or served by this site.
        Image = "image",
    }
}

/// A text excerpt or image of a set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResourceView {
    pub id: String,
    pub kind: ResourceKind,
    pub title: String,
    /// The excerpt (Markdown), for text.
    pub body: String,
    /// Where an image is served.
    pub url: Option<String>,
    pub licence: Option<String>,
    /// The points it supports.
    pub point_ids: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SetDetail {
    pub now: i64,
    pub card: SetCard,
    pub guidelines: String,
    pub points: Vec<PointView>,
    pub resources: Vec<ResourceView>,
}

/// One point and the set it belongs to, for its edit and delete pages.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointPage {
    pub set_id: String,
    pub set_name: String,
    pub point: PointView,
}

/// One resource and its set, for its edit and delete pages.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResourcePage {
    pub set_id: String,
    pub set_name: String,
    pub resource: ResourceView,
    /// The set's points, (id, content) in order: what it can be linked to.
    pub points: Vec<(String, String)>,
}

crate::named_enum! {
    /// What a drafted point's review page flags for the learner to look at.
    pub enum DraftCheck {
        /// Longer than a point is easy to recall.
        TooLong = "too_long",
        /// Two facts in one point.
        TwoFacts = "two_facts",
        /// The cue says the answer.
        GivesAway = "gives_away",
        /// The set already has this point.
        Duplicate = "duplicate",
        /// The words it rests on are not in the source.
        QuoteMissing = "quote_missing",
    }
}

impl DraftCheck {
    /// What the review page says of it.
    pub fn message(self) -> &'static str {
        match self {
            DraftCheck::TooLong => "Long: a point is easier to recall when it says one thing briefly.",
            DraftCheck::TwoFacts => "Two facts joined: consider keeping only one, or splitting it.",
            DraftCheck::GivesAway => "The cue gives the answer away: ask without saying it.",
            DraftCheck::Duplicate => "Your set already has this point.",
            DraftCheck::QuoteMissing => "Its quote is not in your source: check it against the passage.",
        }
    }
}

/// A drafted point as the review page shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DraftView {
    pub content: String,
    pub cue: String,
    /// The source's words it rests on.
    pub quote: String,
    /// Which passage it came from (from 1).
    pub passage: u32,
    pub checks: Vec<DraftCheck>,
}

/// A source being drafted, or its drafts waiting for review.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SourceView {
    pub id: String,
    pub title: String,
    /// The set the points go to (its id, `None` for a new one) and its name.
    pub set_id: Option<String>,
    pub set_name: String,
    pub stage: SourceStage,
    pub passages: u32,
    pub passages_done: u32,
    pub drafts: Vec<DraftView>,
    /// Passages whose drafts could not be made (from 1).
    pub not_drafted: Vec<u32>,
}

/// Where a source's drafting stands.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum SourceStage {
    Drafting,
    /// Its instance stopped before it finished: it can be drafted again.
    Stopped,
    Ready,
    Failed(String),
}

/// What the "from a source" form needs: the set points go to, if an existing one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SourceForm {
    pub set_id: Option<String>,
    pub set_name: Option<String>,
}

/// What an uploaded file would import, shown before anything is written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImportPreview {
    pub draft_id: String,
    pub file_name: String,
    /// "CSV", "Anki package", …
    pub format: String,
    /// The sets it would create: one, or one per deck of an Anki package.
    pub sets: Vec<PreviewSet>,
    /// Why the file cannot be imported at all, if so.
    pub error: Option<String>,
}

/// One set an import would create.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreviewSet {
    /// The new set's name (made unique if the learner has one of that name).
    pub name: String,
    /// The name the file gave, when it had to change.
    pub renamed_from: Option<String>,
    pub description: String,
    /// The points, content then cue (the first ones, when there are many).
    pub points: Vec<(String, String)>,
    pub point_count: u32,
    pub resource_count: u32,
    /// Reviews the points bring with them (their history where they came from), the
    /// suspended ones' aside.
    pub review_count: u32,
    /// Points whose cards are suspended where they came from, by content: imported only if
    /// the learner ticks them in (listed among `points`, not counted in `point_count`).
    pub suspended: Vec<String>,
    /// Rows left out: where, and why.
    pub rejected: Vec<(String, String)>,
}

/// What deleting a set takes with it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SetDeletion {
    pub id: String,
    pub name: String,
    pub points: u32,
    pub resources: u32,
    pub sessions: u32,
}

/// What the live-session page renders before its socket connects.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SessionHeader {
    pub card: SessionCard,
    pub provider: ProviderNotice,
}

crate::named_enum! {
    /// Which entries a session page shows.
    #[derive(Default)]
    pub enum EntryFilter {
        /// The conversation: messages and branch summaries.
        #[default]
        Default = "default",
        /// What the learner wrote.
        Learner = "learner",
        /// Entries with a label.
        Labelled = "labelled",
        /// Every entry, mode changes and compactions included.
        All = "all",
    }
}

/// How a session page was asked for: `?leafId=…&targetId=…&filter=…&q=…`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TranscriptQuery {
    /// The line shown in full: the path to this entry (the session's leaf when absent).
    pub leaf_id: Option<String>,
    /// The entry to scroll to and highlight.
    pub target_id: Option<String>,
    pub filter: EntryFilter,
    /// Words every shown entry must contain.
    pub q: String,
    /// The entry whose label form is open.
    pub edit: Option<String>,
}

/// The account page: the learner's name and every sign-in of theirs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AccountPage {
    pub username: String,
    pub now: i64,
    /// The recall the learner's schedule aims for, in percent (70 to 97).
    pub retention_percent: u32,
    /// Failures after which a point is flagged as a leech.
    pub leech_lapses: u32,
    /// Today's review: points per session at most, and new points a day.
    pub review_points_per_session: u32,
    pub new_points_per_day: u32,
    pub fit: ScheduleFit,
    /// Newest first.
    pub sign_ins: Vec<SignInRow>,
    /// What the language models used for the learner this month (UTC), by agent.
    pub month_usage: Vec<crate::usage::AgentTokens>,
    /// The learner's allowance of model tokens a day and a month, if the server sets one.
    pub allowance: Allowance,
}

/// A learner's allowance of model tokens, and what they used of it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Allowance {
    pub daily: Option<i64>,
    pub monthly: Option<i64>,
    pub used_today: i64,
    pub used_this_month: i64,
    /// The operator lifted the caps until then (ms).
    pub lifted_until: Option<i64>,
}

/// Fitting the learner's schedule to their reviews, as the account page shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScheduleFit {
    /// Reviews a fit learns from: each that follows an earlier review of the same point.
    pub items: u32,
    /// Such reviews needed to fit anything (the first reviews' stabilities), and to fit every
    /// parameter.
    pub any_fit: u32,
    pub full_fit: u32,
    /// The latest fit.
    pub run: Option<FitRun>,
}

/// Where the latest fit stands.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum FitRun {
    /// The optimiser's steps done of all it will take (0 of 0 before it starts).
    Running {
        done: u32,
        total: u32,
    },
    Done {
        /// Run by the weekly fit rather than asked for.
        weekly: bool,
        finished_at: i64,
        /// Reviews it learnt from.
        items: u32,
        /// How well the parameters in use before and the fitted ones predict those reviews.
        before: FitFigures,
        after: FitFigures,
        /// The fitted parameters predicted better and are now in use.
        adopted: bool,
        /// Due dates they moved.
        moved: u32,
    },
    Failed {
        finished_at: i64,
    },
}

/// How well parameters predict a learner's reviews; lower is better for both.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitFigures {
    pub log_loss: f64,
    pub rmse: f64,
}

/// One sign-in, as the account page lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignInRow {
    /// Names it in the form that ends it (never the cookie's own id).
    pub ref_id: String,
    pub signed_in_at: i64,
    pub address: String,
    /// The browser's own description of itself, as sent.
    pub user_agent: String,
    /// The sign-in this page was asked for with.
    pub current: bool,
}

/// The id of the request's sign-in (the cookie's session id), put in the request by the
/// server for the account page; never sent to a browser.
#[cfg(feature = "ssr")]
#[derive(Clone, Debug)]
pub struct CurrentSignIn(pub String);

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Transcript {
    pub now: i64,
    pub card: SessionCard,
    pub study_ms: i64,
    pub query: TranscriptQuery,
    /// The leaf of the line shown in full.
    pub leaf_id: String,
    /// Entries shown with this filter and search, and in all (labels themselves not counted).
    pub shown: u32,
    pub total: u32,
    /// The entries as HTML, written and escaped on the server: the shown line in full, other
    /// branches folded beside the entries they left from.
    pub html: String,
    pub summary: SummaryView,
    /// What the language models used for this session, by agent (empty on the offline tutor).
    pub usage: Vec<crate::usage::AgentTokens>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistoryList {
    pub now: i64,
    /// This page of the sessions that pass the filter, newest first.
    pub sessions: Vec<HistoryItem>,
    /// Sessions that pass the filter, on every page.
    pub total: u64,
    /// This page (from 1) and how many there are.
    pub page: u32,
    pub pages: u32,
    /// Every set the learner has sessions of, archived ones included, to filter by.
    pub sets: Vec<SetChoice>,
    /// The filter as applied (dates as `YYYY-MM-DD`, in the learner's days).
    pub filter: HistoryFilter,
    /// Why part of the filter was left out (a date that is not one).
    pub filter_error: Option<String>,
}

/// A session in the history list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistoryItem {
    pub card: SessionCard,
    pub study_ms: i64,
    /// Rabbit holes explored.
    pub rabbitholes: u32,
    /// The overview of the session's newest summary.
    pub overview: Option<String>,
}

/// The history list's query: `?set=…&status=…&from=…&to=…&q=…&page=…`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryFilter {
    pub set: Option<String>,
    pub status: Option<String>,
    pub from: Option<String>,
    pub to: Option<String>,
    /// Words each of which must appear in the set's name, the session's messages or its
    /// summary.
    pub q: Option<String>,
    pub page: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetChoice {
    pub id: String,
    pub name: String,
}

/// How a request can fail, as pages show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ApiError {
    /// Missing, or another learner's.
    NotFound,
    /// Not signed in.
    Unauthorized,
    /// The request makes no sense (the text says why).
    Invalid(String),
    /// The server failed; the learner's data is intact.
    Internal,
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ApiError::NotFound => write!(f, "Not found."),
            ApiError::Unauthorized => write!(f, "Please sign in."),
            ApiError::Invalid(why) => write!(f, "{why}"),
            ApiError::Internal => write!(f, "Something went wrong on the server; try again."),
        }
    }
}

impl std::error::Error for ApiError {}

impl leptos::server_fn::error::FromServerFnError for ApiError {
    type Encoder = leptos::server_fn::codec::JsonEncoding;

    /// Transport failures (offline, a server restarting) reach the page as `Internal`.
    fn from_server_fn_error(_: leptos::server_fn::error::ServerFnErrorErr) -> Self {
        ApiError::Internal
    }
}

#[server(endpoint = "get_viewer")]
pub async fn get_viewer() -> Result<Option<Viewer>, ApiError> {
    Ok(backend::viewer())
}

#[server(endpoint = "get_dashboard")]
pub async fn get_dashboard() -> Result<Dashboard, ApiError> {
    let viewer = backend::require_viewer()?;
    backend::answer(backend::get()?.dashboard(&viewer).await)
}

#[server(endpoint = "get_set")]
pub async fn get_set(id: String) -> Result<SetDetail, ApiError> {
    let viewer = backend::require_viewer()?;
    backend::answer(backend::get()?.recall_set(&viewer, &id).await)
}

#[server(endpoint = "get_point")]
pub async fn get_point(set_id: String, point_id: String) -> Result<PointPage, ApiError> {
    let viewer = backend::require_viewer()?;
    backend::answer(backend::get()?.point(&viewer, &set_id, &point_id).await)
}

#[server(endpoint = "get_resource")]
pub async fn get_resource(set_id: String, resource_id: String) -> Result<ResourcePage, ApiError> {
    let viewer = backend::require_viewer()?;
    backend::answer(backend::get()?.resource(&viewer, &set_id, &resource_id).await)
}

#[server(endpoint = "get_import_preview")]
pub async fn get_import_preview(id: String) -> Result<ImportPreview, ApiError> {
    let viewer = backend::require_viewer()?;
    backend::answer(backend::get()?.import_preview(&viewer, &id).await)
}

#[server(endpoint = "get_source_form")]
pub async fn get_source_form(set_id: Option<String>) -> Result<SourceForm, ApiError> {
    let viewer = backend::require_viewer()?;
    backend::answer(backend::get()?.source_form(&viewer, set_id.as_deref()).await)
}

#[server(endpoint = "get_source")]
pub async fn get_source(id: String) -> Result<SourceView, ApiError> {
    let viewer = backend::require_viewer()?;
    backend::answer(backend::get()?.source(&viewer, &id).await)
}

#[server(endpoint = "get_set_deletion")]
pub async fn get_set_deletion(id: String) -> Result<SetDeletion, ApiError> {
    let viewer = backend::require_viewer()?;
    backend::answer(backend::get()?.set_deletion(&viewer, &id).await)
}

/// Starts a session on a set and goes to it (a plain form post works without JavaScript):
/// the points that are due, or all of them when `all` is set.
#[server(endpoint = "start_session")]
pub async fn start_session(
    set_id: String,
    #[server(default)] all: Option<String>,
) -> Result<String, ApiError> {
    let viewer = backend::require_viewer()?;
    let id = backend::answer(backend::get()?.start_session(&viewer, &set_id, all.is_some()).await)?;
    leptos_axum::redirect(&format!("/sessions/{id}"));
    Ok(id)
}

/// Starts today's review across every set and goes to it (a plain form post works without
/// JavaScript). An open review is replaced: "Resume" continues it instead.
#[server(endpoint = "start_review")]
pub async fn start_review() -> Result<String, ApiError> {
    let viewer = backend::require_viewer()?;
    let id = backend::answer(backend::get()?.start_review(&viewer).await)?;
    leptos_axum::redirect(&format!("/sessions/{id}"));
    Ok(id)
}

#[server(endpoint = "get_session_header")]
pub async fn get_session_header(id: String) -> Result<SessionHeader, ApiError> {
    let viewer = backend::require_viewer()?;
    backend::answer(backend::get()?.session_header(&viewer, &id).await)
}

#[server(endpoint = "get_history")]
pub async fn get_history(#[server(default)] filter: HistoryFilter) -> Result<HistoryList, ApiError> {
    let viewer = backend::require_viewer()?;
    backend::answer(backend::get()?.history(&viewer, filter).await)
}

#[server(endpoint = "get_transcript")]
pub async fn get_transcript(
    id: String,
    #[server(default)] query: TranscriptQuery,
) -> Result<Transcript, ApiError> {
    let viewer = backend::require_viewer()?;
    backend::answer(backend::get()?.transcript(&viewer, &id, query).await)
}

#[server(endpoint = "get_account")]
pub async fn get_account() -> Result<AccountPage, ApiError> {
    let viewer = backend::require_viewer()?;
    let current = use_context::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<CurrentSignIn>().map(|c| c.0.clone()));
    backend::answer(backend::get()?.account(&viewer, current.as_deref()).await)
}

/// The server's side of the API, implemented where the storage lives.
#[cfg(feature = "ssr")]
#[async_trait::async_trait]
pub trait Backend: Send + Sync + 'static {
    async fn dashboard(&self, viewer: &Viewer) -> Result<Dashboard, ApiError>;
    /// `current`: the id of the sign-in asking, to mark it.
    async fn account(&self, viewer: &Viewer, current: Option<&str>) -> Result<AccountPage, ApiError>;
    async fn recall_set(&self, viewer: &Viewer, id: &str) -> Result<SetDetail, ApiError>;
    async fn point(&self, viewer: &Viewer, set_id: &str, point_id: &str) -> Result<PointPage, ApiError>;
    async fn resource(
        &self,
        viewer: &Viewer,
        set_id: &str,
        resource_id: &str,
    ) -> Result<ResourcePage, ApiError>;
    async fn set_deletion(&self, viewer: &Viewer, id: &str) -> Result<SetDeletion, ApiError>;
    async fn import_preview(&self, viewer: &Viewer, draft_id: &str) -> Result<ImportPreview, ApiError>;
    /// The "from a source" form: for a new set, or the learner's set `set_id`.
    async fn source_form(&self, viewer: &Viewer, set_id: Option<&str>) -> Result<SourceForm, ApiError>;
    /// A source being drafted, or its drafts with their checks.
    async fn source(&self, viewer: &Viewer, id: &str) -> Result<SourceView, ApiError>;
    async fn start_session(&self, viewer: &Viewer, set_id: &str, all: bool) -> Result<String, ApiError>;
    async fn start_review(&self, viewer: &Viewer) -> Result<String, ApiError>;
    async fn session_header(&self, viewer: &Viewer, id: &str) -> Result<SessionHeader, ApiError>;
    async fn history(&self, viewer: &Viewer, filter: HistoryFilter) -> Result<HistoryList, ApiError>;
    async fn transcript(
        &self,
        viewer: &Viewer,
        id: &str,
        query: TranscriptQuery,
    ) -> Result<Transcript, ApiError>;
}

#[cfg(feature = "ssr")]
pub mod backend {
    //! Server-side helpers for the functions above.

    use std::sync::Arc;

    use leptos::prelude::*;

    use super::{ApiError, Backend, Viewer};

    pub fn get() -> Result<Arc<dyn Backend>, ApiError> {
        use_context::<Arc<dyn Backend>>().ok_or(ApiError::Internal)
    }

    pub fn viewer() -> Option<Viewer> {
        use_context::<http::request::Parts>().and_then(|parts| parts.extensions.get::<Viewer>().cloned())
    }

    pub fn require_viewer() -> Result<Viewer, ApiError> {
        viewer().ok_or_else(|| status(ApiError::Unauthorized))
    }

    /// Passes a result on, giving the response the status that matches an error.
    pub fn answer<T>(result: Result<T, ApiError>) -> Result<T, ApiError> {
        result.map_err(status)
    }

    fn status(err: ApiError) -> ApiError {
        if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
            response.set_status(match err {
                ApiError::NotFound => http::StatusCode::NOT_FOUND,
                ApiError::Unauthorized => http::StatusCode::UNAUTHORIZED,
                ApiError::Invalid(_) => http::StatusCode::BAD_REQUEST,
                ApiError::Internal => http::StatusCode::INTERNAL_SERVER_ERROR,
            });
        }
        err
    }
}

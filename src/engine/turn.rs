//! One turn of language-model work, run as its own task so the session actor stays free to
//! attach sockets and queue messages while a reply streams. The task only talks to models;
//! every write happens in the actor, in the order of the events it sends back. What the tutor
//! says next depends on what the evaluator found, so after the assessment the task waits for
//! the actor's [`TutorPlan`] (written to the database by then) before the tutor starts.
//!
//! Long by design: the streaming of a reply (`relay`, `pass`) and the speculative tutor
//! (`Speculation`) serve only the turn, and read its events.

use futures_util::StreamExt;
use futures_util::future::{Either, select};
use tokio::sync::{mpsc, oneshot};

use crate::engine::agents::detector::{self, Detection};
use crate::engine::agents::evaluator::{self, Evaluation};
use crate::engine::agents::{explorer, tutor};
use crate::engine::reply_check::{ReplyCheck, Rule, Sentences};
use crate::llm::brief::{
    DetectorBrief, EvalMode, EvaluatorBrief, ExplorerBrief, Focus, PointBrief, Recap, ResourceBrief,
    SetBrief, Showable, TutorBrief, TutorMoment,
};
use crate::llm::{
    LlmError, Message, Output, Provider, ReplyStream, Request, SharedProvider, ToolCall, Usage,
};

/// What a turn reports: at most one `Assessed` and any number of `Chunk`s and `Show`s, then
/// exactly one of `Finished`, `Silent` or `Failed`. A recall turn assesses before its first chunk; in a
/// rabbit hole the silent evaluation may land between chunks.
#[derive(Debug)]
pub enum TurnEvent {
    Assessed {
        evaluation: Evaluation,
        detection: Option<Detection>,
        /// For a recall turn: where the actor sends the tutor's plan once it has saved what
        /// the assessment changed.
        plan: Option<oneshot::Sender<TutorPlan>>,
    },
    /// An in-process judge's verdict on a recall turn's message, given before the evaluator
    /// answers: the actor sends back the plan it implies (nothing saved), or None when it
    /// implies no reply, and the tutor starts on that plan.
    Guessed {
        evaluation: Evaluation,
        plan: oneshot::Sender<Option<TutorPlan>>,
    },
    Chunk(String),
    /// A tutor reply started before the evaluator answered was kept, or thrown away after
    /// `wasted_chars` characters of it had been generated.
    Speculated {
        kept: bool,
        wasted_chars: usize,
    },
    /// A sentence of the tutor's reply was taken out: it broke `rule`.
    Removed {
        rule: Rule,
        sentence: String,
    },
    /// The tutor called a tool to show a resource (not yet checked against the session's).
    Show(ToolCall),
    Finished {
        text: String,
        chunks: u32,
        /// What the reply's request used, when the provider says.
        usage: Option<Usage>,
    },
    /// No reply is due (every point has just been recalled: the overlay speaks instead).
    Silent,
    Failed(LlmError),
}

/// What the tutor's next words are about, decided by the actor from the session's state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TutorPlan {
    /// Points not yet recalled, in the order they will be asked about.
    pub pending: Vec<PointBrief>,
    /// Of those, the ones the learner has not tried yet (the reply check guards them).
    pub untried: Vec<PointBrief>,
    pub focus: Option<Focus>,
    pub just_recalled: Vec<PointBrief>,
    pub set_aside: Option<PointBrief>,
    pub previous_reply: Option<String>,
    /// Resources not yet shown in this session, which the tutor may show.
    pub showable: Vec<Showable>,
    /// No reply is due: the completion overlay answers instead.
    pub silent: bool,
    /// What to recall of an earlier stretch, on opening or resuming.
    pub recap: Option<Recap>,
    /// The learner asked the tutor something: answer, then the same rung again.
    pub asked: bool,
    /// Once every point is recalled, the session's notes, to answer questions from.
    pub notes: Vec<ResourceBrief>,
}

impl TutorPlan {
    /// Notes whether the learner's message nearly recalled the point under discussion
    /// (`near`: the points it nearly recalled, by id, each with the evaluator's feedback).
    pub fn note_close<'a>(&mut self, mut near: impl Iterator<Item = &'a (String, String)>) {
        if let Some(focus) = self.focus.as_mut() {
            focus.close = near.find(|(id, _)| *id == focus.point.id).map(|(_, feedback)| feedback.clone());
        }
    }
}

/// Which agent answers, and what it answers to.
pub enum TurnKind {
    Opening(TutorPlan),
    Resume(TutorPlan),
    /// A learner message in recall mode. With a guess, the tutor starts at once on the plan it
    /// implies, alongside the evaluator; its reply is kept if the evaluator finds the same.
    Recall {
        message: String,
        run_detector: bool,
        guess: Option<Guess>,
    },
    /// In a rabbit hole: the explorer's opening (`None`) or its answer to a learner message,
    /// with the evaluator checking silently.
    Explore {
        message: Option<String>,
    },
}

/// What the tutor that starts before the evaluator answers assumes the evaluator will find.
pub enum Guess {
    /// Nothing: the plan for an attempt that recalls and nearly recalls nothing.
    Nothing(Box<TutorPlan>),
    /// What the in-process judges find, quickest first (see `llm::offline::judges`): the
    /// tutor starts on the first verdict, and again on a later one only when its plan differs,
    /// so a turn the quick judge reads right need not wait for the surer one. The actor turns
    /// each verdict into a plan (see [`TurnEvent::Guessed`]).
    Judges(Vec<SharedProvider>),
}

/// A guess's verdict as the early tutor is asked on it.
struct GuessedPlan {
    plan: TutorPlan,
    findings: Findings,
    observation: Option<String>,
}

/// What an evaluation found, as the tutor hears of it: the points recalled and nearly
/// recalled. A speculative reply is kept only when the evaluator's findings are the guess's.
#[derive(Debug, Default, PartialEq)]
struct Findings {
    recalled: Vec<String>,
    near: Vec<String>,
}

impl Findings {
    fn of(evaluation: &Evaluation) -> Self {
        let mut recalled: Vec<String> = evaluation.recalled.iter().map(|(id, _)| id.clone()).collect();
        let mut near: Vec<String> = evaluation.near_misses.iter().map(|(id, _)| id.clone()).collect();
        recalled.sort();
        near.sort();
        Self { recalled, near }
    }
}

/// A tutor reply started on a guess, with what it assumed.
struct Held {
    speculation: Speculation,
    check: ReplyCheck,
    plan: TutorPlan,
    findings: Findings,
}

/// A snapshot of what the agents need, taken by the actor when the turn starts.
pub struct TurnInput {
    pub kind: TurnKind,
    /// The set in play (see `LiveSession::set_in_play`).
    pub set_name: String,
    pub set_description: String,
    pub guidelines: String,
    /// In today's review, every set it draws on (empty in a set session).
    pub review: Vec<SetBrief>,
    /// Points the evaluator may check off now.
    pub creditable: Vec<PointBrief>,
    pub all_points: Vec<PointBrief>,
    pub tutor_context: Vec<Message>,
    pub judge_context: Vec<Message>,
    pub rabbithole_topic: String,
    pub explorer_history: Vec<Message>,
    pub resources: Vec<ResourceBrief>,
    /// The sentence model, for the reply check (see `ReplyCheck::by_meaning`).
    pub embedder: Option<std::sync::Arc<crate::embed::Embedder>>,
}

pub fn spawn(provider: SharedProvider, input: TurnInput) -> mpsc::Receiver<TurnEvent> {
    let (tx, rx) = mpsc::channel(64);
    tokio::spawn(async move {
        run(provider, input, tx).await;
    });
    rx
}

async fn run(provider: SharedProvider, input: TurnInput, tx: mpsc::Sender<TurnEvent>) {
    let turn = Turn { provider: &provider, input: &input, tx: &tx };
    let done = match &input.kind {
        TurnKind::Opening(plan) => Some(turn.tutor(TutorMoment::Opening, plan.clone(), None, None).await),
        TurnKind::Resume(plan) => Some(turn.tutor(TutorMoment::Resume, plan.clone(), None, None).await),
        TurnKind::Recall { message, run_detector, guess } => {
            turn.recall(message, *run_detector, guess.as_ref()).await
        }
        TurnKind::Explore { message } => Some(turn.explore(message.as_deref()).await),
    };
    if let Some(done) = done {
        let _ = tx.send(done).await;
    }
}

/// One turn's work: the provider, the snapshot it works from, and where it reports.
struct Turn<'a> {
    provider: &'a SharedProvider,
    input: &'a TurnInput,
    tx: &'a mpsc::Sender<TurnEvent>,
}

/// What the judges found of a recall turn's message, and the tutor reply started meanwhile
/// on a guess, if one was.
struct Assessment {
    evaluation: Evaluation,
    detection: Option<Detection>,
    held: Option<Held>,
}

impl Turn<'_> {
    /// A tutor reply at `moment` on `plan`, streamed; the event that ends it.
    async fn tutor(
        &self,
        moment: TutorMoment,
        plan: TutorPlan,
        observation: Option<String>,
        message: Option<String>,
    ) -> TurnEvent {
        let (request, check) = tutor_request(self.input, moment, plan, observation, message);
        stream_reply(&**self.provider, request, Some(check), self.tx).await
    }

    fn evaluator_brief(&self, message: &str, mode: EvalMode) -> EvaluatorBrief {
        EvaluatorBrief {
            set_name: self.input.set_name.clone(),
            review: self.input.review.clone(),
            guidelines: self.input.guidelines.clone(),
            unchecked: self.input.creditable.clone(),
            learner_message: message.to_string(),
            mode,
            recent: self.input.judge_context.clone(),
        }
    }

    /// A recall turn: the judges, then the tutor on the plan the actor sends back once it has
    /// saved what they found. `None` when the actor no longer listens.
    async fn recall(&self, message: &str, run_detector: bool, guess: Option<&Guess>) -> Option<TurnEvent> {
        let Assessment { evaluation, detection, held } = self.assess(message, run_detector, guess).await;
        let findings = Findings::of(&evaluation);
        let observation = evaluation.observation.clone();
        let (plan_tx, plan_rx) = oneshot::channel();
        self.tx.send(TurnEvent::Assessed { evaluation, detection, plan: Some(plan_tx) }).await.ok()?;
        // The plan comes once the assessment is saved: nothing is shown before that.
        Some(self.reply(plan_rx.await.ok(), held, &findings, observation, message).await)
    }

    /// The evaluator and the detector together (the first tutor token waits for one round
    /// trip of them, not one per point), and meanwhile the tutor on a guess. An evaluator that
    /// answers before a guess is made leaves nothing more to guess.
    async fn assess(&self, message: &str, run_detector: bool, guess: Option<&Guess>) -> Assessment {
        let brief = self.evaluator_brief(message, EvalMode::Recall);
        let detect = async {
            if !run_detector {
                return None;
            }
            let brief = DetectorBrief {
                set_name: self.input.set_name.clone(),
                points: self.input.all_points.clone(),
                learner_message: message.to_string(),
                recent: self.input.judge_context.clone(),
            };
            detector::detect(&**self.provider, brief).await
        };
        let mut checks = std::pin::pin!(async {
            tokio::join!(evaluator::evaluate(&**self.provider, brief.clone()), detect)
        });
        let mut held = None;
        match guess {
            None => {}
            Some(Guess::Nothing(plan)) => {
                let guessed =
                    GuessedPlan { plan: (**plan).clone(), findings: Findings::default(), observation: None };
                held = Some(self.start_early(guessed, message));
            }
            Some(Guess::Judges(judges)) => {
                for judge in judges {
                    let verdict = std::pin::pin!(self.guess_with(judge, &brief));
                    let guessed = match select(checks.as_mut(), verdict).await {
                        Either::Left(((evaluation, detection), _)) => {
                            return Assessment { evaluation, detection, held };
                        }
                        Either::Right((guessed, _)) => guessed,
                    };
                    if let (Some(early), Some(guessed)) = (&held, &guessed)
                        && early.findings == guessed.findings
                        && early.plan == guessed.plan
                    {
                        continue;
                    }
                    // The later judge is the surer: the reply started on the earlier guess goes.
                    if let Some(early) = held.take() {
                        early.speculation.cancel(self.tx).await;
                    }
                    held = guessed.map(|guessed| self.start_early(guessed, message));
                }
            }
        }
        let (evaluation, detection) = checks.await;
        Assessment { evaluation, detection, held }
    }

    /// `judge`'s verdict on the message and the plan the actor makes of it; None when that
    /// plan is no reply (or the actor no longer listens).
    async fn guess_with(&self, judge: &SharedProvider, brief: &EvaluatorBrief) -> Option<GuessedPlan> {
        let verdict = evaluator::evaluate(&**judge, brief.clone()).await;
        let findings = Findings::of(&verdict);
        let observation = verdict.observation.clone();
        let (plan_tx, plan_rx) = oneshot::channel();
        self.tx.send(TurnEvent::Guessed { evaluation: verdict, plan: plan_tx }).await.ok()?;
        let plan = plan_rx.await.ok()??;
        Some(GuessedPlan { plan, findings, observation })
    }

    /// Starts the tutor on a guess at what the evaluator will find; its reply waits unseen.
    fn start_early(&self, guessed: GuessedPlan, message: &str) -> Held {
        let GuessedPlan { plan, findings, observation } = guessed;
        let (request, check) = tutor_request(
            self.input,
            TutorMoment::Reply,
            plan.clone(),
            observation,
            Some(message.to_string()),
        );
        let speculation = Speculation::start(self.provider.clone(), request);
        Held { speculation, check, plan, findings }
    }

    /// The tutor's reply on the actor's plan: the early one when the evaluator found what its
    /// guess assumed (the tutor was then asked exactly what it would be asked now), otherwise
    /// a new one; none when the plan is silent or the actor could not save the assessment (it
    /// has told the learner).
    async fn reply(
        &self,
        plan: Option<TutorPlan>,
        held: Option<Held>,
        findings: &Findings,
        observation: Option<String>,
        message: &str,
    ) -> TurnEvent {
        let message = Some(message.to_string());
        match (plan, held) {
            (Some(plan), Some(held)) if !plan.silent && held.findings == *findings && plan == held.plan => {
                match held.speculation.release(&held.check, self.tx).await {
                    Some(done) => done,
                    // It could not start: ask again, the ordinary way.
                    None => self.tutor(TutorMoment::Reply, plan, observation, message).await,
                }
            }
            (Some(plan), held) if !plan.silent => {
                if let Some(held) = held {
                    tracing::debug!(
                        guessed = ?held.findings,
                        found = ?findings,
                        same_plan = plan == held.plan,
                        "the evaluator did not find what the early reply assumed"
                    );
                    held.speculation.cancel(self.tx).await;
                }
                self.tutor(TutorMoment::Reply, plan, observation, message).await
            }
            (Some(_) | None, held) => {
                if let Some(held) = held {
                    held.speculation.cancel(self.tx).await;
                }
                TurnEvent::Silent
            }
        }
    }

    /// A turn in a rabbit hole: the explorer answers, with the evaluator checking silently
    /// beside it (it never steers the explorer).
    async fn explore(&self, message: Option<&str>) -> TurnEvent {
        let input = self.input;
        let brief = ExplorerBrief {
            set_name: input.set_name.clone(),
            topic: input.rabbithole_topic.clone(),
            resources: input.resources.clone(),
            learner_message: message.map(str::to_string),
            history: input.explorer_history.clone(),
            open_points: input.creditable.clone(),
        };
        let reply =
            stream_reply(&**self.provider, explorer::request(brief, &input.set_description), None, self.tx);
        match message {
            Some(message) => {
                let silent_check = async {
                    let brief = self.evaluator_brief(message, EvalMode::Rabbithole);
                    let evaluation = evaluator::evaluate(&**self.provider, brief).await;
                    let _ =
                        self.tx.send(TurnEvent::Assessed { evaluation, detection: None, plan: None }).await;
                };
                tokio::join!(silent_check, reply).1
            }
            None => reply.await,
        }
    }
}

/// Streams a reply as `Chunk`s (and its tool calls as `Show`s) and returns the event that
/// ends it (not yet sent). With a check (the tutor's replies), text is passed on a sentence at
/// a time, and a sentence that breaks a rule is reported as `Removed` instead; if nothing is
/// left, the check's stand-in question is the reply.
async fn stream_reply(
    provider: &dyn Provider,
    request: Request,
    check: Option<ReplyCheck>,
    tx: &mpsc::Sender<TurnEvent>,
) -> TurnEvent {
    match provider.stream(&request).await {
        Ok(stream) => relay(stream, check.as_ref(), tx).await,
        Err(err) => TurnEvent::Failed(err),
    }
}

/// Passes a reply's stream on (see [`stream_reply`]).
async fn relay(
    mut stream: ReplyStream,
    check: Option<&ReplyCheck>,
    tx: &mpsc::Sender<TurnEvent>,
) -> TurnEvent {
    let mut text = String::new();
    let mut chunks = 0u32;
    let mut usage = None;
    let mut sentences = Sentences::default();
    let stopped = || TurnEvent::Failed(LlmError::Interrupted("the session stopped listening".into()));
    while let Some(piece) = stream.next().await {
        let pieces = match piece {
            Ok(Output::Text(piece)) => match check {
                Some(_) => sentences.push(&piece),
                None => vec![piece],
            },
            Ok(Output::Tool(call)) => {
                if tx.send(TurnEvent::Show(call)).await.is_err() {
                    return stopped();
                }
                continue;
            }
            Ok(Output::Usage(reported)) => {
                usage = Some(reported);
                continue;
            }
            Err(err) => return TurnEvent::Failed(err),
        };
        for piece in pieces {
            if !pass(piece, check, &mut text, &mut chunks, tx).await {
                return stopped();
            }
        }
    }
    if let Some(rest) = sentences.finish()
        && !pass(rest, check, &mut text, &mut chunks, tx).await
    {
        return stopped();
    }
    if text.trim().is_empty() {
        match check.map(|c| c.stand_in().to_string()) {
            Some(stand_in) if chunks == 0 => {
                if tx.send(TurnEvent::Chunk(stand_in.clone())).await.is_err() {
                    return stopped();
                }
                return TurnEvent::Finished { text: stand_in, chunks: 1, usage };
            }
            Some(_) | None => return TurnEvent::Failed(LlmError::Protocol("the reply was empty".into())),
        }
    }
    TurnEvent::Finished { text, chunks, usage }
}

/// A tutor reply requested before the evaluator has answered, held until it has: released
/// when the evaluator finds nothing, cancelled (its connection closed, so the provider stops
/// generating) when it finds something.
struct Speculation {
    replies: mpsc::Receiver<Result<Output, LlmError>>,
    task: tokio::task::JoinHandle<()>,
}

impl Speculation {
    fn start(provider: SharedProvider, request: Request) -> Self {
        // Room for a whole reply: generation goes on at full speed while it waits.
        let (tx, replies) = mpsc::channel(4096);
        let task = tokio::spawn(async move {
            match provider.stream(&request).await {
                Ok(mut stream) => {
                    while let Some(item) = stream.next().await {
                        if tx.send(item).await.is_err() {
                            break;
                        }
                    }
                }
                Err(err) => {
                    let _ = tx.send(Err(err)).await;
                }
            }
        });
        Self { replies, task }
    }

    /// Shows the held reply and streams the rest live; `None` when the request never started
    /// (the caller asks again).
    async fn release(mut self, check: &ReplyCheck, tx: &mpsc::Sender<TurnEvent>) -> Option<TurnEvent> {
        let first = self.replies.recv().await;
        let started = !matches!(first, Some(Err(_)));
        let _ = tx.send(TurnEvent::Speculated { kept: started, wasted_chars: 0 }).await;
        if !started {
            return None;
        }
        let rest = futures_util::stream::unfold(self.replies, |mut replies| async move {
            replies.recv().await.map(|item| (item, replies))
        });
        let stream: ReplyStream = Box::pin(futures_util::stream::iter(first).chain(rest));
        Some(relay(stream, Some(check), tx).await)
    }

    /// Stops the request and reports how much of it was generated for nothing.
    async fn cancel(mut self, tx: &mpsc::Sender<TurnEvent>) {
        self.task.abort();
        let mut wasted_chars = 0;
        while let Ok(item) = self.replies.try_recv() {
            if let Ok(Output::Text(text)) = item {
                wasted_chars += text.chars().count();
            }
        }
        let _ = tx.send(TurnEvent::Speculated { kept: false, wasted_chars }).await;
    }
}

/// Sends one piece of a reply on, unless the check takes it out; false when nobody listens.
async fn pass(
    piece: String,
    check: Option<&ReplyCheck>,
    text: &mut String,
    chunks: &mut u32,
    tx: &mpsc::Sender<TurnEvent>,
) -> bool {
    let rule = match check {
        Some(check) => match check.check(&piece) {
            Some(rule) => Some(rule),
            None => check.leaks_in_other_words(&piece).await.then_some(Rule::Leak),
        },
        None => None,
    };
    let event = match rule {
        Some(rule) => TurnEvent::Removed { rule, sentence: piece.trim().to_string() },
        None => {
            text.push_str(&piece);
            *chunks += 1;
            TurnEvent::Chunk(piece)
        }
    };
    tx.send(event).await.is_ok()
}

fn tutor_request(
    input: &TurnInput,
    moment: TutorMoment,
    plan: TutorPlan,
    observation: Option<String>,
    learner_message: Option<String>,
) -> (Request, ReplyCheck) {
    // If every sentence is taken out, the question the point is asked by asks instead.
    let stand_in = plan
        .focus
        .as_ref()
        .and_then(|f| f.point.question())
        .unwrap_or_else(|| "What else comes to mind?".to_string());
    let titles = plan.focus.iter().flat_map(|f| &f.notes).chain(&plan.notes).map(|n| n.title.clone());
    let check = ReplyCheck::new(&plan.untried, stand_in)
        .naming(titles.collect::<Vec<_>>())
        .by_meaning(input.embedder.clone());
    // In a review, the guidelines of the set whose point is under discussion.
    let guidelines = if input.review.is_empty() {
        input.guidelines.as_str()
    } else {
        let set = plan.focus.as_ref().and_then(|f| f.point.set.as_deref());
        input.review.iter().find(|s| Some(s.name.as_str()) == set).map_or("", |s| s.guidelines.as_str())
    };
    let brief = TutorBrief {
        set_name: input.set_name.clone(),
        review: input.review.clone(),
        moment,
        pending: plan.pending,
        focus: plan.focus,
        just_recalled: plan.just_recalled,
        set_aside: plan.set_aside,
        observation,
        learner_message,
        asked: plan.asked,
        previous_reply: plan.previous_reply,
        showable: plan.showable,
        recap: plan.recap,
        notes: plan.notes,
    };
    (tutor::request(brief, guidelines, input.tutor_context.clone()), check)
}

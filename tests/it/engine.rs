//! The engine driven directly (no socket) with a scripted provider that answers like a model
//! would, malformed answers included.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use warren_app::learner::LearnerId;

use async_trait::async_trait;
use warren::engine::{Attachment, Engine, EngineConfig, demo};
use warren::llm::{LlmError, Output, Provider, Purpose, ReplyStream, Request};
use warren::store::Store;

use crate::common::attached_frame;
use warren_app::protocol::{ClientMessage, ProviderInfo, ServerMessage, SessionStatus};

#[derive(Default)]
struct Scripted {
    evaluator: Mutex<VecDeque<String>>,
    calls: Mutex<Vec<&'static str>>,
    /// Every request, in order.
    requests: Mutex<Vec<Request>>,
}

impl Scripted {
    fn evaluator_says(&self, answers: &[&str]) {
        self.evaluator.lock().unwrap().extend(answers.iter().map(|a| a.to_string()));
    }
    fn calls(&self) -> Vec<&'static str> {
        self.calls.lock().unwrap().clone()
    }
}

#[async_trait]
impl Provider for Scripted {
    fn info(&self) -> ProviderInfo {
        ProviderInfo {
            kind: warren_app::protocol::ProviderKind::Offline,
            model: "s".into(),
            offline: true,
            label: "scripted".into(),
        }
    }

    async fn stream(&self, request: &Request) -> Result<ReplyStream, LlmError> {
        let (name, text) = match &request.purpose {
            Purpose::Evaluator(_) => (
                "evaluator",
                self.evaluator.lock().unwrap().pop_front().unwrap_or_else(|| r#"{"recalled":[]}"#.into()),
            ),
            Purpose::Detector(_) => ("detector", r#"{"isRabbithole":false}"#.into()),
            Purpose::Tutor(_) => ("tutor", "What else comes to mind?".into()),
            Purpose::Explorer(_) => ("explorer", "Here is something.".into()),
            Purpose::Summariser(_) => {
                let n = self.calls().iter().filter(|c| **c == "summariser").count() + 1;
                ("summariser", format!("Summary number {n} of what was said."))
            }
            Purpose::Cleanup(_) => ("cleanup", r#"{"text":"","corrections":[]}"#.into()),
            Purpose::Drafter(_) => ("drafter", r#"{"points":[]}"#.into()),
            Purpose::Probe => ("probe", "ok".into()),
        };
        self.calls.lock().unwrap().push(name);
        self.requests.lock().unwrap().push(request.clone());
        Ok(Box::pin(futures_util::stream::iter(vec![Ok(Output::Text(text))])))
    }

    async fn probe(&self) -> Result<(), LlmError> {
        Ok(())
    }
}

struct Fixture {
    owner: LearnerId,
    engine: Engine,
    store: Store,
    provider: Arc<Scripted>,
    session: String,
    points: Vec<String>,
    _dir: tempfile::TempDir,
}

async fn fixture() -> Fixture {
    fixture_with(EngineConfig::default()).await
}

async fn fixture_with(config: EngineConfig) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&format!("sqlite://{}/e.db", dir.path().display())).await.unwrap();
    store.migrate().await.unwrap();
    let owner = store.create_account("learner", "not-a-real-hash").await.unwrap().unwrap();
    demo::ensure_demo_sets(&store, &owner).await.unwrap();
    let provider = Arc::new(Scripted::default());
    let engine = Engine::new(store.clone(), provider.clone(), config);
    let set = store.list_sets(&owner, 0).await.unwrap().remove(0);
    let session = engine.start_session(&owner, &set.id, true).await.unwrap().id;
    let points = store.points(&owner, &set.id).await.unwrap().into_iter().map(|p| p.id).collect();
    Fixture { engine, store, provider, owner, session, points, _dir: dir }
}

async fn next(a: &mut Attachment) -> ServerMessage {
    attached_frame(a, Duration::from_secs(5)).await.expect("a frame")
}

async fn until(a: &mut Attachment, done: impl Fn(&ServerMessage) -> bool) -> Vec<ServerMessage> {
    let mut seen = vec![];
    loop {
        let m = next(a).await;
        let stop = done(&m);
        seen.push(m);
        if stop {
            return seen;
        }
    }
}

fn turn_end(m: &ServerMessage) -> bool {
    matches!(
        m,
        ServerMessage::AssistantComplete(_)
            | ServerMessage::SessionCompleteOverlay(_)
            | ServerMessage::Error(_)
    )
}

async fn say(a: &mut Attachment, text: &str) -> Vec<ServerMessage> {
    a.send(ClientMessage::UserMessage { content: text.into(), client_message_id: None, via: None })
        .await
        .unwrap();
    until(a, turn_end).await
}

fn recalled(frames: &[ServerMessage]) -> Vec<String> {
    frames
        .iter()
        .filter_map(|m| match m {
            ServerMessage::RecallPointRecalled(r) => Some(r.point_id.clone()),
            _ => None,
        })
        .collect()
}

fn recall_json(ids: &[&str]) -> String {
    let items: Vec<String> =
        ids.iter().map(|id| format!(r#"{{"pointId":"{id}","confidence":0.9}}"#)).collect();
    format!(r#"{{"recalled":[{}],"nearMisses":[],"observation":""}}"#, items.join(","))
}

#[tokio::test]
async fn the_checklist_is_idempotent_and_ignores_unknown_or_unsure_points() {
    let f = fixture().await;
    let mut a = f.engine.attach(&f.owner, &f.session, None).await.unwrap();
    until(&mut a, turn_end).await;
    let (p0, p1) = (f.points[0].clone(), f.points[1].clone());
    f.provider.evaluator_says(&[
        &recall_json(&[&p0, "not-a-point"]),
        // Already recalled, and one below the confidence floor.
        &format!(
            r#"{{"recalled":[{{"pointId":"{p0}","confidence":1.0}},{{"pointId":"{p1}","confidence":0.3}}]}}"#
        ),
    ]);
    assert_eq!(recalled(&say(&mut a, "first").await), vec![p0.clone()]);
    assert_eq!(recalled(&say(&mut a, "second").await), Vec::<String>::new());
    let outcomes = f.store.outcomes(&f.owner, &f.session).await.unwrap();
    assert_eq!(outcomes.len(), 1);
}

#[tokio::test]
async fn a_malformed_evaluation_is_retried_once_then_degrades_to_nothing() {
    let f = fixture().await;
    let mut a = f.engine.attach(&f.owner, &f.session, None).await.unwrap();
    until(&mut a, turn_end).await;
    let p0 = f.points[0].clone();
    f.provider.evaluator_says(&["Sure! They recalled it.", &recall_json(&[&p0])]);
    assert_eq!(recalled(&say(&mut a, "answer").await), vec![p0]);

    f.provider.evaluator_says(&["not json", "{\"recalled\": \"everything\"}"]);
    let frames = say(&mut a, "another answer").await;
    assert!(recalled(&frames).is_empty());
    assert!(matches!(frames.last(), Some(ServerMessage::AssistantComplete(_))), "the tutor still answers");
    let evaluations = f.provider.calls().iter().filter(|c| **c == "evaluator").count();
    assert_eq!(evaluations, 4, "two per message: the answer and one retry");
}

#[tokio::test]
async fn ratings_reflect_struggle_and_schedule_the_next_review() {
    let f = fixture().await;
    let mut a = f.engine.attach(&f.owner, &f.session, None).await.unwrap();
    until(&mut a, turn_end).await;
    let (p0, p1) = (f.points[0].clone(), f.points[1].clone());
    // Two misses on the first point, then it comes: hard. The next, straight away: good.
    say(&mut a, "hmm").await;
    say(&mut a, "no idea").await;
    f.provider.evaluator_says(&[&recall_json(&[&p0]), &recall_json(&[&p1])]);
    say(&mut a, "got it").await;
    say(&mut a, "and this").await;
    let outcomes = f.store.outcomes(&f.owner, &f.session).await.unwrap();
    let rating = |id: &str| outcomes.iter().find(|o| o.point_id == id).unwrap().rating.to_string();
    assert_eq!(rating(&p0), "hard");
    assert_eq!(rating(&p1), "good");
    let row = f.store.session(&f.owner, &f.session).await.unwrap().unwrap();
    let points = f.store.points(&f.owner, row.set_id.as_deref().unwrap()).await.unwrap();
    let card = |id: &str| points.iter().find(|p| p.id == id).unwrap().card.clone();
    assert!(card(&p1).due_at > card(&p0).due_at, "a good recall is due later than a hard one");
    assert_eq!(card(&f.points[2]).reps, 0, "points not recalled are untouched");
}

#[tokio::test]
async fn overlay_then_pause_and_resume_keep_the_checklist() {
    let f = fixture().await;
    let mut a = f.engine.attach(&f.owner, &f.session, None).await.unwrap();
    until(&mut a, turn_end).await;
    let ids: Vec<&str> = f.points.iter().map(String::as_str).collect();
    f.provider.evaluator_says(&[&recall_json(&ids[..2])]);
    say(&mut a, "two at once").await;

    a.send(ClientMessage::LeaveSession).await.unwrap();
    let frames = until(&mut a, |m| matches!(m, ServerMessage::SessionPaused(_))).await;
    assert!(matches!(frames.last(), Some(ServerMessage::SessionPaused(p)) if p.recalled_count == 2));
    drop(a);

    let mut a = f.engine.attach(&f.owner, &f.session, None).await.unwrap();
    let ServerMessage::SessionStarted(s) = next(&mut a).await else { panic!("session_started first") };
    assert_eq!((s.recalled_count, s.total_points, s.status), (2, 5, SessionStatus::InProgress));
    until(&mut a, turn_end).await;
    f.provider.evaluator_says(&[&recall_json(&ids[2..])]);
    let frames = say(&mut a, "the rest").await;
    assert_eq!(recalled(&frames).len(), 3);
    let ServerMessage::SessionCompleteOverlay(o) = frames.last().unwrap() else { panic!("{frames:?}") };
    assert_eq!((o.recalled_count, o.total_points), (5, 5));
    assert_eq!(o.message, "You've covered everything.");

    // Reconnecting while the overlay shows brings it back.
    drop(a);
    let mut a = f.engine.attach(&f.owner, &f.session, None).await.unwrap();
    let ServerMessage::SessionStarted(s) = next(&mut a).await else { panic!() };
    assert!(s.overlay.is_some());
}

#[tokio::test]
async fn another_learners_session_is_not_found() {
    let f = fixture().await;
    let err =
        f.engine.attach(&LearnerId::new("someone-else"), &f.session, None).await.err().expect("refused");
    assert!(matches!(err, warren::engine::EngineError::NotFound));
    let err = f.engine.attach(&f.owner, "missing", None).await.err().expect("refused");
    assert!(matches!(err, warren::engine::EngineError::NotFound));
}

#[tokio::test]
async fn a_long_session_is_compacted_within_its_budget_and_keeps_its_checklist() {
    let budget = 1_000;
    let config = EngineConfig { context_tokens: budget, message_burst: u32::MAX, ..EngineConfig::default() };
    let f = fixture_with(config).await;
    let mut a = f.engine.attach(&f.owner, &f.session, None).await.unwrap();
    until(&mut a, turn_end).await;
    let p0 = f.points[0].clone();
    f.provider.evaluator_says(&[&recall_json(&[&p0])]);
    assert_eq!(recalled(&say(&mut a, "the first answer, which recalls a point").await), vec![p0.clone()]);
    for i in 1..300 {
        let frames = say(&mut a, &format!("answer number {i}, thinking aloud about what it might be")).await;
        assert!(matches!(frames.last(), Some(ServerMessage::AssistantComplete(_))), "turn {i}: {frames:?}");
    }

    let requests = f.provider.requests.lock().unwrap().clone();
    let tutor: Vec<&Request> = requests.iter().filter(|r| matches!(r.purpose, Purpose::Tutor(_))).collect();
    assert_eq!(tutor.len(), 301, "the opening and one reply per message");
    for (i, request) in tutor.iter().enumerate() {
        let tokens = warren::engine::tokens(&request.messages);
        assert!(tokens <= budget, "tutor request {i} carries {tokens} tokens, over {budget}");
    }
    let summaries = requests.iter().filter(|r| matches!(r.purpose, Purpose::Summariser(_))).count();
    assert!(summaries >= 5, "300 turns need several compactions, not {summaries}");
    let last = tutor.last().unwrap();
    assert!(
        last.messages[0].content.contains(&format!("Summary number {summaries} of what was said.")),
        "the tutor reads the newest summary first: {:?}",
        last.messages[0]
    );
    assert!(last.messages.iter().any(|m| m.content.contains("answer number 299")), "and the newest messages");
    assert!(!last.messages.iter().any(|m| m.content.contains("answer number 1,")), "not the oldest");

    // The recall made before every compaction still counts: the evaluator is not asked
    // about the point again, and the checklist says it was recalled.
    let evaluations: Vec<&Request> =
        requests.iter().filter(|r| matches!(r.purpose, Purpose::Evaluator(_))).collect();
    let Purpose::Evaluator(brief) = &evaluations.last().unwrap().purpose else { unreachable!() };
    assert!(brief.unchecked.iter().all(|p| p.id != p0));
    let outcomes = f.store.outcomes(&f.owner, &f.session).await.unwrap();
    assert_eq!(outcomes.iter().map(|o| o.point_id.clone()).collect::<Vec<_>>(), vec![p0]);

    // Nothing was deleted: every message is in the tree, and the compactions beside them.
    let entries = f.store.entries(&f.owner, &f.session).await.unwrap();
    let messages = entries.iter().filter(|e| e.kind == warren::store::EntryKind::Message).count();
    assert_eq!(messages, 1 + 2 * 300);
    let compactions = entries.iter().filter(|e| e.kind == warren::store::EntryKind::Compaction).count();
    assert_eq!(compactions, summaries);
}

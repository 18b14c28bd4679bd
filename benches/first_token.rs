//! Time to the first tutor token, with a model that takes a fixed time to answer, on the
//! learner messages of the evaluator's development set (`evals/evaluator.jsonl`): each case
//! a session of its own, its points the set, its tutor question the opening, its message the
//! turn measured. The model's evaluator answers as the case's labels say (a network evaluator
//! that is right), so a turn recalls a point when the case says it does.
//!
//! Three ways of running the tutor:
//! - it waits for the evaluator (two round trips a turn);
//! - it starts alongside the evaluator as if nothing is recalled, and is kept when that is so;
//! - it starts on the in-process judge's verdict (the offline evaluator, with the sentence
//!   model when `data/models/all-MiniLM-L6-v2` holds it, and WordNet's nouns), kept when the
//!   evaluator agrees.
//!
//! Round trips are printed separately for turns whose early reply was kept (the guess agreed
//! with the evaluator) and thrown away, with the agreement rate. `FIRST_TOKEN_LATENCY_MS` sets
//! the model's time a call (default 100), `FIRST_TOKEN_LOCAL_ONLY=1` runs the last way alone.
//! `cargo bench --bench first_token`; `WARREN_MODEL_DIR` names another model folder.

// A measuring harness: a failure to set up should stop it loudly, like a test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde::Deserialize;
use warren::embed::Judgement;
use warren::engine::{Attachment, Engine, EngineConfig, InProcess, Outbound};
use warren::llm::offline;
use warren::llm::{LlmError, Output, Provider, Purpose, ReplyStream, Request};
use warren::store::{NewPoint, NewSet, Store};
use warren_app::protocol::{ClientMessage, ProviderInfo, ServerMessage};

/// How long the model takes to answer any request: 100 ms, or `FIRST_TOKEN_LATENCY_MS` (a
/// hosted model's first token takes several times that, which the in-process judge's fixed
/// cost is then a smaller part of).
static LATENCY: std::sync::LazyLock<Duration> = std::sync::LazyLock::new(|| {
    Duration::from_millis(
        std::env::var("FIRST_TOKEN_LATENCY_MS").ok().and_then(|v| v.parse().ok()).unwrap_or(100),
    )
});
/// How long the learner takes to read the question and answer (the judges read ahead then).
const THINKING: Duration = Duration::from_millis(150);

#[derive(Deserialize)]
struct Case {
    points: HashMap<String, String>,
    #[serde(default)]
    recent: Vec<String>,
    message: String,
    recalled: Vec<String>,
    near_miss: Vec<String>,
    #[serde(default)]
    kind: Option<String>,
}

/// The case being run: its opening question and the evaluator's answer, by point content.
#[derive(Default)]
struct Script {
    opening: String,
    recalled: Vec<String>,
    near: Vec<String>,
    kind: String,
}

#[derive(Default)]
struct SlowModel {
    script: Mutex<Script>,
    /// Tutor replies asked for (openings aside), early ones given up included.
    replies: std::sync::atomic::AtomicUsize,
}

#[async_trait]
impl Provider for SlowModel {
    fn info(&self) -> ProviderInfo {
        ProviderInfo {
            kind: warren_app::protocol::ProviderKind::Anthropic,
            model: "slow".into(),
            offline: false,
            label: "bench".into(),
        }
    }

    async fn stream(&self, request: &Request) -> Result<ReplyStream, LlmError> {
        if let Purpose::Tutor(brief) = &request.purpose
            && brief.moment != warren::llm::brief::TutorMoment::Opening
        {
            self.replies.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        tokio::time::sleep(*LATENCY).await;
        let text = {
            let script = self.script.lock().expect("script");
            match &request.purpose {
                Purpose::Evaluator(brief) => {
                    let ids = |contents: &[String]| -> Vec<String> {
                        brief
                            .unchecked
                            .iter()
                            .filter(|p| contents.contains(&p.content))
                            .map(|p| p.id.clone())
                            .collect()
                    };
                    let recalled: Vec<_> = ids(&script.recalled)
                        .into_iter()
                        .map(|id| serde_json::json!({"pointId": id, "confidence": 0.9}))
                        .collect();
                    let near: Vec<_> = ids(&script.near)
                        .into_iter()
                        .map(|id| serde_json::json!({"pointId": id, "feedback": "close"}))
                        .collect();
                    serde_json::json!({"recalled": recalled, "nearMisses": near, "observation": "",
                        "messageKind": script.kind})
                    .to_string()
                }
                Purpose::Detector(_) => r#"{"isRabbithole":false}"#.into(),
                Purpose::Tutor(brief) if brief.moment == warren::llm::brief::TutorMoment::Opening => {
                    script.opening.clone()
                }
                Purpose::Tutor(_) => "What comes to mind first?".into(),
                Purpose::Explorer(_)
                | Purpose::Summariser(_)
                | Purpose::Cleanup(_)
                | Purpose::Drafter(_)
                | Purpose::Probe => "ok".into(),
            }
        };
        Ok(Box::pin(futures_util::stream::iter(vec![Ok(Output::Text(text))])))
    }

    async fn probe(&self) -> Result<(), LlmError> {
        Ok(())
    }
}

/// How the tutor starts, for one run.
#[derive(Clone, Copy, PartialEq)]
enum Way {
    Waits,
    AssumesNothing,
    GuessesLocally,
}

/// What one run measured: time to the first token of turns whose early reply was kept, of
/// those whose early reply was thrown away (or, waiting, of every turn).
#[derive(Default)]
struct Run {
    kept: Vec<Duration>,
    thrown: Vec<Duration>,
    /// Tutor replies asked for, over all turns.
    replies: usize,
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let cases: Vec<Case> = std::fs::read_to_string(root.join("evals/evaluator.jsonl"))
        .expect("the development set")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a case"))
        .collect();
    let model_dir = std::env::var_os("WARREN_MODEL_DIR")
        .map_or_else(|| root.join("data/models/all-MiniLM-L6-v2"), PathBuf::from);
    let judgement = Judgement::load(&model_dir);
    // WordNet's nouns and antonyms, as `warren serve` reads them beside the model.
    let wordnet = std::env::var_os("WARREN_WORDNET_DIR")
        .map_or_else(|| root.join("data/models/wordnet"), PathBuf::from);
    warren::text::kinship::install(&wordnet).unwrap_or_else(|e| panic!("{e}"));
    warren::text::antonyms::install(&wordnet).unwrap_or_else(|e| panic!("{e}"));
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        println!(
            "time to first tutor token, {} ms per model call, the {} learner messages of evals/evaluator.jsonl \
             (each its own session, sent {} ms after the opening question; the evaluator answers as the labels say):",
            LATENCY.as_millis(),
            cases.len(),
            THINKING.as_millis()
        );
        // `FIRST_TOKEN_LOCAL_ONLY=1`: the last way alone (at a long latency the others take long).
        if std::env::var_os("FIRST_TOKEN_LOCAL_ONLY").is_none() {
            let waiting = run(&cases, Way::Waits, &judgement).await;
            report("tutor waits for the evaluator", &waiting, false);
            let nothing = run(&cases, Way::AssumesNothing, &judgement).await;
            report("tutor starts as if nothing is recalled", &nothing, true);
        }
        let local = run(&cases, Way::GuessesLocally, &judgement).await;
        report(&format!("tutor starts on the in-process judge's verdict ({})", judgement.describe()), &local, true);
    });
}

fn report(name: &str, run: &Run, speculates: bool) {
    println!("  {name}:");
    let line = |kind: &str, times: &[Duration]| {
        if times.is_empty() {
            println!("    {kind:<24} none");
            return;
        }
        let mut times = times.to_vec();
        times.sort();
        let at =
            |q: f64| times[((q * times.len() as f64).ceil() as usize).saturating_sub(1).min(times.len() - 1)];
        let trips = |d: Duration| d.as_secs_f64() / LATENCY.as_secs_f64();
        println!(
            "    {kind:<24} {:>3} turns, median {:.2} round trips, p90 {:.2}",
            times.len(),
            trips(at(0.5)),
            trips(at(0.9))
        );
    };
    let all: Vec<Duration> = run.kept.iter().chain(&run.thrown).copied().collect();
    if speculates {
        line("guess agreed (kept)", &run.kept);
        line("guess disagreed (thrown)", &run.thrown);
        println!(
            "    agreement {:.1}% ({} of {} turns)",
            100.0 * run.kept.len() as f64 / all.len().max(1) as f64,
            run.kept.len(),
            all.len()
        );
    }
    line("all turns", &all);
    println!(
        "    tutor requests           {} (early ones given up included), {} turns with a reply",
        run.replies,
        all.len()
    );
}

async fn run(cases: &[Case], way: Way, judgement: &Judgement) -> Run {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&format!("sqlite://{}/bench.db", dir.path().display())).await.expect("db");
    store.migrate().await.expect("migrate");
    let owner = store.create_account("bench", "not-a-real-hash").await.expect("account").expect("new");
    let model = Arc::new(SlowModel::default());
    let judges = if way == Way::GuessesLocally { offline::judges(judgement.embedder()) } else { Vec::new() };
    let local = InProcess { judges, embedder: None, health: None, offline: None };
    let config = EngineConfig { speculative_tutor: way != Way::Waits, ..EngineConfig::default() };
    let engine = Engine::judged(store.clone(), model.clone(), local, config);
    let mut run = Run::default();
    for (i, case) in cases.iter().enumerate() {
        let mut ids: Vec<&String> = case.points.keys().collect();
        ids.sort();
        let set = NewSet {
            name: format!("Case {i}"),
            points: ids
                .iter()
                .map(|id| NewPoint { content: case.points[*id].clone(), ..NewPoint::default() })
                .collect(),
            ..NewSet::default()
        };
        let contents =
            |labels: &[String]| labels.iter().filter_map(|id| case.points.get(id).cloned()).collect();
        *model.script.lock().expect("script") = Script {
            opening: case.recent.last().cloned().unwrap_or_else(|| "What do you remember?".into()),
            recalled: contents(&case.recalled),
            near: contents(&case.near_miss),
            kind: case.kind.clone().unwrap_or_else(|| "attempt".into()),
        };
        let set_id = store.create_set(&owner, &set).await.expect("set");
        let session = engine.start_session(&owner, &set_id, true).await.expect("session");
        let mut a = engine.attach(&owner, &session.id, None).await.expect("attach");
        until_complete(&mut a).await;
        tokio::time::sleep(THINKING).await;
        let (kept_before, _) = engine.metrics().speculation();
        let sent = Instant::now();
        let content = case.message.clone();
        a.send(ClientMessage::UserMessage { content, client_message_id: None, via: None })
            .await
            .expect("send");
        let first = until_complete(&mut a).await.map(|t| t - sent);
        let (kept_after, _) = engine.metrics().speculation();
        // A turn that recalls the last point is answered by the overlay, not the tutor.
        let Some(first) = first else { continue };
        if way == Way::Waits || kept_after == kept_before {
            run.thrown.push(first);
        } else {
            run.kept.push(first);
        }
    }
    run.replies = model.replies.load(std::sync::atomic::Ordering::Relaxed);
    run
}

/// Reads frames until the reply is complete (or the overlay shows instead); the time of its
/// first token, None when there was no reply.
async fn until_complete(a: &mut Attachment) -> Option<Instant> {
    let mut first = None;
    while let Some(frame) = a.messages.recv().await {
        let message = match frame {
            Outbound::Frame(text) => serde_json::from_str::<ServerMessage>(&text).ok(),
            Outbound::TakenOver(_) | Outbound::SignedOut(_) | Outbound::Paused(_) => None,
        };
        match message {
            Some(ServerMessage::AssistantChunk(_)) if first.is_none() => first = Some(Instant::now()),
            Some(ServerMessage::AssistantComplete(_)) => return first,
            Some(ServerMessage::SessionCompleteOverlay(_)) => {
                return None;
            }
            Some(ServerMessage::Error(e)) => panic!("the turn failed: {e:?}"),
            Some(_) | None => {}
        }
    }
    first
}

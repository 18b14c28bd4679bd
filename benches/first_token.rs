//! Time to the first tutor token, with a model that takes a fixed time to start answering.
//! The evaluator (one call for all unchecked points) and the rabbit-hole detector run
//! together, then the tutor starts: two round trips per learner message, whatever the number
//! of points. Run with `cargo bench --bench first_token`.

// A measuring harness: a failure to set up should stop it loudly, like a test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use warren::engine::{Engine, EngineConfig, demo};
use warren::llm::{LlmError, Output, Provider, Purpose, ReplyStream, Request};
use warren::store::Store;
use warren_app::protocol::{ClientMessage, ProviderInfo, ServerMessage};

const LATENCY: Duration = Duration::from_millis(100);
const MEASURED: usize = 5;

#[derive(Default)]
struct SlowModel {
    evaluator: AtomicUsize,
    detector: AtomicUsize,
    tutor: AtomicUsize,
}

#[async_trait]
impl Provider for SlowModel {
    fn info(&self) -> ProviderInfo {
        ProviderInfo { kind: "bench".into(), model: "slow".into(), offline: true, label: "bench".into() }
    }

    async fn stream(&self, request: &Request) -> Result<ReplyStream, LlmError> {
        tokio::time::sleep(LATENCY).await;
        let text = match &request.purpose {
            Purpose::Evaluator(_) => {
                self.evaluator.fetch_add(1, Ordering::Relaxed);
                r#"{"recalled":[],"nearMisses":[],"observation":""}"#
            }
            Purpose::Detector(_) => {
                self.detector.fetch_add(1, Ordering::Relaxed);
                r#"{"isRabbithole":false}"#
            }
            Purpose::Tutor(_) => {
                self.tutor.fetch_add(1, Ordering::Relaxed);
                "What comes to mind first?"
            }
            Purpose::Explorer(_) | Purpose::Summariser(_) | Purpose::Probe => "ok",
        };
        Ok(Box::pin(futures_util::stream::iter(vec![Ok(Output::Text(text.to_string()))])))
    }

    async fn probe(&self) -> Result<(), LlmError> {
        Ok(())
    }
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(run());
}

async fn run() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&format!("sqlite://{}/bench.db", dir.path().display())).await.expect("db");
    store.migrate().await.expect("migrate");
    let owner = store.create_account("bench", "not-a-real-hash").await.expect("account").expect("new");
    demo::ensure_demo_sets(&store, &owner).await.expect("demo");
    let model = Arc::new(SlowModel::default());
    let engine = Engine::new(store.clone(), model.clone(), EngineConfig::default());
    let set = store.list_sets(&owner, 0).await.expect("sets").remove(0);
    let session = engine.start_session(&owner, &set.id, true).await.expect("session");
    let unchecked = session.target_point_ids.len();
    let mut a = engine.attach(&owner, &session.id).await.expect("attach");
    let complete = |m: &ServerMessage| matches!(m, ServerMessage::AssistantComplete(_));
    while let Some(m) = a.messages.recv().await {
        if complete(&m) {
            break;
        }
    }
    // Two exchanges first, so the detector is running too (it stays quiet for the first two).
    let mut timings = Vec::new();
    for i in 0..(2 + MEASURED) {
        let (e0, d0, t0) = counts(&model);
        let sent = Instant::now();
        a.send(ClientMessage::UserMessage { content: format!("answer {i}"), client_message_id: None })
            .await
            .expect("send");
        let mut first = None;
        while let Some(m) = a.messages.recv().await {
            if first.is_none() && matches!(m, ServerMessage::AssistantChunk(_)) {
                first = Some(sent.elapsed());
            }
            if complete(&m) {
                break;
            }
        }
        let (e1, d1, t1) = counts(&model);
        if i >= 2 {
            timings.push(first.expect("a first token"));
            assert_eq!((e1 - e0, d1 - d0, t1 - t0), (1, 1, 1), "one call of each per message");
        }
    }
    timings.sort();
    let median = timings[timings.len() / 2];
    let round_trips = median.as_secs_f64() / LATENCY.as_secs_f64();
    println!(
        "time to first tutor token, {unchecked} unchecked points, {} ms per model call:",
        LATENCY.as_millis()
    );
    println!(
        "  median {} ms, min {} ms, max {} ms over {MEASURED} messages = {round_trips:.2} round trips",
        median.as_millis(),
        timings[0].as_millis(),
        timings[timings.len() - 1].as_millis()
    );
    println!("  model calls per message: evaluator 1 (all points at once), detector 1 (alongside), tutor 1");
    println!("  one evaluator call per point in sequence would need {} round trips", unchecked + 1);
}

fn counts(model: &SlowModel) -> (usize, usize, usize) {
    (
        model.evaluator.load(Ordering::Relaxed),
        model.detector.load(Ordering::Relaxed),
        model.tutor.load(Ordering::Relaxed),
    )
}

//! Time to the first tutor token, with a model that takes a fixed time to start answering.
//! The evaluator (one call for all unchecked points) and the rabbit-hole detector run
//! together; the tutor either waits for them (two round trips per learner message) or starts
//! alongside them as if nothing will be found, its reply kept when that is so (one round trip)
//! and thrown away when the message recalls a point. A mixed script, half the turns recalling
//! a point, is run both ways. Run with `cargo bench --bench first_token`.

// A measuring harness: a failure to set up should stop it loudly, like a test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use warren::engine::{Attachment, Engine, EngineConfig, Outbound};
use warren::llm::{LlmError, Output, Provider, Purpose, ReplyStream, Request};
use warren::store::{NewPoint, NewSet, Store};
use warren_app::protocol::{ClientMessage, ProviderInfo, ServerMessage};

const LATENCY: Duration = Duration::from_millis(100);
/// Measured turns of each kind.
const TURNS: usize = 10;
const POINTS: usize = 30;

#[derive(Default)]
struct SlowModel {
    evaluator: AtomicUsize,
    detector: AtomicUsize,
    tutor: AtomicUsize,
}

#[async_trait]
impl Provider for SlowModel {
    fn info(&self) -> ProviderInfo {
        ProviderInfo { kind: "bench".into(), model: "slow".into(), offline: false, label: "bench".into() }
    }

    async fn stream(&self, request: &Request) -> Result<ReplyStream, LlmError> {
        tokio::time::sleep(LATENCY).await;
        let text = match &request.purpose {
            // "RECALL" recalls the first unchecked point; anything else, nothing.
            Purpose::Evaluator(brief) => {
                self.evaluator.fetch_add(1, Ordering::Relaxed);
                match brief.unchecked.first().filter(|_| brief.learner_message.contains("RECALL")) {
                    Some(point) => {
                        format!(r#"{{"recalled":[{{"pointId":"{}","confidence":0.9}}]}}"#, point.id)
                    }
                    None => r#"{"recalled":[],"nearMisses":[],"observation":""}"#.into(),
                }
            }
            Purpose::Detector(_) => {
                self.detector.fetch_add(1, Ordering::Relaxed);
                r#"{"isRabbithole":false}"#.into()
            }
            Purpose::Tutor(_) => {
                self.tutor.fetch_add(1, Ordering::Relaxed);
                "What comes to mind first?".into()
            }
            Purpose::Explorer(_) | Purpose::Summariser(_) | Purpose::Probe => "ok".into(),
        };
        Ok(Box::pin(futures_util::stream::iter(vec![Ok(Output::Text(text))])))
    }

    async fn probe(&self) -> Result<(), LlmError> {
        Ok(())
    }
}

/// What one run of the script measured.
struct Run {
    recall: Vec<Duration>,
    nothing: Vec<Duration>,
    tutor_calls: usize,
    wasted: u64,
    kept: u64,
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let waiting = run(false).await;
        let speculating = run(true).await;
        println!(
            "time to first tutor token, {POINTS} unchecked points, {} ms per model call, {TURNS} turns that \
             recall a point and {TURNS} that recall nothing, alternating:",
            LATENCY.as_millis()
        );
        report("tutor waits for the evaluator", &waiting);
        report("tutor starts alongside it (WARREN_SPECULATIVE_TUTOR)", &speculating);
    });
}

fn report(name: &str, run: &Run) {
    println!("  {name}:");
    let line = |kind: &str, times: &[Duration]| {
        let mut times = times.to_vec();
        times.sort();
        let at =
            |q: f64| times[((q * times.len() as f64).ceil() as usize).saturating_sub(1).min(times.len() - 1)];
        let (median, p90) = (at(0.5), at(0.9));
        let trips = |d: Duration| d.as_secs_f64() / LATENCY.as_secs_f64();
        println!(
            "    {kind:<15} median {:>4} ms ({:.2} round trips), p90 {:>4} ms ({:.2})",
            median.as_millis(),
            trips(median),
            p90.as_millis(),
            trips(p90)
        );
    };
    line("recall nothing", &run.nothing);
    line("recall a point", &run.recall);
    let all: Vec<Duration> = run.recall.iter().chain(&run.nothing).copied().collect();
    line("overall", &all);
    let started = run.kept + run.wasted;
    if started > 0 {
        println!(
            "    tutor calls {}; early replies started {started}, kept {}, thrown away {} ({:.0}%)",
            run.tutor_calls,
            run.kept,
            run.wasted,
            100.0 * run.wasted as f64 / started as f64
        );
    } else {
        println!("    tutor calls {}", run.tutor_calls);
    }
}

async fn run(speculative_tutor: bool) -> Run {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&format!("sqlite://{}/bench.db", dir.path().display())).await.expect("db");
    store.migrate().await.expect("migrate");
    let owner = store.create_account("bench", "not-a-real-hash").await.expect("account").expect("new");
    let set = NewSet {
        name: "Bench".into(),
        points: (0..POINTS)
            .map(|i| NewPoint { content: format!("Fact number {i}."), context: String::new(), card: None })
            .collect(),
        ..NewSet::default()
    };
    let set_id = store.create_set(&owner, &set).await.expect("set");
    let model = Arc::new(SlowModel::default());
    // The script sends faster than a learner types: no rate limit.
    let config = EngineConfig { speculative_tutor, message_burst: u32::MAX, ..EngineConfig::default() };
    let engine = Engine::new(store.clone(), model.clone(), config);
    let session = engine.start_session(&owner, &set_id, true).await.expect("session");
    let mut a = engine.attach(&owner, &session.id, None).await.expect("attach");
    let complete = |m: &ServerMessage| matches!(m, ServerMessage::AssistantComplete(_));
    while let Some(m) = frame(&mut a).await {
        if complete(&m) {
            break;
        }
    }
    let mut run = Run { recall: Vec::new(), nothing: Vec::new(), tutor_calls: 0, wasted: 0, kept: 0 };
    let tutor_before = model.tutor.load(Ordering::Relaxed);
    // Two exchanges first, so the detector is running too (it stays quiet for the first two).
    for i in 0..(2 + 2 * TURNS) {
        let recalls = i >= 2 && i % 2 == 0;
        let content = if recalls { format!("RECALL {i}") } else { format!("answer {i}") };
        let sent = Instant::now();
        a.send(ClientMessage::UserMessage { content, client_message_id: None }).await.expect("send");
        let mut first = None;
        while let Some(m) = frame(&mut a).await {
            if first.is_none() && matches!(m, ServerMessage::AssistantChunk(_)) {
                first = Some(sent.elapsed());
            }
            assert!(!matches!(m, ServerMessage::Error(_)), "turn {i} failed: {m:?}");
            if complete(&m) {
                break;
            }
        }
        if i >= 2 {
            let first = first.expect("a first token");
            if recalls { run.recall.push(first) } else { run.nothing.push(first) }
        }
    }
    run.tutor_calls = model.tutor.load(Ordering::Relaxed) - tutor_before;
    (run.kept, run.wasted) = engine.metrics().speculation();
    run
}

/// The next frame the session sends, read as the page reads it.
async fn frame(a: &mut Attachment) -> Option<ServerMessage> {
    match a.messages.recv().await? {
        Outbound::Frame(text) => serde_json::from_str(&text).ok(),
        Outbound::TakenOver(error) | Outbound::SignedOut(error) => Some(ServerMessage::Error(error)),
    }
}

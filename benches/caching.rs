//! What prompt caching saves: a scripted 20-turn session on "The living cell" against a local
//! server in each provider's wire format that caches prompts as the real APIs describe theirs
//! (Anthropic: the prompt up to each `cache_control` breakpoint, from 1,024 tokens; OpenAI: the
//! longest prefix shared with an earlier request, from 1,024 tokens in steps of 128; four
//! characters a token). Prints the input tokens of every request the session made (tutor,
//! evaluator, detector, summaries), those read from and written to the cache, and what they
//! are billed as in input tokens, with and without caching: Anthropic bills a cache write at
//! 1.25 times and a read at 0.1 times; OpenAI's gpt-4.1 models a cached token at 0.25 times.
//! Run with `cargo bench --bench caching`.

// A measuring harness: a failure to set up should stop it loudly, like a test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::wildcard_enum_match_arm, dead_code)]

mod common;
#[path = "../tests/it/common/fake_llm.rs"]
mod fake_llm;

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use warren_app::protocol::ServerMessage;

use fake_llm::{FakeLlm, Figures, Reply, Wire, last_message, recalls_in, system_of};

const TURNS: usize = 20;

/// The evaluator credits a point whose whole text the message holds; the detector sees no
/// tangent; the tutor and the summariser say something.
fn answers(body: &Value) -> Reply {
    let system = system_of(body);
    let last = last_message(body);
    if system.contains("You check which recall points") {
        let message = last.split("Latest learner message:").nth(1).unwrap_or_default().to_string();
        Reply::Said(
            json!({"recalled": recalls_in(&system, &message), "nearMisses": [], "observation": ""})
                .to_string(),
        )
    } else if system.contains("for tangents") {
        Reply::Said(
            json!({"isRabbithole": false, "topic": "", "depth": 1, "relatedToCurrentPoint": false,
                   "relatedRecallPointIds": [], "confidence": 0.1, "reasoning": "on topic"})
            .to_string(),
        )
    } else if system.contains("You write the record of a recall session") {
        Reply::Said(
            json!({"overview": "A steady session.", "rabbitholes": [], "hard": [], "nextSteps": []})
                .to_string(),
        )
    } else {
        Reply::Text(vec!["What do you remember ", "about the next part?"])
    }
}

async fn session(wire: Wire) -> (usize, Vec<Figures>) {
    let fake = FakeLlm::start_caching(wire, Arc::new(answers)).await;
    let base = fake.base_url();
    let served = common::serve(|c| match wire {
        Wire::Anthropic => {
            c.llm.provider = warren::config::ProviderChoice::Anthropic;
            c.llm.anthropic_api_key = Some("sk-bench".into());
            c.llm.anthropic_base_url = base;
        }
        Wire::OpenAi => {
            c.llm.provider = warren::config::ProviderChoice::Openai;
            c.llm.openai_base_url = Some(base);
        }
    })
    .await;
    let store = served.engine.store().clone();
    let sets = store.list_sets(&served.owner, i64::MAX).await.unwrap();
    let set = sets.iter().find(|s| s.name == "The living cell").unwrap();
    let points = store.points(&served.owner, &set.id).await.unwrap();
    let session = served.engine.start_session(&served.owner, &set.id, true).await.unwrap();
    let mut ws = common::connect(&served.addr.to_string(), &served.cookie, &session.id).await.unwrap();
    let reply = |m: &ServerMessage| {
        matches!(m, ServerMessage::AssistantComplete(_) | ServerMessage::SessionCompleteOverlay(_))
    };
    while !reply(&common::next_frame(&mut ws, Duration::from_secs(30)).await.unwrap()) {}
    // Three tries, then the point said: most turns find nothing, every fourth recalls one.
    for turn in 0..TURNS {
        let text = match (turn % 4, points.get(turn / 4)) {
            (3, Some(point)) => point.content.clone(),
            _ => format!("I think it has something to do with part {turn} of the cell."),
        };
        let frame = json!({"type": "user_message", "content": text}).to_string();
        // A learner types one message a second at most (past a burst): a refused one is sent again.
        loop {
            let message = tokio_tungstenite::tungstenite::Message::Text(frame.clone().into());
            futures_util::SinkExt::send(&mut ws, message).await.unwrap();
            let answered = loop {
                match common::next_frame(&mut ws, Duration::from_secs(30)).await.unwrap() {
                    ServerMessage::Error(_) => break false,
                    m if reply(&m) => break true,
                    _ => {}
                }
            };
            if answered {
                break;
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }
    (fake.received().len(), fake.reported())
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        println!("prompt caching: a {TURNS}-turn session, every agent's requests");
        for (wire, name, write, read) in
            [(Wire::Anthropic, "Anthropic", 1.25, 0.1), (Wire::OpenAi, "OpenAI-compatible", 1.0, 0.25)]
        {
            let (requests, reported) = session(wire).await;
            let sum = |f: fn(&Figures) -> u64| reported.iter().map(f).sum::<u64>();
            let (input, cache_read, cache_write) = (sum(|f| f.input), sum(|f| f.cache_read), sum(|f| f.cache_write));
            let billed = (input - cache_read - cache_write) as f64 + cache_write as f64 * write + cache_read as f64 * read;
            println!(
                "  {name}: {requests} requests, {input} input tokens, {cache_read} read from the cache, {cache_write} written to it"
            );
            println!(
                "    billed as input tokens: {input} without caching, {billed:.0} with it ({:+.0} %)",
                (billed / input as f64 - 1.0) * 100.0
            );
        }
    });
}

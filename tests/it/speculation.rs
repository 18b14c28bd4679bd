//! The tutor starts while the evaluator judges: its reply is shown when nothing was found,
//! and cancelled (its connection closed) when something was, on both wire formats.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use warren_app::protocol::ServerMessage;

use crate::common::fake_llm::{
    FakeLlm, Reply, Wire, last_message, recalls_in, ribosomes_on_mrna, system_of, tutor_told_of_no_recall,
};
use crate::common::{TestApp, reply_of};

/// The slow reply the tutor starts before the evaluator answers.
const FIRST: [&str; 12] =
    ["What ", "else ", "comes ", "to ", "mind ", "about ", "it? ", "Take ", "your ", "time ", "with ", "it."];
const SECOND: &str = "Which part of that is still missing?";

/// The evaluator recalls the first point listed on "RECALL", nearly recalls it on "NEAR",
/// finds nothing otherwise; the tutor answers slowly unless it has an observation to use.
fn answers(body: &serde_json::Value) -> Reply {
    let system = system_of(body);
    let last = last_message(body);
    if system.contains("You check which recall points") {
        let first = system
            .lines()
            .find_map(|l| {
                l.strip_prefix("- id \"").and_then(|l| l.split_once('"')).map(|(id, _)| id.to_string())
            })
            .unwrap_or_default();
        let said = last.rsplit("Latest learner message:").next().unwrap_or_default();
        let answer = if said.contains("RECALL") {
            json!({"recalled": [{"pointId": first, "confidence": 0.9}], "nearMisses": [], "observation": "Found it."})
        } else if said.contains("NEAR") {
            json!({"recalled": [], "nearMisses": [{"pointId": first, "feedback": "close"}], "observation": "Close."})
        } else {
            json!({"recalled": [], "nearMisses": [], "observation": ""})
        };
        return slowly(answer.to_string());
    }
    if system.contains("for tangents") {
        return Reply::Said(json!({"isRabbithole": false, "confidence": 0.0}).to_string());
    }
    if system.contains("Observation about the latest message") {
        return Reply::Slow { pieces: vec![SECOND.to_string()], delay: Duration::from_millis(5) };
    }
    Reply::Slow { pieces: FIRST.iter().map(|p| p.to_string()).collect(), delay: Duration::from_millis(120) }
}

/// An evaluator's answer, after the in-process judge has had time to guess (so the early
/// reply has always started: a debug build's sentence model takes tens of milliseconds),
/// and well before the early reply has finished. (The delay is per event of the stream.)
fn slowly(answer: String) -> Reply {
    Reply::Slow { pieces: vec![answer], delay: Duration::from_millis(80) }
}

fn streamed(frames: &[ServerMessage]) -> String {
    frames
        .iter()
        .filter_map(|m| match m {
            ServerMessage::AssistantChunk(c) => Some(c.content.as_str()),
            _ => None,
        })
        .collect()
}

/// Tutor requests the fake has seen whose latest learner words contain `said`.
fn tutor_requests(fake: &FakeLlm, said: &str) -> usize {
    fake.received()
        .iter()
        .filter(|r| system_of(&r.body).contains("recall facilitator"))
        .filter(|r| last_message(&r.body).contains(said))
        .count()
}

async fn cancelled_becomes(fake: &FakeLlm, expected: usize) {
    for _ in 0..100 {
        if fake.cancelled() == expected {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(fake.cancelled(), expected, "replies cut off by the client");
}

#[tokio::test]
async fn a_turn_that_finds_nothing_shows_the_early_reply_once_and_one_that_finds_something_cancels_it() {
    for wire in [Wire::Anthropic, Wire::OpenAi] {
        let fake = FakeLlm::start_with(wire, vec![], Some(Arc::new(answers))).await;
        let app = TestApp::on_fake(wire, &fake).await;
        let (session, _) = app.start("The living cell").await;
        let mut ws = app.connect(&session).await;
        ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;

        // Nothing found: the reply started early is the reply, every piece once, in order.
        let frames = ws.say("hmm, nothing comes to mind here").await;
        assert_eq!(streamed(&frames), FIRST.concat(), "{wire:?}");
        assert_eq!(reply_of(&frames), FIRST.concat(), "{wire:?}");
        assert_eq!(tutor_requests(&fake, "nothing comes to mind"), 1, "{wire:?}: one request, kept");
        assert_eq!(fake.cancelled(), 0, "{wire:?}");

        // A recall: the early reply is cut off and never shown; the second one is.
        let frames = ws.say("RECALL: I know this one").await;
        assert_eq!(crate::common::recalled_ids(&frames).len(), 1, "{wire:?}");
        assert_eq!(streamed(&frames), SECOND, "{wire:?}: only the second reply");
        assert!(frames.iter().all(|m| !format!("{m:?}").contains("comes to mind about")), "{wire:?}");
        assert_eq!(tutor_requests(&fake, "RECALL"), 2, "{wire:?}");
        cancelled_becomes(&fake, 1).await;

        // A near miss is something found too.
        let frames = ws.say("NEAR: something like that").await;
        assert_eq!(streamed(&frames), SECOND, "{wire:?}");
        cancelled_becomes(&fake, 2).await;

        let stored = app.store().entries(app.owner(), &session).await.unwrap();
        let replies: Vec<&str> = stored.iter().map(|e| e.content.as_str()).collect();
        assert_eq!(
            replies.iter().filter(|c| **c == FIRST.concat()).count(),
            2,
            "{wire:?}: the opening and turn one"
        );
        assert_eq!(replies.iter().filter(|c| **c == SECOND).count(), 2, "{wire:?}");

        let metrics = app.metrics().await;
        assert!(metrics.contains("warren_speculative_tutor_total{outcome=\"kept\"} 1"), "{metrics}");
        assert!(metrics.contains("warren_speculative_tutor_total{outcome=\"wasted\"} 2"), "{metrics}");
    }
}

/// The evaluator recalls every listed point whose words the message repeats (and, as
/// `answers` does, the first point listed on "RECALL").
fn by_content(body: &serde_json::Value) -> Reply {
    let system = system_of(body);
    let said = last_message(body);
    let said = said.rsplit("Latest learner message:").next().unwrap_or_default();
    if system.contains("You check which recall points") && !said.contains("RECALL") {
        let recalled = recalls_in(&system, said);
        return slowly(json!({"recalled": recalled, "nearMisses": [], "observation": ""}).to_string());
    }
    answers(body)
}

#[tokio::test]
async fn the_early_reply_starts_on_the_in_process_judges_verdict_and_is_kept_when_the_evaluator_agrees() {
    for wire in [Wire::Anthropic, Wire::OpenAi] {
        let fake = FakeLlm::start_with(wire, vec![], Some(Arc::new(by_content))).await;
        let app = TestApp::on_fake(wire, &fake).await;
        let (session, points) = app.start("The living cell").await;
        let mut ws = app.connect(&session).await;
        ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;

        // Both judges find the point: the reply asked for at once is kept, and it is the one
        // that knows of the recall.
        let ribosomes = points.iter().find(|p| p.content.starts_with("Ribosomes")).expect("the demo's point");
        let said = ribosomes.content.clone();
        let frames = ws.say(&said).await;
        assert_eq!(crate::common::recalled_ids(&frames), vec![ribosomes.id.clone()], "{wire:?}");
        assert_eq!(tutor_requests(&fake, "Ribosomes translate"), 1, "{wire:?}: one tutor request, kept");
        assert_eq!(fake.cancelled(), 0, "{wire:?}");
        assert_eq!(reply_of(&frames), SECOND, "{wire:?}: the reply that heard of the recall");
        let asked = fake
            .received()
            .into_iter()
            .rfind(|r| system_of(&r.body).contains("recall facilitator"))
            .map(|r| r.body.to_string())
            .unwrap_or_default();
        assert!(
            asked.contains("latest message recalled a point"),
            "{wire:?}: the tutor heard of the recall: {asked}"
        );

        // The evaluator finds what the in-process judge did not: the early reply is cut off.
        let frames = ws.say("RECALL: I know this one").await;
        assert_eq!(crate::common::recalled_ids(&frames).len(), 1, "{wire:?}");
        assert_eq!(tutor_requests(&fake, "RECALL"), 2, "{wire:?}");
        cancelled_becomes(&fake, 1).await;

        let metrics = app.metrics().await;
        assert!(metrics.contains("warren_speculative_tutor_total{outcome=\"kept\"} 1"), "{metrics}");
        assert!(metrics.contains("warren_speculative_tutor_total{outcome=\"wasted\"} 1"), "{metrics}");
    }
}

/// The evaluator of a learner who paraphrases (see `ribosomes_on_mrna`); the tutor answers
/// at once when told of a recall, and slowly otherwise.
fn by_meaning(body: &serde_json::Value) -> Reply {
    if system_of(body).contains("You check which recall points") {
        return slowly(ribosomes_on_mrna(body));
    }
    if tutor_told_of_no_recall(body) {
        return Reply::Slow {
            pieces: FIRST.iter().map(|p| p.to_string()).collect(),
            delay: Duration::from_millis(120),
        };
    }
    answers(body)
}

#[tokio::test]
async fn the_early_reply_starts_again_when_the_sentence_model_reads_what_words_alone_did_not() {
    for wire in [Wire::Anthropic, Wire::OpenAi] {
        let fake = FakeLlm::start_with(wire, vec![], Some(Arc::new(by_meaning))).await;
        let app = TestApp::on_fake(wire, &fake).await;
        let (session, points) = app.start("The living cell").await;
        let mut ws = app.connect(&session).await;
        ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;

        // Words alone find no recall in the paraphrase, so the tutor starts on that at once;
        // the sentence model then reads the recall, and the tutor starts again on it. The
        // evaluator agrees with the model: the second reply is kept, the first cut off.
        let ribosomes = points.iter().find(|p| p.content.starts_with("Ribosomes")).expect("the demo's point");
        let frames = ws.say("Ribosomes build proteins from mRNA").await;
        assert_eq!(crate::common::recalled_ids(&frames), vec![ribosomes.id.clone()], "{wire:?}");
        assert_eq!(tutor_requests(&fake, "proteins from mRNA"), 2, "{wire:?}: one on each judge's verdict");
        cancelled_becomes(&fake, 1).await;
        assert_eq!(reply_of(&frames), SECOND, "{wire:?}: the reply that heard of the recall");

        // Where both judges agree, the tutor is asked once.
        let frames = ws.say("hmm, nothing comes to mind here").await;
        assert_eq!(reply_of(&frames), FIRST.concat(), "{wire:?}");
        assert_eq!(tutor_requests(&fake, "nothing comes to mind"), 1, "{wire:?}");

        let metrics = app.metrics().await;
        assert!(metrics.contains("warren_speculative_tutor_total{outcome=\"kept\"} 2"), "{metrics}");
        assert!(metrics.contains("warren_speculative_tutor_total{outcome=\"wasted\"} 1"), "{metrics}");
    }
}

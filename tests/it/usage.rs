//! What the language models are asked to do and what it costs: usage read from each wire
//! format (prompt-cache fields included) and stored per agent call against the session,
//! priced from a price list, shown on the session's page and the account page, printed by
//! `warren usage`; and a learner's allowance, kept across instances, past which the offline
//! tutor answers with nothing lost.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use warren::store::CallSum;
use warren_app::protocol::{NoticeCode, ServerMessage};
use warren_app::usage::Agent;

use crate::common::fake_llm::{
    CACHED_TOKENS, FakeLlm, INPUT_TOKENS, Reply, Wire, ribosomes_on_mrna, system_of, tutor_told_of_no_recall,
};
use crate::common::{TestApp, reply_of};

const CELL: &str = "The living cell";

/// Judges find nothing; the detector sees no tangent; everyone else says a few words.
fn answers(body: &Value) -> Reply {
    let system = system_of(body);
    if system.contains("You check which recall points") {
        Reply::Said(json!({"recalled": [], "nearMisses": [], "observation": ""}).to_string())
    } else if system.contains("for tangents") {
        Reply::Text(vec![
            r#"{"isRabbithole":false,"topic":"","depth":1,"relatedToCurrentPoint":false,"relatedRecallPointIds":[],"confidence":0.1,"reasoning":"on topic"}"#,
        ])
    } else {
        Reply::Text(vec!["What ", "comes ", "to mind?"])
    }
}

/// Waits until the session's calls have been written (they are recorded as each reply ends).
async fn calls_of(app: &TestApp, session: &str, at_least: i64) -> Vec<CallSum> {
    for _ in 0..200 {
        let calls = app.store().session_calls(app.owner(), session).await.unwrap();
        if calls.iter().map(|c| c.calls).sum::<i64>() >= at_least {
            return calls;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the session's calls were not recorded");
}

fn prices(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let path = dir.path().join("prices.json");
    let price = json!({"input": 3.0, "cached_input": 0.3, "output": 15.0});
    let fast = json!({"input": 1.0, "cached_input": 0.1, "output": 5.0});
    let list = json!({
        "claude-sonnet-4-5-20250929": price, "claude-haiku-4-5-20251001": fast,
        "gpt-4.1-mini": price,
    });
    std::fs::write(&path, list.to_string()).unwrap();
    path
}

#[tokio::test]
async fn each_agent_call_is_recorded_from_either_wire_format_priced_and_shown() {
    for wire in [Wire::Anthropic, Wire::OpenAi] {
        let dir = tempfile::tempdir().unwrap();
        let list = prices(&dir);
        let fake = FakeLlm::start_with(wire, vec![], Some(Arc::new(answers))).await;
        let app = TestApp::on_fake_with(wire, &fake, |c| c.prices = Some(list.clone())).await;
        let (session, _) = app.start(CELL).await;
        let mut ws = app.connect(&session).await;
        ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
        for said in ["I think it has something to do with energy.", "Not sure, maybe membranes?", "no idea"] {
            assert!(!reply_of(&ws.say(said).await).is_empty(), "{wire:?}");
        }
        let sent = fake.received().len() as i64;
        let calls = calls_of(&app, &session, sent).await;
        let agents: Vec<Agent> = calls.iter().map(|c| c.agent).collect();
        for agent in [Agent::Tutor, Agent::Evaluator, Agent::Detector] {
            assert!(agents.contains(&agent), "{wire:?}: {agent:?} in {calls:?}");
        }
        // Every call the fake answered, with the tokens it said each used, prompt cache
        // included (the tutor's three pieces are its output).
        assert_eq!(calls.iter().map(|c| c.calls).sum::<i64>(), sent, "{wire:?}: {calls:?}");
        for call in &calls {
            assert_eq!(call.input, call.calls * INPUT_TOKENS as i64, "{wire:?}: {call:?}");
            assert_eq!(call.cached_input, call.calls * CACHED_TOKENS as i64, "{wire:?}: {call:?}");
        }
        let tutor = calls.iter().find(|c| c.agent == Agent::Tutor).unwrap();
        assert_eq!(tutor.output, tutor.calls * 3, "{wire:?}: {tutor:?}");
        let main = match wire {
            Wire::Anthropic => "claude-sonnet-4-5-20250929",
            Wire::OpenAi => "gpt-4.1-mini",
        };
        assert_eq!(tutor.model, main, "{wire:?}");

        // The session's page shows each agent's tokens and what they cost.
        let (status, page) = app.page(&format!("/history/{session}")).await;
        assert_eq!(status, 200);
        assert!(page.contains("data-testid=\"usage-table\""), "{wire:?}: {page}");
        assert!(page.contains("scope=\"row\">Tutor<") && page.contains("scope=\"row\">Evaluator<"), "{page}");
        let tutor_cost = (tutor.input - tutor.cached_input) as f64 * 3.0 / 1e6
            + tutor.cached_input as f64 * 0.3 / 1e6
            + tutor.output as f64 * 15.0 / 1e6;
        assert!(page.contains(&format!("${tutor_cost:.3}")), "{wire:?}: ${tutor_cost:.3} in {page}");
        // And the account page this month's.
        let (_, account) = app.page("/account").await;
        assert!(account.contains("data-testid=\"month-usage\""), "{wire:?}: {account}");
        assert!(account.contains("This server sets no allowance."), "{account}");
        assert!(app.metrics().await.contains(&format!(
            "warren_model_tokens_total{{agent=\"tutor\",kind=\"cached_input\"}} {}",
            tutor.cached_input
        )));
    }
}

/// A paraphrase of the ribosome point, which words alone find only near and the network
/// evaluator (answering late) recalls (see `ribosomes_on_mrna`); the tutor's answer is slow
/// to begin unless it is told of a recall.
fn a_hosted_model(body: &Value) -> Reply {
    if system_of(body).contains("You check which recall points") {
        let then = Box::new(Reply::Said(ribosomes_on_mrna(body)));
        return Reply::Late { wait: Duration::from_millis(400), then };
    }
    if tutor_told_of_no_recall(body) {
        let then = Box::new(Reply::Text(vec!["What ", "comes ", "to mind?"]));
        return Reply::Late { wait: Duration::from_millis(600), then };
    }
    answers(body)
}

#[tokio::test]
async fn a_tutor_reply_given_up_before_it_began_is_recorded_all_the_same() {
    for wire in [Wire::Anthropic, Wire::OpenAi] {
        let fake = FakeLlm::start_with(wire, vec![], Some(Arc::new(a_hosted_model))).await;
        let app = TestApp::on_fake(wire, &fake).await;
        let (session, _) = app.start(CELL).await;
        let mut ws = app.connect(&session).await;
        ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
        // The tutor starts on the words' guess, and again on the sentence model's once it reads
        // the recall: the first request is given up before its answer began, but it reached
        // the provider, and is counted at what its prompt weighs.
        assert!(!reply_of(&ws.say("Ribosomes build proteins from mRNA").await).is_empty(), "{wire:?}");
        let tutor_requests = |fake: &FakeLlm| {
            fake.received().iter().filter(|r| system_of(&r.body).contains("recall facilitator")).count()
        };
        assert_eq!(tutor_requests(&fake), 3, "{wire:?}: the opening, and two for the message");
        let sent = fake.received().len() as i64;
        let calls = calls_of(&app, &session, sent).await;
        assert_eq!(calls.iter().map(|c| c.calls).sum::<i64>(), sent, "{wire:?}: {calls:?}");
        let tutor = calls.iter().find(|c| c.agent == Agent::Tutor).unwrap();
        assert_eq!(tutor.calls, 3, "{wire:?}: {tutor:?}");
        assert!(tutor.input > 3 * INPUT_TOKENS as i64, "{wire:?}: the prompt's weight, {tutor:?}");
    }
}

#[tokio::test]
async fn the_offline_tutor_costs_nothing_and_records_nothing() {
    let app = TestApp::spawn().await;
    let (session, points) = app.start(CELL).await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    ws.say(&points[0].content).await;
    assert!(app.store().session_calls(app.owner(), &session).await.unwrap().is_empty());
    let (_, page) = app.page(&format!("/history/{session}")).await;
    assert!(!page.contains("data-testid=\"session-usage\""), "{page}");
    let (_, account) = app.page("/account").await;
    assert!(account.contains("No calls to a language model this month."), "{account}");
}

#[tokio::test]
async fn past_the_allowance_the_offline_tutor_answers_on_every_instance_with_nothing_lost() {
    let fake = FakeLlm::start_with(Wire::Anthropic, vec![], Some(Arc::new(answers))).await;
    // Each call uses 42 input tokens and a few output: three or four turns' worth.
    let cap = |c: &mut warren::config::Config| c.daily_tokens_per_learner = Some(600);
    let app = TestApp::on_fake_with(Wire::Anthropic, &fake, cap).await;
    let other = app
        .another_instance_with(|c| {
            cap(c);
            c.llm.provider = warren::config::ProviderChoice::Anthropic;
            c.llm.anthropic_api_key = Some("sk-test".into());
            c.llm.anthropic_base_url = fake.base_url();
        })
        .await;
    let (session, _) = app.start(CELL).await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    let mut said = Vec::new();
    let mut notice = None;
    for i in 0..12 {
        let text = format!("Message {i}: I am trying to remember.");
        let frames = ws.say(&text).await;
        assert!(!reply_of(&frames).is_empty(), "message {i} answered: {frames:?}");
        said.push(text);
        if let Some(n) = frames.iter().find_map(|f| match f {
            ServerMessage::Notice(n) => Some(n.clone()),
            _ => None,
        }) {
            notice = Some((i, n));
            break;
        }
    }
    let (at, notice) = notice.expect("the allowance runs out and the session says so");
    assert_eq!(notice.code, NoticeCode::ModelAllowanceSpent);
    assert!(notice.message.contains("offline tutor"), "{}", notice.message);
    assert!(at >= 1, "a few turns on the model first");
    // From then on the model is not asked: the offline tutor answers, and says so again to a
    // page that attaches.
    let asked = fake.received().len();
    let frames = ws.say("And one more after the notice.").await;
    assert!(!reply_of(&frames).is_empty());
    said.push("And one more after the notice.".to_string());
    assert_eq!(fake.received().len(), asked, "no call to the model past the cap");
    drop(ws);
    let mut ws = app.connect(&session).await;
    let frames = ws.until(|m| matches!(m, ServerMessage::SessionStarted(_))).await;
    let Some(ServerMessage::SessionStarted(started)) = frames.last() else { panic!("{frames:?}") };
    assert_eq!(started.notice.as_ref().map(|n| n.code), Some(NoticeCode::ModelAllowanceSpent));
    assert!(started.provider.offline, "the page names the offline tutor while it stands in");
    drop(ws);
    // Nothing the learner wrote was lost.
    let entries = app.store().entries(app.owner(), &session).await.unwrap();
    for text in &said {
        assert_eq!(entries.iter().filter(|e| &e.content == text).count(), 1, "{text} kept once");
    }

    // The other instance knows: the allowance is counted in the database.
    let (second, _) = app.start("Searching and sorting").await;
    let mut ws = other.connect(&second).await;
    let frames = ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    let ServerMessage::SessionStarted(started) = &frames[0] else { panic!("{frames:?}") };
    assert_eq!(started.notice.as_ref().map(|n| n.code), Some(NoticeCode::ModelAllowanceSpent));
    ws.say("Binary search halves the range each time.").await;
    assert_eq!(fake.received().len(), asked, "no call to the model from the other instance either");

    // The operator lifts the cap: the model answers again.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_warren"))
        .args(["allowance", "--user", "learner", "--lift", "2"])
        .env("DATABASE_URL", &app.database_url)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("lifted until"));
    // A check of the allowance stands a few seconds (a turn's calls share it).
    tokio::time::sleep(Duration::from_millis(3_100)).await;
    let frames = ws.say("Linear search looks at each one in turn.").await;
    assert!(fake.received().len() > asked, "the model is asked again");
    let told = frames.iter().find_map(|f| match f {
        ServerMessage::Notice(n) => Some(n.code),
        _ => None,
    });
    assert_eq!(told, Some(NoticeCode::ModelAllowanceRestored), "the page is told: {frames:?}");
}

#[tokio::test]
async fn warren_usage_prints_what_the_pages_show() {
    let dir = tempfile::tempdir().unwrap();
    let list = prices(&dir);
    let fake = FakeLlm::start_with(Wire::OpenAi, vec![], Some(Arc::new(answers))).await;
    let app = TestApp::on_fake_with(Wire::OpenAi, &fake, |c| c.prices = Some(list.clone())).await;
    let (session, _) = app.start(CELL).await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    ws.say("Something about energy, I think.").await;
    let calls = calls_of(&app, &session, fake.received().len() as i64).await;
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_warren"))
        .args(["usage", "--user", "learner"])
        .env("DATABASE_URL", &app.database_url)
        .env("WARREN_PRICES", &list)
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{printed}{}", String::from_utf8_lossy(&out.stderr));
    for call in &calls {
        let line = printed
            .lines()
            .find(|l| l.contains(&format!(" {} ", call.agent.as_str())) && l.contains(&call.model))
            .unwrap_or_else(|| panic!("{call:?} in {printed}"));
        let cells: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(cells[0], "learner");
        assert_eq!(
            cells[3..7],
            [call.calls, call.input, call.cached_input, call.output].map(|n| n.to_string())
        );
    }
    // Every call of this OpenAI-compatible server is its main model's, at its price.
    let cost: f64 = calls
        .iter()
        .map(|c| {
            ((c.input - c.cached_input) as f64 * 3.0 + c.cached_input as f64 * 0.3 + c.output as f64 * 15.0)
                / 1e6
        })
        .sum();
    let total = printed.lines().find(|l| l.starts_with("total")).expect("a total line");
    assert_eq!(total.split_whitespace().last(), Some(format!("{cost:.4}").as_str()), "{printed}");
    let (_, account) = app.page("/account").await;
    assert!(account.contains(&format!("${cost:.3}")), "${cost:.3} in {account}");
    // A day that is not one is refused in a sentence.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_warren"))
        .args(["usage", "--since", "last tuesday"])
        .env("DATABASE_URL", &app.database_url)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--since takes a date such as 2026-11-01"));
}

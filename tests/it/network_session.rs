//! A session on a network provider (a local fake speaking Anthropic's format): what the learner
//! sees when the model fails mid-reply, and that their words are kept.

use std::sync::Arc;

use crate::common::TestApp;
use crate::common::fake_llm::{FakeLlm, Reply, Wire};
use serde_json::json;
use warren::config::ProviderChoice;
use warren_app::protocol::{ErrorCode, ServerMessage};

/// Judges answer "nothing recalled, no tangent"; the tutor answers briefly, except that a
/// learner message of "CUT" makes its stream break half-way.
fn answers(body: &serde_json::Value) -> Reply {
    let system = body["system"].as_str().unwrap_or_default();
    let last = body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .map(|m| m["content"].to_string())
        .unwrap_or_default();
    if system.contains("You check which recall points") {
        Reply::Text(vec![r#"{"recalled":[],"nearMisses":[],"observation":""}"#])
    } else if system.contains("for tangents") {
        Reply::Text(vec![
            r#"{"isRabbithole":false,"topic":"","depth":1,"relatedToCurrentPoint":false,"relatedRecallPointIds":[],"confidence":0.1,"reasoning":"on topic"}"#,
        ])
    } else if last.contains("CUT") {
        Reply::Breaks(vec!["Think about ", "where the "])
    } else {
        Reply::Text(vec!["What does the cell ", "use for energy?"])
    }
}

#[tokio::test]
async fn a_reply_cut_midway_is_an_error_frame_and_the_message_is_kept() {
    let fake = FakeLlm::start_with(Wire::Anthropic, vec![], Some(Arc::new(answers))).await;
    let base = fake.base_url();
    let app = TestApp::spawn_with(|c| {
        c.llm.provider = ProviderChoice::Anthropic;
        c.llm.anthropic_api_key = Some("sk-test".into());
        c.llm.anthropic_base_url = base;
    })
    .await;
    let (session, _) = app.start("The living cell").await;
    let mut ws = app.connect(&session).await;
    let frames = ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    let ServerMessage::SessionStarted(started) = &frames[0] else { panic!("{frames:?}") };
    assert_eq!(started.provider.kind, "anthropic");
    assert!(!started.provider.offline);

    ws.send(json!({"type": "user_message", "content": "CUT"})).await;
    let frames = ws.until(|m| matches!(m, ServerMessage::Error(_))).await;
    let ServerMessage::Error(e) = frames.last().unwrap() else { unreachable!() };
    assert_eq!(e.code, ErrorCode::ProviderError);
    assert!(e.recoverable);
    assert!(e.message.contains("Your message is saved"), "{}", e.message);
    assert!(!frames.iter().any(|m| matches!(m, ServerMessage::AssistantComplete(_))));

    let entries = app.store().entries(app.owner(), &session).await.unwrap();
    let last = entries.last().unwrap();
    assert_eq!(
        (last.speaker, last.content.as_str()),
        (Some(warren::store::Speaker::Learner), "CUT"),
        "kept, and no half reply stored"
    );

    // The session goes on.
    let frames = ws.say("the mitochondria?").await;
    assert!(matches!(frames.last(), Some(ServerMessage::AssistantComplete(_))), "{frames:?}");
    // Evaluator and detector went to the fast model, the tutor to the main one.
    let models: Vec<String> =
        fake.received().iter().map(|r| r.body["model"].as_str().unwrap_or_default().to_string()).collect();
    assert!(models.contains(&warren::llm::anthropic::DEFAULT_FAST_MODEL.to_string()), "{models:?}");
    assert!(models.contains(&warren::llm::anthropic::DEFAULT_MODEL.to_string()), "{models:?}");
}

#[tokio::test]
async fn an_unreachable_provider_is_reported_at_start_up_and_on_readyz() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let app = TestApp::spawn_with(|c| {
        c.llm.provider = ProviderChoice::Openai;
        c.llm.openai_base_url = Some(format!("http://127.0.0.1:{port}/v1"));
    })
    .await;
    let body: serde_json::Value =
        app.http.get(app.url("/readyz")).send().await.unwrap().json().await.unwrap();
    let llm = body["checks"].as_array().unwrap().iter().find(|c| c["name"] == "llm").unwrap().clone();
    assert_eq!(llm["ok"], false, "{body}");
    assert!(llm["detail"].as_str().unwrap().contains("could not be reached"), "{body}");
    // Readiness is about the database; learners can still browse.
    assert_eq!(body["ready"], true);
}

//! Answering by voice, against a local server speaking OpenAI's multipart transcription
//! format: what is sent (model, the audio with its type, the set's terms as the prompt),
//! misheard terms put right (offline by sound and spelling; with a language model by the
//! clean-up agent, in both wire formats), every refusal coded and changing nothing, retries,
//! timeouts, and a spoken message marked as such in the history.

use std::time::Duration;

use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use warren::store::{NewPoint, NewSet};
use warren_app::protocol::ServerMessage;
use warren_app::voice::MAX_BYTES;

use crate::common::fake_llm::{FakeLlm, Reply, Wire};
use crate::common::fake_transcribe::{FakeTranscriber, Heard};
use crate::common::{Learner, TestApp, recalled_ids};

const MODEL: &str = "whisper-test";
const OPUS: &str = "audio/webm;codecs=opus";

/// A set on fungi, and a session of it.
async fn fungi(app: &TestApp) -> (String, Vec<warren::store::Point>) {
    let point = |content: &str, context: &str| NewPoint {
        content: content.into(),
        context: context.into(),
        ..NewPoint::default()
    };
    let set = NewSet {
        name: "Fungi".into(),
        description: "How fungi live.".into(),
        points: vec![
            point("Mycelium networks carry sugar between plants.", "What links the roots of a forest?"),
            point("Hyphae are the threads a fungus is made of.", "What is a fungus made of?"),
        ],
        ..NewSet::default()
    };
    let set_id = app.store().create_set(app.owner(), &set).await.unwrap();
    let session = app.engine.start_session(app.owner(), &set_id, true).await.unwrap();
    (session.id, app.store().points(app.owner(), &set_id).await.unwrap())
}

fn voice_at(fake: &FakeTranscriber) -> impl FnOnce(&mut warren::config::Config) + '_ {
    move |c| {
        c.voice = warren::config::VoiceConfig::at(&fake.base_url(), MODEL);
        c.voice.transcribe_api_key = Some("tkey".into());
        c.voice.transcribe_timeout_ms = 400;
    }
}

impl TestApp {
    /// Posts a recording as the live page does; the status and the JSON answer.
    async fn transcribe_as(&self, who: Option<&Learner>, session: &str, audio: Vec<u8>) -> (u16, Value) {
        let form = Form::new()
            .text("session", session.to_string())
            .part("audio", Part::bytes(audio).file_name("answer.webm").mime_str(OPUS).unwrap());
        let mut request = self.http.post(self.url("/api/transcribe")).multipart(form);
        if let Some(who) = who {
            request = request.header("cookie", &who.cookie);
        }
        let res = request.send().await.unwrap();
        let status = res.status().as_u16();
        (status, res.json().await.unwrap_or(Value::Null))
    }

    async fn transcribe(&self, session: &str, audio: Vec<u8>) -> (u16, Value) {
        self.transcribe_as(Some(&self.learner), session, audio).await
    }
}

#[tokio::test]
async fn a_recording_is_sent_with_the_sets_terms_and_its_misheard_terms_come_back_right() {
    let fake = FakeTranscriber::start(vec![Heard::Text("my selenium networks carry sugar")]).await;
    let app = TestApp::spawn_with(voice_at(&fake)).await;
    let (session, _) = fungi(&app).await;
    let (status, answer) = app.transcribe(&session, vec![7; 4096]).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["text"], "mycelium networks carry sugar");
    assert_eq!(answer["heard"], "my selenium networks carry sugar");
    assert_eq!(answer["corrections"], json!([{"heard": "my selenium", "meant": "mycelium"}]));

    let sent = fake.sent();
    assert_eq!(sent.len(), 1);
    let sent = &sent[0];
    assert_eq!(sent.model.as_deref(), Some(MODEL));
    assert_eq!((sent.file_type.as_deref(), sent.file_bytes), (Some(OPUS), 4096));
    assert_eq!(sent.file_name.as_deref(), Some("answer.webm"));
    assert_eq!(sent.response_format.as_deref(), Some("json"));
    assert_eq!(sent.authorization.as_deref(), Some("Bearer tkey"));
    let prompt = sent.prompt.clone().unwrap_or_default();
    for term in ["mycelium", "hyphae", "networks", "fungi"] {
        assert!(prompt.contains(term), "the prompt carries the set's terms: {prompt}");
    }
    // Nothing of it went into the session: the transcript waits in the box.
    let entries = app.store().entries(app.owner(), &session).await.unwrap();
    assert!(entries.iter().all(|e| !e.content.contains("sugar")), "{entries:?}");
}

#[tokio::test]
async fn refusals_are_coded_and_change_nothing() {
    let fake = FakeTranscriber::start(vec![Heard::Text("hyphae")]).await;
    let app = TestApp::spawn_with(voice_at(&fake)).await;
    let (session, _) = fungi(&app).await;
    let before = app.store().entries(app.owner(), &session).await.unwrap().len();
    let bob = app.sign_up("bob").await;
    let code = |answer: &Value| answer["code"].as_str().unwrap_or_default().to_string();

    // Another learner's session is as unknown as one that does not exist.
    let (status, answer) = app.transcribe_as(Some(&bob), &session, vec![1; 100]).await;
    assert_eq!((status, code(&answer).as_str()), (404, "not_found"), "{answer}");
    let (status, answer) = app.transcribe(&"0".repeat(36), vec![1; 100]).await;
    assert_eq!((status, code(&answer).as_str()), (404, "not_found"));
    assert!(answer["message"].as_str().is_some_and(|m| !m.is_empty()));
    // Not signed in.
    let (status, answer) = app.transcribe_as(None, &session, vec![1; 100]).await;
    assert_eq!((status, code(&answer).as_str()), (401, "unauthorized"));
    // No recording, or an empty one.
    let (status, answer) = app.transcribe(&session, Vec::new()).await;
    assert_eq!((status, code(&answer).as_str()), (400, "bad_request"));
    // Over the cap: refused as it arrives, and (declared larger still) before it does.
    let (status, answer) = app.transcribe(&session, vec![0; MAX_BYTES + 1]).await;
    assert_eq!((status, code(&answer).as_str()), (413, "too_large"));
    let (status, answer) = app.transcribe(&session, vec![0; MAX_BYTES + 2 * 1024 * 1024]).await;
    assert_eq!((status, code(&answer).as_str()), (413, "too_large"));

    assert!(fake.sent().is_empty(), "nothing reached the transcription service");
    assert_eq!(app.store().entries(app.owner(), &session).await.unwrap().len(), before);
}

#[tokio::test]
async fn each_learner_has_an_allowance_of_recordings() {
    let fake = FakeTranscriber::start(vec![Heard::Text("hyphae")]).await;
    let app = TestApp::spawn_with(voice_at(&fake)).await;
    let (session, _) = fungi(&app).await;
    let mut statuses = Vec::new();
    for _ in 0..13 {
        statuses.push(app.transcribe(&session, vec![1; 64]).await);
    }
    assert!(statuses[..12].iter().all(|(s, _)| *s == 200), "{statuses:?}");
    let (status, answer) = &statuses[12];
    assert_eq!((*status, answer["code"].as_str()), (429, Some("rate_limited")));
    assert_eq!(fake.sent().len(), 12, "the refused one was not sent on");
    // Another learner's allowance is their own.
    let bob = app.sign_up("bob").await;
    let (bobs, _) = app.start_as(&bob, "The living cell").await;
    assert_eq!(app.transcribe_as(Some(&bob), &bobs, vec![1; 64]).await.0, 200);
}

#[tokio::test]
async fn the_allowance_is_shared_by_every_instance() {
    let fake = FakeTranscriber::start(vec![Heard::Text("hyphae")]).await;
    let app = TestApp::spawn_with(voice_at(&fake)).await;
    let other = app.another_instance_with(voice_at(&fake)).await;
    let (session, _) = fungi(&app).await;
    // Twelve recordings spread over both instances spend the learner's allowance on both.
    for i in 0..12 {
        let on = if i % 2 == 0 { &app } else { &other };
        assert_eq!(on.transcribe(&session, vec![1; 64]).await.0, 200, "recording {i}");
    }
    for on in [&app, &other] {
        let (status, answer) = on.transcribe(&session, vec![1; 64]).await;
        assert_eq!((status, answer["code"].as_str()), (429, Some("rate_limited")), "{answer}");
    }
    assert_eq!(fake.sent().len(), 12);
}

#[tokio::test]
async fn a_failing_service_is_retried_and_one_that_stays_silent_is_a_timeout() {
    let fake = FakeTranscriber::start(vec![Heard::Status(500), Heard::Text("hyphae")]).await;
    let app = TestApp::spawn_with(voice_at(&fake)).await;
    let (session, _) = fungi(&app).await;
    let (status, answer) = app.transcribe(&session, vec![1; 64]).await;
    assert_eq!((status, answer["text"].as_str()), (200, Some("hyphae")), "{answer}");
    assert_eq!(fake.sent().len(), 2, "a 500, then the retry");

    let silent = FakeTranscriber::start(vec![Heard::Silent(Duration::from_secs(3))]).await;
    let app = TestApp::spawn_with(voice_at(&silent)).await;
    let (session, _) = fungi(&app).await;
    let (status, answer) = app.transcribe(&session, vec![1; 64]).await;
    assert_eq!((status, answer["code"].as_str()), (504, Some("timeout")), "{answer}");

    let down = FakeTranscriber::start(vec![Heard::Status(503)]).await;
    let app = TestApp::spawn_with(voice_at(&down)).await;
    let (session, _) = fungi(&app).await;
    let (status, answer) = app.transcribe(&session, vec![1; 64]).await;
    assert_eq!((status, answer["code"].as_str()), (502, Some("unavailable")), "{answer}");
    assert_eq!(down.sent().len(), 3, "tried, then retried twice");
    assert!(answer["message"].as_str().is_some_and(|m| m.contains("not answering")));
}

#[tokio::test]
async fn readyz_and_the_notices_say_whether_voice_is_on_and_through_what() {
    let app = TestApp::spawn().await;
    let (session, _) = fungi(&app).await;
    let (status, answer) = app.transcribe(&session, vec![1; 64]).await;
    assert_eq!((status, answer["code"].as_str()), (404, Some("voice_off")));
    let ready: Value = app.http.get(app.url("/readyz")).send().await.unwrap().json().await.unwrap();
    let voice = ready["checks"].as_array().unwrap().iter().find(|c| c["name"] == "voice").cloned().unwrap();
    assert!(voice["detail"].as_str().unwrap().starts_with("off:"), "{voice}");
    let (_, dashboard) = app.page("/").await;
    assert!(dashboard.contains("Answering by voice is off on this server."), "{dashboard}");

    let fake = FakeTranscriber::start(vec![Heard::Text("hyphae")]).await;
    let app = TestApp::spawn_with(voice_at(&fake)).await;
    let ready: Value = app.http.get(app.url("/readyz")).send().await.unwrap().json().await.unwrap();
    let voice = ready["checks"].as_array().unwrap().iter().find(|c| c["name"] == "voice").cloned().unwrap();
    let through = format!("{MODEL} at {}", fake.base_url());
    assert_eq!(voice["ok"], true);
    let detail = voice["detail"].as_str().unwrap();
    assert!(detail.starts_with("on:") && detail.contains(&through), "{voice}");
    let (_, dashboard) = app.page("/").await;
    assert!(dashboard.contains(&through) && dashboard.contains("voice-notice"), "{dashboard}");
    // The live page tells its island the recorder may be shown.
    let (session, _) = fungi(&app).await;
    let (_, live) = app.page(&format!("/sessions/{session}")).await;
    assert!(live.contains("&quot;voice&quot;:true") || live.contains("\"voice\":true"), "{live}");
}

#[tokio::test]
async fn a_spoken_message_is_kept_as_spoken_and_marked_in_the_history() {
    let app = TestApp::spawn().await;
    let (session, points) = app.start("The living cell").await;
    let mut ws = app.connect(&session).await;
    let opening =
        crate::common::reply_of(&ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await);
    let asked = points.iter().find(|p| opening.contains(&p.context)).expect("the opening asks a cue");
    ws.send(
        json!({"type": "user_message", "content": asked.content, "clientMessageId": "v1", "via": "voice"}),
    )
    .await;
    let frames = ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    assert_eq!(recalled_ids(&frames), vec![asked.id.clone()]);
    let entries = app.store().entries(app.owner(), &session).await.unwrap();
    let spoken = entries.iter().find(|e| e.client_message_id.as_deref() == Some("v1")).unwrap();
    assert_eq!(spoken.data, Some(json!({"via": "voice"})));
    let (_, history) = app.page(&format!("/history/{session}")).await;
    assert_eq!(history.matches("data-testid=\"spoken\"").count(), 1, "{history}");
    // A way of writing the server does not know is refused, like any bad field.
    ws.send(json!({"type": "user_message", "content": "hello", "via": "telepathy"})).await;
    let frames = ws.until(|m| matches!(m, ServerMessage::Error(_))).await;
    assert!(
        matches!(frames.last(), Some(ServerMessage::Error(e)) if e.code == warren_app::protocol::ErrorCode::InvalidPayload)
    );
}

/// The clean-up agent's request on both wire formats: its own prompt with the set's terms
/// and rules, the transcript as the message, JSON asked for; its answer taken when it adds
/// nothing, and the offline correction used when it does.
#[tokio::test]
async fn the_cleanup_agent_asks_each_wire_format_and_its_answer_is_checked() {
    for wire in [Wire::Anthropic, Wire::OpenAi] {
        let answer = r#"{"text":"Mycelium networks grow $x^2$ a day","corrections":[{"heard":"my selenium","meant":"Mycelium"}]}"#;
        let adds = r#"{"text":"Mycelium networks carry sugar to the roots of every tree in the forest","corrections":[]}"#;
        let llm = FakeLlm::start(
            wire,
            vec![Reply::Text(vec![answer]), Reply::Text(vec![adds]), Reply::Text(vec![adds])],
        )
        .await;
        let fake = FakeTranscriber::start(vec![
            Heard::Text("my selenium networks grow x squared a day"),
            Heard::Text("my selenium networks carry sugar"),
        ])
        .await;
        let app = TestApp::on_fake_with(wire, &llm, voice_at(&fake)).await;
        let (session, _) = fungi(&app).await;
        let (status, got) = app.transcribe(&session, vec![1; 64]).await;
        assert_eq!(status, 200, "{wire:?} {got}");
        assert_eq!(got["text"], "Mycelium networks grow $x^2$ a day", "{wire:?}");
        assert_eq!(got["corrections"][0]["meant"], "Mycelium");

        let requests = llm.received();
        let request = &requests.last().unwrap().body;
        let (system, messages) = match wire {
            Wire::Anthropic => (request["system"].to_string(), request["messages"].clone()),
            Wire::OpenAi => (
                request["messages"][0]["content"].to_string(),
                json!(request["messages"].as_array().unwrap()[1..]),
            ),
        };
        for needed in ["speech-to-text", "Never add", "mycelium", "hyphae", "JSON only", "corrections"] {
            assert!(system.contains(needed), "{wire:?}: {needed} in {system}");
        }
        assert_eq!(messages.as_array().unwrap().len(), 1, "{wire:?}: {messages}");
        assert!(messages.to_string().contains("my selenium networks grow x squared a day"));

        // An answer that adds content, twice: the words-and-sounds correction stands.
        let (status, got) = app.transcribe(&session, vec![1; 64]).await;
        assert_eq!(
            (status, got["text"].as_str()),
            (200, Some("mycelium networks carry sugar")),
            "{wire:?} {got}"
        );
        assert_eq!(llm.received().len(), 3, "{wire:?}: asked, then once more");
    }
}

//! A session on a network provider (a local fake speaking Anthropic's format): what the learner
//! sees when the model fails mid-reply, and that their words are kept.

use std::sync::Arc;

use crate::common::TestApp;
use crate::common::fake_llm::{FakeLlm, INPUT_TOKENS, Reply, Wire, first_point_id, last_message, system_of};
use serde_json::json;
use warren::config::ProviderChoice;
use warren_app::protocol::{ErrorCode, ServerMessage};

/// Judges answer "nothing recalled, no tangent"; the tutor answers briefly, except that a
/// learner message of "CUT" makes its stream break half-way.
fn answers(body: &serde_json::Value) -> Reply {
    let system = system_of(body);
    let last = last_message(body);
    if system.contains("You check which recall points") {
        Reply::Text(vec![r#"{"recalled":[],"nearMisses":[],"observation":""}"#])
    } else if system.contains("for tangents") {
        Reply::Text(vec![
            r#"{"isRabbithole":false,"topic":"","depth":1,"relatedToCurrentPoint":false,"relatedRecallPointIds":[],"confidence":0.1,"reasoning":"on topic"}"#,
        ])
    } else if last.ends_with("CUT\"") {
        // Only when "CUT" is the newest words: a kept "CUT" and a later message arrive joined.
        Reply::Breaks(vec!["Think about ", "where the "])
    } else {
        Reply::Text(vec!["What does the cell ", "use for energy?"])
    }
}

#[tokio::test]
async fn the_tokens_each_reply_used_are_counted_as_the_provider_reports_them() {
    for wire in [Wire::Anthropic, Wire::OpenAi] {
        let fake = FakeLlm::start_with(wire, vec![], Some(Arc::new(answers))).await;
        let app = TestApp::on_fake(wire, &fake).await;
        let (session, _) = app.start("The living cell").await;
        let mut ws = app.connect(&session).await;
        ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
        crate::common::reply_of(&ws.say("No idea, to be honest.").await);

        let metrics = app.metrics().await;
        let replies = 2;
        assert!(metrics.contains(&format!("warren_replies_total {replies}")), "{wire:?}: {metrics}");
        // Each tutor reply came in two pieces, one output token each in the fake's count.
        for (kind, tokens) in [("input", replies * INPUT_TOKENS), ("output", replies * 2)] {
            let line = format!("warren_reply_tokens_total{{kind=\"{kind}\"}} {tokens}");
            assert!(metrics.contains(&line), "{wire:?}: {line} in {metrics}");
        }
    }
}

#[tokio::test]
async fn a_reply_cut_midway_is_an_error_frame_and_the_message_is_kept() {
    let fake = FakeLlm::start_with(Wire::Anthropic, vec![], Some(Arc::new(answers))).await;
    let app = TestApp::on_fake(Wire::Anthropic, &fake).await;
    let (session, _) = app.start("The living cell").await;
    let mut ws = app.connect(&session).await;
    let frames = ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    let ServerMessage::SessionStarted(started) = &frames[0] else { panic!("{frames:?}") };
    assert_eq!(started.provider.kind, warren_app::protocol::ProviderKind::Anthropic);
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
    // Port 1: nothing listens there, and no test server can take it (a port freed for the
    // purpose could be handed to another test's server meanwhile).
    let app = TestApp::spawn_with(|c| {
        c.llm.provider = ProviderChoice::Openai;
        c.llm.openai_base_url = Some("http://127.0.0.1:1/v1".to_string());
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

/// Like [`answers`], but the tutor calls its tools: at the opening with an id that is no
/// resource of the session; on "ODD" with a tool it was never given; on "SHOW" with the
/// image the prompt lists.
fn showing(body: &serde_json::Value) -> Reply {
    let system = system_of(body);
    let last = last_message(body);
    if !system.contains("recall facilitator") {
        return answers(body);
    }
    let image = system
        .lines()
        .find(|l| l.starts_with("- id ") && l.contains("(image)"))
        .and_then(|l| l.split_whitespace().nth(2))
        .unwrap_or("none")
        .to_string();
    let text = vec!["Which compartment ", "holds the DNA?"];
    if last.contains("SHOW") {
        Reply::Tool { text, name: "show_image".into(), input: json!({ "resource_id": image }).to_string() }
    } else if last.contains("ODD") {
        Reply::Tool { text, name: "show_video".into(), input: json!({ "resource_id": image }).to_string() }
    } else {
        Reply::Tool { text, name: "show_image".into(), input: r#"{"resource_id":"not-a-resource"}"#.into() }
    }
}

#[tokio::test]
async fn the_tutor_shows_resources_through_tool_calls_checked_against_the_session() {
    for wire in [Wire::Anthropic, Wire::OpenAi] {
        let fake = FakeLlm::start_with(wire, vec![], Some(Arc::new(showing))).await;
        let app = TestApp::on_fake(wire, &fake).await;
        let (session, _) = app.start("The living cell").await;
        let image =
            app.store().set_named(app.owner(), "The living cell").await.unwrap().map(|set| set.id).unwrap();
        let image = app
            .store()
            .resources(app.owner(), &image)
            .await
            .unwrap()
            .into_iter()
            .find(|r| r.kind == warren_app::api::ResourceKind::Image)
            .unwrap();
        let mut ws = app.connect(&session).await;

        // An id that is none of the session's resources is dropped, and the reply still comes.
        let frames = ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
        assert!(!frames.iter().any(|m| matches!(m, ServerMessage::ShowImage(_))), "{wire:?}: {frames:?}");
        // So is a tool the tutor was never given.
        let frames = ws.say("ODD").await;
        assert!(!frames.iter().any(|m| matches!(m, ServerMessage::ShowImage(_))), "{wire:?}: {frames:?}");

        // A streamed call naming the set's image becomes a show_image frame.
        let frames = ws.say("SHOW").await;
        let shown: Vec<_> = frames
            .iter()
            .filter_map(|m| match m {
                ServerMessage::ShowImage(s) => Some(s.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(shown.len(), 1, "{wire:?}: {frames:?}");
        assert_eq!(shown[0].resource_id, image.id);
        assert_eq!(shown[0].url, image.url.clone().unwrap());
        assert_eq!(shown[0].caption.as_deref(), Some(image.title.as_str()));

        // The tutor was offered its tools in the wire's own format, naming the set's ids only.
        let tutor =
            fake.received().into_iter().find(|r| system_of(&r.body).contains("recall facilitator")).unwrap();
        let offered = tutor.body["tools"].to_string();
        assert!(offered.contains("show_image") && offered.contains(&image.id), "{wire:?}: {offered}");

        // Once shown, it is shown once: asking again sends nothing, and a reload keeps it.
        let frames = ws.say("SHOW").await;
        assert!(!frames.iter().any(|m| matches!(m, ServerMessage::ShowImage(_))), "{wire:?}: {frames:?}");
        drop(ws);
        let mut again = app.connect(&session).await;
        let ServerMessage::SessionStarted(started) = again.next().await else {
            panic!("session_started first")
        };
        assert_eq!(
            started.images.iter().map(|i| i.resource_id.as_str()).collect::<Vec<_>>(),
            vec![image.id.as_str()]
        );
        assert_eq!(app.store().shown_resources(app.owner(), &session).await.unwrap(), vec![image.id.clone()]);
    }
}

/// The evaluator recalls a point whose whole content the message holds; the tutor answers
/// "QUIET" with praise, a progress count, an untried point given away and then a question,
/// and "NAMED" by naming the point just recalled before asking on.
fn careless(body: &serde_json::Value) -> Reply {
    let system = system_of(body);
    let last = last_message(body);
    if system.contains("You check which recall points") {
        let recalled: Vec<serde_json::Value> = system
            .lines()
            .filter_map(|l| l.strip_prefix("- id \""))
            .filter_map(|l| l.split_once("\": "))
            .filter(|(_, content)| last.contains(content.trim()))
            .map(|(id, _)| json!({"pointId": id, "confidence": 0.9}))
            .collect();
        return Reply::Said(json!({"recalled": recalled, "nearMisses": []}).to_string());
    }
    if !system.contains("recall facilitator") {
        return answers(body);
    }
    if last.contains("QUIET") {
        Reply::Text(vec![
            "Great job! You've recalled 1 out of 5 points. Ribo",
            "somes translate messenger RNA into proteins. Which part of the cell ",
            "holds the DNA?",
        ])
    } else if last.contains("NAMED") {
        Reply::Text(vec!["Mitochondria produce most of the cell's ATP. ", "Where are proteins assembled?"])
    } else if last.contains("OTHER WORDS") {
        Reply::Text(vec![
            "The cell's genetic material lives in the nucleus, which decides which genes are switched on. ",
            "What else comes to mind?",
        ])
    } else {
        Reply::Text(vec!["What does the cell use for energy?"])
    }
}

#[tokio::test]
async fn praise_progress_and_a_point_given_away_are_taken_out_of_the_tutors_reply() {
    let fake = FakeLlm::start_with(Wire::Anthropic, vec![], Some(Arc::new(careless))).await;
    let app = TestApp::on_fake(Wire::Anthropic, &fake).await;
    let (session, points) = app.start("The living cell").await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;

    let frames = ws.say(&format!("{} QUIET", points[0].content)).await;
    assert_eq!(crate::common::recalled_ids(&frames), vec![points[0].id.clone()]);
    let streamed: String = frames
        .iter()
        .filter_map(|m| match m {
            ServerMessage::AssistantChunk(c) => Some(c.content.as_str()),
            _ => None,
        })
        .collect();
    let reply = crate::common::reply_of(&frames);
    assert_eq!(reply, "Which part of the cell holds the DNA?");
    assert_eq!(streamed, reply, "what streamed is what was kept");
    let entries = app.store().entries(app.owner(), &session).await.unwrap();
    assert_eq!(entries.last().unwrap().content, reply, "and what was stored");

    // Naming a point already recalled is no giveaway.
    let reply = crate::common::reply_of(&ws.say("NAMED").await);
    assert_eq!(reply, "Mitochondria produce most of the cell's ATP. Where are proteins assembled?");

    // A point not yet tried, given away in other words, is caught by meaning.
    let reply = crate::common::reply_of(&ws.say("OTHER WORDS").await);
    assert_eq!(reply, "What else comes to mind?");

    let metrics = app.metrics().await;
    for (rule, times) in [("praise", 1), ("progress", 1), ("leak", 2)] {
        let line = format!("warren_tutor_sentences_removed_total{{rule=\"{rule}\"}} {times}");
        assert!(metrics.contains(&line), "{line} in {metrics}");
    }
}

#[tokio::test]
async fn a_message_whose_reply_failed_is_answered_when_the_page_reconnects() {
    // The tutor's reply to "CUT" breaks the first time only: the provider recovers.
    let broke = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let once = move |body: &serde_json::Value| match answers(body) {
        Reply::Breaks(pieces) if !broke.swap(true, std::sync::atomic::Ordering::SeqCst) => {
            Reply::Breaks(pieces)
        }
        Reply::Breaks(_) => Reply::Text(vec!["What does the cell ", "use for energy?"]),
        other => other,
    };
    let fake = FakeLlm::start_with(Wire::Anthropic, vec![], Some(Arc::new(once))).await;
    let app = TestApp::on_fake(Wire::Anthropic, &fake).await;
    let (session, _) = app.start("The living cell").await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    ws.send(json!({"type": "user_message", "content": "CUT", "clientMessageId": "c1"})).await;
    ws.until(|m| matches!(m, ServerMessage::Error(_))).await;

    // The page reconnects (it does after an error it cannot fix by itself): the message left
    // waiting is answered, once, right after it.
    let mut again = app.connect(&session).await;
    let frames = again.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    assert!(matches!(frames[0], ServerMessage::SessionStarted(_)), "{frames:?}");
    let (row, tree) = app.store().tree(app.owner(), &session).await.unwrap().unwrap();
    let path = tree.path(row.leaf_id.as_deref());
    let at = path.iter().position(|e| e.content == "CUT").unwrap();
    let next = path.get(at + 1).expect("a reply after the message");
    assert_eq!(next.speaker, Some(warren::store::Speaker::Tutor), "{:?}", next.content);
}

/// As above, for a message that recalled a point: the recall is kept, and the tutor's reply
/// (the one that takes the recall into account) fails and comes on reconnect.
#[tokio::test]
async fn a_recall_whose_reply_failed_is_answered_when_the_page_reconnects() {
    let broke = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let answer = move |body: &serde_json::Value| {
        let system = system_of(body);
        let last = last_message(body);
        if system.contains("You check which recall points") {
            match first_point_id(&system).filter(|_| last.contains("CUT")) {
                Some(id) => Reply::Said(
                    json!({"recalled": [{"pointId": id, "confidence": 0.9}], "nearMisses": []}).to_string(),
                ),
                None => Reply::Text(vec![r#"{"recalled":[],"nearMisses":[]}"#]),
            }
        } else if system.contains("for tangents") {
            Reply::Text(vec![r#"{"isRabbithole":false,"topic":"","confidence":0.1}"#])
        } else if system.contains("recalled a point")
            && !broke.swap(true, std::sync::atomic::Ordering::SeqCst)
        {
            Reply::Breaks(vec!["Think about ", "where the "])
        } else {
            Reply::Text(vec!["And what else?"])
        }
    };
    let fake = FakeLlm::start_with(Wire::OpenAi, vec![], Some(Arc::new(answer))).await;
    let app = TestApp::on_fake(Wire::OpenAi, &fake).await;
    let (session, _) = app.start("The living cell").await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    ws.send(json!({"type": "user_message", "content": "CUT recall", "clientMessageId": "c1"})).await;
    let frames = ws.until(|m| matches!(m, ServerMessage::Error(_))).await;
    assert!(crate::common::kinds(&frames).contains(&"recall_point_recalled"), "the recall is kept");
    let mut again = app.connect(&session).await;
    again.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    let (row, tree) = app.store().tree(app.owner(), &session).await.unwrap().unwrap();
    let path = tree.path(row.leaf_id.as_deref());
    let kinds: Vec<String> = path.iter().map(|e| format!("{:?}:{}", e.speaker, e.content)).collect();
    let at = path.iter().position(|e| e.content == "CUT recall").unwrap();
    assert_eq!(path.get(at + 1).map(|e| e.speaker), Some(Some(warren::store::Speaker::Tutor)), "{kinds:?}");
}

/// The evaluator reads a message starting "Why" as a question and anything else as an attempt
/// that recalls nothing; the tutor asks briefly.
fn asking(body: &serde_json::Value) -> Reply {
    let system = system_of(body);
    let last = last_message(body);
    if system.contains("You check which recall points") {
        let kind = if last.contains("Latest learner message:\\nWhy") { "question" } else { "attempt" };
        return Reply::Said(json!({"recalled": [], "nearMisses": [], "messageKind": kind}).to_string());
    }
    answers(body)
}

#[tokio::test]
async fn a_question_the_network_evaluator_reads_as_one_is_answered_and_climbs_no_rung() {
    let fake = FakeLlm::start_with(Wire::Anthropic, vec![], Some(Arc::new(asking))).await;
    let app = TestApp::on_fake(Wire::Anthropic, &fake).await;
    let (session, points) = app.start("The living cell").await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;

    ws.say("Why do cells need so much energy?").await;
    let struggles = app.store().struggles(app.owner(), &session).await.unwrap();
    assert!(!struggles.contains_key(&points[0].id), "no try counted: {struggles:?}");
    // The evaluator was asked what the message is; the tutor, told it was asked something.
    let received = fake.received();
    let evaluator = received.iter().find(|r| system_of(&r.body).contains("You check which recall points"));
    assert!(evaluator.is_some_and(|r| system_of(&r.body).contains("messageKind")));
    let tutor = received.iter().rev().find(|r| system_of(&r.body).contains("recall facilitator")).unwrap();
    assert!(
        system_of(&tutor.body).contains("asks you something rather than answering"),
        "{}",
        system_of(&tutor.body)
    );

    ws.say("the nucleus").await;
    let struggles = app.store().struggles(app.owner(), &session).await.unwrap();
    assert_eq!(struggles[&points[0].id].attempts, 1, "an attempt climbs");
    let tutor = fake
        .received()
        .into_iter()
        .rev()
        .find(|r| system_of(&r.body).contains("recall facilitator"))
        .unwrap();
    assert!(!system_of(&tutor.body).contains("asks you something rather than answering"));
}

/// The evaluator recalls every point its prompt lists; the tutor answers briefly.
fn recalling_all(body: &serde_json::Value) -> Reply {
    let system = system_of(body);
    if system.contains("You check which recall points") {
        let recalled: Vec<serde_json::Value> = system
            .split("- id \"")
            .skip(1)
            .filter_map(|line| line.split('"').next())
            .map(|id| json!({"pointId": id, "confidence": 0.9}))
            .collect();
        return Reply::Said(
            json!({"recalled": recalled, "nearMisses": [], "messageKind": "attempt"}).to_string(),
        );
    }
    answers(body)
}

#[tokio::test]
async fn past_the_last_point_the_tutor_is_asked_to_answer_from_the_sets_notes() {
    for wire in [Wire::Anthropic, Wire::OpenAi] {
        let fake = FakeLlm::start_with(wire, vec![], Some(Arc::new(recalling_all))).await;
        let app = TestApp::on_fake(wire, &fake).await;
        let (session, _) = app.start("The living cell").await;
        let mut ws = app.connect(&session).await;
        ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
        let frames = ws.say("All of it, every organelle.").await;
        assert!(frames.iter().any(|m| matches!(m, ServerMessage::SessionCompleteOverlay(_))), "{frames:?}");
        ws.send(json!({"type": "dismiss_overlay"})).await;

        crate::common::reply_of(&ws.say("Why do mitochondria have their own DNA?").await);
        let received = fake.received();
        let tutor =
            received.iter().rev().find(|r| system_of(&r.body).contains("recall facilitator")).unwrap();
        let system = system_of(&tutor.body);
        assert!(system.contains("asks you something: answer it briefly, from their notes"), "{system}");
        assert!(system.contains("their own circular DNA"), "the set's note: {system}");
        assert!(!system.contains("ask about the point under discussion again"), "{system}");
    }
}

//! A live session driven over the real WebSocket against the real server, with the offline
//! provider: the protocol as a browser sees it.

use crate::common::{TestApp, attached_frame, kinds, recalled_ids, reply_of};
use futures_util::StreamExt;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;
use warren::store::{EntryKind, NewEntry, Speaker};
use warren_app::protocol::{ErrorCode, ServerMessage, SessionStatus};

const CELL: &str = "The living cell";

fn started(frame: &ServerMessage) -> &warren_app::protocol::SessionStarted {
    match frame {
        ServerMessage::SessionStarted(s) => s,
        other => panic!("expected session_started, got {other:?}"),
    }
}

#[tokio::test]
async fn a_full_session_overlay_leave_resume_and_complete() {
    let app = TestApp::spawn().await;
    let (session, points) = app.start(CELL).await;
    let mut ws = app.connect(&session).await;

    // A new session: state first, then the opening streams in.
    let opening = ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    let s = started(&opening[0]);
    assert_eq!((s.total_points, s.recalled_count, s.status), (5, 0, SessionStatus::InProgress));
    assert!(s.provider.offline, "the offline provider is labelled as such");
    assert_eq!(s.opening_message, "", "the opening streams after session_started");
    assert!(matches!(opening[1], ServerMessage::AssistantChunk(_)));

    // One point.
    let frames = ws.say(&points[0].content).await;
    assert_eq!(recalled_ids(&frames), vec![points[0].id.clone()]);
    assert_eq!(kinds(&frames)[0], "recall_point_recalled", "{:?}", kinds(&frames));

    // Two points in one message, counted in order.
    let frames = ws.say(&format!("{} Also, {}", points[1].content, points[2].content)).await;
    assert_eq!(recalled_ids(&frames), vec![points[1].id.clone(), points[2].id.clone()]);
    let counts: Vec<u32> = frames
        .iter()
        .filter_map(|m| match m {
            ServerMessage::RecallPointRecalled(r) => Some(r.recalled_count),
            _ => None,
        })
        .collect();
    assert_eq!(counts, vec![2, 3]);

    // Leave with points left: paused.
    ws.send(json!({"type": "leave_session"})).await;
    let frames = ws.until(|m| matches!(m, ServerMessage::SessionPaused(_))).await;
    let ServerMessage::SessionPaused(paused) = frames.last().unwrap() else { unreachable!() };
    assert_eq!((paused.recalled_count, paused.total_points), (3, 5));
    let row = app.store().session(app.owner(), &session).await.unwrap().unwrap();
    assert_eq!(row.state.status, SessionStatus::Paused);
    drop(ws);

    // Resume: the checklist survives and a short recap streams.
    let mut ws = app.connect(&session).await;
    let frames = ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    let s = started(&frames[0]);
    assert_eq!((s.recalled_count, s.status), (3, SessionStatus::InProgress));
    let ServerMessage::AssistantComplete(recap) = frames.last().unwrap() else { unreachable!() };
    // The last words recalled two points; the question asked since is not tried yet, so they
    // are not quoted as if they answered it.
    assert!(recap.full_content.starts_with("Welcome back to the living cell."), "{}", recap.full_content);
    assert!(!recap.full_content.contains("you had said"), "{}", recap.full_content);

    // The last two points: the overlay instead of a tutor reply.
    ws.say(&points[3].content).await;
    let frames = ws.say(&points[4].content).await;
    assert_eq!(kinds(&frames).last(), Some(&"session_complete_overlay"), "{:?}", kinds(&frames));
    assert!(ws.quiet().await, "no tutor reply after the last recall");
    // The overlay's words are the session's last, in its history too.
    let entries = app.store().entries(app.owner(), &session).await.unwrap();
    let last = entries.iter().rev().find(|e| e.speaker.is_some()).unwrap();
    assert_eq!((last.speaker, last.content.as_str()), (Some(Speaker::Tutor), "You've covered everything."));
    // A reconnect (page reload) shows the overlay again and invents no reply either.
    drop(ws);
    let mut ws = app.connect(&session).await;
    let s = ws.next().await;
    assert!(started(&s).overlay.is_some());
    assert_eq!(started(&s).opening_message, "You've covered everything.", "not the question it answered");
    assert!(ws.quiet().await, "the overlay answered the last recall");

    // Continue: dismiss and keep talking.
    ws.send(json!({"type": "dismiss_overlay"})).await;
    let frames = ws.say("How does all of that fit together?").await;
    assert_eq!(kinds(&frames).last(), Some(&"assistant_complete"), "{:?}", kinds(&frames));
    // A question past the last point is answered from the set's notes.
    let frames = ws.say("Why do mitochondria have their own DNA?").await;
    let reply = reply_of(&frames);
    assert!(reply.contains("circular DNA"), "{reply}");

    // Done: leave, completed.
    ws.send(json!({"type": "leave_session"})).await;
    let frames = ws.until(|m| matches!(m, ServerMessage::SessionComplete(_))).await;
    let ServerMessage::SessionComplete(done) = frames.last().unwrap() else { unreachable!() };
    assert_eq!(done.summary.recalled_count, 5);
    assert_eq!(done.summary.recalled_point_ids.len(), 5);
    let row = app.store().session(app.owner(), &session).await.unwrap().unwrap();
    assert_eq!(row.state.status, SessionStatus::Completed);

    // Every recall was an FSRS review that pushed the point into the future.
    let set_id = row.set_id.expect("a set session");
    for p in app.store().points(app.owner(), &set_id).await.unwrap() {
        assert_eq!(p.card.reps, 1, "{}", p.content);
        assert!(p.card.due_at > row.started_at, "{}", p.content);
    }
    // And a completed session takes no more messages.
    let frames = ws.say("one more thing").await;
    let ServerMessage::Error(e) = frames.last().unwrap() else { panic!("{frames:?}") };
    assert_eq!(e.code, ErrorCode::SessionEnded);
}

#[tokio::test]
async fn a_near_miss_is_reported_and_nothing_is_checked_off() {
    let app = TestApp::spawn().await;
    let (session, points) = app.start(CELL).await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;

    let frames = ws.say("the mitochondria make energy").await;
    assert!(recalled_ids(&frames).is_empty());
    let near: Vec<_> = frames
        .iter()
        .filter_map(|m| match m {
            ServerMessage::RecallPointNearMiss(n) => Some(n),
            _ => None,
        })
        .collect();
    assert_eq!(near.len(), 1, "{frames:?}");
    assert_eq!(near[0].point_id, points[0].id);
    assert!(!near[0].feedback.is_empty());
    assert_eq!(kinds(&frames).last(), Some(&"assistant_complete"));
}

#[tokio::test]
async fn a_near_miss_counts_and_shows_only_for_the_point_asked_about() {
    let app = TestApp::spawn().await;
    let (session, points) = app.start(CELL).await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    let half = "ribosomes and RNA, but I can't remember the rest";
    let near = |frames: &[ServerMessage]| {
        frames
            .iter()
            .filter_map(|m| match m {
                ServerMessage::RecallPointNearMiss(n) => Some(n.point_id.clone()),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    let near_misses = |struggles: &std::collections::HashMap<String, warren::store::Struggle>| {
        struggles.get(&points[1].id).map_or(0, |s| s.near_misses)
    };
    // Asked about the mitochondria, half of the ribosomes' point: no try at it.
    let frames = ws.say(half).await;
    assert!(recalled_ids(&frames).is_empty() && near(&frames).is_empty(), "{frames:?}");
    let struggles = app.store().struggles(app.owner(), &session).await.unwrap();
    assert_eq!(near_misses(&struggles), 0, "{struggles:?}");
    // Once the ribosomes are asked about, the same words are a near miss, shown and counted.
    assert_eq!(recalled_ids(&ws.say(&points[0].content).await), vec![points[0].id.clone()]);
    let frames = ws.say(half).await;
    assert_eq!(near(&frames), vec![points[1].id.clone()], "{frames:?}");
    let struggles = app.store().struggles(app.owner(), &session).await.unwrap();
    assert_eq!(near_misses(&struggles), 1, "{struggles:?}");
}

#[tokio::test]
async fn a_paraphrase_recalls_its_point_by_meaning() {
    let app = TestApp::spawn().await;
    let (session, points) = app.start(CELL).await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;

    // "Ribosomes translate messenger RNA into proteins", in other words, while the tutor asks
    // about another point.
    let frames = ws.say("Ribosomes build proteins from mRNA").await;
    assert_eq!(recalled_ids(&frames), vec![points[1].id.clone()], "{frames:?}");
    // A confident wrong answer in the point's own words is not a recall.
    let frames = ws.say("the nucleus makes ATP").await;
    assert!(recalled_ids(&frames).is_empty(), "{frames:?}");
}

#[tokio::test]
async fn points_without_cues_are_asked_by_their_own_words_every_turn() {
    let app = TestApp::spawn().await;
    let points = [
        "Jupiter is the largest planet in the solar system.",
        "Mars looks red because its surface is covered in iron oxide, which is rust.",
        "Mercury has almost no atmosphere, so its temperature swings wildly between day and night.",
    ]
    .map(|content| warren::store::NewPoint { content: content.into(), ..Default::default() });
    let set = warren::store::NewSet { name: "Planets".into(), points: points.to_vec(), ..Default::default() };
    app.store().create_set(app.owner(), &set).await.unwrap();
    let (session, points) = app.start("Planets").await;
    let mut ws = app.connect(&session).await;
    let opening = reply_of(&ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await);
    // Each reply asks a question: none is taken out as giving its point away.
    assert!(opening.contains("What is Jupiter?") || opening.contains("Fill the gap"), "{opening}");
    let (last, before) = points.split_last().expect("three points");
    for point in before {
        let reply = reply_of(&ws.say(&point.content).await);
        assert!(reply.ends_with('?') || reply.contains("Fill the gap"), "{reply}");
    }
    let frames = ws.say(&last.content).await;
    assert!(frames.iter().any(|m| matches!(m, ServerMessage::SessionCompleteOverlay(_))), "{frames:?}");
}

#[tokio::test]
async fn every_malformed_frame_gets_its_code_and_changes_nothing() {
    let app = TestApp::spawn().await;
    let (session, points) = app.start(CELL).await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    let before = app.store().entries(app.owner(), &session).await.unwrap().len();

    let oversize = format!(r#"{{"type":"user_message","content":"{}"}}"#, "a".repeat(20_000));
    let too_long = format!(r#"{{"type":"user_message","content":"{}"}}"#, "é".repeat(8_001));
    let cases: Vec<(String, ErrorCode)> = vec![
        ("{not json".into(), ErrorCode::MalformedJson),
        ("[1,2,3]".into(), ErrorCode::InvalidPayload),
        (r#"{"content":"no type"}"#.into(), ErrorCode::InvalidPayload),
        (r#"{"type":"trigger_eval"}"#.into(), ErrorCode::UnknownMessageType),
        (r#"{"type":"end_session"}"#.into(), ErrorCode::UnknownMessageType),
        (r#"{"type":"user_message"}"#.into(), ErrorCode::InvalidPayload),
        (r#"{"type":"user_message","content":42}"#.into(), ErrorCode::InvalidPayload),
        (r#"{"type":"user_message","content":"   "}"#.into(), ErrorCode::InvalidPayload),
        (r#"{"type":"enter_rabbithole","topic":"x"}"#.into(), ErrorCode::InvalidPayload),
        (
            r#"{"type":"enter_rabbithole","rabbitholeEventId":"nope","topic":"x"}"#.into(),
            ErrorCode::InvalidState,
        ),
        (r#"{"type":"exit_rabbithole"}"#.into(), ErrorCode::InvalidState),
        (r#"{"type":"decline_rabbithole"}"#.into(), ErrorCode::InvalidState),
        (r#"{"type":"dismiss_overlay"}"#.into(), ErrorCode::InvalidState),
        (oversize, ErrorCode::FrameTooLarge),
        (too_long, ErrorCode::MessageTooLong),
    ];
    for (frame, code) in cases {
        ws.send_raw(frame.clone()).await;
        match ws.next().await {
            ServerMessage::Error(e) => {
                assert_eq!(e.code, code, "for {}", &frame[..frame.len().min(60)]);
                assert!(e.recoverable);
                assert!(!e.message.is_empty());
            }
            other => panic!("expected an error for {frame:.60}, got {other:?}"),
        }
    }
    ws.stream.send(Message::Binary(vec![1, 2, 3].into())).await.unwrap();
    let ServerMessage::Error(e) = ws.next().await else { panic!("binary frames get an error") };
    assert_eq!(e.code, ErrorCode::InvalidPayload);

    // Nothing was stored, and the session still works on the same socket.
    assert_eq!(app.store().entries(app.owner(), &session).await.unwrap().len(), before);
    let frames = ws.say(&points[0].content).await;
    assert_eq!(recalled_ids(&frames), vec![points[0].id.clone()]);
}

use futures_util::SinkExt;

#[tokio::test]
async fn an_unknown_session_gets_an_error_and_close_code_4404() {
    let app = TestApp::spawn().await;
    let mut ws = app.connect("no-such-session").await;
    let ServerMessage::Error(e) = ws.next().await else { panic!("expected an error frame") };
    assert_eq!(e.code, ErrorCode::SessionNotFound);
    assert!(!e.recoverable);
    let close = loop {
        match ws.stream.next().await {
            Some(Ok(Message::Close(frame))) => break frame,
            Some(Ok(_)) => continue,
            other => panic!("expected a close frame, got {other:?}"),
        }
    };
    assert_eq!(u16::from(close.expect("close frame").code), 4404);
}

#[tokio::test]
async fn metrics_count_what_the_engine_did() {
    let app = TestApp::spawn().await;
    let (session, points) = app.start(CELL).await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    ws.say(&points[0].content).await;
    ws.send_raw("{not json").await;
    ws.until(|m| matches!(m, ServerMessage::Error(_))).await;
    drop(app.connect("no-such-session").await);

    let metrics = app.metrics().await;
    for line in [
        "warren_session_attaches_total 1",
        "warren_learner_messages_total 1",
        "warren_recalls_total 1",
        "warren_replies_total 2",
        "warren_errors_total{code=\"MALFORMED_JSON\"} 1",
    ] {
        assert!(metrics.lines().any(|l| l == line), "missing {line} in\n{metrics}");
    }
    // The refusal is counted once its frame is sent.
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    let metrics = app.metrics().await;
    assert!(metrics.contains("warren_errors_total{code=\"SESSION_NOT_FOUND\"} 1"), "{metrics}");
}

#[tokio::test]
async fn ping_gets_pong() {
    let app = TestApp::spawn().await;
    let (session, _) = app.start(CELL).await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    ws.send(json!({"type": "ping"})).await;
    let ServerMessage::Pong(p) = ws.next().await else { panic!("pong") };
    assert!(p.timestamp > 0);
}

#[tokio::test]
async fn a_second_message_waits_for_the_first_reply() {
    // A small streaming delay so the first reply is still streaming when the second arrives.
    let app = TestApp::spawn_with(|c| c.llm.offline_delay_ms = 5).await;
    let (session, points) = app.start(CELL).await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;

    ws.send(json!({"type": "user_message", "content": "no idea"})).await;
    ws.send(json!({"type": "user_message", "content": points[0].content})).await;
    let mut frames = ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    assert!(recalled_ids(&frames).is_empty(), "the second message was judged before the first reply ended");
    frames = ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    assert_eq!(recalled_ids(&frames), vec![points[0].id.clone()]);
    // The transcript alternates: learner, tutor, learner, tutor.
    let entries = app.store().entries(app.owner(), &session).await.unwrap();
    let speakers: Vec<Speaker> = entries.iter().filter_map(|e| e.speaker).collect();
    use Speaker::{Learner, Tutor};
    assert_eq!(speakers, vec![Tutor, Learner, Tutor, Learner, Tutor]);
}

#[tokio::test]
async fn a_resent_message_is_stored_once() {
    let app = TestApp::spawn().await;
    let (session, _) = app.start(CELL).await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    let message = json!({"type": "user_message", "content": "no idea", "clientMessageId": "c-1"});
    ws.send(message.clone()).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    ws.send(message).await;
    assert!(ws.quiet().await, "a duplicate gets no second answer");
    let entries = app.store().entries(app.owner(), &session).await.unwrap();
    assert_eq!(entries.iter().filter(|e| e.speaker == Some(Speaker::Learner)).count(), 1);

    // On reconnect, the server says which message it last stored.
    drop(ws);
    let mut ws = app.connect(&session).await;
    let s = ws.next().await;
    assert_eq!(started(&s).last_client_message_id.as_deref(), Some("c-1"));
    assert_eq!(started(&s).opening_message, entries.last().unwrap().content);
}

#[tokio::test]
async fn rabbit_holes_are_offered_explored_and_left_with_the_tutor_untouched() {
    let app = TestApp::spawn().await;
    let (session, points) = app.start(CELL).await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;

    // Never during the first two exchanges.
    let tangent = "Where did mitochondria originally come from, endosymbiosis?";
    let frames = ws.say("How did the printing press change Europe?").await;
    assert!(!kinds(&frames).contains(&"rabbithole_detected"), "{:?}", kinds(&frames));
    // Small talk keeps the tutor on its first question (a try would bring in the notes on
    // mitochondria, and the tangent below would be the tutor's own subject).
    ws.say("ok").await;

    // Third message: offered.
    let frames = ws.say(tangent).await;
    let detected = frames
        .iter()
        .find_map(|m| match m {
            ServerMessage::RabbitholeDetected(d) => Some(d.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no detection in {:?}", kinds(&frames)));
    assert!(!detected.label.is_empty() && detected.label.split_whitespace().count() <= 4);
    assert_eq!(detected.trigger_message_content, tangent, "the message it was found in");
    let tutor_context_before = app.store().entries(app.owner(), &session).await.unwrap();

    // Explore: the explorer opens from the set's own notes.
    ws.send(json!({"type": "enter_rabbithole", "rabbitholeEventId": detected.rabbithole_event_id, "topic": detected.topic}))
        .await;
    let frames = ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    assert_eq!(kinds(&frames)[0], "rabbithole_entered");
    let ServerMessage::AssistantComplete(opening) = frames.last().unwrap() else { unreachable!() };
    assert!(opening.full_content.contains("endosymbiosis"), "{}", opening.full_content);

    // Entering twice is refused; the evaluator still checks silently inside.
    ws.send(
        json!({"type": "enter_rabbithole", "rabbitholeEventId": detected.rabbithole_event_id, "topic": "x"}),
    )
    .await;
    let ServerMessage::Error(e) = ws.next().await else { panic!("second enter refused") };
    assert_eq!(e.code, ErrorCode::InvalidState);
    let frames = ws.say(&points[1].content).await;
    assert_eq!(recalled_ids(&frames), vec![points[1].id.clone()]);
    // A near miss inside the hole is neither shown nor counted: the evaluator does not steer
    // there (a recall, as above, still is announced).
    let near_before = app.store().struggles(app.owner(), &session).await.unwrap();
    let frames = ws.say("the membrane is made of lipids, but I forget what it does").await;
    assert!(!kinds(&frames).contains(&"recall_point_near_miss"), "{:?}", kinds(&frames));
    let near_after = app.store().struggles(app.owner(), &session).await.unwrap();
    let near = |s: &warren::engine::struggle::Struggles| s.values().map(|s| s.near_misses).sum::<u32>();
    assert_eq!(near(&near_after), near(&near_before), "no near miss counted inside the hole");

    // Return: one point recalled during, no completion pending.
    ws.send(json!({"type": "exit_rabbithole"})).await;
    let frames = ws.until(|m| matches!(m, ServerMessage::RabbitholeExited(_))).await;
    let ServerMessage::RabbitholeExited(exited) = frames.last().unwrap() else { unreachable!() };
    assert_eq!((exited.points_recalled_during, exited.completion_pending), (1, false));
    assert_eq!(exited.label, detected.label);
    // With the tutor's words the main line stands at: the reply to the tangent's message.
    let tutor_reply = tutor_context_before
        .iter()
        .rev()
        .find(|e| e.speaker == Some(warren::store::Speaker::Tutor))
        .map(|e| e.content.clone())
        .unwrap_or_default();
    assert!(!tutor_reply.is_empty());
    assert_eq!(exited.tutor_text, tutor_reply);
    assert!(exited.tutor_html.starts_with("<p>"), "{}", exited.tutor_html);
    // A point was recalled inside, so the tutor speaks again on the points still open: no
    // question stands that was answered in the hole.
    let frames = ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    let ServerMessage::AssistantComplete(back) = frames.last().unwrap() else { unreachable!() };
    assert!(back.full_content.starts_with("Back to"), "{}", back.full_content);
    assert!(!back.full_content.contains(&points[1].content), "{}", back.full_content);

    // Stored: the explorer's conversation, and a branch summary on the main line.
    let hole = app.store().rabbithole(app.owner(), &detected.rabbithole_event_id).await.unwrap().unwrap();
    let conversation = hole.conversation.expect("conversation stored on exit");
    assert_eq!(conversation.as_array().unwrap().len(), 6, "{conversation}");
    let entries = app.store().entries(app.owner(), &session).await.unwrap();
    let summary = entries.iter().find(|e| e.kind == EntryKind::BranchSummary).expect("branch summary");
    let branch_from = tutor_context_before.last().unwrap();
    assert_eq!(
        summary.parent_id.as_deref(),
        Some(branch_from.id.as_str()),
        "the main line resumes where it left"
    );

    // Back with the tutor: on reconnect the current text is the tutor's, not the explorer's.
    drop(ws);
    let mut ws = app.connect(&session).await;
    let s = ws.next().await;
    assert_eq!(started(&s).opening_message, back.full_content);
    assert_ne!(started(&s).opening_message, branch_from.content);
    assert_eq!(started(&s).rabbithole_labels, vec![detected.label.clone()]);
}

#[tokio::test]
async fn declining_starts_a_cooldown() {
    use crate::common::fake_llm::{FakeLlm, Reply, Wire, system_of, tangent_found};
    // A detector that finds a tangent in every message it is shown: only the cooldown (and
    // the quiet first exchanges) keep it from being asked.
    let fake = FakeLlm::start_with(
        Wire::Anthropic,
        vec![],
        Some(std::sync::Arc::new(|body: &serde_json::Value| {
            let system = system_of(body);
            if system.contains("You check which recall points") {
                Reply::Said(r#"{"recalled":[],"nearMisses":[],"observation":""}"#.into())
            } else if system.contains("for tangents") {
                tangent_found("why volcanoes erupt in Iceland")
            } else {
                Reply::Said("What else comes to mind?".into())
            }
        })),
    )
    .await;
    let app = TestApp::on_fake(Wire::Anthropic, &fake).await;
    let asked = || fake.received().iter().filter(|r| system_of(&r.body).contains("for tangents")).count();
    let (session, _) = app.start(CELL).await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    ws.say("no idea").await;
    ws.say("still no idea").await;
    assert_eq!(asked(), 0, "not during the first two exchanges");
    let frames = ws.say("How did the printing press change Europe?").await;
    assert!(kinds(&frames).contains(&"rabbithole_detected"));
    assert_eq!(asked(), 1);
    ws.send(json!({"type": "decline_rabbithole"})).await;
    // The next three messages are not shown to the detector at all; the fourth is.
    for _ in 0..3 {
        let frames = ws.say("Why do volcanoes erupt in Iceland?").await;
        assert!(!kinds(&frames).contains(&"rabbithole_detected"), "{:?}", kinds(&frames));
    }
    assert_eq!(asked(), 1, "the cooldown asks nothing");
    let frames = ws.say("Why do volcanoes erupt in Iceland?").await;
    assert!(kinds(&frames).contains(&"rabbithole_detected"), "{:?}", kinds(&frames));
    assert_eq!(asked(), 2);
    // Carrying on without answering declines it too, and starts the cooldown again.
    let frames = ws.say("Why do volcanoes erupt in Iceland?").await;
    assert!(!kinds(&frames).contains(&"rabbithole_detected"));
    assert_eq!(asked(), 2);
    let holes = app.store().rabbitholes(app.owner(), &session).await.unwrap();
    assert_eq!(holes.len(), 2);
    assert!(holes.iter().all(|h| h.status == warren::store::RabbitholeStatus::Declined), "{holes:?}");
}

/// A message that recalls a point and asks nothing is an answer, however it opens: "How bright
/// the light is, how much CO2 is around…" answered the question, and no rabbit hole is offered
/// on it even when the detector finds one. A message that recalls and asks still can be.
#[tokio::test]
async fn an_answer_that_recalls_a_point_is_never_offered_as_a_rabbit_hole() {
    use crate::common::fake_llm::{
        FakeLlm, Reply, Wire, first_point_id, last_message, system_of, tangent_found,
    };
    let fake = FakeLlm::start_with(
        Wire::Anthropic,
        vec![],
        Some(std::sync::Arc::new(|body: &serde_json::Value| {
            let system = system_of(body);
            if system.contains("You check which recall points") {
                match first_point_id(&system).filter(|_| last_message(body).contains("RECALL")) {
                    Some(id) => Reply::Said(
                        json!({"recalled": [{"pointId": id, "confidence": 0.9}], "nearMisses": []})
                            .to_string(),
                    ),
                    None => Reply::Said(r#"{"recalled":[],"nearMisses":[]}"#.into()),
                }
            } else if system.contains("for tangents") {
                tangent_found("how much light plants need")
            } else {
                Reply::Said("What else comes to mind?".into())
            }
        })),
    )
    .await;
    let app = TestApp::on_fake(Wire::Anthropic, &fake).await;
    let (session, _) = app.start(CELL).await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    ws.say("no idea").await;
    ws.say("still no idea").await;
    let frames = ws.say("RECALL: how bright the light is, how much of it there is, and how warm it is").await;
    assert_eq!(recalled_ids(&frames).len(), 1, "{:?}", kinds(&frames));
    assert!(!kinds(&frames).contains(&"rabbithole_detected"), "{:?}", kinds(&frames));
    let frames = ws.say("RECALL: that one too. But how much light do plants need?").await;
    assert_eq!(recalled_ids(&frames).len(), 1, "{:?}", kinds(&frames));
    assert!(kinds(&frames).contains(&"rabbithole_detected"), "{:?}", kinds(&frames));
}

#[tokio::test]
async fn a_message_left_unanswered_by_a_restart_is_answered_on_reconnect() {
    let app = TestApp::spawn().await;
    let (session, points) = app.start(CELL).await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    drop(ws);
    // What a crash between storing a learner message and answering it leaves behind.
    let leaf = app.store().session(app.owner(), &session).await.unwrap().unwrap().leaf_id;
    let new = NewEntry::message(Speaker::Learner, points[0].content.clone());
    app.store().append_entry(app.owner(), &session, leaf.as_deref(), new, true).await.unwrap();
    // A fresh actor (as after a restart) loads it from the database and answers it.
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let app2_engine = warren::engine::Engine::new(
        app.store().clone(),
        std::sync::Arc::new(warren::llm::offline::Offline::new(std::time::Duration::ZERO, None)),
        warren::engine::EngineConfig::default(),
    );
    let mut a = app2_engine.attach(app.owner(), &session, None).await.unwrap();
    let mut frames = vec![];
    while let Some(m) = attached_frame(&mut a, std::time::Duration::from_secs(5)).await {
        let end = matches!(m, ServerMessage::AssistantComplete(_));
        frames.push(m);
        if end {
            break;
        }
    }
    assert!(matches!(frames[0], ServerMessage::SessionStarted(_)));
    assert_eq!(recalled_ids(&frames), vec![points[0].id.clone()]);
    assert!(matches!(frames.last(), Some(ServerMessage::AssistantComplete(_))));
}

#[tokio::test]
async fn starting_over_ends_the_open_session_for_good() {
    let app = TestApp::spawn().await;
    let (old, points) = app.start(CELL).await;
    let mut ws = app.connect(&old).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    ws.say(&points[0].content).await;

    // Start over on the same set while the old one is open in a tab.
    let (new, _) = app.start(CELL).await;
    let ServerMessage::Error(e) = ws.next().await else { panic!("the old tab is told") };
    assert_eq!(e.code, ErrorCode::SessionEnded);
    assert!(!e.recoverable);
    drop(ws);

    // Reopening the old one does not bring it back to life.
    let mut ws = app.connect(&old).await;
    let s = ws.next().await;
    assert_eq!(started(&s).status, SessionStatus::Abandoned);
    let frames = ws.say("still there?").await;
    let ServerMessage::Error(e) = frames.last().unwrap() else { panic!("{frames:?}") };
    assert_eq!(e.code, ErrorCode::SessionEnded);
    let row = app.store().session(app.owner(), &old).await.unwrap().unwrap();
    assert_eq!(row.state.status, SessionStatus::Abandoned);
    let sessions = app.store().sessions(app.owner()).await.unwrap();
    let open: Vec<_> = sessions.iter().filter(|s| s.state.status == SessionStatus::InProgress).collect();
    assert_eq!(open.len(), 1);
    assert_eq!(open[0].id, new);
}

#[tokio::test]
async fn a_frame_far_over_the_limit_gets_its_code_and_a_1009_close() {
    let app = TestApp::spawn().await;
    let (session, _) = app.start(CELL).await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    let huge = format!(r#"{{"type":"user_message","content":"{}"}}"#, "a".repeat(300_000));
    ws.send_raw(huge).await;
    let ServerMessage::Error(e) = ws.next().await else { panic!("an error frame first") };
    assert_eq!(e.code, ErrorCode::FrameTooLarge);
    assert!(!e.recoverable);
    let close = loop {
        match ws.stream.next().await {
            Some(Ok(Message::Close(frame))) => break frame.expect("a close frame with a code"),
            Some(Ok(_)) => continue,
            other => panic!("expected a close frame, got {other:?}"),
        }
    };
    assert_eq!(u16::from(close.code), 1009);
    assert!(close.reason.contains("limited to"), "{}", close.reason);
    let entries = app.store().entries(app.owner(), &session).await.unwrap();
    assert!(entries.iter().all(|e| e.content.len() < 1000), "nothing of it was stored");
}

#[tokio::test]
async fn every_refusal_names_the_message_it_refuses() {
    let app = TestApp::spawn().await;
    let (session, _) = app.start(CELL).await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;

    // Refused while reading the frame: too long, with its id.
    let long = json!({"type": "user_message", "content": "é".repeat(8_001), "clientMessageId": "long-1"});
    ws.send(long).await;
    let ServerMessage::Error(e) = ws.next().await else { panic!("an error") };
    assert_eq!((e.code, e.client_message_id.as_deref()), (ErrorCode::MessageTooLong, Some("long-1")));

    // A burst: more than the queue and the rate allow. Every message is either stored or
    // refused by name, exactly once.
    let sent: Vec<String> = (0..40).map(|i| format!("burst-{i}")).collect();
    for id in &sent {
        ws.send(json!({"type": "user_message", "content": format!("message {id}"), "clientMessageId": id}))
            .await;
    }
    let mut refused = Vec::new();
    let mut quiet = 0;
    while quiet < 3 {
        match tokio::time::timeout(std::time::Duration::from_millis(700), ws.stream.next()).await {
            Ok(Some(Ok(Message::Text(text)))) => {
                quiet = 0;
                if let Ok(ServerMessage::Error(e)) = serde_json::from_str::<ServerMessage>(&text) {
                    assert!(
                        matches!(e.code, ErrorCode::Busy | ErrorCode::RateLimited),
                        "{:?}: {}",
                        e.code,
                        e.message
                    );
                    refused.push(e.client_message_id.expect("a refusal names its message"));
                }
            }
            Ok(_) => {}
            Err(_) => quiet += 1,
        }
    }
    assert!(!refused.is_empty(), "the burst was too much for the limits");
    let stored: Vec<String> = app
        .store()
        .entries(app.owner(), &session)
        .await
        .unwrap()
        .into_iter()
        .filter_map(|e| e.client_message_id)
        .collect();
    let mut accounted: Vec<String> = stored.iter().chain(&refused).cloned().collect();
    accounted.sort();
    let mut expected = sent.clone();
    expected.sort();
    assert_eq!(accounted, expected, "each message stored or refused by name, exactly once");
}

#[tokio::test]
async fn a_newer_socket_takes_the_session_over_and_the_older_is_told_and_closed() {
    let app = TestApp::spawn().await;
    let (session, points) = app.start(CELL).await;
    let mut first = app.connect(&session).await;
    first.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;

    let mut second = app.connect(&session).await;
    let ServerMessage::SessionStarted(_) = second.next().await else { panic!("the newer socket is greeted") };
    let ServerMessage::Error(e) = first.next().await else { panic!("the older socket is told") };
    assert_eq!(e.code, ErrorCode::SessionTakenOver);
    assert!(!e.recoverable);
    let close = loop {
        match first.stream.next().await {
            Some(Ok(Message::Close(frame))) => break frame.expect("a close frame with a code"),
            Some(Ok(_)) => continue,
            other => panic!("expected a close frame, got {other:?}"),
        }
    };
    assert_eq!(u16::from(close.code), 4409);

    // Only the newer socket streams from now on.
    let frames = second.say(&points[0].content).await;
    assert_eq!(recalled_ids(&frames), vec![points[0].id.clone()]);
    assert!(first.stream.next().await.is_none_or(|f| f.is_err()), "the older socket is closed");
}

#[tokio::test]
async fn a_reconnecting_page_gets_exactly_the_frames_it_missed_then_resumed() {
    let app = TestApp::spawn().await;
    let (session, points) = app.start(CELL).await;
    let mut ws = app.connect(&session).await;
    let mut seen = vec![];
    loop {
        let frame = ws.next_frame().await;
        let done = matches!(frame.message, ServerMessage::AssistantComplete(_));
        seen.push(frame);
        if done {
            break;
        }
    }
    let seqs: Vec<u64> =
        seen.iter().map(|f| f.seq.expect("every frame of the session is numbered")).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "numbers increase: {seqs:?}");
    // And stamped with when it was sent, in the envelope (T13's event timestamp).
    let now = warren::store::now_ms();
    let stamps: Vec<i64> = seen.iter().map(|f| f.timestamp.expect("every frame is stamped")).collect();
    assert!(stamps.iter().all(|t| (now - 60_000..=now).contains(t)), "{stamps:?}");
    assert!(stamps.windows(2).all(|w| w[0] <= w[1]), "in order: {stamps:?}");
    let since = *seqs.last().unwrap();

    // The page sends a near miss and a recall and loses its connection before any answer.
    let near =
        json!({"type": "user_message", "content": "the mitochondria make energy", "clientMessageId": "m1"});
    ws.send(near).await;
    ws.send(json!({"type": "user_message", "content": points[1].content, "clientMessageId": "m2"})).await;
    drop(ws);
    // Both turns run while nobody listens.
    for _ in 0..100 {
        let entries = app.store().entries(app.owner(), &session).await.unwrap();
        if entries.iter().filter(|e| e.speaker == Some(Speaker::Tutor)).count() >= 3 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }

    let mut ws = app.reconnect(&session, since).await;
    let mut missed = vec![];
    let resumed = loop {
        let frame = ws.next_frame().await;
        if let ServerMessage::Resumed(resumed) = frame.message {
            break resumed;
        }
        missed.push(frame);
    };
    let seqs: Vec<u64> = missed.iter().map(|f| f.seq.expect("numbered")).collect();
    assert!(seqs.first().is_some_and(|first| *first > since), "nothing seen is sent again: {seqs:?}");
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "once and in order: {seqs:?}");
    let messages: Vec<ServerMessage> = missed.into_iter().map(|f| f.message).collect();
    assert_eq!(resumed.replayed as usize, messages.len());
    assert_eq!(resumed.last_client_message_id.as_deref(), Some("m2"));
    let kinds = kinds(&messages);
    assert!(!kinds.contains(&"session_started"), "{kinds:?}");
    assert_eq!(kinds.iter().filter(|k| **k == "recall_point_near_miss").count(), 1, "{kinds:?}");
    assert_eq!(kinds.iter().filter(|k| **k == "assistant_complete").count(), 2, "{kinds:?}");
    assert_eq!(recalled_ids(&messages), vec![points[1].id.clone()]);
    // The stream goes on live after `resumed`.
    let frames = ws.say(&points[2].content).await;
    assert_eq!(recalled_ids(&frames), vec![points[2].id.clone()]);
    drop(ws);

    // A number from another stream, or one too old, gets the whole state instead.
    for stale in [1, u64::MAX] {
        let mut ws = app.reconnect(&session, stale).await;
        let first = ws.next_frame().await;
        assert_eq!(started(&first.message).recalled_count, 2, "stale since={stale}");
        assert!(first.seq.is_some());
    }
}

#[tokio::test]
async fn every_point_recalled_inside_a_rabbit_hole_leaves_the_completion_pending_until_the_return() {
    let app = TestApp::spawn().await;
    let (session, points) = app.start(CELL).await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    ws.enter_the_mitochondria_hole().await;
    // Every point, inside the hole: each is checked off, and no overlay interrupts the hole.
    let mut recalled = Vec::new();
    for point in &points {
        let frames = ws.say(&point.content).await;
        assert!(!kinds(&frames).contains(&"session_complete_overlay"), "{:?}", kinds(&frames));
        recalled.extend(recalled_ids(&frames));
    }
    assert_eq!(recalled.len(), points.len(), "{recalled:?}");
    ws.send(json!({"type": "exit_rabbithole"})).await;
    let frames = ws.until(|m| matches!(m, ServerMessage::SessionCompleteOverlay(_))).await;
    let exited = frames
        .iter()
        .find_map(|m| match m {
            ServerMessage::RabbitholeExited(e) => Some(e.clone()),
            _ => None,
        })
        .expect("the return");
    assert!(exited.completion_pending, "{exited:?}");
    assert_eq!(exited.points_recalled_during as usize, points.len());
}

//! The offline tutor's hint ladder over the real socket: struggle counted per point, rungs that
//! move, a revealed point asked again later, FSRS ratings from each point's own history, and
//! never the same reply twice in a row.

use std::sync::Arc;
use std::time::Duration;

use warren::engine::{Engine, EngineConfig};
use warren::llm::offline::Offline;
use warren_app::protocol::{ClientMessage, ServerMessage};

use crate::common::{TestApp, Ws, attached_frame, recalled_ids, reply_of};

const CELL: &str = "The living cell";

async fn opened(app: &TestApp) -> (String, Vec<warren::store::Point>, Ws, String) {
    let (session, points) = app.start(CELL).await;
    let mut ws = app.connect(&session).await;
    let opening = reply_of(&ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await);
    (session, points, ws, opening)
}

async fn rating_of(app: &TestApp, session: &str, point_id: &str) -> String {
    let outcomes = app.store().outcomes(app.owner(), session).await.unwrap();
    outcomes.into_iter().find(|o| o.point_id == point_id).expect("recorded").rating.to_string()
}

fn rank(rating: &str) -> u8 {
    match rating {
        "again" => 1,
        "hard" => 2,
        "good" => 3,
        "easy" => 4,
        other => panic!("unknown rating {other}"),
    }
}

#[tokio::test]
async fn four_times_i_dont_know_climbs_four_different_rungs_to_the_answer() {
    let app = TestApp::spawn().await;
    let (session, points, mut ws, opening) = opened(&app).await;
    assert!(opening.contains(&points[0].context), "the opening asks the cue: {opening}");
    let mut replies = vec![opening];
    for _ in 0..4 {
        replies.push(reply_of(&ws.say("I don't know").await));
    }
    let distinct: std::collections::HashSet<&String> = replies.iter().collect();
    assert_eq!(distinct.len(), 5, "every reply differs: {replies:#?}");
    assert!(replies[1].contains("notes"), "another angle, from the linked notes: {}", replies[1]);
    assert!(replies[2].contains("starts with"), "a nudge: {}", replies[2]);
    assert!(replies[3].contains('_'), "the point with gaps: {}", replies[3]);
    assert!(replies[4].contains(points[0].content.trim_end_matches('.')), "the answer: {}", replies[4]);
    assert!(replies[4].contains("own words"), "{}", replies[4]);

    let struggles = app.store().struggles(app.owner(), &session).await.unwrap();
    let s = &struggles[&points[0].id];
    assert_eq!((s.attempts, s.hints, s.revealed), (4, 3, true));
}

#[tokio::test]
async fn a_question_is_answered_and_asked_again_on_the_same_rung_not_counted_as_a_miss() {
    let app = TestApp::spawn().await;
    let (session, points, mut ws, opening) = opened(&app).await;
    let angle = reply_of(&ws.say("I don't know").await);
    assert!(angle.contains("notes"), "another angle: {angle}");

    // A question in the second exchange: no hint, no resource, no try counted.
    let frames = ws.say("Why do cells need so much energy anyway? I've always wondered.").await;
    assert!(recalled_ids(&frames).is_empty());
    assert!(
        !frames.iter().any(|m| matches!(m, ServerMessage::ShowResource(_) | ServerMessage::ShowImage(_))),
        "{frames:?}"
    );
    let answered = reply_of(&frames);
    assert!(
        ["A fair question.", "Worth asking.", "Good question."].iter().any(|a| answered.starts_with(a)),
        "{answered}"
    );
    assert!(!answered.contains("starts with"), "not the next rung (a nudge): {answered}");
    assert!(answered.contains("notes"), "the same rung (another angle), worded anew: {answered}");
    assert_ne!(answered, angle);
    assert_ne!(answered, opening);
    let struggles = app.store().struggles(app.owner(), &session).await.unwrap();
    let s = &struggles[&points[0].id];
    assert_eq!((s.attempts, s.hints), (1, 1), "only the \"I don't know\" counted");

    // Small talk is no try either; the next "I don't know" climbs on from where it stood.
    ws.say("ok").await;
    let nudge = reply_of(&ws.say("no idea").await);
    assert!(
        nudge.contains("starts with") || nudge.contains("begins") || nudge.contains("beginning"),
        "{nudge}"
    );
    let struggles = app.store().struggles(app.owner(), &session).await.unwrap();
    assert_eq!(struggles[&points[0].id].attempts, 2);
}

#[tokio::test]
async fn recalling_another_point_does_not_send_the_first_back_to_the_first_rung() {
    let app = TestApp::spawn().await;
    let (_session, points, mut ws, _) = opened(&app).await;
    ws.say("I don't know").await;
    let nudge = reply_of(&ws.say("no idea").await);
    assert!(
        nudge.contains("starts with") || nudge.contains("begins") || nudge.contains("beginning"),
        "{nudge}"
    );
    // The learner recalls a different point: it is checked off, and the first one stays put.
    let frames = ws.say(&points[1].content).await;
    assert_eq!(recalled_ids(&frames), vec![points[1].id.clone()]);
    let still = reply_of(&frames);
    let is_nudge = |r: &str| r.contains("starts with") || r.contains("begins") || r.contains("beginning");
    assert!(is_nudge(&still), "still a nudge, not back to the first rung: {still}");
    assert!(still.contains("earlier question"), "it says which point it is back to: {still}");
    assert_ne!(still, nudge, "the same rung, worded anew");
    let gaps = reply_of(&ws.say("I don't remember").await);
    assert!(gaps.contains('_'), "the next rung: {gaps}");
}

#[tokio::test]
async fn a_revealed_point_is_asked_again_later_and_can_still_be_checked_off() {
    let app = TestApp::spawn().await;
    let (session, points, mut ws, _) = opened(&app).await;
    for _ in 0..4 {
        ws.say("I don't know").await;
    }
    // Saying the given answer straight back is not recall: set aside, and on to the next.
    let frames = ws.say(&points[0].content).await;
    assert!(recalled_ids(&frames).is_empty(), "parroting earns no credit");
    let next = reply_of(&frames);
    assert!(next.contains("come back") || next.contains("later"), "{next}");
    assert!(next.contains(&points[1].context), "the next open point: {next}");
    let mut last = String::new();
    for point in &points[1..] {
        let frames = ws.say(&point.content).await;
        assert_eq!(recalled_ids(&frames), vec![point.id.clone()]);
        last = reply_of(&frames);
    }
    assert!(last.contains(&points[0].context), "the revealed point comes back: {last}");
    assert!(last.contains("fresh") || last.contains("before") || last.contains("earlier"), "{last}");
    let frames = ws.say(&points[0].content).await;
    assert_eq!(recalled_ids(&frames), vec![points[0].id.clone()]);
    assert!(frames.iter().any(|m| matches!(m, ServerMessage::SessionCompleteOverlay(_))));
    assert_eq!(rating_of(&app, &session, &points[0].id).await, "again");
}

#[tokio::test]
async fn each_recall_is_rated_by_its_own_points_history() {
    let app = TestApp::spawn().await;
    let (session, points, mut ws, _) = opened(&app).await;
    ws.say("I don't know").await;
    ws.say("I don't know").await;
    assert_eq!(recalled_ids(&ws.say(&points[0].content).await), vec![points[0].id.clone()]);
    // The next point comes easily, straight after the struggle with the first.
    assert_eq!(recalled_ids(&ws.say(&points[1].content).await), vec![points[1].id.clone()]);
    let hinted = rating_of(&app, &session, &points[0].id).await;
    let unprompted = rating_of(&app, &session, &points[1].id).await;
    assert_eq!(hinted, "hard");
    assert!(rank(&hinted) < rank(&unprompted), "{hinted} vs {unprompted}");
}

/// Thirty learner messages to the offline tutor, driven through the engine itself (the
/// socket's message rate would otherwise pace them at one a second).
#[tokio::test]
async fn no_reply_in_thirty_messages_repeats_the_one_before() {
    let app = TestApp::spawn().await;
    let engine = Engine::new(
        app.store().clone(),
        Arc::new(Offline::new(Duration::ZERO, None)),
        EngineConfig { message_burst: 100, ..EngineConfig::default() },
    );
    let sets = app.store().list_sets(app.owner(), i64::MAX).await.unwrap();
    let set = sets.iter().find(|s| s.name == CELL).unwrap();
    let session = engine.start_session(app.owner(), &set.id, true).await.unwrap().id;
    let points = app.store().points(app.owner(), &set.id).await.unwrap();
    let mut live = engine.attach(app.owner(), &session, None).await.unwrap();
    let mut previous = String::new();
    let script = [
        "I don't know",
        "something about energy?",
        "no idea",
        "hmm",
        "is it the ribosome",
        "I'm stuck",
        "what about the Golgi apparatus?",
        "not sure",
    ];
    let mut replies = 0;
    for i in 0..=30 {
        if i > 0 {
            // Every seventh message recalls the next point; the rest are misses and questions.
            let message =
                if i % 7 == 0 { points[i / 7 - 1].content.clone() } else { script[i % script.len()].into() };
            let sent = ClientMessage::UserMessage { content: message, client_message_id: None, via: None };
            live.send(sent).await.unwrap();
        }
        let reply = loop {
            match attached_frame(&mut live, Duration::from_secs(5)).await.expect("a frame") {
                ServerMessage::AssistantComplete(done) => break done.full_content,
                ServerMessage::Error(e) => panic!("message {i}: {}", e.message),
                _ => continue,
            }
        };
        assert_ne!(reply, previous, "message {i} got the same reply as the one before");
        previous = reply;
        replies += 1;
    }
    assert_eq!(replies, 31, "the opening and thirty replies");
}

#[tokio::test]
async fn after_a_restart_between_two_rungs_the_next_reply_is_the_next_rung() {
    let app = TestApp::spawn().await;
    let (session, _points, mut ws, _) = opened(&app).await;
    let angle = reply_of(&ws.say("I don't know").await);
    drop(ws);
    let restarted = app.another_instance().await;
    let mut ws = restarted.connect(&session).await;
    let ServerMessage::SessionStarted(started) = ws.next().await else { panic!("session_started first") };
    assert_eq!(started.opening_message, angle, "the screen shows where it stood");
    let nudge = reply_of(&ws.say("still nothing").await);
    assert!(nudge.contains("starts with"), "the next rung, not the first: {nudge}");
}

#[tokio::test]
async fn the_offline_tutor_shows_the_linked_resource_as_its_second_hint_once() {
    let app = TestApp::spawn().await;
    let set = warren::store::NewSet {
        name: "Diagrams".into(),
        points: vec![warren::store::NewPoint {
            content: "The aorta carries oxygenated blood from the left ventricle.".into(),
            context: "Which vessel leaves the left side of the heart?".into(),
            card: None,
            log: None,
        }],
        resources: vec![warren::store::NewResource {
            kind: warren_app::api::ResourceKind::Image,
            title: "The heart, from the front".into(),
            mime_type: Some("image/png".into()),
            image: Some(crate::authoring::PNG.to_vec()),
            points: vec![(0, 1.0)],
            ..Default::default()
        }],
        ..Default::default()
    };
    app.store().create_set(app.owner(), &set).await.unwrap();
    let (session, _) = app.start("Diagrams").await;
    let mut ws = app.connect(&session).await;
    let opening = ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    assert!(
        !opening.iter().any(|m| matches!(m, ServerMessage::ShowImage(_))),
        "not before a try: {opening:?}"
    );

    let frames = ws.say("I don't know").await;
    let images: Vec<_> = frames
        .iter()
        .filter_map(|m| match m {
            ServerMessage::ShowImage(i) => Some(i.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(images.len(), 1, "{frames:?}");
    assert!(images[0].url.starts_with("/media/"), "{:?}", images[0]);
    assert_eq!(images[0].caption.as_deref(), Some("The heart, from the front"));
    assert!(
        reply_of(&frames).contains("Have a look at \"The heart, from the front\"."),
        "{}",
        reply_of(&frames)
    );

    let frames = ws.say("no idea").await;
    assert!(!frames.iter().any(|m| matches!(m, ServerMessage::ShowImage(_))), "once: {frames:?}");
    let frames = ws.say("The aorta carries oxygenated blood from the left ventricle").await;
    assert_eq!(recalled_ids(&frames).len(), 1);
    assert!(
        !frames.iter().any(|m| matches!(m, ServerMessage::ShowImage(_))),
        "once, recall or not: {frames:?}"
    );

    drop(ws);
    let mut again = app.connect(&session).await;
    let ServerMessage::SessionStarted(started) = again.next().await else { panic!("session_started first") };
    assert_eq!(started.images, images, "kept on reload");
}

#[tokio::test]
async fn struggles_are_saved_in_one_statement_even_when_a_point_is_named_twice() {
    let app = TestApp::spawn().await;
    let (session, points) = app.start("The living cell").await;
    let store = app.store();
    let first = warren::store::Struggle { attempts: 2, hints: 1, ..Default::default() };
    let second =
        warren::store::Struggle { near_misses: 1, counted_entry_id: Some("e1".into()), ..Default::default() };
    let changed =
        [(points[0].id.as_str(), &first), (points[0].id.as_str(), &first), (points[1].id.as_str(), &second)];
    store.save_struggles(app.owner(), &session, &changed).await.unwrap();
    let saved = store.struggles(app.owner(), &session).await.unwrap();
    assert_eq!(saved.len(), 2);
    assert_eq!(saved[&points[0].id], first);
    assert_eq!(saved[&points[1].id], second);
    // Saved again: each row is updated in place.
    let more = warren::store::Struggle { attempts: 3, ..first.clone() };
    store.save_struggles(app.owner(), &session, &[(points[0].id.as_str(), &more)]).await.unwrap();
    assert_eq!(store.struggles(app.owner(), &session).await.unwrap()[&points[0].id], more);
}

#[tokio::test]
async fn another_angle_comes_from_the_linked_note_nearest_the_point_in_meaning() {
    let app = TestApp::spawn().await;
    let note = |title: &str, body: &str| warren::store::NewResource {
        kind: warren_app::api::ResourceKind::Text,
        title: title.into(),
        body: body.into(),
        points: vec![(0, 1.0)],
        ..Default::default()
    };
    let set = warren::store::NewSet {
        name: "Making proteins".into(),
        points: vec![warren::store::NewPoint {
            content: "Ribosomes translate messenger RNA into proteins.".into(),
            context: "Where are proteins assembled, and from which instructions?".into(),
            card: None,
            log: None,
        }],
        // Both linked to the point; the one about microscopes comes first in the set.
        resources: vec![
            note(
                "Early microscopes",
                "Van Leeuwenhoek ground his own lenses and was the first to see bacteria. Better optics \
                 later revealed the nucleus.",
            ),
            note(
                "From gene to protein",
                "A gene is copied into messenger RNA, which leaves the nucleus. The code is read three \
                 letters at a time and amino acids are joined in that order.",
            ),
        ],
        ..Default::default()
    };
    app.store().create_set(app.owner(), &set).await.unwrap();
    let (session, _) = app.start("Making proteins").await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;

    let frames = ws.say("I don't know").await;
    let angle = reply_of(&frames);
    assert!(angle.contains("From gene to protein"), "the note nearest in meaning: {angle}");
    assert!(!angle.contains("Early microscopes"), "{angle}");
    let shown: Vec<_> = frames
        .iter()
        .filter_map(|m| match m {
            ServerMessage::ShowResource(r) => Some(r.clone()),
            _ => None,
        })
        .collect();
    assert!(
        shown.iter().all(|r| r.title == "From gene to protein"),
        "the note named is the note shown: {shown:?}"
    );
}

#[tokio::test]
async fn a_near_miss_is_asked_for_the_rest_and_a_wrong_try_hears_not_quite() {
    let app = TestApp::spawn().await;
    let (_session, _points, mut ws, _) = opened(&app).await;
    let frames = ws.say("the mitochondria").await;
    let near = frames.iter().find_map(|m| match m {
        ServerMessage::RecallPointNearMiss(n) => Some(n.feedback.clone()),
        _ => None,
    });
    let near = near.expect("a near miss on the energy point");
    let reply = reply_of(&frames);
    // What was right is the near miss's to say; the reply does not say it again.
    assert!(reply.starts_with("Close.") || reply.starts_with("Partly, yes."), "{reply}");
    assert!(!reply.contains(&near), "{near} / {reply}");
    assert!(!reply.contains("Not quite"), "{reply}");

    // A wrong try is told so.
    let wrong = reply_of(&ws.say("the vacuole, I reckon").await);
    assert!(wrong.starts_with("Not quite.") || wrong.starts_with("Not yet."), "{wrong}");
}

#[tokio::test]
async fn a_cue_with_most_of_its_points_words_is_asked_not_taken_out() {
    let app = TestApp::spawn().await;
    let cue = "What do we call the water vapour plants give off through their leaves?";
    let set = warren::store::NewSet {
        name: "The water cycle".into(),
        points: vec![warren::store::NewPoint {
            content: "Plants give off water vapour through their leaves: transpiration.".into(),
            context: cue.into(),
            card: None,
            log: None,
        }],
        ..Default::default()
    };
    app.store().create_set(app.owner(), &set).await.unwrap();
    let (session, _) = app.start("The water cycle").await;
    let mut ws = app.connect(&session).await;
    let frames = ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    let opening = reply_of(&frames);
    assert!(opening.contains(cue), "the question is asked: {opening}");
}

#[tokio::test]
async fn a_note_shown_on_a_recall_says_it_is_about_what_was_recalled() {
    let app = TestApp::spawn().await;
    let (_session, points, mut ws, _) = opened(&app).await;
    let mut after_recall = Vec::new();
    for point in &points {
        let frames = ws.say(&point.content).await;
        after_recall.extend(frames.iter().filter_map(|m| match m {
            ServerMessage::ShowResource(r) => Some((r.title.clone(), r.after_recall)),
            _ => None,
        }));
    }
    assert!(!after_recall.is_empty(), "recalling every point shows a linked note");
    assert!(after_recall.iter().all(|(_, after)| *after), "{after_recall:?}");
}

//! Today's review: one session over the due points of several sets, over the real socket, on
//! a network provider's request path (a local fake in each wire format) and on the offline
//! tutor; and the daily limits, in the learner's own day.

use std::sync::Arc;

use serde_json::json;
use warren::engine::today;
use warren::store::{DailyLimits, NewOutcome, NewPoint, NewResource, NewSet, Point};
use warren_app::clock::{DAY_MS, day_of, start_of_day};
use warren_app::protocol::{ServerMessage, SessionStatus};
use warren_app::schedule::Rating;

use crate::common::fake_llm::{FakeLlm, Reply, Wire, recalls_in, system_of};
use crate::common::{TestApp, recalled_ids, reply_of};

/// Three sets of three points, each with its own guidelines; the demo sets are removed so
/// the review holds these alone.
async fn three_sets(app: &TestApp) -> Vec<(String, String)> {
    for set in app.store().list_sets(app.owner(), i64::MAX).await.unwrap() {
        app.store().delete_set(app.owner(), &set.id).await.unwrap();
    }
    let sets = [
        (
            "Cells",
            "The living cell.",
            "GUIDE-CELLS: use British spelling.",
            ["Ribosomes make proteins", "Mitochondria make ATP", "The nucleus holds DNA"],
        ),
        (
            "Rome",
            "Ancient Rome.",
            "GUIDE-ROME: give dates as AUC.",
            ["Rome was founded in 753 BC", "Caesar crossed the Rubicon", "Augustus was the first emperor"],
        ),
        (
            "Verbs",
            "Latin verbs.",
            "GUIDE-VERBS: answer in Latin.",
            ["Amare means to love", "Videre means to see", "Audire means to hear"],
        ),
    ];
    let mut ids = Vec::new();
    for (name, description, guidelines, points) in sets {
        let set = NewSet {
            name: name.into(),
            description: description.into(),
            guidelines: guidelines.into(),
            points: points.iter().map(|p| NewPoint { content: (*p).into(), ..NewPoint::default() }).collect(),
            ..NewSet::default()
        };
        let id = app.store().create_set(app.owner(), &set).await.unwrap();
        ids.push((id, guidelines.split(':').next().unwrap_or_default().to_string()));
    }
    ids
}

/// The session's points, in the order they are asked.
async fn targets(app: &TestApp, session: &str) -> Vec<Point> {
    let row = app.store().session(app.owner(), session).await.unwrap().unwrap();
    let points = app.store().session_points(app.owner(), session).await.unwrap();
    row.target_point_ids.iter().filter_map(|id| points.iter().find(|p| &p.id == id).cloned()).collect()
}

/// Records a recall of `point` in `session` at `at`, as the evaluator's finding would.
async fn recall(app: &TestApp, session: &str, point: &Point, at: i64) {
    let outcome = NewOutcome {
        session_id: session.to_string(),
        point_id: point.id.clone(),
        rating: Rating::Good,
        confidence: 0.9,
        entry_id: None,
        in_rabbithole: false,
        at,
    };
    app.store().record_recall(app.owner(), &outcome).await.unwrap();
}

/// Judges credit a point whose whole text the message holds; the tutor asks a question.
fn answers(body: &serde_json::Value) -> Reply {
    let system = system_of(body);
    let last = body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_str().map(str::to_string).or_else(|| Some(m["content"].to_string())))
        .unwrap_or_default();
    if system.contains("You check which recall points") {
        let recalled = recalls_in(&system, &last);
        Reply::Said(json!({"recalled": recalled, "nearMisses": [], "observation": ""}).to_string())
    } else if system.contains("for tangents") {
        Reply::Text(vec![
            r#"{"isRabbithole":false,"topic":"","depth":1,"relatedToCurrentPoint":false,"relatedRecallPointIds":[],"confidence":0.1,"reasoning":"on topic"}"#,
        ])
    } else {
        Reply::Text(vec!["What comes ", "to mind?"])
    }
}

#[tokio::test]
async fn a_review_asks_each_sets_points_in_turn_with_that_sets_guidelines_only() {
    for wire in [Wire::Anthropic, Wire::OpenAi] {
        let fake = FakeLlm::start_with(wire, vec![], Some(Arc::new(answers))).await;
        let app = TestApp::on_fake(wire, &fake).await;
        let sets = three_sets(&app).await;
        let row = app.engine.start_review(app.owner(), 0).await.unwrap();
        assert_eq!(row.set_id, None, "{wire:?}: a review belongs to no one set");
        let asked = targets(&app, &row.id).await;
        assert_eq!(asked.len(), 9, "{wire:?}: every due point of the three sets");
        for pair in asked.windows(2) {
            assert_ne!(pair[0].set_id, pair[1].set_id, "{wire:?}: sets interleave: {asked:?}");
        }
        let guide_of = |point: &Point| sets.iter().find(|(id, _)| *id == point.set_id).unwrap().1.clone();

        let mut ws = app.connect(&row.id).await;
        let frames = ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
        let ServerMessage::SessionStarted(started) = &frames[0] else { panic!("{frames:?}") };
        assert_eq!(started.recall_set_name, "Today's review");
        assert_eq!(started.total_points, 9);
        for (i, point) in asked.iter().enumerate() {
            // The tutor's latest request is about this point: its set's guidelines, no other's.
            let tutor = fake
                .received()
                .into_iter()
                .map(|r| system_of(&r.body))
                .rfind(|s| s.starts_with("You are a recall facilitator"))
                .unwrap();
            let own = guide_of(point);
            assert!(tutor.contains(&own), "{wire:?} point {i}: {own} missing from {tutor}");
            for (_, other) in sets.iter().filter(|(_, g)| *g != own) {
                assert!(!tutor.contains(other.as_str()), "{wire:?} point {i}: {other} in {tutor}");
            }
            assert!(tutor.contains("Today's review, across the learner's recall sets"), "{tutor}");
            if i == 4 {
                // Leave half-way and come back: the same points, the same place.
                ws.send(json!({"type": "leave_session"})).await;
                ws.until(|m| matches!(m, ServerMessage::SessionPaused(_))).await;
                let paused = app.store().session(app.owner(), &row.id).await.unwrap().unwrap();
                assert_eq!(paused.state.status, SessionStatus::Paused);
                drop(ws);
                let ids = |points: &[Point]| points.iter().map(|p| p.id.clone()).collect::<Vec<_>>();
                assert_eq!(
                    ids(&targets(&app, &row.id).await),
                    ids(&asked),
                    "{wire:?}: resuming keeps the points"
                );
                ws = app.connect(&row.id).await;
                let frames = ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
                let ServerMessage::SessionStarted(resumed) = &frames[0] else { panic!("{frames:?}") };
                assert_eq!((resumed.total_points, resumed.recalled_count), (9, 4), "{wire:?}");
            }
            let frames = ws.say(&format!("I think {}.", point.content)).await;
            assert_eq!(recalled_ids(&frames), vec![point.id.clone()], "{wire:?} point {i}: {frames:?}");
            // The evaluator judged that message under the same set's guidelines, no other's.
            let evaluator = fake
                .received()
                .into_iter()
                .map(|r| system_of(&r.body))
                .rfind(|s| s.starts_with("You check which recall points"))
                .unwrap();
            assert!(evaluator.contains(&own), "{wire:?} point {i}: {own} missing from {evaluator}");
            for (_, other) in sets.iter().filter(|(_, g)| *g != own) {
                assert!(!evaluator.contains(other.as_str()), "{wire:?} point {i}: {other} in {evaluator}");
            }
        }
        let evaluator = fake
            .received()
            .into_iter()
            .map(|r| system_of(&r.body))
            .find(|s| s.starts_with("You check which recall points"))
            .unwrap();
        for name in ["Cells", "Rome", "Verbs"] {
            assert!(evaluator.contains(&format!("[set \"{name}\"]")), "{wire:?}: {evaluator}");
        }
    }
}

#[tokio::test]
async fn a_recall_in_one_set_does_not_check_off_a_point_of_another_with_similar_words() {
    let app = TestApp::spawn().await;
    for set in app.store().list_sets(app.owner(), i64::MAX).await.unwrap() {
        app.store().delete_set(app.owner(), &set.id).await.unwrap();
    }
    // Points of other sets that share most of its words.
    for (name, point) in [
        ("Biology", "Mitochondria make most of the energy a cell uses"),
        ("Batteries", "A battery cell makes energy from a chemical reaction"),
        ("Prisons", "A prison cell holds one inmate"),
        ("Phones", "A cell tower relays mobile phone calls"),
    ] {
        let set = NewSet {
            name: name.into(),
            points: vec![NewPoint { content: point.into(), ..NewPoint::default() }],
            ..NewSet::default()
        };
        app.store().create_set(app.owner(), &set).await.unwrap();
    }
    let row = app.engine.start_review(app.owner(), 0).await.unwrap();
    let points = targets(&app, &row.id).await;
    let mut ws = app.connect(&row.id).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    let frames = ws.say("Most of the energy a cell uses is made by its mitochondria.").await;
    let biology = points.iter().find(|p| p.content.starts_with("Mitochondria")).unwrap();
    assert_eq!(recalled_ids(&frames), vec![biology.id.clone()], "{}", reply_of(&frames));
}

#[tokio::test]
async fn the_queue_puts_the_most_forgotten_first_keeps_linked_points_together_and_leaves_out_todays_recalls()
{
    use sqlx::Connection;
    use warren::schedule::Logged;
    use warren::store::PointLog;
    use warren_app::api::ResourceKind;
    let app = TestApp::spawn().await;
    for set in app.store().list_sets(app.owner(), i64::MAX).await.unwrap() {
        app.store().delete_set(app.owner(), &set.id).await.unwrap();
    }
    let now = warren::store::now_ms();
    // Each point reviewed once, `days` ago: the longer ago, the less likely recalled now.
    let reviewed = |content: &str, days: i64| NewPoint {
        content: content.into(),
        log: Some(PointLog {
            carried: None,
            reviews: vec![Logged { rating: Rating::Good, at: now - days * DAY_MS }],
            due_at: None,
        }),
        ..NewPoint::default()
    };
    let anatomy = NewSet {
        name: "Anatomy".into(),
        points: vec![
            reviewed("The femur is the longest bone.", 40),
            reviewed("The stapes is the smallest bone.", 10),
            reviewed("The femur meets the hip at the acetabulum.", 3),
            reviewed("The tibia is the shin bone.", 25),
        ],
        // The two femur points share a note.
        resources: vec![NewResource {
            kind: ResourceKind::Text,
            title: "The femur".into(),
            body: "The femur runs from the hip to the knee.".into(),
            points: vec![(0, 1.0), (2, 1.0)],
            ..NewResource::default()
        }],
        ..NewSet::default()
    };
    let botany = NewSet {
        name: "Botany".into(),
        points: vec![
            reviewed("Xylem carries water up from the roots.", 30),
            reviewed("Phloem carries sugars from the leaves.", 20),
            reviewed("Stomata let gases in and out of a leaf.", 15),
        ],
        ..NewSet::default()
    };
    app.store().create_set(app.owner(), &anatomy).await.unwrap();
    app.store().create_set(app.owner(), &botany).await.unwrap();
    let plan = today::plan(app.store(), app.owner(), now, 0).await.unwrap();
    let points = app.store().due_points(app.owner(), now, 0).await.unwrap();
    assert_eq!(points.candidates.len(), 7, "each reviewed once, days ago: all due");
    let mut by_id = std::collections::HashMap::new();
    for set in app.store().list_sets(app.owner(), i64::MAX).await.unwrap() {
        for point in app.store().points(app.owner(), &set.id).await.unwrap() {
            by_id.insert(point.id.clone(), point.content.clone());
        }
    }
    let order: Vec<&str> = plan.queue.points.iter().map(|c| by_id[&c.id].as_str()).collect();
    assert_eq!(order.len(), 7, "{order:?}");
    assert_eq!(order[0], "The femur is the longest bone.", "the most forgotten first: {order:?}");
    assert_eq!(
        order[1], "The femur meets the hip at the acetabulum.",
        "its linked point beside it: {order:?}"
    );
    assert_eq!(order[2], "Xylem carries water up from the roots.", "then the other set: {order:?}");
    // Otherwise the sets take turns, each most forgotten first.
    let set_of = |i: usize| plan.queue.points[i].set_id.clone();
    for i in 2..order.len() - 1 {
        assert_ne!(set_of(i), set_of(i + 1), "sets take turns: {order:?}");
    }
    let r: Vec<f64> = plan.queue.points.iter().map(|c| c.retrievability.unwrap_or(1.0)).collect();
    assert!(r[0] < r[2], "{r:?}");

    // A point recalled today stays out of another review today, even while it is still due
    // (a due date carried in from elsewhere, say).
    let row = app.engine.start_review(app.owner(), 0).await.unwrap();
    let stomata =
        targets(&app, &row.id).await.into_iter().find(|p| p.content.starts_with("Stomata")).unwrap();
    recall(&app, &row.id, &stomata, now).await;
    sqlx::any::install_default_drivers();
    let mut db = sqlx::AnyConnection::connect(&app.database_url).await.unwrap();
    sqlx::query("UPDATE recall_points SET due_at = $1 WHERE id = $2")
        .bind(now - 1)
        .bind(&stomata.id)
        .execute(&mut db)
        .await
        .unwrap();
    let later = today::plan(app.store(), app.owner(), now + 1_000, 0).await.unwrap();
    assert_eq!(later.queue.points.len(), 6);
    assert!(later.queue.points.iter().all(|c| c.id != stomata.id), "recalled today");
}

#[tokio::test]
async fn an_archived_set_stays_out_and_a_note_linked_to_a_point_is_shown_while_it_is_discussed() {
    let app = TestApp::spawn().await;
    for set in app.store().list_sets(app.owner(), i64::MAX).await.unwrap() {
        app.store().delete_set(app.owner(), &set.id).await.unwrap();
    }
    let note = NewResource {
        kind: warren_app::api::ResourceKind::Text,
        title: "From gene to protein".into(),
        body:
            "A gene is copied into messenger RNA, which leaves the nucleus; ribosomes read it three letters \
               at a time."
                .into(),
        points: vec![(0, 1.0)],
        ..NewResource::default()
    };
    let sets = [
        ("Cells", "Ribosomes translate messenger RNA into proteins", vec![note]),
        ("Rome", "Augustus was the first Roman emperor", vec![]),
        ("Attic", "An archived set's point is not reviewed", vec![]),
    ];
    for (name, point, resources) in sets {
        let set = NewSet {
            name: name.into(),
            points: vec![NewPoint { content: point.into(), ..NewPoint::default() }],
            resources,
            ..NewSet::default()
        };
        let id = app.store().create_set(app.owner(), &set).await.unwrap();
        if name == "Attic" {
            assert!(app.store().set_archived(app.owner(), &id, true).await.unwrap());
        }
    }
    let row = app.engine.start_review(app.owner(), 0).await.unwrap();
    let points = targets(&app, &row.id).await;
    let asked: Vec<&str> = points.iter().map(|p| p.content.as_str()).collect();
    assert_eq!(asked.len(), 2, "the archived set stays out: {asked:?}");
    assert!(!asked.iter().any(|p| p.contains("archived")), "{asked:?}");

    let mut ws = app.connect(&row.id).await;
    let mut frames = ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    // Rome's point first, perhaps: recalled, the Cells point comes next.
    if points[0].content.starts_with("Augustus") {
        frames = ws.say("Augustus was the first Roman emperor.").await;
    }
    assert!(!frames.iter().any(|m| matches!(m, ServerMessage::ShowResource(_))), "not before it is asked");
    // Stuck on the ribosome point: the next rung brings in the note linked to it.
    let frames = ws.say("I don't know").await;
    let shown: Vec<String> = frames
        .iter()
        .filter_map(|m| match m {
            ServerMessage::ShowResource(r) => Some(r.title.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(shown, ["From gene to protein"], "{}", reply_of(&frames));
    assert!(
        frames.iter().all(|m| !matches!(m, ServerMessage::ShowResource(r) if r.after_recall)),
        "a hint is not marked as coming after a recall"
    );
}

/// Waits out a learner's midnight (at each UTC offset given, in minutes) due within the next
/// half minute, so a test that counts one day's reviews on the wall clock sees one day.
async fn clear_of_midnight(offsets: &[i32]) {
    for &offset in offsets {
        let now = warren::store::now_ms();
        let left = start_of_day(day_of(now, offset) + 1, offset) - now;
        if left < 30_000 {
            tokio::time::sleep(std::time::Duration::from_millis(u64::try_from(left + 1_000).unwrap_or(0)))
                .await;
        }
    }
}

#[tokio::test]
async fn the_daily_limits_hold_across_sessions_and_reset_at_the_learners_midnight() {
    // The counts are of one learner's day: a midnight that turns mid-test moves them.
    clear_of_midnight(&[-300, 0, 600]).await;
    // Over the socket, with the model's evaluator (a local fake) crediting what is said.
    let fake = FakeLlm::start_with(Wire::Anthropic, vec![], Some(Arc::new(answers))).await;
    let app = TestApp::on_fake(Wire::Anthropic, &fake).await;
    for set in app.store().list_sets(app.owner(), i64::MAX).await.unwrap() {
        app.store().delete_set(app.owner(), &set.id).await.unwrap();
    }
    for name in ["One", "Two", "Three"] {
        let set = NewSet {
            name: name.into(),
            points: (0..8)
                .map(|i| NewPoint { content: format!("{name} fact {i}."), ..NewPoint::default() })
                .collect(),
            ..NewSet::default()
        };
        app.store().create_set(app.owner(), &set).await.unwrap();
    }
    // 24 new points; ten new a day, at most six a session.
    app.store()
        .set_daily_limits(app.owner(), DailyLimits { points_per_session: 6, new_per_day: 10 })
        .await
        .unwrap();
    let first = app.engine.start_review(app.owner(), 0).await.unwrap();
    assert_eq!(first.target_point_ids.len(), 6);
    let first_points = targets(&app, &first.id).await;
    let sets: std::collections::HashSet<&str> = first_points.iter().map(|p| p.set_id.as_str()).collect();
    assert_eq!(sets.len(), 3, "points from every set");
    // Four recalled, two never asked, then left; a second session the same day.
    let mut ws = app.connect(&first.id).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    for point in &first_points[..4] {
        let frames = ws.say(&point.content).await;
        assert_eq!(recalled_ids(&frames), vec![point.id.clone()], "{frames:?}");
    }
    ws.send(json!({"type": "leave_session"})).await;
    ws.until(|m| matches!(m, ServerMessage::SessionPaused(_))).await;
    drop(ws);
    let now = warren::store::now_ms();
    let plan = today::plan(app.store(), app.owner(), now, 0).await.unwrap();
    assert_eq!(plan.queue.points.len(), 6, "six more fit in another session");
    assert_eq!(plan.queue.new_held, 24 - 4 - 6, "the rest wait for tomorrow");
    assert_eq!(plan.queue.left, 0);
    let second = app.engine.start_review(app.owner(), 0).await.unwrap();
    let replaced = app.store().session(app.owner(), &first.id).await.unwrap().unwrap();
    assert_eq!(replaced.state.status, SessionStatus::Abandoned, "one review under way at a time");
    let second_points = targets(&app, &second.id).await;
    assert_eq!(second_points.len(), 6);
    assert!(
        second_points.iter().all(|p| first_points[..4].iter().all(|f| f.id != p.id)),
        "today's recalls stay out"
    );
    let mut ws = app.connect(&second.id).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    for (i, point) in second_points.iter().enumerate() {
        let frames = ws.say(&point.content).await;
        assert_eq!(recalled_ids(&frames), vec![point.id.clone()], "point {i}: {frames:?}");
    }
    drop(ws);
    // Ten new points introduced today: none more until the learner's midnight, ten after.
    let now = warren::store::now_ms();
    for offset in [-300, 0, 600] {
        let midnight = start_of_day(day_of(now, offset) + 1, offset);
        let before = today::plan(app.store(), app.owner(), midnight - 60_000, offset).await.unwrap();
        let after = today::plan(app.store(), app.owner(), midnight + 60_000, offset).await.unwrap();
        assert_eq!(before.queue.points.len(), 0, "offset {offset}: the day's ten are spent");
        assert_eq!(after.queue.points.len(), 6, "offset {offset}: a new day, new points again");
        assert!(after.queue.points.iter().all(|p| p.retrievability.is_none()));
        assert!(midnight - now <= DAY_MS);
    }
    assert!(matches!(
        app.engine.start_review(app.owner(), 0).await,
        Err(warren::engine::EngineError::NothingDue(_))
    ));
}

#[tokio::test]
async fn a_review_exported_and_imported_elsewhere_keeps_its_sets_and_an_older_file_still_imports() {
    let app = TestApp::spawn().await;
    three_sets(&app).await;
    let row = app.engine.start_review(app.owner(), 0).await.unwrap();
    let points = targets(&app, &row.id).await;
    let now = warren::store::now_ms();
    for point in &points[..2] {
        recall(&app, &row.id, point, now).await;
    }
    let exported =
        warren::transfer::session::export(app.store(), app.owner(), &row.id).await.unwrap().unwrap();
    assert!(exported.text.lines().next().unwrap().contains(r#""review":true"#), "{}", exported.text);

    // Another learner, who has none of these sets: they are made, and the review is one.
    let other = app.sign_up("other").await;
    let file = warren::transfer::session::read(&exported.text).unwrap();
    let id = warren::transfer::session::import(app.store(), &other.id, file).await.unwrap();
    let imported = app.store().session(&other.id, &id).await.unwrap().unwrap();
    assert_eq!(imported.set_id, None, "still a review");
    let names: Vec<String> =
        app.store().session_sets(&other.id, &id).await.unwrap().into_iter().map(|s| s.name).collect();
    assert_eq!(names, ["Cells", "Rome", "Verbs"]);
    let contents = |ps: &[Point]| ps.iter().map(|p| p.content.clone()).collect::<Vec<_>>();
    let theirs = app.store().session_points(&other.id, &id).await.unwrap();
    let asked: Vec<Point> = imported
        .target_point_ids
        .iter()
        .filter_map(|t| theirs.iter().find(|p| &p.id == t).cloned())
        .collect();
    assert_eq!(contents(&asked), contents(&points), "the same points, in the same order");
    for (mine, theirs) in points.iter().zip(&asked) {
        let set = |learner, id: &str| {
            let store = app.store();
            let id = id.to_string();
            async move { store.set(learner, &id).await.unwrap().unwrap().name }
        };
        assert_eq!(set(app.owner(), &mine.set_id).await, set(&other.id, &theirs.set_id).await);
    }
    assert_eq!(app.store().outcomes(&other.id, &id).await.unwrap().len(), 2);
    let title = app.store().session_title(&other.id, &imported).await.unwrap();
    assert_eq!(title, "Today's review: Cells, Rome and Verbs");

    // A file of the version before reviews imports as a session of its one set.
    let older = exported
        .text
        .lines()
        .next()
        .map(|header| {
            let mut h: serde_json::Value = serde_json::from_str(header).unwrap();
            let first = h["pointSets"][0].clone();
            let keep: Vec<usize> =
                (0..h["points"].as_array().unwrap().len()).filter(|&i| h["pointSets"][i] == first).collect();
            h["points"] = json!(keep.iter().map(|&i| h["points"][i].clone()).collect::<Vec<_>>());
            h["setName"] = first;
            h["recalled"] = json!([]);
            h["struggles"] = json!([]);
            h["version"] = json!(3);
            h["sessionId"] = json!("older-file");
            h.as_object_mut().unwrap().remove("review");
            h.as_object_mut().unwrap().remove("pointSets");
            h.to_string()
        })
        .unwrap();
    let file = warren::transfer::session::read(&older).unwrap();
    assert_eq!(file.header.version, 4);
    let id = warren::transfer::session::import(app.store(), &other.id, file).await.unwrap();
    let row = app.store().session(&other.id, &id).await.unwrap().unwrap();
    assert!(row.set_id.is_some(), "a session of one set");
    assert_eq!(app.store().session_sets(&other.id, &id).await.unwrap().len(), 1);
}

#[tokio::test]
async fn the_limits_form_refuses_what_is_out_of_range_and_the_dashboard_follows_what_it_saves() {
    let app = TestApp::spawn().await;
    let other = app.sign_up("other").await;
    // A new learner's three demo sets: 16 new points, ten a day, twenty a session.
    let (_, page) = app.page("/").await;
    assert!(page.contains("10 points from 3 sets · about 8 minutes"), "{page}");
    assert!(page.contains("6 new points wait for tomorrow"), "{page}");
    // The card says it all: no second count of what is due above it.
    assert!(!page.contains("data-testid=\"due-lede\""), "{page}");
    for (per_session, new, code) in [
        ("0", "10", "per_session_range"),
        ("501", "10", "per_session_range"),
        ("many", "10", "per_session_range"),
        ("20", "-1", "new_per_day_range"),
        ("20", "", "new_per_day_range"),
    ] {
        let res = app
            .post_form("/account/review-limits", &[("points_per_session", per_session), ("new_per_day", new)])
            .await;
        let back =
            format!("/account?error={code}&points_per_session={per_session}&new_per_day={new}#review-limits");
        assert_eq!(res.headers()["location"], back.as_str());
    }
    assert_eq!(app.store().daily_limits(app.owner()).await.unwrap(), DailyLimits::default());
    let res =
        app.post_form("/account/review-limits", &[("points_per_session", "4"), ("new_per_day", "16")]).await;
    assert_eq!(res.headers()["location"], "/account?done=review_limits#review-limits");
    let saved = DailyLimits { points_per_session: 4, new_per_day: 16 };
    assert_eq!(app.store().daily_limits(app.owner()).await.unwrap(), saved);
    assert_eq!(app.store().daily_limits(&other.id).await.unwrap(), DailyLimits::default(), "theirs alone");
    let (_, account) = app.page("/account").await;
    assert!(account.contains(r#"value="4""#) && account.contains(r#"value="16""#), "{account}");
    let (_, page) = app.page("/").await;
    assert!(page.contains("4 points from 3 sets"), "{page}");
    assert!(page.contains("12 more points are due: another session today can take them."), "{page}");
    // No new points a day: nothing for a review today, and the dashboard says why.
    app.post_form("/account/review-limits", &[("points_per_session", "4"), ("new_per_day", "0")]).await;
    let (_, page) = app.page("/").await;
    assert!(!page.contains("data-testid=\"review-today\""), "{page}");
    assert!(
        page.contains("Today&#x27;s new points are done: 16 more wait for tomorrow")
            || page.contains("Today's new points are done: 16 more wait for tomorrow"),
        "{page}"
    );
}

#[tokio::test]
async fn history_filtered_by_a_set_shows_the_reviews_that_drew_on_it_and_the_estimate_learns_the_pace() {
    let app = TestApp::spawn().await;
    let sets = three_sets(&app).await;
    let row = app.engine.start_review(app.owner(), 0).await.unwrap();
    let points = targets(&app, &row.id).await;
    let now = warren::store::now_ms();
    for point in &points[..5] {
        recall(&app, &row.id, point, now).await;
    }
    for (set, _) in &sets {
        let (status, page) = app.page(&format!("/history?set={set}")).await;
        assert_eq!(status, 200);
        assert!(
            page.contains("Today&#x27;s review: Cells, Rome and Verbs")
                || page.contains("Today's review: Cells, Rome and Verbs"),
            "{page}"
        );
    }
    // Five points in ten minutes of study: two minutes a point, for the next estimate.
    assert!(today::plan(app.store(), app.owner(), now, 0).await.unwrap().default_pace);
    let mut state = row.state.clone();
    state.active_ms = 10 * 60_000;
    state.status = SessionStatus::Paused;
    state.ended_at = Some(now);
    app.store().save_session_state(app.owner(), &row.id, &state).await.unwrap();
    let plan = today::plan(app.store(), app.owner(), now, 0).await.unwrap();
    assert!(!plan.default_pace);
    assert_eq!(plan.queue.points.len(), 4, "the four not recalled today");
    assert_eq!(plan.minutes, 8, "four points at two minutes each");
}

#[tokio::test]
async fn an_account_archive_carries_a_review_across_its_sets() {
    use warren::transfer::archive;
    let app = TestApp::spawn().await;
    three_sets(&app).await;
    let row = app.engine.start_review(app.owner(), 0).await.unwrap();
    let points = targets(&app, &row.id).await;
    recall(&app, &row.id, &points[0], warren::store::now_ms()).await;
    let exported = archive::export(app.store(), app.owner(), "learner").await.unwrap();
    let read = archive::read(&exported.bytes).unwrap();
    let entry = read.manifest.sessions.iter().find(|s| s.id == row.id).unwrap();
    assert_eq!(
        (read.manifest.version, entry.sets.clone()),
        (2, vec!["Cells".into(), "Rome".into(), "Verbs".into()])
    );

    let other = app.sign_up("other").await;
    archive::import(app.store(), &other.id, read).await.unwrap();
    let sessions = app.store().sessions(&other.id).await.unwrap();
    let review = sessions.iter().find(|s| s.set_id.is_none()).expect("the review came along");
    assert_eq!(review.target_point_ids.len(), points.len());
    let names: Vec<String> =
        app.store().session_sets(&other.id, &review.id).await.unwrap().into_iter().map(|s| s.name).collect();
    assert_eq!(names, ["Cells", "Rome", "Verbs"], "under the sets the archive brought, not new ones");
    assert_eq!(
        app.store().list_sets(&other.id, i64::MAX).await.unwrap().len(),
        3 + 3,
        "three demo sets and three"
    );
}

#[tokio::test]
async fn a_review_resumed_later_leaves_out_what_another_session_reviewed_meanwhile() {
    let app = TestApp::spawn().await;
    three_sets(&app).await;
    let row = app.engine.start_review(app.owner(), 0).await.unwrap();
    let points = targets(&app, &row.id).await;
    let mut ws = app.connect(&row.id).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    ws.send(json!({"type": "leave_session"})).await;
    ws.until(|m| matches!(m, ServerMessage::SessionPaused(_))).await;
    drop(ws);

    // Meanwhile a session of its set recalls the review's last point, never asked in it.
    let last = points.last().expect("a point");
    let sets = app.store().list_sets(app.owner(), i64::MAX).await.unwrap();
    let set = sets.iter().find(|s| s.id == last.set_id).expect("its set");
    let (elsewhere, _) = app.start(&set.name).await;
    recall(&app, &elsewhere, last, warren::store::now_ms()).await;

    let mut ws = app.connect(&row.id).await;
    let frames = ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    let ServerMessage::SessionStarted(started) = &frames[0] else { panic!("{frames:?}") };
    assert_eq!(started.total_points as usize, points.len() - 1, "one point fewer");
    let now = targets(&app, &row.id).await;
    assert!(!now.iter().any(|p| p.id == last.id), "and it stays out");
    assert_eq!(now.len(), points.len() - 1);
}

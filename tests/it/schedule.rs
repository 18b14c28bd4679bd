//! The review log and the schedule replayed from it, over the real socket and store: a point
//! tried and not recalled is one Again review when the session ends, a point never asked is
//! untouched, resuming and ending again doubles nothing, and the migration that began the log
//! turns earlier recalls into reviews; fitting learns the learner's parameters from the log;
//! a disputed recall leaves it.

use serde_json::json;
use warren::schedule::{Logged, Scheduler};
use warren::store::{FitReason, FitRow, FitStatus, NewPoint, NewSet, PointLog, ReviewKind, Store, now_ms};
use warren_app::clock::DAY_MS;
use warren_app::protocol::ServerMessage;
use warren_app::schedule::{CardState, Rating};
use warren_app::summary::SummaryStatus;

use crate::common::process::Process;
use crate::common::{TestApp, Ws, fresh_database, recalled_ids, reply_of, socket_at};

const CELL: &str = "The living cell";

/// Opens a session's socket; returns it with the point the tutor's opening asks about.
async fn open(app: &TestApp, session: &str, points: &[warren::store::Point]) -> (Ws, String) {
    let mut ws = app.connect(session).await;
    let opening = reply_of(&ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await);
    let asked = points.iter().find(|p| opening.contains(&p.context)).expect("the opening asks a cue");
    (ws, asked.id.clone())
}

async fn leave(ws: &mut Ws) {
    ws.send(json!({"type": "leave_session"})).await;
    ws.until(|m| matches!(m, ServerMessage::SessionPaused(_) | ServerMessage::SessionComplete(_))).await;
}

#[tokio::test]
async fn a_point_tried_and_failed_then_left_is_one_again_review_and_a_point_never_asked_is_untouched() {
    let app = TestApp::spawn().await;
    let (session, points) = app.start(CELL).await;
    let (mut ws, asked) = open(&app, &session, &points).await;
    ws.say("I don't know").await;
    ws.say("no idea, sorry").await;
    let other = points.iter().find(|p| p.id != asked).expect("a second point");
    assert_eq!(recalled_ids(&ws.say(&other.content).await), vec![other.id.clone()]);
    let before_leaving = now_ms();
    leave(&mut ws).await;

    let store = app.store();
    let failed = store.point_reviews(app.owner(), &asked).await.unwrap();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!((failed[0].rating, failed[0].kind), (Rating::Again, ReviewKind::Failure));
    assert_eq!(failed[0].session_id.as_deref(), Some(session.as_str()));
    let card = store.point(app.owner(), &asked).await.unwrap().unwrap().card;
    assert_eq!((card.reps, card.lapses, card.state), (1, 1, CardState::Learning));
    // Back within the day; a recall at the same moment would have put it days away.
    assert!(card.due_at >= before_leaving && card.due_at < before_leaving + DAY_MS, "{card:?}");
    let created = points.iter().find(|p| p.id == asked).map(|p| p.card.due_at).unwrap_or(0);
    let recalled = Scheduler::default().replay(
        None,
        &[Logged { rating: Rating::Good, at: failed[0].reviewed_at }],
        created,
    );
    assert!(card.due_at < recalled.card.due_at);

    let kept = store.point_reviews(app.owner(), &other.id).await.unwrap();
    assert_eq!((kept.len(), kept[0].kind), (1, ReviewKind::Recall));
    for point in points.iter().filter(|p| p.id != asked && p.id != other.id) {
        assert!(store.point_reviews(app.owner(), &point.id).await.unwrap().is_empty(), "never asked");
        let now = store.point(app.owner(), &point.id).await.unwrap().unwrap().card;
        assert_eq!(now, point.card, "its schedule is as it was");
    }

    // Starting over ends that session for good: nothing is reviewed twice.
    let set = store.session(app.owner(), &session).await.unwrap().unwrap().set_id.expect("a set session");
    app.engine.start_session(app.owner(), &set, true).await.unwrap();
    assert_eq!(store.point_reviews(app.owner(), &asked).await.unwrap().len(), 1);
    assert_eq!(store.point_reviews(app.owner(), &other.id).await.unwrap().len(), 1);
}

#[tokio::test]
async fn a_failure_brings_a_reviewed_point_back_sooner_than_it_was_due() {
    let app = TestApp::spawn().await;
    let (first, points) = app.start(CELL).await;
    let (mut ws, _) = open(&app, &first, &points).await;
    for point in &points {
        assert_eq!(recalled_ids(&ws.say(&point.content).await), vec![point.id.clone()]);
    }
    leave(&mut ws).await;
    let (second, points) = app.start(CELL).await;
    let (mut ws, asked) = open(&app, &second, &points).await;
    let due_before = points.iter().find(|p| p.id == asked).map(|p| p.card.due_at).unwrap_or(0);
    assert!(due_before > now_ms() + DAY_MS / 2, "reviewed once, due in a day or more");
    ws.say("I don't know").await;
    leave(&mut ws).await;
    let reviews = app.store().point_reviews(app.owner(), &asked).await.unwrap();
    let ratings: Vec<(Rating, ReviewKind)> = reviews.iter().map(|r| (r.rating, r.kind)).collect();
    assert_eq!(ratings.len(), 2);
    assert_eq!(ratings[1], (Rating::Again, ReviewKind::Failure));
    let card = app.store().point(app.owner(), &asked).await.unwrap().unwrap().card;
    assert!(card.due_at < due_before, "due {} before {}", card.due_at, due_before);
    assert_eq!((card.state, card.lapses), (CardState::Relearning, 1));
}

#[tokio::test]
async fn a_point_revealed_and_said_back_is_one_again_review() {
    let app = TestApp::spawn().await;
    let (session, points) = app.start(CELL).await;
    let (mut ws, asked) = open(&app, &session, &points).await;
    for _ in 0..4 {
        ws.say("I don't know").await;
    }
    let content = points.iter().find(|p| p.id == asked).map(|p| p.content.clone()).unwrap_or_default();
    // Said straight back it earns nothing; later, in the learner's own time, it is recalled.
    ws.say(&content).await;
    for point in points.iter().filter(|p| p.id != asked) {
        ws.say(&point.content).await;
    }
    assert_eq!(recalled_ids(&ws.say(&content).await), vec![asked.clone()]);
    leave(&mut ws).await;
    let reviews = app.store().point_reviews(app.owner(), &asked).await.unwrap();
    assert_eq!(reviews.len(), 1, "{reviews:?}");
    assert_eq!((reviews[0].rating, reviews[0].kind), (Rating::Again, ReviewKind::Recall));
}

#[tokio::test]
async fn a_point_revealed_and_never_said_back_is_one_again_review_when_the_session_is_left() {
    let app = TestApp::spawn().await;
    let (session, points) = app.start(CELL).await;
    let (mut ws, asked) = open(&app, &session, &points).await;
    // The ladder's last rung gives the answer; the learner leaves without saying it back.
    for _ in 0..4 {
        ws.say("I don't know").await;
    }
    let struggles = app.store().struggles(app.owner(), &session).await.unwrap();
    assert!(struggles.get(&asked).is_some_and(|s| s.revealed), "{struggles:?}");
    leave(&mut ws).await;
    let reviews = app.store().point_reviews(app.owner(), &asked).await.unwrap();
    assert_eq!(reviews.len(), 1, "{reviews:?}");
    assert_eq!((reviews[0].rating, reviews[0].kind), (Rating::Again, ReviewKind::Failure));
}

#[tokio::test]
async fn a_session_abandoned_by_starting_over_reviews_its_failed_point_once() {
    let app = TestApp::spawn().await;
    let (session, points) = app.start(CELL).await;
    let (mut ws, asked) = open(&app, &session, &points).await;
    ws.say("I don't know").await;
    // No leaving: the learner starts the set over from another tab, which abandons this one.
    let set =
        app.store().session(app.owner(), &session).await.unwrap().unwrap().set_id.expect("a set session");
    app.engine.start_session(app.owner(), &set, true).await.unwrap();
    drop(ws);
    let ended = app.store().session(app.owner(), &session).await.unwrap().unwrap();
    assert_eq!(ended.state.status, warren_app::protocol::SessionStatus::Abandoned);
    let reviews = app.store().point_reviews(app.owner(), &asked).await.unwrap();
    assert_eq!(reviews.len(), 1, "{reviews:?}");
    assert_eq!((reviews[0].rating, reviews[0].kind), (Rating::Again, ReviewKind::Failure));
    assert_eq!(reviews[0].session_id.as_deref(), Some(session.as_str()));
    for point in points.iter().filter(|p| p.id != asked) {
        assert!(app.store().point_reviews(app.owner(), &point.id).await.unwrap().is_empty(), "never asked");
    }
}

#[tokio::test]
async fn resuming_after_a_restart_and_ending_again_doubles_no_review() {
    let app = TestApp::spawn().await;
    let (session, points) = app.start(CELL).await;
    let (mut ws, asked) = open(&app, &session, &points).await;
    ws.say("I don't know").await;
    leave(&mut ws).await;
    drop(ws);
    // Another instance on the same database, as after a crash: the session resumes, the failed
    // point is recalled after all (its one review becomes that recall), and it ends again.
    let restarted = app.another_instance().await;
    let mut ws = restarted.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    let content = points.iter().find(|p| p.id == asked).map(|p| p.content.clone()).unwrap_or_default();
    assert_eq!(recalled_ids(&ws.say(&content).await), vec![asked.clone()]);
    leave(&mut ws).await;
    let set =
        app.store().session(app.owner(), &session).await.unwrap().unwrap().set_id.expect("a set session");
    restarted.engine.start_session(app.owner(), &set, true).await.unwrap();
    let reviews = app.store().point_reviews(app.owner(), &asked).await.unwrap();
    assert_eq!(reviews.len(), 1, "{reviews:?}");
    assert_eq!(reviews[0].kind, ReviewKind::Recall);
    assert_eq!(reviews[0].rating, Rating::Good, "one hint, then recalled");
    let card = app.store().point(app.owner(), &asked).await.unwrap().unwrap().card;
    assert_eq!((card.reps, card.lapses), (1, 0));
}

#[tokio::test]
async fn a_server_killed_mid_session_and_one_killed_after_it_ends_double_no_review() {
    let app = TestApp::spawn().await;
    let (session, points) = app.start(CELL).await;
    let cookie = Some(app.learner.cookie.as_str());
    let path = format!("/ws/sessions/{session}");
    // The session as it stands when a socket attaches (a session taken over mid-way goes on
    // without a new opening).
    let open_at = |process: &Process| {
        let addr = process.addr.clone();
        let path = path.clone();
        async move {
            let mut ws = socket_at(&addr, cookie, &path).await;
            ws.until(|m| matches!(m, ServerMessage::SessionStarted(_))).await;
            ws
        }
    };
    // A try fails on instance a, which is then killed with SIGKILL mid-session.
    let mut a = Process::serve(&app.database_url, &[("WARREN_INSTANCE_ID", "a")]).await;
    let mut ws = open_at(&a).await;
    let opening = reply_of(&ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await);
    let asked =
        points.iter().find(|p| opening.contains(&p.context)).expect("the opening asks a cue").id.clone();
    ws.say("I don't know").await;
    a.kill();
    assert!(app.store().point_reviews(app.owner(), &asked).await.unwrap().is_empty(), "nothing ended yet");
    // Instance b takes the session over once a's lease lapses; the learner fails again and
    // leaves; b is killed right after.
    let mut b = Process::serve(&app.database_url, &[("WARREN_INSTANCE_ID", "b")]).await;
    let mut ws = open_at(&b).await;
    ws.say("no idea, sorry").await;
    leave(&mut ws).await;
    b.kill();
    // Instance c resumes the session and it is left again.
    let c = Process::serve(&app.database_url, &[("WARREN_INSTANCE_ID", "c")]).await;
    let mut ws = open_at(&c).await;
    leave(&mut ws).await;
    let reviews = app.store().point_reviews(app.owner(), &asked).await.unwrap();
    let ratings: Vec<(Rating, ReviewKind)> = reviews.iter().map(|r| (r.rating, r.kind)).collect();
    assert_eq!(ratings, [(Rating::Again, ReviewKind::Failure)], "one failure, however often it ended");
    let card = app.store().point(app.owner(), &asked).await.unwrap().unwrap().card;
    assert_eq!((card.reps, card.lapses), (1, 1));
    for other in points.iter().filter(|p| p.id != asked) {
        assert!(app.store().point_reviews(app.owner(), &other.id).await.unwrap().is_empty(), "never asked");
    }
}

/// The migrations before the review log began.
fn migrations_before_the_log() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    for entry in std::fs::read_dir(source).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name.as_str() < "0012" {
            std::fs::copy(&path, dir.path().join(&name)).unwrap();
        }
    }
    dir
}

#[tokio::test]
async fn the_migration_turns_earlier_recalls_into_reviews_and_replays_their_schedules() {
    let dir = tempfile::tempdir().unwrap();
    let url = fresh_database(&dir).await;
    let store = Store::open(&url).await.unwrap();
    let older = migrations_before_the_log();
    let migrator = sqlx::migrate::Migrator::new(older.path()).await.unwrap();
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&url).await.unwrap();
    migrator.run(&pool).await.unwrap();
    let day = DAY_MS;
    let t0 = now_ms() - 30 * day;
    for statement in [
        format!("INSERT INTO users (id, username, password_hash, created_at) VALUES ('u', 'ada', '', {t0})"),
        format!("INSERT INTO recall_sets (id, owner_id, name, created_at, updated_at) VALUES ('s', 'u', 'Cells', {t0}, {t0})"),
        format!(
            "INSERT INTO recall_points (id, set_id, owner_id, position, content, due_at, created_at, reps, stability, last_review_at)
             VALUES ('p', 's', 'u', 0, 'Ribosomes make proteins.', {t0}, {t0}, 2, 9.0, {})",
            t0 + 10 * day
        ),
        format!(
            "INSERT INTO recall_points (id, set_id, owner_id, position, content, due_at, created_at, reps, stability, difficulty, last_review_at)
             VALUES ('q', 's', 'u', 1, 'Imported with a schedule.', {t0}, {t0}, 3, 20.0, 4.0, {t0})"
        ),
        format!(
            "INSERT INTO sessions (id, owner_id, set_id, status, target_point_ids, started_at, updated_at)
             VALUES ('a', 'u', 's', 'completed', '[\"p\"]', {t0}, {t0})"
        ),
        format!(
            "INSERT INTO sessions (id, owner_id, set_id, status, target_point_ids, started_at, updated_at)
             VALUES ('b', 'u', 's', 'completed', '[\"p\"]', {t0}, {t0})"
        ),
        format!(
            "INSERT INTO recall_outcomes (id, session_id, point_id, owner_id, rating, confidence, recalled_at)
             VALUES ('o1', 'a', 'p', 'u', 'good', 0.9, {t0})"
        ),
        format!(
            "INSERT INTO recall_outcomes (id, session_id, point_id, owner_id, rating, confidence, recalled_at)
             VALUES ('o2', 'b', 'p', 'u', 'hard', 0.9, {})",
            t0 + 10 * day
        ),
    ] {
        sqlx::query(sqlx::AssertSqlSafe(statement)).execute(&pool).await.unwrap();
    }
    pool.close().await;

    store.migrate().await.unwrap();
    let learner = warren_app::learner::LearnerId::new("u");
    let reviews = store.point_reviews(&learner, "p").await.unwrap();
    let ratings: Vec<Rating> = reviews.iter().map(|r| r.rating).collect();
    assert_eq!(ratings, [Rating::Good, Rating::Hard]);
    assert!(reviews.iter().all(|r| r.kind == ReviewKind::Recall));
    let card = store.point(&learner, "p").await.unwrap().unwrap().card;
    let replayed = Scheduler::default().replay(
        None,
        &[Logged { rating: Rating::Good, at: t0 }, Logged { rating: Rating::Hard, at: t0 + 10 * day }],
        t0,
    );
    assert_eq!(card, replayed.card, "the card is the replay of its log");
    // A schedule imported without its reviews stays as it was, and is where its log begins.
    let imported = store.point(&learner, "q").await.unwrap().unwrap().card;
    assert_eq!((imported.reps, imported.stability), (3, 20.0));
    // Replayed again (a new retention), it still counts the reviews it came with: not new.
    store.set_schedule(&learner, 0.95, 4).await.unwrap();
    let replayed_again = store.point(&learner, "q").await.unwrap().unwrap().card;
    assert_eq!((replayed_again.reps, replayed_again.stability), (3, 20.0));
    assert_eq!(replayed_again.state, warren_app::schedule::CardState::Review);
    store.set_schedule(&learner, 0.9, 4).await.unwrap();
    // Migrating again changes nothing.
    store.migrate().await.unwrap();
    let card = Scheduler::default()
        .replay(
            None,
            &[Logged { rating: Rating::Good, at: t0 }, Logged { rating: Rating::Hard, at: t0 + 10 * day }],
            t0,
        )
        .card;
    assert_eq!(store.point(&learner, "p").await.unwrap().unwrap().card, card);
    assert_eq!(store.point_reviews(&learner, "p").await.unwrap().len(), 2);
}

#[tokio::test]
async fn the_retention_a_learner_sets_moves_their_due_dates_and_bad_values_change_nothing() {
    let app = TestApp::spawn().await;
    let (session, points) = app.start(CELL).await;
    let (mut ws, asked) = open(&app, &session, &points).await;
    let content = points.iter().find(|p| p.id == asked).map(|p| p.content.clone()).unwrap_or_default();
    assert_eq!(recalled_ids(&ws.say(&content).await), vec![asked.clone()]);
    leave(&mut ws).await;
    let before = app.store().point(app.owner(), &asked).await.unwrap().unwrap().card;

    for refused in ["50", "98", "ninety", ""] {
        let res = app.post_form("/account/schedule", &[("retention", refused), ("leech_lapses", "4")]).await;
        let back = format!("/account?error=retention_range&retention={refused}&leech_lapses=4#schedule");
        assert_eq!(res.headers()["location"], back.as_str(), "{refused:?}");
    }
    // The form comes back with what was typed in it.
    let (_, page) = app.page("/account?error=retention_range&retention=150&leech_lapses=4").await;
    assert!(page.contains(r#"value="150""#) && page.contains(r#"value="4""#), "{page}");
    assert_eq!(app.store().scheduler(app.owner()).await.unwrap().retention(), 0.9);
    assert_eq!(app.store().point(app.owner(), &asked).await.unwrap().unwrap().card, before);

    let res = app.post_form("/account/schedule", &[("retention", "97"), ("leech_lapses", "1")]).await;
    assert_eq!(res.headers()["location"], "/account?error=leech_range&retention=97&leech_lapses=1#schedule");
    let res = app.post_form("/account/schedule", &[("retention", "97 %"), ("leech_lapses", "3")]).await;
    assert_eq!(res.headers()["location"], "/account?done=retention&moved=1#schedule");
    assert_eq!(app.store().scheduler(app.owner()).await.unwrap().retention(), 0.97);
    let after = app.store().point(app.owner(), &asked).await.unwrap().unwrap().card;
    assert!(
        after.due_at < before.due_at,
        "more recall asked for: sooner ({} then {})",
        before.due_at,
        after.due_at
    );
    assert_eq!((after.reps, after.stability), (before.reps, before.stability), "the memory is the same");
    let (_, page) = app.page("/account?done=retention&moved=1").await;
    assert!(page.contains("1 due date moved") && page.contains("value=\"97\""), "{page}");
    assert_eq!(app.store().leech_lapses(app.owner()).await.unwrap(), 3);
}

/// Seeds reviews straight into the log (as an import of history would), then replays.
async fn seed_reviews(app: &TestApp, point_id: &str, reviews: &[(Rating, i64)]) {
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&app.database_url).await.unwrap();
    for (i, (rating, at)) in reviews.iter().enumerate() {
        sqlx::query(
            "INSERT INTO reviews (id, owner_id, point_id, session_id, rating, kind, reviewed_at)
             VALUES ($1, $2, $3, NULL, $4, 'failure', $5)",
        )
        .bind(format!("seed-{point_id}-{i}"))
        .bind(app.owner())
        .bind(point_id)
        .bind(rating.as_str())
        .bind(*at)
        .execute(&pool)
        .await
        .unwrap();
    }
    pool.close().await;
    app.store().replay_learner(app.owner()).await.unwrap();
}

#[tokio::test]
async fn the_set_page_shows_recall_now_and_flags_a_point_that_keeps_slipping() {
    let app = TestApp::spawn().await;
    let sets = app.store().list_sets(app.owner(), i64::MAX).await.unwrap();
    let set = sets.iter().find(|s| s.name == CELL).unwrap().id.clone();
    let points = app.store().points(app.owner(), &set).await.unwrap();
    let now = now_ms();
    let day = DAY_MS;
    seed_reviews(&app, &points[0].id, &[(Rating::Good, now - 20 * day), (Rating::Good, now - 10 * day)])
        .await;
    let slipping: Vec<(Rating, i64)> = (0..4).map(|i| (Rating::Again, now - (8 - i) * day)).collect();
    seed_reviews(&app, &points[1].id, &slipping).await;

    let (status, page) = app.page(&format!("/sets/{set}")).await;
    assert_eq!(status, 200);
    let card = app.store().point(app.owner(), &points[0].id).await.unwrap().unwrap().card;
    let expected = Scheduler::default().retrievability(&card, now_ms()).unwrap();
    #[allow(clippy::cast_possible_truncation)]
    let shown = format!("{} % likely recalled now", (expected * 100.0).round() as i64);
    assert!(page.contains(&shown), "{shown} in {page}");
    let stability = format!("data-testid=\"stability\">{:.1} days<", card.stability);
    assert!(page.contains(&stability), "{stability} in {page}");
    assert_eq!(page.matches("data-testid=\"leech\"").count(), 1, "only the point forgotten four times");
    assert!(page.contains("split it or reword it"), "a leech comes with what to do about it");
    assert!(page.contains("forgotten 4 times"), "{page}");
    // The threshold is the learner's: raised to five, nothing is flagged.
    app.post_form("/account/schedule", &[("retention", "90"), ("leech_lapses", "5")]).await;
    let (_, page) = app.page(&format!("/sets/{set}")).await;
    assert_eq!(page.matches("data-testid=\"leech\"").count(), 0);
}

#[tokio::test]
async fn the_dashboard_forecasts_the_points_due_in_the_next_thirty_days() {
    let app = TestApp::spawn().await;
    let sets = app.store().list_sets(app.owner(), i64::MAX).await.unwrap();
    let set = sets.iter().find(|s| s.name == CELL).unwrap().id.clone();
    let points = app.store().points(app.owner(), &set).await.unwrap();
    // One point recalled three days ago falls due in the coming days.
    seed_reviews(&app, &points[0].id, &[(Rating::Good, now_ms() - 3 * DAY_MS)]).await;
    let end = warren_app::clock::start_of_day(warren_app::clock::day_of(now_ms(), 0) + 30, 0);
    let mut due = 0;
    for set in &sets {
        due += app
            .store()
            .points(app.owner(), &set.id)
            .await
            .unwrap()
            .iter()
            .filter(|p| p.card.due_at < end)
            .count();
    }
    let (status, page) = app.page("/").await;
    assert_eq!(status, 200);
    assert!(page.contains("data-testid=\"forecast-chart\""), "{page}");
    let expected = format!("Points due per day, next 30 days: {due} points from");
    assert!(page.contains(&expected), "{expected} in {page}");
}

#[tokio::test]
async fn each_recall_is_shown_beside_the_message_that_earned_it() {
    let app = TestApp::spawn().await;
    let (session, points) = app.start(CELL).await;
    let (mut ws, asked) = open(&app, &session, &points).await;
    let content = points.iter().find(|p| p.id == asked).map(|p| p.content.clone()).unwrap_or_default();
    assert_eq!(recalled_ids(&ws.say(&content).await), vec![asked.clone()]);
    leave(&mut ws).await;
    let outcome = app.store().outcomes(app.owner(), &session).await.unwrap().remove(0);
    let entry = outcome.entry_id.expect("the message that earned it");

    let (_, history) = app.page(&format!("/history/{session}")).await;
    let at = history.find(&format!("id=\"entry-{entry}\"")).expect("the message is shown");
    let mark = history[at..].find("data-testid=\"recalled\"").map(|i| i + at).expect("a mark");
    let next_entry = history[at + 1..].find("id=\"entry-").map_or(usize::MAX, |i| i + at + 1);
    assert!(mark < next_entry, "the mark is on that message");
    let mut shown = String::new();
    warren_app::escape(&content, &mut shown);
    assert!(
        history[mark..].starts_with(&format!(
            "data-testid=\"recalled\">Recalled: <span class=\"recall-mark\">{shown}<form method=\"post\""
        )),
        "{}",
        &history[mark..]
    );

    let set =
        app.store().session(app.owner(), &session).await.unwrap().unwrap().set_id.expect("a set session");
    let (_, set_page) = app.page(&format!("/sets/{set}")).await;
    assert!(set_page.contains(&format!("/history/{session}#entry-{entry}")), "the set page links to it");
}

/// A learner who forgets faster than FSRS-6's defaults expect: each of `points` points is
/// reviewed at growing intervals from 200 days ago and forgotten whenever a fixed draw falls
/// above the chance their own (short-lived) memory gives.
fn forgetful_points(points: usize) -> Vec<NewPoint> {
    let start = now_ms() - 200 * DAY_MS;
    (0..points)
        .map(|i| {
            let (mut at, mut stability, mut reviews) =
                (start + i64::try_from(i).unwrap() * 3_600_000, 0.4_f64, Vec::new());
            for k in 0..6_u64 {
                let draw = ((i as u64 * 7_919 + k * 104_729 + 13) % 1_000) as f64 / 1_000.0;
                let days = if reviews.is_empty() { 0.0 } else { (stability * 2.0).round().max(1.0) };
                at += (days * DAY_MS as f64) as i64;
                let recalled = reviews.is_empty() || draw < 0.9_f64.powf(days / stability);
                reviews.push(Logged { rating: if recalled { Rating::Good } else { Rating::Again }, at });
                stability = if recalled { stability * 1.8 } else { (stability * 0.5).max(0.3) };
            }
            NewPoint {
                content: format!("Forgetful fact number {i}."),
                log: Some(PointLog { carried: None, reviews, due_at: None }),
                ..NewPoint::default()
            }
        })
        .collect()
}

/// Waits for the learner's fit to end, and returns it.
async fn fit_ends(app: &TestApp) -> FitRow {
    for _ in 0..600 {
        match app.store().fit_run(app.owner()).await.unwrap() {
            Some(run) if run.status != FitStatus::Running => return run,
            Some(_) | None => tokio::time::sleep(std::time::Duration::from_millis(50)).await,
        }
    }
    panic!("the fit did not end within 30 s");
}

#[tokio::test]
async fn fitting_a_schedule_learns_from_the_log_keeps_better_parameters_and_moves_due_dates() {
    let app = TestApp::spawn().await;
    // A new learner has nothing to fit: the page says how many reviews it needs.
    let res = app.post_form("/account/schedule/fit", &[]).await;
    assert_eq!(res.headers()["location"], "/account?error=fit_few#fit");
    let (_, page) = app.page("/account").await;
    assert!(
        page.contains("Fitting needs 8 reviews it can learn from")
            && page.contains("You have 0: 8 more are needed."),
        "{page}"
    );
    assert_eq!(app.store().fit_run(app.owner()).await.unwrap(), None);

    // While a fit runs, its owner sees how far it is, on the page and to the page's poll.
    assert!(app.store().claim_fit(app.owner(), FitReason::Asked).await.unwrap());
    app.store().fit_progress(app.owner(), 200, 3, 10).await.unwrap();
    let (_, page) = app.page("/account").await;
    assert!(page.contains("data-testid=\"fit-running\"") && page.contains("3 of 10 steps"), "{page}");
    let res = app
        .http
        .get(app.url("/account/schedule/fit"))
        .header("cookie", &app.learner.cookie)
        .send()
        .await
        .unwrap();
    assert_eq!((res.status().as_u16(), res.text().await.unwrap()), (202, "3/10".to_string()));
    assert!(!app.store().claim_fit(app.owner(), FitReason::Asked).await.unwrap(), "one fit at a time");
    app.store().fail_fit(app.owner(), "set aside by the test").await.unwrap();

    let set = NewSet { name: "Forgetful".into(), points: forgetful_points(40), ..NewSet::default() };
    let set_id = app.store().create_set(app.owner(), &set).await.unwrap();
    let items = app.store().fit_items(app.owner()).await.unwrap();
    assert_eq!(items, 40 * 5, "each review after a point's first");
    let before: Vec<i64> =
        app.store().points(app.owner(), &set_id).await.unwrap().iter().map(|p| p.card.due_at).collect();
    let defaults = app.store().scheduler(app.owner()).await.unwrap().parameters().to_vec();

    let res = app.post_form("/account/schedule/fit", &[]).await;
    assert_eq!(res.headers()["location"], "/account?done=fitting#fit");
    let run = fit_ends(&app).await;
    assert_eq!((run.status, run.reason, run.items), (FitStatus::Done, FitReason::Asked, 200));
    let (loss_before, loss_after) = (run.log_loss_before.unwrap(), run.log_loss_after.unwrap());
    assert!(run.rmse_before.is_some() && run.rmse_after.is_some());
    // The simulated learner is unlike the defaults: the fit predicts their reviews better.
    assert!(loss_after < loss_before, "log loss {loss_before} then {loss_after}");
    assert_eq!(run.adopted, 1);
    let fitted = app.store().scheduler(app.owner()).await.unwrap().parameters().to_vec();
    assert_ne!(fitted, defaults, "the fitted parameters are in use");
    let after: Vec<i64> =
        app.store().points(app.owner(), &set_id).await.unwrap().iter().map(|p| p.card.due_at).collect();
    let moved = before.iter().zip(&after).filter(|(b, a)| b != a).count();
    assert!(moved > 0);
    assert_eq!(run.moved, i64::try_from(moved).unwrap(), "the count is of due dates that moved");
    // Each due date is the replay of its log with the fitted parameters.
    let scheduler = app.store().scheduler(app.owner()).await.unwrap();
    for (point, due) in set.points.iter().zip(&after) {
        let log = &point.log.as_ref().unwrap().reviews;
        assert_eq!(scheduler.replay(None, log, 0).card.due_at, *due);
    }

    let (_, page) = app.page("/account").await;
    assert!(page.contains("data-testid=\"fit-figures\""), "{page}");
    assert!(
        page.contains(&format!("{loss_before:.3}")) && page.contains(&format!("{loss_after:.3}")),
        "{page}"
    );
    assert!(page.contains(&format!("Your fitted parameters are in use. {moved} due dates moved.")), "{page}");
    let status =
        app.http.get(app.url("/account/schedule/fit")).header("cookie", &app.learner.cookie).send().await;
    assert_eq!(status.unwrap().text().await.unwrap(), "done");

    // Just fitted: the weekly round leaves this learner alone.
    assert_eq!(warren::fitting::weekly(app.store()).await.unwrap(), 0);
}

#[tokio::test]
async fn the_weekly_round_fits_learners_with_enough_new_reviews_once() {
    let app = TestApp::spawn().await;
    let few = NewSet { name: "Few".into(), points: forgetful_points(1), ..NewSet::default() };
    app.store().create_set(app.owner(), &few).await.unwrap();
    // Five reviews after its first, but one point's first interval alone is rare: set aside.
    assert_eq!(app.store().fit_items(app.owner()).await.unwrap(), 0);
    assert_eq!(warren::fitting::weekly(app.store()).await.unwrap(), 0, "too few reviews to fit");
    // Many reviews, all on one day: enough by count, none the optimiser can learn from. The
    // round passes them over rather than claim a run that cannot fit.
    let day = now_ms() - 3 * DAY_MS;
    let same_day: Vec<NewPoint> = (0..10)
        .map(|i| NewPoint {
            content: format!("Crammed fact number {i}."),
            log: Some(PointLog {
                carried: None,
                reviews: (0..3).map(|k| Logged { rating: Rating::Good, at: day + k * 600_000 + i }).collect(),
                due_at: None,
            }),
            ..NewPoint::default()
        })
        .collect();
    let crammed = NewSet { name: "Crammed".into(), points: same_day, ..NewSet::default() };
    app.store().create_set(app.owner(), &crammed).await.unwrap();
    assert_eq!(app.store().learners_due_a_fit(warren::fitting::WEEK_MS).await.unwrap().len(), 1);
    assert_eq!(warren::fitting::weekly(app.store()).await.unwrap(), 0, "nothing to learn from");
    assert!(app.store().fit_run(app.owner()).await.unwrap().is_none(), "no run claimed, none failed");

    let set = NewSet { name: "Forgetful".into(), points: forgetful_points(30), ..NewSet::default() };
    app.store().create_set(app.owner(), &set).await.unwrap();
    assert_eq!(warren::fitting::weekly(app.store()).await.unwrap(), 1);
    let run = app.store().fit_run(app.owner()).await.unwrap().unwrap();
    assert_eq!((run.status, run.reason), (FitStatus::Done, FitReason::Weekly));
    assert_eq!(warren::fitting::weekly(app.store()).await.unwrap(), 0, "once a week");
    // One fit at a time: a running fit cannot be claimed again until its heartbeat lapses.
    assert!(app.store().claim_fit(app.owner(), FitReason::Asked).await.unwrap());
    assert!(!app.store().claim_fit(app.owner(), FitReason::Asked).await.unwrap());
    let res = app.post_form("/account/schedule/fit", &[]).await;
    assert_eq!(res.headers()["location"], "/account?error=fit_running#fit");
}

#[tokio::test]
async fn a_recall_disputed_while_its_session_is_open_leaves_no_review_when_the_session_ends() {
    let app = TestApp::spawn().await;
    let (session, points) = app.start(CELL).await;
    let (mut ws, asked) = open(&app, &session, &points).await;
    let point = points.iter().find(|p| p.id == asked).unwrap().clone();
    ws.say("I don't know").await;
    assert_eq!(recalled_ids(&ws.say(&point.content).await), vec![asked.clone()]);
    let res = app.post_form(&format!("/history/{session}/disputes"), &[("point_id", &asked)]).await;
    assert_eq!(res.status(), 303);
    assert!(app.store().point_reviews(app.owner(), &asked).await.unwrap().is_empty());
    // Ending the session does not count the disputed point as a failure either: a dispute
    // leaves no review, as it does for a session that had already ended.
    leave(&mut ws).await;
    assert!(app.store().point_reviews(app.owner(), &asked).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_session_opened_again_after_a_dispute_counts_the_recalls_that_stand() {
    let app = TestApp::spawn().await;
    let (session, points) = app.start(CELL).await;
    let (mut ws, asked) = open(&app, &session, &points).await;
    let point = points.iter().find(|p| p.id == asked).unwrap().clone();
    assert_eq!(recalled_ids(&ws.say(&point.content).await), vec![asked.clone()]);
    leave(&mut ws).await;
    // The page is closed; the session's actor stays a while in case it comes back.
    drop(ws);
    let res = app.post_form(&format!("/history/{session}/disputes"), &[("point_id", &asked)]).await;
    assert_eq!(res.status(), 303);
    let mut ws = app.connect(&session).await;
    let started = ws.until(|m| matches!(m, ServerMessage::SessionStarted(_))).await;
    let Some(ServerMessage::SessionStarted(started)) = started.last() else { panic!("{started:?}") };
    assert_eq!(started.recalled_count, 0, "the disputed recall is not counted: {started:?}");
}

#[tokio::test]
async fn disputing_a_recall_takes_its_review_out_replays_the_point_and_exports_an_evaluator_case() {
    let app = TestApp::spawn().await;
    let (session, points) = app.start(CELL).await;
    let (mut ws, asked) = open(&app, &session, &points).await;
    let point = points.iter().find(|p| p.id == asked).unwrap().clone();
    let other = points.iter().find(|p| p.id != asked).unwrap().clone();
    assert_eq!(recalled_ids(&ws.say(&point.content).await), vec![asked.clone()]);
    assert_eq!(recalled_ids(&ws.say(&other.content).await), vec![other.id.clone()]);
    leave(&mut ws).await;
    let written = crate::synthesis::summary_reaches(&app, app.owner(), &session, SummaryStatus::Ready).await;
    let store = app.store();
    let outcome =
        store.outcomes(app.owner(), &session).await.unwrap().into_iter().find(|o| o.point_id == asked);
    let entry = outcome.and_then(|o| o.entry_id).expect("the message that earned it");
    assert_eq!(store.point_reviews(app.owner(), &asked).await.unwrap().len(), 1);
    let (_, history) = app.page(&format!("/history/{session}")).await;
    assert_eq!(history.matches("data-testid=\"dispute\"").count(), 2, "each recall can be disputed");

    // Refused: no such point, or no recall of it in this session. Nothing changes.
    for missing in ["00000000-0000-7000-8000-000000000002", points[2].id.as_str()] {
        let res = app.post_form(&format!("/history/{session}/disputes"), &[("point_id", missing)]).await;
        assert_eq!(res.status(), 404, "{missing}");
    }
    assert_eq!(store.point_reviews(app.owner(), &asked).await.unwrap().len(), 1);

    let res = app
        .post_form(&format!("/history/{session}/disputes"), &[("point_id", &asked), ("entry_id", &entry)])
        .await;
    assert_eq!(res.status(), 303);
    assert_eq!(res.headers()["location"], format!("/history/{session}#entry-{entry}").as_str());
    assert!(store.point_reviews(app.owner(), &asked).await.unwrap().is_empty(), "the review left the log");
    let card = store.point(app.owner(), &asked).await.unwrap().unwrap().card;
    // The replay of an empty log: a new card, due from when the point was added.
    let new = Scheduler::default().replay(None, &[], card.due_at).card;
    assert_eq!(card, new, "the replay's schedule");
    assert!((card.due_at - point.card.due_at).abs() < 1_000, "due from when it was added: {card:?}");
    assert_eq!(store.point_reviews(app.owner(), &other.id).await.unwrap().len(), 1, "the other stands");
    // The summary is written again, counting the recalls as every other page now does.
    let mut rewritten = None;
    for _ in 0..200 {
        let (status, entry) = store.summary_link(app.owner(), &session).await.unwrap().unwrap();
        if status == Some(SummaryStatus::Ready) && entry.is_some() && entry != written {
            rewritten = entry;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let rewritten = rewritten.expect("a summary written after the dispute");
    let entry = store.entry(app.owner(), &session, &rewritten).await.unwrap().unwrap();
    let summary: warren_app::summary::SessionSummary = serde_json::from_value(entry.data.unwrap()).unwrap();
    assert_eq!(summary.recalled.len(), 1, "{summary:?}");
    assert!(summary.overview.contains("1 of 5"), "{}", summary.overview);
    // Twice is once.
    let res = app.post_form(&format!("/history/{session}/disputes"), &[("point_id", &asked)]).await;
    assert_eq!(res.status(), 404);

    let (_, history) = app.page(&format!("/history/{session}")).await;
    assert_eq!(history.matches("data-testid=\"dispute\"").count(), 1);
    let mut shown = String::new();
    warren_app::escape(&point.content, &mut shown);
    assert!(
        history.contains(&format!("data-testid=\"disputed\">Not a recall, you said: <s>{shown}</s>")),
        "{history}"
    );

    // `warren disputes` prints it as a case `warren eval` reads.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_warren"))
        .args(["disputes", "--user", "learner"])
        .env("DATABASE_URL", &app.database_url)
        .env("WARREN_LOG", "error")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let printed = String::from_utf8(out.stdout).unwrap();
    assert_eq!(printed.lines().count(), 1, "{printed}");
    let case: serde_json::Value = serde_json::from_str(printed.trim()).unwrap();
    assert_eq!(case["set"], CELL);
    assert_eq!(case["message"], point.content.as_str());
    assert_eq!(case["recalled"], json!([]), "what the learner disputed is not a recall");
    assert!(case["points"].as_object().unwrap().values().any(|v| v == point.content.as_str()));
    assert!(case["recent"][0].as_str().is_some_and(|q| q.contains(&point.context)), "{case}");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("disputes.jsonl");
    std::fs::write(&file, &printed).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_warren"))
        .args(["eval", "evaluator", file.to_str().unwrap()])
        .env("WARREN_LLM", "offline")
        .env("WARREN_LOG", "error")
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{report} {}", String::from_utf8_lossy(&out.stderr));
    assert!(report.contains("line   1"), "{report}");

    // Another learner's disputes are theirs: none of these.
    app.sign_up("bob").await;
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_warren"))
        .args(["disputes", "--user", "bob"])
        .env("DATABASE_URL", &app.database_url)
        .env("WARREN_LOG", "error")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "", "bob has disputed nothing");
}

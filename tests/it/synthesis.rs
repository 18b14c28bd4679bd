//! Session synthesis end to end: a session left through the socket is summed up in the
//! background by the summariser (a scripted provider in both wire formats, and the offline
//! one), stored as a versioned, linked summary entry, shown on the dashboard and the history
//! page, searchable, printed by `warren summaries`; a failing summariser is retried, then shown
//! as unavailable with Retry; and the next session opens from the summary without giving any
//! point away.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use warren_app::learner::LearnerId;

use serde_json::{Value, json};
use warren::store::{EntryKind, Point};
use warren_app::protocol::ServerMessage;
use warren_app::summary::{RecallHow, SUMMARY_VERSION, SessionSummary, SummaryStatus};

use crate::common::fake_llm::{FakeLlm, Reply, Wire, recalls_in, system_of};
use crate::common::{Learner, TestApp, Ws, reply_of};

const CELL: &str = "The living cell";
const SESSION_PROMPT: &str = "You write the record of a recall session";

/// The latest learner message a judge is asked about.
fn judged(body: &Value) -> String {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let last = messages.last().and_then(|m| m["content"].as_str()).unwrap_or_default().to_string();
    last.split_once("Latest learner message:\n").map(|(_, m)| m.trim().to_string()).unwrap_or_default()
}

/// Everything a request carries, as text.
fn everything(body: &Value) -> String {
    let mut all = system_of(body);
    for m in body["messages"].as_array().into_iter().flatten() {
        all.push('\n');
        all.push_str(m["content"].as_str().unwrap_or_default());
    }
    all
}

/// Answers like each agent: the evaluator recalls a point whose whole content the message
/// holds, the detector fires on "TANGENT", the session summariser answers JSON (or a 400
/// while `fail` is set).
fn answerer(fail: Arc<AtomicBool>) -> impl Fn(&Value) -> Reply + Send + Sync + 'static {
    move |body| {
        let system = system_of(body);
        let text = if system.contains(SESSION_PROMPT) {
            if fail.load(Ordering::SeqCst) {
                return Reply::Status {
                    status: 400,
                    headers: vec![],
                    body: r#"{"error":{"type":"invalid_request_error","message":"scripted failure"}}"#,
                };
            }
            json!({
                "overview": "Scripted overview of the session.",
                "rabbitholes": [{"topic": "why the tides rise", "cameUp": "The moon and the sun."}],
                "hard": ["The first point took a hint."],
                "nextSteps": ["Start with the open points."]
            })
            .to_string()
        } else if system.contains("You check which recall points") {
            json!({"recalled": recalls_in(&system, &judged(body)), "nearMisses": []}).to_string()
        } else if system.contains("for tangents") {
            let tangent = judged(body).contains("TANGENT");
            json!({"isRabbithole": tangent, "topic": "why the tides rise", "depth": 1,
                   "relatedToCurrentPoint": false, "relatedRecallPointIds": [],
                   "confidence": if tangent { 0.9 } else { 0.1 }, "reasoning": "scripted"})
            .to_string()
        } else if system.contains("took a side conversation") {
            "The learner wondered what pulls the sea.".to_string()
        } else if system.contains("exploring a tangent") {
            "The moon, mostly.".to_string()
        } else {
            "And what else?".to_string()
        };
        Reply::Said(text)
    }
}

async fn scripted_app(wire: Wire, fail: &Arc<AtomicBool>) -> (TestApp, FakeLlm) {
    let fake = FakeLlm::start_with(wire, vec![], Some(Arc::new(answerer(fail.clone())))).await;
    let app = TestApp::on_fake_with(wire, &fake, |c| {
        c.summary_attempts = 2;
        c.summary_backoff_ms = 10;
    })
    .await;
    (app, fake)
}

/// Waits (up to ten seconds) for a session's summary to reach `status`; returns its entry id.
pub(crate) async fn summary_reaches(
    app: &TestApp,
    owner: &LearnerId,
    session: &str,
    status: SummaryStatus,
) -> Option<String> {
    for _ in 0..200 {
        let (now, entry) = app.store().summary_link(owner, session).await.unwrap().expect("the session");
        if now == Some(status) {
            return entry;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the summary of {session} never became {status}");
}

async fn leave(ws: &mut Ws) {
    ws.send(json!({"type": "leave_session"})).await;
    ws.until(|m| matches!(m, ServerMessage::SessionPaused(_) | ServerMessage::SessionComplete(_))).await;
}

/// A hint, a recall after it, a recall unprompted, a rabbit hole; then Leave.
async fn scripted_session(app: &TestApp) -> (String, Vec<Point>) {
    let (session, points) = app.start(CELL).await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    ws.say("I don't know").await;
    ws.say(&format!("Ah: {}", points[0].content)).await;
    ws.say(&format!("Also {}", points[1].content)).await;
    let frames = ws.say("TANGENT: why do the tides rise?").await;
    ws.explore(&frames, "Inside the hole: what pulls the sea?").await;
    leave(&mut ws).await;
    (session, points)
}

/// Another learner's session with a message of their own, left too.
async fn other_learners_session(app: &TestApp) -> (Learner, String) {
    let other = app.sign_up("other").await;
    let (session, _) = app.start_as(&other, CELL).await;
    let mut ws = app.connect_as(Some(&other.cookie), &session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    ws.say("OTHER LEARNER SECRET").await;
    leave(&mut ws).await;
    (other, session)
}

#[tokio::test]
async fn the_summariser_hears_the_real_session_and_its_summary_is_stored_versioned_linked_and_shown() {
    for wire in [Wire::Anthropic, Wire::OpenAi] {
        let fail = Arc::new(AtomicBool::new(false));
        let (app, fake) = scripted_app(wire, &fail).await;
        let (other, other_session) = other_learners_session(&app).await;
        summary_reaches(&app, &other.id, &other_session, SummaryStatus::Ready).await;
        let foreign = app.store().session(app.owner(), &other_session).await.unwrap();
        assert!(foreign.is_none(), "{wire:?}: another learner's session is out of reach");

        let (session, points) = scripted_session(&app).await;
        let leaf = app.store().session(app.owner(), &session).await.unwrap().unwrap().leaf_id;
        let entry_id = summary_reaches(&app, app.owner(), &session, SummaryStatus::Ready).await.unwrap();

        // The request: this session's messages, recalls with how they came, the rabbit hole
        // with its conversation, the open points; nothing of the other learner's.
        let requests: Vec<String> = fake
            .received()
            .iter()
            .filter(|r| system_of(&r.body).contains(SESSION_PROMPT))
            .map(|r| everything(&r.body))
            .filter(|all| all.contains("I don't know"))
            .collect();
        assert_eq!(requests.len(), 1, "{wire:?}: one request for this session");
        let sent = &requests[0];
        assert!(sent.contains(&format!("\"{}\" (after hints)", points[0].content)), "{wire:?}: {sent}");
        assert!(sent.contains(&format!("\"{}\" (unprompted)", points[1].content)), "{wire:?}: {sent}");
        assert!(sent.contains("Rabbit hole \"why the tides rise\""), "{wire:?}: {sent}");
        assert!(sent.contains("Inside the hole: what pulls the sea?"), "{wire:?}: the branch's messages");
        assert!(sent.contains("Still open:") && sent.contains(&points[2].content), "{wire:?}: {sent}");
        assert!(!sent.contains("OTHER LEARNER SECRET"), "{wire:?}: no other learner's words");

        // Stored: a summary entry hanging off the leaf (which stays), versioned, linked.
        let entry = app.store().entry(app.owner(), &session, &entry_id).await.unwrap().unwrap();
        assert_eq!(entry.kind, EntryKind::Summary);
        assert_eq!(entry.parent_id, leaf, "{wire:?}: under the leaf");
        let row = app.store().session(app.owner(), &session).await.unwrap().unwrap();
        assert_eq!(row.leaf_id, leaf, "{wire:?}: the leaf did not move");
        let data = entry.data.clone().unwrap();
        assert_eq!(data["version"], SUMMARY_VERSION);
        let summary = SessionSummary::from_data(&data).unwrap();
        let how: Vec<(String, RecallHow)> =
            summary.recalled.iter().map(|r| (r.point_id.clone(), r.how)).collect();
        assert_eq!(
            how,
            vec![
                (points[0].id.clone(), RecallHow::AfterHints),
                (points[1].id.clone(), RecallHow::Unprompted)
            ]
        );
        assert_eq!(summary.rabbitholes[0].topic, "why the tides rise");
        assert_eq!(summary.rabbitholes[0].came_up, "The moon and the sun.");
        assert_eq!(summary.overview, "Scripted overview of the session.");
        assert_eq!(entry.content, summary.text());

        // Shown: the history page above the tree, the dashboard, the list's search.
        let (status, page) = app.page(&format!("/history/{session}")).await;
        assert_eq!(status, 200);
        let summary_at = page.find("data-testid=\"session-summary\"").expect("a summary section");
        assert!(summary_at < page.find("data-testid=\"transcript\"").unwrap(), "{wire:?}: above the tree");
        assert!(page.contains("Scripted overview of the session."));
        assert!(page.contains("Start with the open points."));
        let (_, dashboard) = app.page("/").await;
        assert!(dashboard.contains("data-testid=\"left-off\""), "{wire:?}");
        assert!(dashboard.contains("Scripted overview of the session."), "{wire:?}");
        assert!(dashboard.contains(&format!("/history/{session}#summary")), "{wire:?}");
        let (_, found) = app.page("/history?q=moon+sun").await;
        assert!(found.contains(&format!("/history/{session}")), "{wire:?}: found by its summary");
        let (_, missed) = app.page("/history?q=OTHER+LEARNER").await;
        assert!(!missed.contains(&format!("/history/{other_session}")), "{wire:?}");

        // The next session's opening is asked to refer to this one, in words, not points.
        let (next, _) = app.start(CELL).await;
        let mut ws = app.connect(&next).await;
        ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
        let opening = fake
            .received()
            .iter()
            .map(|r| system_of(&r.body))
            .find(|system| system.contains("previous session of this set ended"))
            .expect("an opening that recaps");
        assert!(
            opening.contains("the learner stopped partway, and explored \"why the tides rise\""),
            "{opening}"
        );
        assert!(opening.contains("starting \"Last time\""), "{opening}");
    }
}

#[tokio::test]
async fn a_failing_summariser_is_retried_then_shown_as_unavailable_and_retry_writes_it() {
    let fail = Arc::new(AtomicBool::new(true));
    let (app, fake) = scripted_app(Wire::OpenAi, &fail).await;
    let (session, _) = scripted_session(&app).await;
    assert_eq!(summary_reaches(&app, app.owner(), &session, SummaryStatus::Failed).await, None);
    let tries = fake.received().iter().filter(|r| system_of(&r.body).contains(SESSION_PROMPT)).count();
    assert_eq!(tries, 2, "tried as often as configured");
    let (_, page) = app.page(&format!("/history/{session}")).await;
    assert!(page.contains("Summary unavailable"), "never a silent gap");
    assert!(page.contains(&format!("action=\"/history/{session}/summary\"")));

    // Another learner's Retry reaches nothing.
    let other = app.sign_up("other").await;
    let res = app.post_form_as(&other, &format!("/history/{session}/summary"), &[]).await;
    assert_eq!(res.status(), 404);

    // What a page waiting for the summary asks: done (failed), and nothing for another learner.
    let status = |learner: Learner| {
        let (http, url) = (app.http.clone(), app.url(&format!("/history/{session}/summary")));
        async move {
            let res = http.get(url).header("cookie", &learner.cookie).send().await.unwrap();
            (res.status().as_u16(), res.text().await.unwrap())
        }
    };
    assert_eq!(status(app.learner.clone()).await, (200, "failed".to_string()));
    assert_eq!(status(other.clone()).await.0, 404);
    app.store().mark_summary_pending(app.owner(), &session).await.unwrap();
    assert_eq!(status(app.learner.clone()).await, (202, "pending".to_string()));

    fail.store(false, Ordering::SeqCst);
    let res = app.post_form(&format!("/history/{session}/summary"), &[]).await;
    assert_eq!(res.status(), 303);
    assert_eq!(res.headers()["location"], format!("/history/{session}#summary").as_str());
    // Retry waits for the summary before it shows the page again.
    let (status, entry) = app.store().summary_link(app.owner(), &session).await.unwrap().unwrap();
    assert_eq!(status, Some(SummaryStatus::Ready));
    assert!(entry.is_some());
    let (_, page) = app.page(&format!("/history/{session}")).await;
    assert!(page.contains("Scripted overview of the session.") && !page.contains("Summary unavailable"));
}

#[tokio::test]
async fn offline_the_summary_names_what_happened_and_the_next_opening_recalls_it_without_giving_points_away()
{
    let app = TestApp::spawn().await;
    let session = crate::history::session_with_a_rabbit_hole(&app).await;
    let set = app.store().list_sets(app.owner(), i64::MAX).await.unwrap();
    let set = set.iter().find(|s| s.name == CELL).unwrap();
    let points = app.store().points(app.owner(), &set.id).await.unwrap();
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::SessionStarted(_))).await;
    ws.say(&points[1].content).await;
    leave(&mut ws).await;
    drop(ws);
    let entry_id = summary_reaches(&app, app.owner(), &session, SummaryStatus::Ready).await.unwrap();
    let entry = app.store().entry(app.owner(), &session, &entry_id).await.unwrap().unwrap();
    let summary = SessionSummary::from_data(entry.data.as_ref().unwrap()).unwrap();
    let outcomes = app.store().outcomes(app.owner(), &session).await.unwrap();
    assert!(!outcomes.is_empty(), "the scripted session recalls a point");
    let text = &entry.content;
    for point in &points {
        // Every point of the session is named: recalled or still open.
        assert!(text.contains(point.content.trim()), "{} in {text}", point.content);
    }
    let recalled: Vec<&str> = summary.recalled.iter().map(|r| r.point_id.as_str()).collect();
    let stored: Vec<&str> = outcomes.iter().map(|o| o.point_id.as_str()).collect();
    assert_eq!(recalled, stored);
    assert_eq!(summary.open.len(), points.len() - outcomes.len());
    let topic = &summary.rabbitholes[0].topic;
    assert!(text.contains(topic.as_str()) && summary.overview.contains(topic.as_str()), "{text}");
    assert!(
        summary.rabbitholes[0].came_up.contains("swallowed whole"),
        "the learner's question: {summary:?}"
    );
    assert!(!summary.next_steps.is_empty() && summary.next_steps.len() <= 3);

    // The rabbit hole's note for the tutor is the summariser's: the learner's own question.
    let (_, tree) = app.store().tree(app.owner(), &session).await.unwrap().unwrap();
    let note = tree.entries.iter().find(|e| e.kind == EntryKind::BranchSummary).unwrap();
    assert!(note.content.starts_with("The learner explored"), "{}", note.content);
    assert!(note.content.contains("swallowed whole"), "{}", note.content);

    // The summary travels with the session's file, and comes back linked.
    let res = app
        .http
        .get(app.url(&format!("/history/{session}/export.jsonl")))
        .header("cookie", &app.learner.cookie)
        .send()
        .await
        .unwrap();
    let file = res.bytes().await.unwrap().to_vec();
    let elsewhere = TestApp::spawn().await;
    let res = elsewhere.upload_import_as(&elsewhere.learner, "session.jsonl", file).await;
    assert_eq!(res.status(), 303);
    let link = elsewhere.store().summary_link(elsewhere.owner(), &session).await.unwrap().unwrap();
    assert_eq!(link, (Some(SummaryStatus::Ready), Some(entry_id.clone())));
    let (_, page) = elsewhere.page(&format!("/history/{session}")).await;
    assert!(page.contains(summary.overview.as_str()), "the imported summary is shown");

    // Resumed: a recap of where it stopped.
    let mut ws = app.connect(&session).await;
    let resumed = reply_of(&ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await);
    assert!(resumed.starts_with("Welcome back to the living cell."), "{resumed}");
    drop(ws);

    // The next session of the set opens from the summary, and gives no point away.
    let (next, _) = app.start(CELL).await;
    let mut ws = app.connect(&next).await;
    let opening = reply_of(&ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await);
    assert!(
        opening.starts_with("Last time (just now) we stopped partway through the living cell."),
        "{opening}"
    );
    let lower = opening.to_lowercase();
    for point in &points {
        assert!(!lower.contains(&point.content.to_lowercase()), "{} in {opening}", point.content);
    }

    // Replaced by the next session, the resumed one is summed up again, saying so.
    let mut replaced = None;
    for _ in 0..200 {
        let link = app.store().summary_link(app.owner(), &session).await.unwrap().unwrap();
        if link.0 == Some(SummaryStatus::Ready) && link.1.as_ref().is_some_and(|id| *id != entry_id) {
            replaced = link.1;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let replaced = replaced.expect("a new summary for the replaced session");
    let entry = app.store().entry(app.owner(), &session, &replaced).await.unwrap().unwrap();
    let summary: SessionSummary = serde_json::from_value(entry.data.unwrap()).unwrap();
    assert!(
        summary.abandoned && summary.overview.contains("ended when you started a new one"),
        "{summary:?}"
    );

    // `warren summaries` prints it.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_warren"))
        .args(["summaries", "--user", "learner", "--set", CELL])
        .env("DATABASE_URL", &app.database_url)
        .env("WARREN_LOG", "error")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let printed = String::from_utf8(out.stdout).unwrap();
    assert!(printed.starts_with(&format!("## {CELL} · ")), "{printed}");
    assert!(printed.contains(summary.overview.as_str()), "{printed}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_warren"))
        .args(["summaries", "--user", "nobody"])
        .env("DATABASE_URL", &app.database_url)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no learner called"));
}

/// Takes a fresh session of "The living cell" into a rabbit hole and asks one question there.
async fn into_a_rabbit_hole(app: &TestApp, session: &str) -> String {
    let mut ws = app.connect(session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    let hole = ws.enter_the_mitochondria_hole().await;
    ws.say("Were they bacteria once, swallowed whole?").await;
    hole.rabbithole_event_id
}

/// What a replaced session leaves: its rabbit hole returned with the conversation kept, and a
/// summary that says it was replaced.
async fn replaced_as_it_should_be(app: &TestApp, session: &str, hole: &str) {
    summary_reaches(app, app.owner(), session, SummaryStatus::Ready).await;
    let row = app.store().rabbithole(app.owner(), hole).await.unwrap().unwrap();
    assert_eq!(row.status, warren::store::RabbitholeStatus::Returned);
    let conversation = row.conversation.expect("the explorer's conversation kept").to_string();
    assert!(conversation.contains("swallowed whole"), "{conversation}");
    let (_, entry) = app.store().summary_link(app.owner(), session).await.unwrap().unwrap();
    let entry = app.store().entry(app.owner(), session, &entry.unwrap()).await.unwrap().unwrap();
    let summary: SessionSummary = serde_json::from_value(entry.data.unwrap()).unwrap();
    assert!(summary.abandoned, "{summary:?}");
    assert!(summary.overview.contains("ended when you started a new one"), "{}", summary.overview);
    assert_eq!(summary.rabbitholes.len(), 1, "its rabbit hole is in it: {summary:?}");
    let stored = app.store().session(app.owner(), session).await.unwrap().unwrap();
    assert_eq!(stored.state.status, warren_app::protocol::SessionStatus::Abandoned);
}

#[tokio::test]
async fn a_session_replaced_inside_a_rabbit_hole_keeps_the_hole_and_gets_a_summary_that_says_so() {
    let app = TestApp::spawn().await;
    let (first, _) = app.start("The living cell").await;
    let hole = into_a_rabbit_hole(&app, &first).await;
    let set = app.store().session(app.owner(), &first).await.unwrap().unwrap().set_id.expect("a set session");
    // Its actor runs here: it closes the hole itself.
    let second = app.engine.start_session(app.owner(), &set, true).await.unwrap();
    replaced_as_it_should_be(&app, &first, &hole).await;

    // No actor runs the next one here (as on an instance that never had it): the engine
    // closes it from its rows.
    let hole = into_a_rabbit_hole(&app, &second.id).await;
    let elsewhere = warren::engine::Engine::new(
        app.store().clone(),
        Arc::new(warren::llm::offline::Offline::new(Duration::ZERO, None)),
        warren::engine::EngineConfig::default(),
    );
    elsewhere.start_session(app.owner(), &set, true).await.unwrap();
    replaced_as_it_should_be(&app, &second.id, &hole).await;
}

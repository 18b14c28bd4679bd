//! Several instances on one database (PostgreSQL in scripts/test's second run, one SQLite
//! file in the first): one instance at a time runs a live session, a newer socket at another
//! instance takes it over, a killed holder's sessions are taken over once its lease lapses,
//! sign-in limits are shared, and instances starting together on an empty database migrate
//! once and all come up.

use std::time::{Duration, Instant};

use warren::store::Speaker;
use warren_app::protocol::{ErrorCode, ServerMessage};

use crate::common::process::Process;
use crate::common::{PASSWORD, TestApp, Ws, fresh_database, socket_at};

fn complete(m: &ServerMessage) -> bool {
    matches!(m, ServerMessage::AssistantComplete(_))
}

async fn say(ws: &mut Ws, id: &str, content: &str) {
    ws.send(serde_json::json!({"type": "user_message", "content": content, "clientMessageId": id})).await;
}

/// The socket was closed by the server (after whatever it sent last).
async fn closed(ws: &mut Ws) -> bool {
    use futures_util::StreamExt;
    loop {
        match tokio::time::timeout(Duration::from_secs(10), ws.stream.next()).await {
            Ok(None | Some(Err(_)) | Some(Ok(tokio_tungstenite::tungstenite::Message::Close(_)))) => {
                return true;
            }
            Ok(Some(Ok(_))) => continue,
            Err(_) => return false,
        }
    }
}

#[tokio::test]
async fn one_instance_at_a_time_runs_a_session_and_a_killed_one_is_taken_over() {
    let app = TestApp::spawn().await;
    let (session, _) = app.start("The living cell").await;
    let a =
        Process::serve(&app.database_url, &[("WARREN_INSTANCE_ID", "a"), ("WARREN_OFFLINE_DELAY_MS", "20")])
            .await;
    let mut b =
        Process::serve(&app.database_url, &[("WARREN_INSTANCE_ID", "b"), ("WARREN_OFFLINE_DELAY_MS", "20")])
            .await;
    let cookie = Some(app.learner.cookie.as_str());
    let path = format!("/ws/sessions/{session}");

    // On instance a (the sign-in cookie works on every instance): the opening and a turn.
    let mut on_a = socket_at(&a.addr, cookie, &path).await;
    on_a.until(complete).await;
    say(&mut on_a, "m1", "Is it the nucleus?").await;
    on_a.until(complete).await;
    let ready = a.readyz().await;
    assert_eq!((ready["instance"].as_str(), ready["sessions"].as_u64()), (Some("a"), Some(1)), "{ready}");

    // A newer socket at instance b takes the session over, as a newer tab does on one instance:
    // a's socket is told why and closed, and b's gets the whole state.
    let mut on_b = socket_at(&b.addr, cookie, &path).await;
    let told = on_a.until(|m| matches!(m, ServerMessage::Error(_))).await;
    let Some(ServerMessage::Error(error)) = told.last() else { unreachable!() };
    assert_eq!(error.code, ErrorCode::SessionTakenOver);
    assert!(closed(&mut on_a).await, "the older socket is closed");
    let first = on_b.next().await;
    assert!(matches!(first, ServerMessage::SessionStarted(_)), "{first:?}");
    assert_eq!(a.readyz().await["sessions"], 0);
    assert_eq!(b.readyz().await["sessions"], 1);
    say(&mut on_b, "m2", "Then the membrane?").await;
    on_b.until(complete).await;

    // Instance b dies mid-reply; a socket at a waits for b's lease to lapse, then a runs the
    // session from what is stored and answers the message b could not.
    say(&mut on_b, "m3", "And the ribosome makes proteins.").await;
    on_b.until(|m| matches!(m, ServerMessage::AssistantChunk(_))).await;
    b.kill();
    let asked = Instant::now();
    let mut again = socket_at(&a.addr, cookie, &path).await;
    let frames = again.until(complete).await;
    let took = asked.elapsed();
    assert!(matches!(frames.first(), Some(ServerMessage::SessionStarted(_))), "{frames:?}");
    assert!(took < Duration::from_secs(12), "taken over in {took:?}");
    assert_eq!(a.readyz().await["sessions"], 1);

    // Nothing lost, nothing twice: each learner message once, each answered exactly once.
    let entries = app.store().entries(app.owner(), &session).await.unwrap();
    let ids: Vec<&str> = entries.iter().filter_map(|e| e.client_message_id.as_deref()).collect();
    assert_eq!(ids, ["m1", "m2", "m3"]);
    let mut replies_after = Vec::new();
    for entry in entries.iter().filter(|e| e.kind == warren::store::EntryKind::Message) {
        match entry.speaker {
            Some(Speaker::Learner) => replies_after.push(0),
            Some(Speaker::Tutor | Speaker::Explorer) => {
                if let Some(n) = replies_after.last_mut() {
                    *n += 1;
                }
            }
            None => {}
        }
    }
    assert_eq!(replies_after, [1, 1, 1], "one reply to each message");
}

#[tokio::test]
async fn sign_in_limits_are_shared_by_every_instance() {
    let app = TestApp::spawn().await;
    let other = app.another_instance().await;
    let sign_in = |on: &TestApp, password: &str| {
        let request =
            on.http.post(on.url("/auth/signin")).form(&[("username", "learner"), ("password", password)]);
        async move { request.send().await.unwrap().headers()["location"].to_str().unwrap().to_string() }
    };
    // Ten wrong guesses, spread over both instances, spend the account's allowance.
    for i in 0..10 {
        let on = if i % 2 == 0 { &app } else { &other };
        let went = sign_in(on, &format!("guess {i}")).await;
        assert!(went.contains("error=invalid"), "guess {i}: {went}");
    }
    assert!(sign_in(&app, PASSWORD).await.contains("error=throttled"));
    assert!(sign_in(&other, PASSWORD).await.contains("error=throttled"));
}

#[tokio::test]
async fn instances_starting_together_on_an_empty_database_migrate_once_and_all_come_up() {
    let dir = tempfile::tempdir().unwrap();
    let database = fresh_database(&dir).await;
    let started: Vec<Process> = (0..3).map(|_| Process::start(&database, &[])).collect();
    for process in &started {
        process.wait_ready().await;
        let ready = process.readyz().await;
        assert_eq!(ready["ready"], true, "{ready}");
    }
    let store = warren::store::Store::open(&database).await.unwrap();
    let migrations = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations")).unwrap().count();
    assert_eq!(store.applied_migrations().await.unwrap(), migrations, "every migration applied once");
}

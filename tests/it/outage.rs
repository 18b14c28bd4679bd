//! The database goes away while learners are mid-session and comes back: PostgreSQL stopped
//! and started again (a server of the test's own), and SQLite locked by another process for a
//! few seconds (the tests run as root, whom a read-only folder does not stop; a lock held by
//! another connection is what makes the file unwritable to Warren). Throughout: a message
//! that cannot be stored is refused with `STORAGE_UNAVAILABLE`, naming it, so its text goes
//! back into the box; `/readyz` says nothing can be saved; a socket kept past the lease's lapse
//! is closed with 1013 so the page tries again; once the database is back, the page's retry
//! opens the session, its message is stored once, and nothing acknowledged was lost.

use std::time::{Duration, Instant};

use serde_json::json;
use sqlx::Connection;
use warren_app::protocol::{ErrorCode, ServerMessage};

use crate::common::pg::PgServer;
use crate::common::{TestApp, Ws, reply_of};

const CELL: &str = "The living cell";

fn message(id: &str, content: &str) -> serde_json::Value {
    json!({"type": "user_message", "content": content, "clientMessageId": id})
}

/// The page's retry: a socket again until the session opens, as the page does with its backoff.
async fn reopened(app: &TestApp, session: &str, within: Duration) -> Ws {
    let deadline = Instant::now() + within;
    loop {
        let mut ws = app.connect(session).await;
        match ws.next().await {
            ServerMessage::SessionStarted(_) => return ws,
            ServerMessage::Error(e) => {
                assert_eq!(e.code, ErrorCode::StorageUnavailable, "{e:?}");
                assert!(
                    Instant::now() < deadline,
                    "the session did not open again once the database was back"
                );
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            other => panic!("{other:?}"),
        }
    }
}

async fn ready(app: &TestApp) -> (u16, serde_json::Value) {
    let res = app.http.get(app.url("/readyz")).send().await.unwrap();
    (res.status().as_u16(), res.json().await.unwrap_or_default())
}

/// What every outage is put through: `away` takes the database away, `back` brings it back.
async fn outage(app: &TestApp, away: impl AsyncFnOnce(), back: impl AsyncFnOnce()) {
    let (session, points) = app.start(CELL).await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    ws.send(message("m1", &points[0].content)).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;

    away().await;
    // A message now cannot be stored: refused by name, its text for the box; nothing queued.
    ws.send(message("m2", "Said while the database is away.")).await;
    let frames = ws.until(|m| matches!(m, ServerMessage::Error(_))).await;
    let Some(ServerMessage::Error(refused)) = frames.last() else { unreachable!() };
    assert_eq!(
        (refused.code, refused.client_message_id.as_deref()),
        (ErrorCode::StorageUnavailable, Some("m2"))
    );
    assert!(refused.recoverable && refused.message.starts_with("Saving is paused"), "{refused:?}");
    // Readiness says so within a heartbeat or two.
    let mut said = false;
    for _ in 0..40 {
        let (status, body) = ready(app).await;
        if status == 503 {
            let checks = body["checks"].as_array().cloned().unwrap_or_default();
            said =
                checks.iter().any(|c| c["ok"] == false && (c["name"] == "writes" || c["name"] == "database"));
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(said, "/readyz says the database is away");
    // Past the lease's lapse the session stops here and the page is told to try again.
    let code = ws.close_code(Duration::from_secs(15)).await;
    assert_eq!(code, Some(1013), "closed so the page tries again");

    back().await;
    let mut ws = reopened(app, &session, Duration::from_secs(30)).await;
    // The page sends the message it got back, and it is stored once and answered.
    ws.send(message("m2", "Said while the database is away.")).await;
    let frames =
        ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_) | ServerMessage::Error(_))).await;
    assert!(!reply_of(&frames).is_empty(), "{frames:?}");
    let entries = app.store().entries(app.owner(), &session).await.unwrap();
    let ids: Vec<&str> = entries.iter().filter_map(|e| e.client_message_id.as_deref()).collect();
    assert_eq!(ids, ["m1", "m2"], "every acknowledged message once, the refused one once it could be stored");
    // Ready again once a heartbeat has been written.
    let mut status = 0;
    for _ in 0..40 {
        status = ready(app).await.0;
        if status == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(status, 200);
}

#[tokio::test]
async fn sqlite_locked_by_another_process_pauses_saving_and_the_session_goes_on_by_itself() {
    // A short wait for the lock, so writes give up within the test's time.
    let app = TestApp::spawn_sqlite_with(|c| c.db_statement_timeout_ms = 300).await;
    let file = app.database_url.clone();
    let holder = std::sync::Arc::new(tokio::sync::Mutex::new(None::<sqlx::AnyConnection>));
    let (away, back) = (holder.clone(), holder);
    outage(
        &app,
        async move || {
            sqlx::any::install_default_drivers();
            let mut other = sqlx::AnyConnection::connect(&file).await.unwrap();
            sqlx::query("BEGIN EXCLUSIVE").execute(&mut other).await.unwrap();
            *away.lock().await = Some(other);
        },
        async move || {
            if let Some(mut other) = back.lock().await.take() {
                sqlx::query("ROLLBACK").execute(&mut other).await.unwrap();
                let _ = other.close().await;
            }
        },
    )
    .await;
}

#[tokio::test]
async fn postgresql_stopped_and_started_pauses_saving_and_the_session_goes_on_by_itself() {
    let server = std::sync::Arc::new(PgServer::start());
    let dir = tempfile::tempdir().unwrap();
    let app = TestApp::spawn_at(dir, server.url(), |_| {}).await;
    let (away, back) = (server.clone(), server.clone());
    outage(&app, async move || away.down(), async move || back.up()).await;
    drop(server);
}

//! `warren backup` while learners are mid-session, and `warren restore`, run as an operator
//! runs them: the real command on the test's database.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use warren::store::{EntryKind, Store};

use crate::common::TestApp;

fn warren(database_url: &str, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_warren"))
        .args(args)
        .env("DATABASE_URL", database_url)
        .env("WARREN_LLM", "offline")
        .output()
        .unwrap()
}

fn said(out: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[tokio::test]
async fn a_backup_taken_while_learners_talk_restores_with_every_message_answered_before_it() {
    let app = TestApp::spawn().await;
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy.db");
    let copy_path = copy.to_str().unwrap();
    if app.database_url.starts_with("postgres") {
        let out = warren(&app.database_url, &["backup", copy_path]);
        assert!(!out.status.success());
        assert!(said(&out).contains("for PostgreSQL use pg_dump and pg_restore"), "{}", said(&out));
        return;
    }
    // Three learners' sessions talking all the while (the demo sets, one session each).
    let answered: Arc<std::sync::Mutex<Vec<(String, String)>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let mut talking = Vec::new();
    for set in ["The living cell", "Rome: from republic to empire", "Searching and sorting"] {
        let (session, _) = app.start(set).await;
        let mut ws = app.connect(&session).await;
        ws.until(|m| matches!(m, warren_app::protocol::ServerMessage::AssistantComplete(_))).await;
        let (answered, stop) = (answered.clone(), stop.clone());
        talking.push(tokio::spawn(async move {
            let mut i = 0;
            while !stop.load(Ordering::Relaxed) {
                let text = format!("In {session}, message number {i}, said while a backup may be running.");
                ws.say(&text).await;
                answered.lock().unwrap().push((session.clone(), text));
                i += 1;
            }
        }));
    }
    // Until each session has been answered a few times.
    for _ in 0..600 {
        if answered.lock().unwrap().len() >= 6 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let before: Vec<(String, String)> = answered.lock().unwrap().clone();
    assert!(before.len() >= 6, "the sessions talk: {before:?}");
    let url = app.database_url.clone();
    let args = ["backup".to_string(), copy_path.to_string()];
    let out = tokio::task::spawn_blocking(move || warren(&url, &[&args[0], &args[1]])).await.unwrap();
    assert!(out.status.success(), "{}", said(&out));
    assert!(said(&out).contains("its integrity checks out"), "{}", said(&out));
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.store(true, Ordering::Relaxed);
    for task in talking {
        task.await.unwrap();
    }
    assert!(answered.lock().unwrap().len() > before.len(), "they went on talking during the backup");

    // A second copy to the same file is refused, and leaves the first as it was.
    let bytes = std::fs::read(&copy).unwrap();
    let out = warren(&app.database_url, &["backup", copy_path]);
    assert!(!out.status.success());
    assert!(said(&out).contains("exists already: name a new file for the copy"), "{}", said(&out));
    assert_eq!(std::fs::read(&copy).unwrap(), bytes);

    // The database Warren serves from is held: restoring over it is refused.
    let out = warren(&app.database_url, &["restore", copy_path]);
    assert!(!out.status.success());
    assert!(said(&out).contains("an instance of Warren holds"), "{}", said(&out));

    // Restored where nothing serves, it holds every message answered before the backup began.
    let restored = format!("sqlite://{}", dir.path().join("restored.db").display());
    let out = warren(&restored, &["restore", copy_path]);
    assert!(out.status.success(), "{}", said(&out));
    assert!(said(&out).contains("its integrity checks out"), "{}", said(&out));
    let store = Store::open(&restored).await.unwrap();
    for (session, text) in &before {
        let entries = store.entries(app.owner(), session).await.unwrap();
        let kept = entries.iter().filter(|e| e.kind == EntryKind::Message && &e.content == text).count();
        assert_eq!(kept, 1, "{text} in the copy");
    }
    assert_eq!(store.applied_migrations().await.unwrap(), app.store().applied_migrations().await.unwrap());

    // A file that is not a sound database is refused before anything changes.
    let junk = dir.path().join("junk.db");
    std::fs::write(&junk, b"this is not a database").unwrap();
    let out = warren(&restored, &["restore", junk.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(said(&out).contains("is not a sound SQLite database"), "{}", said(&out));
}

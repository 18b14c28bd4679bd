//! Start-up, health and readiness, against the real app and the real binary.

use std::process::Command;

use crate::common::TestApp;

#[tokio::test]
async fn readyz_reports_each_check() {
    let app = TestApp::spawn().await;
    let res = app.http.get(app.url("/readyz")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["ready"], true, "{body}");
    let checks = body["checks"].as_array().unwrap();
    let names: Vec<&str> = checks.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"database") && names.contains(&"migrations"), "{body}");
    assert!(checks.iter().all(|c| c["ok"] == true), "{body}");
}

#[tokio::test]
async fn healthz_and_server_rendered_pages() {
    let app = TestApp::spawn().await;
    let res = app.http.get(app.url("/healthz")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.text().await.unwrap(), "ok");

    // Not signed in: pages send the visitor to sign in.
    let res = app.http.get(app.url("/sets")).send().await.unwrap();
    assert_eq!(res.status(), 303);
    assert_eq!(res.headers()["location"], "/signin?next=/sets");
    let sign_in = app.http.get(app.url("/signin")).send().await.unwrap().text().await.unwrap();
    assert!(sign_in.contains(r#"action="/auth/signin""#), "{sign_in}");

    // Signed in: rendered on the server, with the hydration script.
    let html = app
        .http
        .get(app.url("/"))
        .header("cookie", &app.learner.cookie)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(html.contains("<h1>Dashboard</h1>"), "{html}");
    assert!(html.contains("The living cell"), "the learner's demo sets: {html}");
    assert!(html.contains(r#"rel="modulepreload" href="/pkg/warren."#), "hydration script missing: {html}");

    let res = app.http.get(app.url("/nowhere")).header("cookie", &app.learner.cookie).send().await.unwrap();
    assert_eq!(res.status(), 404);
}

#[test]
fn an_unusable_database_url_stops_start_up_with_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    // A regular file where the database directory should be: it cannot be created.
    let blocker = dir.path().join("not-a-dir");
    std::fs::write(&blocker, b"").unwrap();
    let url = format!("sqlite://{}/db/warren.db", blocker.display());

    let out = Command::new(env!("CARGO_BIN_EXE_warren"))
        .args(["serve", "--addr", "127.0.0.1:0"])
        .env("DATABASE_URL", &url)
        .env("RUST_BACKTRACE", "1")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "expected one line, got: {stderr}");
    assert!(lines[0].contains("cannot create the database directory"), "{stderr}");
    assert!(lines[0].contains("DATABASE_URL"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn an_unknown_database_scheme_is_explained() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_warren"))
        .arg("migrate")
        .env("DATABASE_URL", "mysql://localhost/warren")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("must start with sqlite:// or postgres://"), "{stderr}");
}

#[test]
fn migrate_creates_the_database_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_warren"))
        .arg("migrate")
        .env("DATABASE_URL", "sqlite://data/nested/warren.db")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(dir.path().join("data/nested/warren.db").is_file());
}

/// Commits never checkpoint SQLite's write-ahead log themselves (that stalled one turn in a
/// hundred); the store's own checkpointer copies it into the database file in the background.
#[tokio::test]
async fn the_write_ahead_log_reaches_the_database_file_without_a_commit_waiting_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.db");
    let store = warren::store::Store::open(&format!("sqlite://{}", path.display())).await.unwrap();
    store.migrate().await.unwrap();
    let owner = store.create_account("learner", "not-a-real-hash").await.unwrap().unwrap();
    let before = std::fs::metadata(&path).unwrap().len();
    for i in 0..40 {
        let set = warren::store::NewSet {
            name: format!("Set {i}"),
            description: "x".repeat(4000),
            ..Default::default()
        };
        store.create_set(&owner, &set).await.unwrap();
    }
    // The store stays open, so nothing else checkpoints: the file grows only if it works.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::fs::metadata(&path).unwrap().len() < before + 100_000 {
        assert!(std::time::Instant::now() < deadline, "the database file never took in the log");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn without_the_sentence_model_warren_starts_judges_by_words_and_says_so() {
    let app = TestApp::spawn_with(|c| c.llm.model_dir = "no/such/model".into()).await;
    let body: serde_json::Value =
        app.http.get(app.url("/readyz")).send().await.unwrap().json().await.unwrap();
    assert_eq!(body["ready"], true, "{body}");
    let judge = body["checks"].as_array().unwrap().iter().find(|c| c["name"] == "judge").unwrap().clone();
    assert_eq!(judge["ok"], false, "{body}");
    let detail = judge["detail"].as_str().unwrap();
    assert!(detail.contains("word matching") && detail.contains("scripts/install-model"), "{detail}");
    let (_, dashboard) = app.page("/").await;
    assert!(dashboard.contains("by matching words only"), "the dashboard's notice says so");
    assert!(dashboard.contains("scripts/install-model"), "and how to install the model");

    // The session works, on words alone.
    let (session, points) = app.start("The living cell").await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, warren_app::protocol::ServerMessage::AssistantComplete(_))).await;
    let frames = ws.say(&points[0].content).await;
    assert_eq!(crate::common::recalled_ids(&frames), [points[0].id.clone()]);
}

#[tokio::test]
async fn with_the_sentence_model_the_judges_compare_meaning_and_say_so() {
    let app = TestApp::spawn().await;
    let body: serde_json::Value =
        app.http.get(app.url("/readyz")).send().await.unwrap().json().await.unwrap();
    let judge = body["checks"].as_array().unwrap().iter().find(|c| c["name"] == "judge").unwrap().clone();
    assert_eq!(judge["ok"], true, "the model is installed (scripts/install-model): {body}");
    assert!(judge["detail"].as_str().unwrap().contains("all-MiniLM-L6-v2"), "{body}");
    assert!(judge["detail"].as_str().unwrap().contains("WordNet's nouns loaded"), "{body}");
    let (_, dashboard) = app.page("/").await;
    assert!(dashboard.contains("its sentence model is loaded"), "the dashboard's notice says so");
}

#[tokio::test]
async fn readyz_and_the_pages_notice_follow_the_provider_after_start_up() {
    use crate::common::fake_llm::{FakeLlm, Reply, Wire};
    let fake = FakeLlm::start_with(
        Wire::Anthropic,
        vec![],
        Some(std::sync::Arc::new(|_: &serde_json::Value| Reply::Said("What comes to mind?".into()))),
    )
    .await;
    fake.set_down(true);
    let app = TestApp::on_fake_with(Wire::Anthropic, &fake, |c| c.llm.provider_recheck_secs = 1).await;
    let llm = || async {
        let body: serde_json::Value =
            app.http.get(app.url("/readyz")).send().await.unwrap().json().await.unwrap();
        let check = body["checks"].as_array().unwrap().iter().find(|c| c["name"] == "llm").unwrap().clone();
        check["ok"] == true
    };
    let notice_down = || async { app.page("/").await.1.contains("The language model is not answering") };
    assert!(!llm().await, "down at start-up");
    assert!(notice_down().await);

    // Back: the background check sees it within its interval.
    fake.set_down(false);
    let mut up = false;
    for _ in 0..60 {
        if llm().await {
            up = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(up, "the background check saw the provider answer");
    assert!(!notice_down().await, "and the pages say so");

    // Down again: a real reply fails, and the check that follows says so.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    fake.set_down(true);
    let (session, _) = app.start("The living cell").await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, warren_app::protocol::ServerMessage::Error(_))).await;
    let mut down = false;
    for _ in 0..60 {
        if !llm().await {
            down = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(down, "a failed reply led to a check that found it down");
    assert!(notice_down().await);
}

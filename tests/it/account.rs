//! The account page: changing the password ends every other sign-in, sign-ins are listed
//! with where they began and can be ended one by one or all but this one, and none of it
//! reaches another learner's sign-ins.

use warren_app::learner::LearnerId;
use warren_app::protocol::{ErrorCode, ServerMessage};

use crate::common::{PASSWORD, TestApp, session_cookie};

const FIREFOX: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

/// Signs in as `username` with the given browser; its sign-in cookie.
async fn sign_in_with(app: &TestApp, username: &str, password: &str, agent: &str) -> Option<String> {
    let res = app
        .http
        .post(app.url("/auth/signin"))
        .header("user-agent", agent)
        .form(&[("username", username), ("password", password)])
        .send()
        .await
        .unwrap();
    (res.headers()["location"] == "/").then(|| session_cookie(&res)).flatten()
}

/// The account page as `cookie` sees it; `None` when it is sent to sign in.
async fn account(app: &TestApp, cookie: &str) -> Option<String> {
    let res = app.http.get(app.url("/account")).header("cookie", cookie).send().await.unwrap();
    (res.status() == 200).then_some(res.text().await.unwrap())
}

async fn post(app: &TestApp, cookie: &str, path: &str, form: &[(&str, &str)]) -> reqwest::Response {
    app.http.post(app.url(path)).header("cookie", cookie).form(form).send().await.unwrap()
}

fn location(res: &reqwest::Response) -> String {
    res.headers()["location"].to_str().unwrap().to_string()
}

/// The `ref` of each sign-in listed on the page that has a sign-out form (every one but the
/// page's own).
fn other_refs(html: &str) -> Vec<String> {
    html.split("/account/sign-ins/")
        .skip(1)
        .filter_map(|rest| rest.split_once("/end\"").map(|(id, _)| id.to_string()))
        .collect()
}

#[tokio::test]
async fn changing_the_password_ends_every_other_sign_in() {
    let app = TestApp::spawn().await;
    let here = app.learner.cookie.clone();
    let elsewhere = sign_in_with(&app, "learner", PASSWORD, FIREFOX).await.expect("signed in");

    // Both sign-ins are listed; this one is marked and has no sign-out button of its own.
    let page = account(&app, &here).await.unwrap();
    assert_eq!(page.matches("data-testid=\"sign-in\"").count(), 2, "{page}");
    assert_eq!(page.matches("data-current=\"true\"").count(), 1, "{page}");
    assert!(page.contains("Firefox on Linux") && page.contains("127.0.0.1"), "{page}");
    assert_eq!(other_refs(&page).len(), 1);

    // Refusals change nothing and say why.
    let wrong = post(
        &app,
        &here,
        "/account/password",
        &[("current", "not it at all"), ("new", "tea with the analytical engine")],
    )
    .await;
    assert_eq!(location(&wrong), "/account?error=current#password");
    let weak =
        post(&app, &here, "/account/password", &[("current", PASSWORD), ("new", "Password-123")]).await;
    assert_eq!(location(&weak), "/account?error=common#password");
    assert!(account(&app, &elsewhere).await.is_some(), "still signed in elsewhere");

    // A session open in the other browser.
    let (session, _) = app.start("The living cell").await;
    let mut studying = app.connect_as(Some(&elsewhere), &session).await;
    studying.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;

    let changed = post(
        &app,
        &here,
        "/account/password",
        &[("current", PASSWORD), ("new", "tea with the analytical engine")],
    )
    .await;
    assert_eq!(location(&changed), "/account?done=password#password");
    // This sign-in goes on; the other has ended, and its open session is closed at once.
    let page = account(&app, &here).await.expect("still signed in here");
    let told = studying.until(|m| matches!(m, ServerMessage::Error(_))).await;
    let Some(ServerMessage::Error(error)) = told.last() else { unreachable!() };
    assert_eq!(error.code, ErrorCode::Unauthorized);
    assert_eq!(page.matches("data-testid=\"sign-in\"").count(), 1, "{page}");
    assert!(account(&app, &elsewhere).await.is_none(), "signed out elsewhere");
    assert!(sign_in_with(&app, "learner", PASSWORD, FIREFOX).await.is_none(), "the old password is refused");
    assert!(sign_in_with(&app, "learner", "tea with the analytical engine", FIREFOX).await.is_some());
}

#[tokio::test]
async fn sign_ins_end_one_at_a_time_or_all_but_this_one_and_only_the_learners_own() {
    let app = TestApp::spawn().await;
    let here = app.learner.cookie.clone();
    let phone = sign_in_with(&app, "learner", PASSWORD, "Mozilla/5.0 (iPhone) Safari/604.1").await.unwrap();
    let laptop = sign_in_with(&app, "learner", PASSWORD, FIREFOX).await.unwrap();
    let other = app.sign_up("someone").await;

    let refs = other_refs(&account(&app, &here).await.unwrap());
    assert_eq!(refs.len(), 2);
    // Another learner cannot end them: as unknown as a name that does not exist.
    for id in &refs {
        let res = post(&app, &other.cookie, &format!("/account/sign-ins/{id}/end"), &[]).await;
        assert_eq!(location(&res), "/account?error=unknown#sign-ins");
    }
    let res = post(&app, &other.cookie, "/account/sign-ins/end-others", &[]).await;
    assert_eq!(location(&res), "/account?done=others#sign-ins");
    assert!(account(&app, &phone).await.is_some() && account(&app, &laptop).await.is_some());
    let theirs = account(&app, &other.cookie).await.expect("their own sign-in stays");
    assert_eq!(theirs.matches("data-testid=\"sign-in\"").count(), 1, "only their own: {theirs}");
    assert!(refs.iter().all(|r| !theirs.contains(r.as_str())), "{theirs}");
    // Not signed in: sent to sign in, nothing ended.
    let res = app.http.post(app.url("/account/sign-ins/end-others")).send().await.unwrap();
    assert_eq!(location(&res), "/signin?next=/account");

    // One of them ends.
    let phone_page = account(&app, &phone).await.unwrap();
    let laptop_ref =
        refs.iter().find(|r| phone_page.contains(&format!("/account/sign-ins/{r}/end"))).unwrap();
    let res = post(&app, &here, &format!("/account/sign-ins/{laptop_ref}/end"), &[]).await;
    assert_eq!(location(&res), "/account?done=ended#sign-ins");
    assert!(account(&app, &laptop).await.is_none());
    assert!(account(&app, &phone).await.is_some());

    // Then every other one.
    let res = post(&app, &here, "/account/sign-ins/end-others", &[]).await;
    assert_eq!(location(&res), "/account?done=others#sign-ins");
    assert!(account(&app, &phone).await.is_none());
    let page = account(&app, &here).await.unwrap();
    assert_eq!(page.matches("data-testid=\"sign-in\"").count(), 1, "{page}");
    assert!(!page.contains("Sign out everywhere else"), "{page}");
}

/// What a learner owns, without the ids an import gives anew (sets, points, resources), so
/// an account and its restored copy compare equal. Sessions and their entries keep their ids.
async fn portable(app: &TestApp, owner: &LearnerId) -> String {
    let store = app.store();
    let mut out = String::new();
    let mut sets = store.list_sets(owner, 0).await.unwrap();
    sets.sort_by(|a, b| a.name.cmp(&b.name));
    for set in sets {
        let full = store.set(owner, &set.id).await.unwrap().unwrap();
        out.push_str(&format!(
            "set {} | {} | {} | archived {}\n",
            full.name,
            full.description,
            full.guidelines,
            full.archived_at.is_some()
        ));
        let points = store.points(owner, &set.id).await.unwrap();
        let content = |id: &str| points.iter().find(|p| p.id == id).map(|p| p.content.clone());
        for p in &points {
            out.push_str(&format!("  point {} | {} | {:?}\n", p.content, p.context, p.card));
        }
        let mut resources = store.resources(owner, &set.id).await.unwrap();
        resources.sort_by(|a, b| a.title.cmp(&b.title));
        for r in resources {
            let image = store.resource_image(owner, &r.id).await.unwrap();
            let links: Vec<_> = r.points.iter().map(|(id, w)| (content(id), *w)).collect();
            out.push_str(&format!(
                "  resource {} {} | {} | {:?} | {:?} | image {:?} | {links:?}\n",
                r.kind, r.title, r.body, r.licence, r.mime_type, image
            ));
        }
    }
    let mut sessions = store.sessions(owner).await.unwrap();
    sessions.sort_by(|a, b| a.id.cmp(&b.id));
    for s in sessions {
        let set = store.set(owner, s.set_id.as_deref().unwrap()).await.unwrap().unwrap().name;
        let points = store.points(owner, s.set_id.as_deref().unwrap()).await.unwrap();
        let content = |id: &str| points.iter().find(|p| p.id == id).map(|p| p.content.clone());
        let targets: Vec<_> = s.target_point_ids.iter().map(|id| content(id)).collect();
        out.push_str(&format!(
            "session {} of {set} | {:?} | leaf {:?} | {} ms | {} – {:?} | {targets:?}\n",
            s.id, s.state.status, s.leaf_id, s.state.active_ms, s.started_at, s.state.ended_at
        ));
        for e in store.entries(owner, &s.id).await.unwrap() {
            out.push_str(&format!(
                "  entry {} <- {:?} {} {:?} {:?} {} {:?}\n",
                e.id, e.parent_id, e.created_at, e.kind, e.speaker, e.content, e.data
            ));
        }
        for o in store.outcomes(owner, &s.id).await.unwrap() {
            out.push_str(&format!(
                "  recalled {:?} {} {} {:?} {} {}\n",
                content(&o.point_id),
                o.rating,
                o.confidence,
                o.entry_id,
                o.in_rabbithole,
                o.recalled_at
            ));
        }
        let state = &s.state;
        out.push_str(&format!(
            "  mode {} in {:?} cooldown {} overlay dismissed {}\n",
            state.mode, state.active_rabbithole_id, state.decline_cooldown, state.overlay_dismissed
        ));
        for h in store.rabbitholes(owner, &s.id).await.unwrap() {
            out.push_str(&format!(
                "  rabbit hole {} {} | {} | {} | {:?} {:?} | {:?} | {:?} | {} | {} – {}\n",
                h.id,
                h.topic,
                h.label,
                h.status,
                h.trigger_entry_id,
                h.branch_from_id,
                h.conversation,
                h.detection,
                h.points_recalled,
                h.created_at,
                h.updated_at
            ));
        }
        for r in store.struggle_rows(owner, &s.id).await.unwrap() {
            out.push_str(&format!(
                "  struggle {:?} {:?} {}\n",
                content(&r.point_id),
                r.struggle,
                r.updated_at
            ));
        }
    }
    for summary in
        store.latest_summaries(owner, warren::store::SummaryScope::Every, false, 100).await.unwrap()
    {
        out.push_str(&format!("summary of {}: {}\n", summary.session_id, summary.entry.content));
    }
    out
}

/// Every row of every table that mentions `needle` in any column, as `table.column: count`.
pub async fn rows_mentioning(database_url: &str, needle: &str) -> Vec<String> {
    use sqlx::Connection;
    sqlx::any::install_default_drivers();
    let mut db = sqlx::AnyConnection::connect(database_url).await.unwrap();
    let (tables, columns) = if database_url.starts_with("postgres") {
        (
            "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public' AND $1 = ''",
            "SELECT column_name::text FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1",
        )
    } else {
        (
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND $1 = ''",
            "SELECT name FROM pragma_table_info($1)",
        )
    };
    let names = async |db: &mut sqlx::AnyConnection, sql: &'static str, of: &str| -> Vec<String> {
        sqlx::query_scalar(sql).bind(of.to_string()).fetch_all(db).await.unwrap()
    };
    let tables = names(&mut db, tables, "").await;
    assert!(tables.iter().any(|t| t == "session_entries"), "{tables:?}");
    let mut found = Vec::new();
    for table in tables {
        let columns = names(&mut db, columns, &table).await;
        for column in columns {
            let sql = format!("SELECT COUNT(*) FROM {table} WHERE CAST({column} AS TEXT) LIKE $1");
            let count: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
                .bind(format!("%{needle}%"))
                .fetch_one(&mut db)
                .await
                .unwrap();
            if count > 0 {
                found.push(format!("{table}.{column}: {count}"));
            }
        }
    }
    found
}

/// Every file of a zip as text, one after another.
pub fn zip_text(bytes: &[u8]) -> String {
    zip_names(bytes).iter().map(|name| String::from_utf8_lossy(&zip_file(bytes, name)).into_owned()).collect()
}

/// The names of the files in a zip.
fn zip_names(bytes: &[u8]) -> Vec<String> {
    let zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    zip.file_names().map(str::to_string).collect()
}

fn zip_file(bytes: &[u8], name: &str) -> Vec<u8> {
    use std::io::Read;
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut out = Vec::new();
    zip.by_name(name).unwrap().read_to_end(&mut out).unwrap();
    out
}

pub async fn download_account(app: &TestApp, cookie: &str) -> Vec<u8> {
    let res = app.http.get(app.url("/account/export")).header("cookie", cookie).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "application/zip");
    let disposition = res.headers()["content-disposition"].to_str().unwrap().to_string();
    assert!(disposition.starts_with("attachment; filename=\"warren-"), "{disposition}");
    res.bytes().await.unwrap().to_vec()
}

#[tokio::test]
async fn the_archive_brings_everything_back_after_the_account_is_deleted() {
    let app = TestApp::spawn().await;
    let old = app.learner.clone();
    // A session with a recall and a rabbit hole, left, and its summary written.
    let (session, points) = app.start("The living cell").await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    ws.say(&points[0].content).await;
    ws.say("ok").await;
    let frames = ws.say("Where did mitochondria originally come from, endosymbiosis?").await;
    ws.explore(&frames, "Were they bacteria once, swallowed whole?").await;
    ws.send(serde_json::json!({"type": "leave_session"})).await;
    ws.until(|m| matches!(m, ServerMessage::SessionPaused(_))).await;
    drop(ws);
    let ready = warren_app::summary::SummaryStatus::Ready;
    crate::synthesis::summary_reaches(&app, &old.id, &session, ready).await;
    // A set of the learner's own with an uploaded image, archived.
    let own = app.new_set("Anatomy").await;
    app.post_form(
        &format!("/sets/{own}/points"),
        &[("content", "The femur is the longest bone."), ("context", "")],
    )
    .await;
    let femur = app.store().points(&old.id, &own).await.unwrap().remove(0);
    let form = reqwest::multipart::Form::new()
        .text("title", "A femur")
        .text("points", femur.id.clone())
        .part("file", reqwest::multipart::Part::bytes(crate::authoring::PNG.to_vec()).file_name("f.png"));
    assert_eq!(app.upload(&own, form).await.status(), 303);
    assert_eq!(app.post_form(&format!("/sets/{own}/archive"), &[]).await.status(), 303);
    let before = portable(&app, &old.id).await;
    assert!(
        ["summary of", "recalled", "rabbit hole", "returned"].iter().all(|s| before.contains(s)),
        "{before}"
    );

    let archive = download_account(&app, &old.cookie).await;
    let names = zip_names(&archive);
    for expected in
        ["manifest.json", "README.txt", "summaries.md", "sets/anatomy.json", "sets/the-living-cell.json"]
    {
        assert!(names.iter().any(|n| n == expected), "{expected} in {names:?}");
    }
    let session_file = names.iter().find(|n| n.starts_with("sessions/") && n.contains(&session)).unwrap();
    assert!(
        String::from_utf8(zip_file(&archive, session_file))
            .unwrap()
            .contains("\"format\":\"warren-session\"")
    );
    let image = names.iter().find(|n| n.starts_with("images/anatomy/") && n.ends_with(".png")).unwrap();
    assert_eq!(zip_file(&archive, image), crate::authoring::PNG);
    let summaries = String::from_utf8(zip_file(&archive, "summaries.md")).unwrap();
    assert!(summaries.contains(&format!("session {session}")), "{summaries}");
    // Each set's file is the set's own export: it imports on its own.
    let alone = zip_file(&archive, "sets/anatomy.json");
    assert!(warren::transfer::archive::read(&alone).is_err(), "a set file is not an archive");

    // Studying elsewhere while the account goes: that socket is closed as signed out.
    let (live, _) = app.start("Searching and sorting").await;
    let mut studying = app.connect(&live).await;
    studying.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;

    // The username must be typed; anything else changes nothing.
    let res = post(&app, &old.cookie, "/account/delete", &[("username", "someone else")]).await;
    assert_eq!(location(&res), "/account?error=confirm#delete");
    let res = post(&app, &old.cookie, "/account/delete", &[]).await;
    assert_eq!(location(&res), "/account?error=confirm#delete");
    assert!(account(&app, &old.cookie).await.is_some());

    let owned = rows_mentioning(&app.database_url, old.id.as_str()).await;
    for table in [
        "users.id",
        "recall_sets.owner_id",
        "session_entries.owner_id",
        "resource_images.owner_id",
        "auth_sessions.user_id",
    ] {
        assert!(owned.iter().any(|t| t.starts_with(table)), "{table} in {owned:?}");
    }
    let res = post(&app, &old.cookie, "/account/delete", &[("username", " Learner ")]).await;
    assert_eq!(location(&res), "/signup?done=deleted");
    let told = studying.until(|m| matches!(m, ServerMessage::Error(_))).await;
    let Some(ServerMessage::Error(error)) = told.last() else { unreachable!() };
    assert_eq!(error.code, ErrorCode::Unauthorized);
    assert!(account(&app, &old.cookie).await.is_none(), "signed out");
    assert_eq!(
        rows_mentioning(&app.database_url, old.id.as_str()).await,
        Vec::<String>::new(),
        "no row names the old account"
    );
    assert!(app.store().credentials("learner").await.unwrap().is_none());
    let (status, _) = app.page_as(&old, &format!("/history/{session}")).await;
    assert_ne!(status, 200);

    // The same name again, and the archive imported: everything is back, and the new
    // account's untouched demo sets gave way to the archived ones.
    let new = app.sign_up("learner").await;
    assert_ne!(new.id, old.id);
    let res = app.upload_import_as(&new, "warren-learner.zip", archive.clone()).await;
    assert_eq!(res.status(), 303, "{}", res.text().await.unwrap_or_default());
    assert_eq!(location(&res), "/sets?imported=4&sessions=1");
    let (_, page) = app.page_as(&new, "/sets?imported=4&sessions=1").await;
    assert!(page.contains("Imported 4 sets and 1 session from your archive."), "{page}");
    assert_eq!(portable(&app, &new.id).await, before);
    let (status, page) = app.page_as(&new, &format!("/history/{session}")).await;
    assert_eq!(status, 200);
    assert!(page.contains(&points[0].content), "the learner's message is back");
}

#[tokio::test]
async fn a_session_running_on_another_instance_is_stopped_before_its_account_goes() {
    let app = TestApp::spawn().await;
    let other = app.another_instance().await;
    let owner = app.learner.id.clone();
    let (session, _) = app.start("The living cell").await;
    let mut studying = other.connect(&session).await;
    studying.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    let res = post(&app, &app.learner.cookie, "/account/delete", &[("username", "learner")]).await;
    assert_eq!(location(&res), "/signup?done=deleted");
    // The other instance handed the session over and its socket was closed.
    let told = studying.until(|m| matches!(m, ServerMessage::Error(_))).await;
    let Some(ServerMessage::Error(error)) = told.last() else { unreachable!() };
    assert!(matches!(error.code, ErrorCode::SessionTakenOver | ErrorCode::Unauthorized), "{error:?}");
    assert_eq!(rows_mentioning(&app.database_url, owner.as_str()).await, Vec::<String>::new());
}

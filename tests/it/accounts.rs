//! Accounts and isolation: two learners, and everything learner B can try with learner A's ids.

use std::time::Instant;
use warren_app::learner::LearnerId;

use crate::common::{Learner, PASSWORD, TestApp, session_cookie};
use futures_util::StreamExt;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;
use warren_app::protocol::{ErrorCode, ServerMessage};

/// What learner A owns, counted, so "nothing changed" can be checked.
async fn snapshot(app: &TestApp, owner: &LearnerId) -> String {
    let store = app.store();
    let mut out = String::new();
    for set in store.list_sets(owner, 0).await.unwrap() {
        let full = store.set(owner, &set.id).await.unwrap().unwrap();
        out.push_str(&format!("set {full:?}\n"));
        for p in store.points(owner, &set.id).await.unwrap() {
            out.push_str(&format!("  point {p:?}\n"));
        }
        for r in store.set_log(owner, &set.id).await.unwrap() {
            out.push_str(&format!("  review {r:?}\n"));
        }
        for r in store.resources(owner, &set.id).await.unwrap() {
            out.push_str(&format!("  resource {r:?}\n"));
        }
    }
    for s in store.sessions(owner).await.unwrap() {
        let entries = store.entries(owner, &s.id).await.unwrap().len();
        let outcomes = store.outcomes(owner, &s.id).await.unwrap().len();
        out.push_str(&format!(
            "session {} {:?} leaf {:?} entries {entries} outcomes {outcomes} updated {}\n",
            s.id, s.state.status, s.leaf_id, s.updated_at
        ));
    }
    out
}

async fn server_fn(app: &TestApp, who: &Learner, name: &str, args: &[(&str, &str)]) -> reqwest::StatusCode {
    app.http
        .post(app.url(&format!("/api/{name}")))
        .header("cookie", &who.cookie)
        .form(args)
        .send()
        .await
        .unwrap()
        .status()
}

#[tokio::test]
async fn learner_b_gets_404_for_every_one_of_learner_as_ids_and_changes_nothing() {
    let app = TestApp::spawn().await;
    let a = app.learner.clone();
    let b = app.sign_up("bob").await;
    // A has a session with history: one recall, a paused status.
    let (session, points) = app.start("The living cell").await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    ws.say(&points[0].content).await;
    ws.send(json!({"type": "leave_session"})).await;
    ws.until(|m| matches!(m, ServerMessage::SessionPaused(_))).await;
    drop(ws);
    // Its summary is written in the background: done before the snapshot.
    let ready = warren_app::summary::SummaryStatus::Ready;
    crate::synthesis::summary_reaches(&app, &a.id, &session, ready).await;
    let set_id = points[0].set_id.clone();

    // A's authored material: an uploaded image linked to a point, and an import waiting
    // for confirmation.
    let form = reqwest::multipart::Form::new()
        .text("title", "A's diagram")
        .text("points", points[0].id.clone())
        .part("file", reqwest::multipart::Part::bytes(crate::authoring::PNG.to_vec()).file_name("d.png"));
    assert_eq!(app.upload(&set_id, form).await.status(), 303);
    let resources = app.store().resources(&a.id, &set_id).await.unwrap();
    let image =
        resources.iter().find(|r| r.url.as_deref().is_some_and(|u| u.starts_with("/media/"))).unwrap();
    let resource = image.id.clone();
    let media = image.url.clone().unwrap();
    let res = app.upload_import_as(&a, "mine.csv", b"content,cue\nA fact,A cue\n".to_vec()).await;
    let draft = res.headers()["location"].to_str().unwrap().trim_start_matches("/import/").to_string();
    let point = points[0].id.clone();
    // A's schedule is being fitted: 3 of 10 steps done.
    assert!(app.store().claim_fit(&a.id, warren::store::FitReason::Asked).await.unwrap());
    app.store().fit_progress(&a.id, 200, 3, 10).await.unwrap();
    let a_fit = app.store().fit_run(&a.id).await.unwrap();
    let before = snapshot(&app, &a.id).await;

    // Pages and downloads: 404 for B, exactly as for an id that does not exist, and 200 for A.
    let pages = [
        format!("/sets/{set_id}"),
        format!("/sets/{set_id}/edit"),
        format!("/sets/{set_id}/delete"),
        format!("/sets/{set_id}/points/{point}/edit"),
        format!("/sets/{set_id}/points/{point}/delete"),
        format!("/sets/{set_id}/resources/{resource}/edit"),
        format!("/sets/{set_id}/resources/{resource}/delete"),
        format!("/sets/{set_id}/export.json"),
        format!("/sets/{set_id}/export.csv"),
        format!("/sets/{set_id}/export.md"),
        media.clone(),
        format!("/import/{draft}"),
        format!("/sessions/{session}"),
        format!("/history/{session}"),
        format!("/history/{session}/summary"),
    ];
    let missing_ids = |path: &str| {
        path.replace(&session, "00000000-0000-7000-8000-000000000000")
            .replace(&set_id, "00000000-0000-7000-8000-000000000001")
            .replace(&point, "00000000-0000-7000-8000-000000000002")
            .replace(&resource, "00000000-0000-7000-8000-000000000003")
            .replace(&draft, "00000000-0000-7000-8000-000000000004")
    };
    for path in &pages {
        let (status, body) = app.page_as(&b, path).await;
        assert_eq!(status, 404, "B on {path}");
        assert!(!body.contains("A's diagram") && !body.contains("A fact"), "B on {path} sees A's words");
        let (status, _) = app.page_as(&b, &missing_ids(path)).await;
        assert_eq!(status, 404, "B on a missing id like {path}");
        let (status, _) = app.page_as(&a, path).await;
        assert_eq!(status, 200, "A on {path}");
    }

    // Every form that changes something: 404 for B, and nothing of A's changes.
    let posts: Vec<(String, Vec<(&str, &str)>)> = vec![
        (
            format!("/sets/{set_id}/edit"),
            vec![("name", "Taken over"), ("description", ""), ("guidelines", "")],
        ),
        (format!("/sets/{set_id}/archive"), vec![]),
        (format!("/sets/{set_id}/unarchive"), vec![]),
        (format!("/sets/{set_id}/points"), vec![("content", "Injected"), ("context", "")]),
        (format!("/sets/{set_id}/points/{point}/edit"), vec![("content", "Changed"), ("context", "")]),
        (format!("/sets/{set_id}/points/{point}/move"), vec![("direction", "down")]),
        (format!("/sets/{set_id}/points/{point}/delete"), vec![]),
        (format!("/sets/{set_id}/resources/{resource}/delete"), vec![]),
        (format!("/sets/{set_id}/delete"), vec![("confirm", "on")]),
        (format!("/import/{draft}"), vec![("name", "Stolen")]),
        (format!("/import/{draft}/cancel"), vec![]),
        (format!("/history/{session}/summary"), vec![]),
        (format!("/history/{session}/disputes"), vec![("point_id", point.as_str()), ("entry_id", "")]),
    ];
    for (path, fields) in &posts {
        let res = app.post_form_as(&b, path, fields).await;
        assert_eq!(res.status(), 404, "B posting to {path}");
        let res = app.post_form_as(&b, &missing_ids(path), fields).await;
        assert_eq!(res.status(), 404, "B posting to a missing id like {path}");
    }
    // An upload into A's set.
    let form = reqwest::multipart::Form::new().text("title", "Planted").text("body", "B's text");
    let res = app.post_multipart(&b, &format!("/sets/{set_id}/resources"), form).await;
    assert_eq!(res.status(), 404, "B uploading into A's set");
    let form = reqwest::multipart::Form::new().text("title", "Planted").text("body", "B's text");
    let res = app.edit_resource(&b, &set_id, &resource, form).await;
    assert_eq!(res.status(), 404, "B changing A's resource");

    // Server functions.
    assert_eq!(server_fn(&app, &b, "get_set", &[("id", &set_id)]).await, 404);
    assert_eq!(server_fn(&app, &b, "get_set_deletion", &[("id", &set_id)]).await, 404);
    assert_eq!(server_fn(&app, &b, "get_point", &[("set_id", &set_id), ("point_id", &point)]).await, 404);
    assert_eq!(
        server_fn(&app, &b, "get_resource", &[("set_id", &set_id), ("resource_id", &resource)]).await,
        404
    );
    assert_eq!(server_fn(&app, &b, "get_import_preview", &[("id", &draft)]).await, 404);
    assert_eq!(server_fn(&app, &b, "start_session", &[("set_id", &set_id)]).await, 404);
    assert_eq!(server_fn(&app, &b, "get_session_header", &[("id", &session)]).await, 404);
    assert_eq!(server_fn(&app, &b, "get_transcript", &[("id", &session)]).await, 404);
    assert_eq!(server_fn(&app, &a, "get_set", &[("id", &set_id)]).await, 200);
    // B's own dashboard and history do not mention A's set or session, even asked by A's set.
    for (name, args) in [
        ("get_dashboard", vec![]),
        ("get_history", vec![]),
        ("get_history", vec![("filter[set]", set_id.as_str())]),
    ] {
        let res = app
            .http
            .post(app.url(&format!("/api/{name}")))
            .header("cookie", &b.cookie)
            .form(&args)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
        let body = res.text().await.unwrap();
        assert!(!body.contains(&set_id) || name == "get_history", "{name} leaks A's ids: {body}");
        assert!(!body.contains(&session) && !body.contains(&point), "{name} leaks A's: {body}");
    }

    // The socket: B is told the session does not exist, and it is closed with 4404.
    let mut ws = app.connect_as(Some(&b.cookie), &session).await;
    let ServerMessage::Error(e) = ws.next().await else { panic!("an error frame") };
    assert_eq!(e.code, ErrorCode::SessionNotFound);
    let close = loop {
        match ws.stream.next().await {
            Some(Ok(Message::Close(frame))) => break frame,
            Some(Ok(_)) => continue,
            other => panic!("expected a close, got {other:?}"),
        }
    };
    assert_eq!(u16::from(close.unwrap().code), 4404);

    // The account's own addresses: B's archive holds nothing of A's, and typing A's name
    // into B's deletion form deletes nothing.
    let archive = crate::account::download_account(&app, &b.cookie).await;
    let unpacked = crate::account::zip_text(&archive);
    for a_s in [&set_id, &session, &point, &resource, "A's diagram", "A fact"] {
        assert!(!unpacked.contains(a_s), "B's archive holds A's {a_s}");
    }
    let res = app.post_form_as(&b, "/account/delete", &[("username", &a.username)]).await;
    assert_eq!(location(&res), "/account?error=confirm#delete");
    // B's schedule settings are B's alone.
    let res = app.post_form_as(&b, "/account/schedule", &[("retention", "70"), ("leech_lapses", "2")]).await;
    assert_eq!(location(&res), "/account?done=retention&moved=0#schedule");
    assert_eq!(app.store().scheduler(&b.id).await.unwrap().retention(), 0.7);
    assert_eq!(app.store().scheduler(&a.id).await.unwrap().retention(), 0.9);
    assert_eq!(app.store().leech_lapses(&a.id).await.unwrap(), 4);
    // Fitting is B's own: B sees none of A's running fit, has no reviews to fit, and A's run
    // is as it was.
    let res =
        app.http.get(app.url("/account/schedule/fit")).header("cookie", &b.cookie).send().await.unwrap();
    assert_eq!((res.status().as_u16(), res.text().await.unwrap()), (200, "none".to_string()));
    let (_, b_account) = app.page_as(&b, "/account").await;
    assert!(!b_account.contains("fit-running") && !b_account.contains("3 of 10"), "{b_account}");
    let res = app.post_form_as(&b, "/account/schedule/fit", &[]).await;
    assert_eq!(location(&res), "/account?error=fit_few#fit");
    assert_eq!(app.store().fit_run(&a.id).await.unwrap(), a_fit);
    assert_eq!(app.store().fit_run(&b.id).await.unwrap(), None);
    // A's points are A's: B's dispute of A's recall (by A's point, in a B session id that
    // does not exist) is not found either.
    let res = app
        .post_form_as(
            &b,
            "/history/00000000-0000-7000-8000-000000000000/disputes",
            &[("point_id", point.as_str())],
        )
        .await;
    assert_eq!(res.status(), 404);

    assert_eq!(snapshot(&app, &a.id).await, before, "nothing of A's changed");
    assert_eq!(app.page_as(&a, &format!("/import/{draft}")).await.0, 200, "A's import still waits");
}

#[tokio::test]
async fn without_a_sign_in_nothing_is_served() {
    let app = TestApp::spawn().await;
    let (session, _) = app.start("The living cell").await;
    let res = app.http.post(app.url("/api/get_dashboard")).send().await.unwrap();
    assert_eq!(res.status(), 401);
    let mut ws = app.connect_as(None, &session).await;
    let ServerMessage::Error(e) = ws.next().await else { panic!("an error frame") };
    assert_eq!(e.code, ErrorCode::Unauthorized);
    // A forged cookie is no sign-in.
    let mut ws = app.connect_as(Some("warren_session=forged"), &session).await;
    let ServerMessage::Error(e) = ws.next().await else { panic!("an error frame") };
    assert_eq!(e.code, ErrorCode::Unauthorized);
    // The names other sites give the forms lead to Warren's, not to a sign-in that ends on a
    // page that does not exist.
    for (alias, form) in
        [("/login", "/signin"), ("/sign-in", "/signin"), ("/register", "/signup"), ("/sign-up", "/signup")]
    {
        let res = app.http.get(app.url(alias)).send().await.unwrap();
        assert_eq!(res.status(), 308, "{alias}");
        assert_eq!(res.headers()["location"], form, "{alias}");
    }
}

async fn sign_in(app: &TestApp, username: &str, password: &str) -> reqwest::Response {
    app.http
        .post(app.url("/auth/signin"))
        .form(&[("username", username), ("password", password)])
        .send()
        .await
        .unwrap()
}

fn location(res: &reqwest::Response) -> String {
    res.headers()["location"].to_str().unwrap().to_string()
}

#[tokio::test]
async fn sign_in_answers_the_same_for_an_unknown_user_and_a_wrong_password() {
    let app = TestApp::spawn().await;
    let wrong = sign_in(&app, "learner", "not the password").await;
    let unknown = sign_in(&app, "nobody-here", "not the password").await;
    assert_eq!(wrong.status(), 303);
    assert_eq!(location(&wrong), "/signin?error=invalid&username=learner");
    assert_eq!(location(&unknown), "/signin?error=invalid&username=nobody-here");
    assert!(session_cookie(&wrong).is_none() && session_cookie(&unknown).is_none());

    // Both do the same work (one password hash check): neither is several times the other.
    let mut times = [Vec::new(), Vec::new()];
    for round in 0..5 {
        for (i, name) in ["learner", "nobody-else"].iter().enumerate() {
            let started = Instant::now();
            sign_in(&app, name, &format!("wrong {round}")).await;
            times[i].push(started.elapsed().as_secs_f64());
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (known, unknown) = (median(&mut times[0]), median(&mut times[1]));
    let ratio = known / unknown;
    assert!((0.33..3.0).contains(&ratio), "known {known:.4}s vs unknown {unknown:.4}s");

    // The right password works, case-insensitively for the name, with a fresh session id.
    let ok = sign_in(&app, "LEARNER", PASSWORD).await;
    assert_eq!(location(&ok), "/");
    let cookie = session_cookie(&ok).unwrap();
    assert_ne!(cookie, app.learner.cookie, "the session id is new on sign-in");
}

#[tokio::test]
async fn sign_up_refuses_duplicates_bad_names_and_short_passwords() {
    let app = TestApp::spawn().await;
    let up = |username: &'static str, password: &'static str| {
        let app = &app;
        async move {
            app.http
                .post(app.url("/auth/signup"))
                .form(&[("username", username), ("password", password)])
                .send()
                .await
                .unwrap()
        }
    };
    assert_eq!(location(&up("learner", PASSWORD).await), "/signup?error=taken&username=learner");
    assert_eq!(location(&up("Learner", PASSWORD).await), "/signup?error=taken&username=learner");
    assert_eq!(location(&up("x", PASSWORD).await), "/signup?error=username&username=x");
    assert_eq!(location(&up("newcomer", "short").await), "/signup?error=short&username=newcomer");
    assert_eq!(location(&up("newcomer", "Password-123").await), "/signup?error=common&username=newcomer");
    assert_eq!(
        location(&up("newcomer", "newcomer2024").await),
        "/signup?error=like-username&username=newcomer"
    );
    let long: &'static str = "p".repeat(201).leak();
    assert_eq!(location(&up("newcomer", long).await), "/signup?error=long&username=newcomer");
    assert_eq!(app.store().account_count().await.unwrap(), 1, "no account was made");
    // The cookie is HTTP-only and SameSite=Lax (not Secure over plain HTTP).
    let res = up("newcomer", PASSWORD).await;
    let set_cookie = res.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(set_cookie.contains("HttpOnly") && set_cookie.contains("SameSite=Lax"), "{set_cookie}");
    assert!(!set_cookie.contains("Secure"), "{set_cookie}");
}

#[tokio::test]
async fn https_deployments_get_secure_cookies() {
    let app = TestApp::spawn_with(|c| c.public_url = Some("https://warren.example.org".into())).await;
    let res = sign_in(&app, "learner", PASSWORD).await;
    let set_cookie = res.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(set_cookie.contains("Secure"), "{set_cookie}");
}

#[tokio::test]
async fn sign_in_attempts_are_throttled_per_account() {
    let app = TestApp::spawn().await;
    let mut last = String::new();
    for i in 0..12 {
        last = location(&sign_in(&app, "learner", &format!("guess {i}")).await);
    }
    assert_eq!(last, "/signin?error=throttled&username=learner");
    // Even the right password waits now.
    assert!(location(&sign_in(&app, "learner", PASSWORD).await).contains("throttled"));
}

/// A wrong sign-in as if through a proxy that says the request came from `forwarded`.
async fn guess_from(app: &TestApp, i: usize, forwarded: &str) -> String {
    let res = app
        .http
        .post(app.url("/auth/signin"))
        .header("x-forwarded-for", forwarded)
        .form(&[("username", format!("nobody{i}")), ("password", "a wrong guess".to_string())])
        .send()
        .await
        .unwrap();
    location(&res)
}

#[tokio::test]
async fn behind_a_trusted_proxy_each_client_address_has_its_own_allowance() {
    let app = TestApp::spawn_with(|c| c.trusted_proxies = vec!["127.0.0.0/8".parse().unwrap()]).await;
    // Thirty tries an address a minute (other accounts each time, so only the address counts).
    for i in 0..30 {
        assert!(guess_from(&app, i, "203.0.113.5").await.contains("error=invalid"), "try {i}");
    }
    assert!(guess_from(&app, 30, "203.0.113.5").await.contains("error=throttled"));
    // Another learner behind the same proxy is not held up by it.
    assert!(guess_from(&app, 31, "198.51.100.7, 203.0.113.6").await.contains("error=invalid"));
}

#[tokio::test]
async fn without_trusted_proxies_a_forwarded_address_is_not_believed() {
    let app = TestApp::spawn().await;
    // Each try claims another address; all come from the same peer, and that is what counts
    // (the test's own sign-up from it took one of its thirty).
    let mut throttled_at = None;
    for i in 0..31 {
        if guess_from(&app, i, &format!("203.0.113.{i}")).await.contains("error=throttled") {
            throttled_at = Some(i);
            break;
        }
    }
    assert_eq!(throttled_at, Some(29));
}

#[tokio::test]
async fn oversize_bodies_and_cross_site_posts_are_refused() {
    let app = TestApp::spawn().await;
    let huge = "a".repeat(100 * 1024);
    let res = app
        .http
        .post(app.url("/auth/signin"))
        .form(&[("username", "learner"), ("password", huge.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 413);
    let res = app
        .http
        .post(app.url("/api/get_set"))
        .header("cookie", &app.learner.cookie)
        .form(&[("id", huge.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 413, "server functions are bounded too");
    let res = app
        .http
        .post(app.url("/auth/signout"))
        .header("origin", "https://evil.example")
        .header("cookie", &app.learner.cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403);
    // Still signed in.
    let res = app.http.get(app.url("/")).header("cookie", &app.learner.cookie).send().await.unwrap();
    assert_eq!(res.status(), 200);
}

#[tokio::test]
async fn learner_messages_are_rate_limited_per_session() {
    let app = TestApp::spawn().await;
    let (session, _) = app.start("The living cell").await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    for i in 0..20 {
        ws.send(json!({"type": "user_message", "content": format!("guess {i}")})).await;
    }
    let frames = ws
        .until(|m| matches!(m, ServerMessage::Error(e) if e.code == ErrorCode::RateLimited || e.code == ErrorCode::Busy))
        .await;
    assert!(!frames.is_empty());
}

#[tokio::test]
async fn sign_out_ends_the_sign_in() {
    let app = TestApp::spawn().await;
    let res =
        app.http.post(app.url("/auth/signout")).header("cookie", &app.learner.cookie).send().await.unwrap();
    assert_eq!(location(&res), "/signin");
    // The browser is told to drop the cookie.
    let removal = res.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(removal.starts_with("warren_session=;") && removal.contains("Max-Age=0"), "{removal}");
    let res = app
        .http
        .post(app.url("/api/get_dashboard"))
        .header("cookie", &app.learner.cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401, "the old cookie no longer signs in");
}

#[tokio::test]
async fn signing_in_replaces_the_session_id_the_browser_had() {
    let app = TestApp::spawn().await;
    let old = app.learner.cookie.clone();
    // A sign-in that arrives carrying an existing session (fixation attempt, or a second tab).
    let res = app
        .http
        .post(app.url("/auth/signin"))
        .header("cookie", &old)
        .form(&[("username", "learner"), ("password", PASSWORD)])
        .send()
        .await
        .unwrap();
    assert_eq!(location(&res), "/");
    let new = session_cookie(&res).expect("a new cookie");
    assert_ne!(new, old);
    let status = |cookie: String| {
        let app = &app;
        async move {
            app.http
                .post(app.url("/api/get_dashboard"))
                .header("cookie", cookie)
                .send()
                .await
                .unwrap()
                .status()
        }
    };
    assert_eq!(status(new).await, 200);
    assert_eq!(status(old).await, 401, "the old id is gone");
}

#[tokio::test]
async fn a_sign_in_saved_again_keeps_its_learner_and_takes_the_new_data() {
    use tower_sessions::SessionStore;
    use tower_sessions::session::{Id, Record};

    let app = TestApp::spawn().await;
    let store = app.store();
    let mut record = Record {
        id: Id::default(),
        data: [("user_id".to_string(), json!(app.owner()))].into(),
        expiry_date: time::OffsetDateTime::now_utc() + time::Duration::hours(1),
    };
    store.create(&mut record).await.unwrap();
    let before = store.sign_ins(app.owner()).await.unwrap().len();
    record.data.insert("seen".to_string(), json!("again"));
    store.save(&record).await.unwrap();
    let loaded = store.load(&record.id).await.unwrap().expect("still stored");
    assert_eq!(loaded.data["seen"], json!("again"));
    assert_eq!(store.sign_ins(app.owner()).await.unwrap().len(), before, "still the learner's, and one row");
}

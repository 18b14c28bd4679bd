//! History pages and session files over real HTTP: a session with a rabbit hole, shown as a
//! tree; filters, search, labels and deep links; JSONL export and import, a version-1 file;
//! and none of it within another learner's reach.

use std::time::Duration;
use warren_app::learner::LearnerId;

use warren::store::{EntryKind, Store, Tree};
use warren_app::protocol::{ServerMessage, SessionMode};
use warren_app::summary::{SessionSummary, SummaryStatus};

use crate::common::TestApp;

const CELL: &str = "The living cell";

/// A session with two exchanges, a rabbit hole of one exchange, and one more exchange.
pub(crate) async fn session_with_a_rabbit_hole(app: &TestApp) -> String {
    let (session, _) = app.start(CELL).await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    ws.say("Something about the nucleus holding the genes?").await;
    ws.say("no idea").await;
    let frames = ws.say("Where did mitochondria originally come from, endosymbiosis?").await;
    ws.explore(&frames, "Were they bacteria once, swallowed whole?").await;
    ws.say("Back to it: ribosomes make proteins").await;
    session
}

/// How many entries a page shows, from its "X of Y entries shown" line.
fn count(html: &str) -> (u32, u32) {
    let at = html.find("data-testid=\"entry-count\"").expect("a count");
    let text = &html[at..];
    let start = text.find('>').unwrap() + 1;
    let shown_total = text[start..].split(" entries").next().unwrap();
    let (shown, total) = shown_total.split_once(" of ").unwrap();
    (shown.trim().parse().unwrap(), total.trim().parse().unwrap())
}

async fn tree(store: &Store, owner: &LearnerId, session: &str) -> (Option<String>, std::sync::Arc<Tree>) {
    let (row, tree) = store.tree(owner, session).await.unwrap().unwrap();
    (row.leaf_id, tree)
}

#[tokio::test]
async fn the_session_page_shows_the_tree_filters_searches_labels_and_links() {
    let app = TestApp::spawn().await;
    let session = session_with_a_rabbit_hole(&app).await;
    let page = format!("/history/{session}");
    let (status, html) = app.page(&page).await;
    assert_eq!(status, 200);
    assert!(
        html.contains(r#"<p class="crumbs"><a href="/history">History</a></p>"#),
        "a way back to the list"
    );
    // And the dashboard's recent sessions lead to the list.
    let (_, dashboard) = app.page("/").await;
    assert!(dashboard.contains(r#"href="/history" data-testid="all-history""#), "{dashboard}");
    // The rabbit hole hangs from where it began, with the summary written on leaving it.
    assert!(html.contains("data-testid=\"side-branch\""), "a side branch");
    assert!(html.contains("Rabbit hole: "), "titled as a rabbit hole");
    assert!(html.contains("Were they bacteria once, swallowed whole?"), "its messages are there");
    assert!(html.contains("Back to it: ribosomes make proteins"), "the main line goes on");
    let (shown, total) = count(&html);
    let (leaf, tree) = tree(app.store(), app.owner(), &session).await;
    let non_labels = tree.entries.iter().filter(|e| e.kind != EntryKind::Label).count() as u32;
    assert_eq!(total, non_labels);
    assert!(shown < total, "mode changes are not in the default view");

    let (_, all) = app.page(&format!("{page}?filter=all")).await;
    assert_eq!(count(&all), (total, total), "everything");
    let (_, learner) = app.page(&format!("{page}?filter=learner")).await;
    let learner_messages =
        tree.entries.iter().filter(|e| e.speaker == Some(warren::store::Speaker::Learner)).count();
    assert_eq!(count(&learner).0 as usize, learner_messages);
    assert!(!learner.contains("speaker-tutor"), "only the learner's messages");
    // The rabbit hole's summary is said once: on the main line where it resumes, or beside the
    // folded branch when a filter leaves the main line's note out.
    let summary = &tree.entries.iter().find(|e| e.kind == EntryKind::BranchSummary).unwrap().content;
    let summary = summary.replace('"', "&quot;");
    assert_eq!(html.matches(summary.as_str()).count(), 1, "once in the default view: {summary}");
    assert!(!html.contains("class=\"branch-summary\""), "the main line shows it");
    assert_eq!(learner.matches(summary.as_str()).count(), 1, "once when only the learner's messages show");
    assert!(learner.contains("class=\"branch-summary\""), "beside the fold");

    // Search: every word must match.
    let (_, found) = app.page(&format!("{page}?q=ribosomes+PROTEINS")).await;
    assert_eq!(count(&found).0, 1);
    let (_, none) = app.page(&format!("{page}?q=ribosomes+zebra")).await;
    assert_eq!(count(&none).0, 0);

    // A label on an entry, then the labelled view shows it alone; then it is removed.
    let target = tree.entries.iter().find(|e| e.content.contains("ribosomes")).unwrap().id.clone();
    let (_, editing) = app.page(&format!("{page}?edit={target}")).await;
    assert_eq!(editing.matches("data-testid=\"label-form\"").count(), 1, "one form, on that entry");
    assert!(editing.contains(&format!("action=\"/history/{session}/label\"")));
    let res = app
        .post_form(&format!("{page}/label"), &[("target", &target), ("label", "revisit"), ("back", &page)])
        .await;
    assert_eq!(res.status(), 303);
    assert_eq!(res.headers()["location"], format!("{page}#entry-{target}").as_str());
    let (_, labelled) = app.page(&format!("{page}?filter=labelled")).await;
    assert_eq!(count(&labelled).0, 1);
    assert!(labelled.contains("revisit") && labelled.contains(&format!("id=\"entry-{target}\"")));
    app.post_form(&format!("{page}/label"), &[("target", &target), ("label", "revisit"), ("clear", "1")])
        .await;
    let (_, labelled) = app.page(&format!("{page}?filter=labelled")).await;
    assert_eq!(count(&labelled).0, 0, "removed");
    // Labelling changed no one's context.
    assert_eq!(crate::history::tree(app.store(), app.owner(), &session).await.0, leaf);

    // A deep link into the branch opens it as the line shown, the entry highlighted.
    let inside = tree.entries.iter().find(|e| e.content.contains("swallowed whole")).unwrap();
    let branch_end = tree.path(leaf.as_deref());
    assert!(!branch_end.iter().any(|e| e.id == inside.id), "the branch is not on the main line");
    let (status, linked) = app.page(&format!("{page}?leafId={}&targetId={}", inside.id, inside.id)).await;
    assert_eq!(status, 200);
    assert!(linked.contains("entry kind-message speaker-learner target"), "highlighted");
    assert!(linked.contains("Back to where the session is"));
    assert!(
        linked.contains(&format!("targetId={}#entry-{}", inside.id, inside.id)),
        "each entry has its link"
    );
    // Unknown ids fall back to the session's own line.
    let (status, unknown) = app.page(&format!("{page}?leafId=nope&targetId=nope")).await;
    assert_eq!((status, count(&unknown)), (200, (shown, total)));
}

#[tokio::test]
async fn another_learners_history_export_and_labels_are_not_found() {
    let app = TestApp::spawn().await;
    let session = session_with_a_rabbit_hole(&app).await;
    let other = app.sign_up("someone-else").await;
    let (_, tree) = tree(app.store(), app.owner(), &session).await;
    let entry = tree.entries[0].id.clone();
    for path in
        [format!("/history/{session}"), format!("/history/{session}/export.jsonl"), "/history/nope".into()]
    {
        let (status, _) = app.page_as(&other, &path).await;
        assert_eq!(status, 404, "{path}");
    }
    let res = app
        .post_form_as(&other, &format!("/history/{session}/label"), &[("target", &entry), ("label", "x")])
        .await;
    assert_eq!(res.status(), 404);
    assert!(app.store().labels(app.owner(), &session).await.unwrap().is_empty(), "nothing written");
}

#[tokio::test]
async fn a_session_exported_as_jsonl_imports_as_the_same_tree() {
    let app = TestApp::spawn().await;
    let session = session_with_a_rabbit_hole(&app).await;
    let (_, tree_before) = tree(app.store(), app.owner(), &session).await;
    let labelled = tree_before.entries[1].id.clone();
    assert!(app.store().set_label(app.owner(), &session, &labelled, Some("key moment")).await.unwrap());
    let (leaf, before) = tree(app.store(), app.owner(), &session).await;
    let res = app
        .http
        .get(app.url(&format!("/history/{session}/export.jsonl")))
        .header("cookie", &app.learner.cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert!(res.headers()["content-disposition"].to_str().unwrap().contains(".jsonl"));
    let file = res.bytes().await.unwrap().to_vec();
    let header: serde_json::Value =
        serde_json::from_slice(file.split(|b| *b == b'\n').next().unwrap()).unwrap();
    assert_eq!((header["format"].as_str(), header["version"].as_u64()), (Some("warren-session"), Some(4)));

    // Into a new Warren: the very same tree, ids and all, under a set of the same name.
    let elsewhere = TestApp::spawn().await;
    let res = elsewhere.upload_import_as(&elsewhere.learner, "session.jsonl", file.clone()).await;
    assert_eq!(res.status(), 303, "{}", res.text().await.unwrap_or_default());
    assert_eq!(res.headers()["location"], format!("/history/{session}").as_str());
    let (leaf_after, after) = tree(elsewhere.store(), elsewhere.owner(), &session).await;
    assert_eq!(leaf_after, leaf);
    let shape = |t: &Tree| -> Vec<(String, Option<String>, EntryKind, String)> {
        t.entries.iter().map(|e| (e.id.clone(), e.parent_id.clone(), e.kind, e.content.clone())).collect()
    };
    assert_eq!(shape(&after), shape(&before));
    assert_eq!(after.labels, before.labels);
    let outcomes = |store: &Store, owner: &LearnerId| {
        let (store, owner, session) = (store.clone(), owner.clone(), session.clone());
        async move { store.outcomes(&owner, &session).await.unwrap().len() }
    };
    assert_eq!(
        outcomes(elsewhere.store(), elsewhere.owner()).await,
        outcomes(app.store(), app.owner()).await
    );
    let (status, html) = elsewhere.page(&format!("/history/{session}")).await;
    assert_eq!(status, 200);
    assert!(html.contains("key moment"));

    // Into the same Warren again: a copy with new ids, the same shape, nothing of the first touched.
    let res = app.upload_import_as(&app.learner, "session.jsonl", file).await;
    assert_eq!(res.status(), 303);
    let copy = res.headers()["location"].to_str().unwrap().trim_start_matches("/history/").to_string();
    assert_ne!(copy, session);
    let (copy_leaf, copied) = tree(app.store(), app.owner(), &copy).await;
    assert_eq!(copied.len(), before.len());
    assert!(copied.entries.iter().all(|e| before.get(&e.id).is_none()), "new ids");
    let copy_leaf = copied.get(copy_leaf.as_deref().unwrap()).unwrap();
    assert_eq!(copy_leaf.content, before.get(leaf.as_deref().unwrap()).unwrap().content);
    assert_eq!(copied.labels.values().collect::<Vec<_>>(), vec!["key moment"], "labels follow their entries");
    assert_eq!(tree(app.store(), app.owner(), &session).await.1.len(), before.len());
}

/// Every row a session owns, in every table, as text: its own ids kept, the points and
/// resources it names by content and title (their ids are the set's), the owner left out. An
/// open session reads as paused with no stretch under way, as it comes back from a file.
async fn owned_rows(app: &TestApp, owner: &LearnerId, session: &str) -> Vec<String> {
    use sqlx::Connection;
    sqlx::any::install_default_drivers();
    let mut db = sqlx::AnyConnection::connect(&app.database_url).await.unwrap();
    let point = "(SELECT content FROM recall_points p WHERE p.id = t.point_id)";
    let resource = "(SELECT title FROM resources r WHERE r.id = t.resource_id)";
    let tables: [(&str, Vec<&str>, &str); 6] = [
        (
            "sessions",
            vec![
                "CASE status WHEN 'in_progress' THEN 'paused' ELSE status END",
                "leaf_id",
                "mode",
                "active_rabbithole_id",
                "decline_cooldown",
                "overlay_dismissed",
                "active_ms",
                "started_at",
                "updated_at",
                "ended_at",
                "summary_entry_id",
                "summary_status",
                "summary_error",
                "(SELECT COUNT(*) FROM recall_points p WHERE t.target_point_ids LIKE '%' || p.id || '%')",
            ],
            "id",
        ),
        (
            "session_entries",
            vec!["id", "parent_id", "seq", "created_at", "kind", "role", "agent", "content", "data"],
            "session_id",
        ),
        (
            "recall_outcomes",
            vec![point, "rating", "confidence", "entry_id", "in_rabbithole", "recalled_at"],
            "session_id",
        ),
        (
            "rabbithole_events",
            vec![
                "id",
                "topic",
                "label",
                "status",
                "trigger_entry_id",
                "branch_from_id",
                "conversation",
                "detection",
                "points_recalled",
                "created_at",
                "updated_at",
            ],
            "session_id",
        ),
        (
            "point_struggles",
            vec![
                point,
                "attempts",
                "hints",
                "near_misses",
                "rung",
                "revealed",
                "parked",
                "counted_entry_id",
                "updated_at",
            ],
            "session_id",
        ),
        ("shown_resources", vec![resource, "shown_at"], "session_id"),
    ];
    let mut rows = Vec::new();
    for (table, columns, key) in tables {
        let cells: Vec<String> =
            columns.iter().map(|c| format!("COALESCE(CAST({c} AS TEXT), '∅')")).collect();
        let sql = format!(
            "SELECT {} FROM {table} t WHERE t.{key} = $1 AND t.owner_id = $2",
            cells.join(" || ' | ' || ")
        );
        let mut found: Vec<String> = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
            .bind(session.to_string())
            .bind(owner.to_string())
            .fetch_all(&mut db)
            .await
            .unwrap();
        assert!(!found.is_empty(), "{table} has rows for the session");
        found.sort();
        rows.extend(found.into_iter().map(|row| format!("{table}: {row}")));
    }
    rows
}

#[tokio::test]
async fn a_session_left_inside_a_rabbit_hole_comes_back_in_it_with_every_row_it_owns() {
    let app = TestApp::spawn().await;
    let (session, _) = app.start(CELL).await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    ws.say("Something about the nucleus holding the genes?").await;
    ws.say("no idea").await;
    let frames = ws.say("Where did mitochondria originally come from, endosymbiosis?").await;
    ws.explore(&frames, "Were they bacteria once, swallowed whole?").await;
    ws.say("ribosomes make proteins").await;
    let frames = ws.say("Wait, how did the printing press change Europe?").await;
    let offer = crate::common::offered(&frames).expect("a second rabbit hole offered");
    ws.enter(&frames).await;
    ws.say("Was it the cheaper books?").await;
    let set =
        app.store().session(app.owner(), &session).await.unwrap().unwrap().set_id.expect("a set session");
    let resources = app.store().resources(app.owner(), &set).await.unwrap();
    app.store().record_shown(app.owner(), &session, &resources[0].id).await.unwrap();
    let before = owned_rows(&app, app.owner(), &session).await;
    assert!(
        before.iter().any(|r| r.starts_with("sessions: paused | ") && r.contains("| rabbithole |")),
        "exported from inside the hole: {before:#?}"
    );

    let file = app
        .http
        .get(app.url(&format!("/history/{session}/export.jsonl")))
        .header("cookie", &app.learner.cookie)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap()
        .to_vec();
    // Into a new Warren, whose new account has the demo set of that name, resources and all.
    let elsewhere = TestApp::spawn().await;
    let res = elsewhere.upload_import_as(&elsewhere.learner, "session.jsonl", file).await;
    assert_eq!(res.status(), 303, "{}", res.text().await.unwrap_or_default());
    let after = owned_rows(&elsewhere, elsewhere.owner(), &session).await;
    assert_eq!(after, before);

    // The history list counts both holes; the resumed session is back inside the second,
    // with the first's pill; a summary written again lists the hole explored.
    let (_, list) = elsewhere.page("/history").await;
    assert!(list.contains("2 rabbit holes"), "{list}");
    let mut ws = elsewhere.connect(&session).await;
    let started = ws
        .until(|m| matches!(m, ServerMessage::SessionStarted(_)))
        .await
        .into_iter()
        .find_map(|m| match m {
            ServerMessage::SessionStarted(s) => Some(s),
            _ => None,
        })
        .unwrap();
    assert_eq!(started.mode, SessionMode::Rabbithole);
    assert_eq!(started.rabbithole.map(|r| r.topic), Some(offer.topic));
    assert_eq!(started.rabbithole_labels.len(), 1, "{:?}", started.rabbithole_labels);
    drop(ws);
    elsewhere.engine.retry_summary(elsewhere.owner(), &session, Duration::from_secs(10)).await.unwrap();
    let entry =
        crate::synthesis::summary_reaches(&elsewhere, elsewhere.owner(), &session, SummaryStatus::Ready)
            .await
            .unwrap();
    let (_, tree) = tree(elsewhere.store(), elsewhere.owner(), &session).await;
    let summary = SessionSummary::from_data(tree.get(&entry).unwrap().data.as_ref().unwrap()).unwrap();
    assert_eq!(summary.rabbitholes.len(), 1, "{summary:?}");
}

#[tokio::test]
async fn a_version_one_file_imports_and_a_broken_one_is_refused() {
    let app = TestApp::spawn().await;
    let v1 = include_str!("../fixtures/session-v1.jsonl");
    let res = app.upload_import_as(&app.learner, "old.jsonl", v1.as_bytes().to_vec()).await;
    assert_eq!(res.status(), 303, "{}", res.text().await.unwrap_or_default());
    let session = res.headers()["location"].to_str().unwrap().trim_start_matches("/history/").to_string();
    let (leaf, entries) = tree(app.store(), app.owner(), &session).await;
    assert_eq!(entries.len(), 4);
    assert_eq!(leaf.as_deref(), Some("v1-d"), "the leaf is the last entry");
    let (_, html) = app.page(&format!("/history/{session}")).await;
    assert!(html.contains("Romulus and Remus"));
    assert!(html.contains("Rome: from republic to empire"), "the learner's set of that name");

    // Another file (another session's id) reusing those entry ids: imported under new ones.
    // Found by fuzzing: it used to fail on the entries' unique ids.
    let other = v1.replace("\"session\":\"v1-session\"", "\"session\":\"v2-session\"");
    assert_ne!(other, v1);
    let res = app.upload_import_as(&app.learner, "other.jsonl", other.into_bytes()).await;
    assert_eq!(res.status(), 303, "{}", res.text().await.unwrap_or_default());
    let copy = res.headers()["location"].to_str().unwrap().trim_start_matches("/history/").to_string();
    let (copy_leaf, copy_tree) = tree(app.store(), app.owner(), &copy).await;
    assert_eq!(copy_tree.len(), 4);
    assert_ne!(copy_leaf.as_deref(), Some("v1-d"), "new ids");
    assert_eq!(
        tree(app.store(), app.owner(), &session).await.0.as_deref(),
        Some("v1-d"),
        "the first is untouched"
    );

    let before = app.store().sessions(app.owner()).await.unwrap().len();
    for broken in [
        "{\"format\":\"warren-session\",\"version\":1}\n{\"id\":\"a\",\"parent\":\"zz\",\"ts\":1,\"kind\":\"message\"}",
        "nonsense",
    ] {
        let res = app.upload_import_as(&app.learner, "bad.jsonl", broken.as_bytes().to_vec()).await;
        assert_eq!(res.status(), 422);
        assert!(res.text().await.unwrap().contains("Line "), "says which line");
    }
    assert_eq!(app.store().sessions(app.owner()).await.unwrap().len(), before, "nothing kept");
}

#[tokio::test]
async fn the_list_searches_words_in_sets_and_messages_filters_by_status_and_pages() {
    let app = TestApp::spawn().await;
    let session = session_with_a_rabbit_hole(&app).await;
    let history = |args: &'static [(&'static str, &'static str)]| crate::study::history(&app, 0, args);
    // Every word must match somewhere: the set's name or the session's messages.
    assert_eq!(history(&[("q", "ribosomes")]).await.total, 1);
    assert_eq!(history(&[("q", "LIVING ribosomes")]).await.total, 1, "one in the name, one in a message");
    assert_eq!(history(&[("q", "ribosomes zebra")]).await.total, 0);
    assert_eq!(history(&[("q", "100%")]).await.total, 0, "wildcards are taken literally");
    let found = history(&[("q", "bacteria")]).await;
    assert_eq!(found.sessions[0].card.id, session);
    assert_eq!(found.sessions[0].rabbitholes, 1);

    assert_eq!(history(&[("status", "in_progress")]).await.total, 1);
    assert_eq!(history(&[("status", "completed")]).await.total, 0);
    assert_eq!(history(&[("status", "nonsense")]).await.total, 0, "an unknown status matches nothing");

    // Sixty more sessions: pages of fifty, newest first.
    let sets = app.store().list_sets(app.owner(), i64::MAX).await.unwrap();
    for i in 0..60 {
        app.engine.start_session(app.owner(), &sets[i % sets.len()].id, true).await.unwrap();
    }
    let first = history(&[]).await;
    assert_eq!((first.total, first.page, first.pages, first.sessions.len()), (61, 1, 2, 50));
    let second = history(&[("page", "2")]).await;
    assert_eq!(second.sessions.len(), 11);
    assert_eq!(second.sessions.last().unwrap().card.id, session, "the oldest last");
    let (status, html) = app.page("/history?page=2").await;
    assert_eq!(status, 200);
    assert!(html.contains("Page 2 of 2") && html.contains("href=\"/history\" rel=\"prev\""), "{html}");
    let (_, html) = app.page("/history?q=living&status=in_progress").await;
    assert!(html.contains("Page 1 of 1") && !html.contains("rel=\"next\""), "one page: {html}");
}

#[tokio::test]
async fn the_html_export_is_one_file_that_needs_nothing_else() {
    let app = TestApp::spawn().await;
    let session = session_with_a_rabbit_hole(&app).await;
    let res = app
        .http
        .get(app.url(&format!("/history/{session}/export.html")))
        .header("cookie", &app.learner.cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert!(res.headers()["content-disposition"].to_str().unwrap().contains(".html"));
    let html = res.text().await.unwrap();
    assert!(html.contains("Back to it: ribosomes make proteins") && html.contains("Rabbit hole: "));
    assert!(html.contains("data-filter=\"learner\"") && html.contains("id=\"search\""));
    // Nothing to fetch: no external script, stylesheet, image or font.
    for outside in ["<link", "src=\"", "href=\"/", "href=\"http", "url(/", "url(http", "url(fonts/"] {
        assert!(!html.contains(outside), "the export refers to something outside it: {outside}");
    }
    // Entry links are fragments the page's own script follows.
    assert!(html.contains("href=\"#leafId="));
}

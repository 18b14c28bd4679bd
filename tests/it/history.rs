//! History pages and session files over real HTTP: a session with a rabbit hole, shown as a
//! tree; filters, search, labels and deep links; JSONL export and import, a version-1 file;
//! and none of it within another learner's reach.

use warren::store::{EntryKind, Store, Tree};
use warren_app::protocol::ServerMessage;

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

/// How many entries a page shows, from its "X / Y entries" line.
fn count(html: &str) -> (u32, u32) {
    let at = html.find("data-testid=\"entry-count\"").expect("a count");
    let text = &html[at..];
    let start = text.find('>').unwrap() + 1;
    let shown_total = text[start..].split(" entries").next().unwrap();
    let (shown, total) = shown_total.split_once(" / ").unwrap();
    (shown.trim().parse().unwrap(), total.trim().parse().unwrap())
}

async fn tree(store: &Store, owner: &str, session: &str) -> (Option<String>, std::sync::Arc<Tree>) {
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
    assert_eq!((header["format"].as_str(), header["version"].as_u64()), (Some("warren-session"), Some(2)));

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
    let outcomes = |store: &Store, owner: &str| {
        let (store, owner, session) = (store.clone(), owner.to_string(), session.clone());
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

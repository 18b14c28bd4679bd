//! The session tree in the store: every operation on a real database (SQLite, or PostgreSQL
//! when the test script provides one).

use serde_json::json;
use warren::store::{Entry, EntryKind, NewEntry, Speaker, Store, Tree, resolve};
use warren_app::learner::LearnerId;

use crate::common::TestApp;

async fn append(store: &Store, owner: &LearnerId, session: &str, parent: Option<&str>, text: &str) -> Entry {
    let speaker = if text.starts_with("T:") { Speaker::Tutor } else { Speaker::Learner };
    store.append_entry(owner, session, parent, NewEntry::message(speaker, text), true).await.unwrap().entry
}

fn ids(entries: &[Entry]) -> Vec<&str> {
    entries.iter().map(|e| e.id.as_str()).collect()
}

async fn leaf(store: &Store, owner: &LearnerId, session: &str) -> Option<String> {
    store.session(owner, session).await.unwrap().unwrap().leaf_id
}

#[tokio::test]
async fn append_walk_branch_and_move_the_leaf() {
    let app = TestApp::spawn().await;
    let (session, _) = app.start("The living cell").await;
    let (store, owner) = (app.store(), app.owner());

    // root → a → b (main line), and a → x (a side branch).
    let root = append(store, owner, &session, None, "T:What do cells need?").await;
    assert_eq!(
        leaf(store, owner, &session).await.as_deref(),
        Some(root.id.as_str()),
        "append advances the leaf"
    );
    let a = append(store, owner, &session, Some(&root.id), "energy").await;
    let b = append(store, owner, &session, Some(&a.id), "T:From where?").await;
    let x = append(store, owner, &session, Some(&a.id), "a side thought").await;

    assert_eq!(store.entry(owner, &session, &b.id).await.unwrap(), Some(b.clone()));
    assert_eq!(store.entry(owner, &session, "missing").await.unwrap(), None);
    assert_eq!(ids(&store.children(owner, &session, &a.id).await.unwrap()), vec![&b.id, &x.id]);
    assert!(store.children(owner, &session, &b.id).await.unwrap().is_empty());
    assert_eq!(ids(&store.path(owner, &session, &b.id).await.unwrap()), vec![&root.id, &a.id, &b.id]);
    assert_eq!(ids(&store.path(owner, &session, &x.id).await.unwrap()), vec![&root.id, &a.id, &x.id]);
    assert!(store.path(owner, &session, "missing").await.unwrap().is_empty());

    let (row, tree) = store.tree(owner, &session).await.unwrap().unwrap();
    assert_eq!(row.leaf_id.as_deref(), Some(x.id.as_str()));
    assert_eq!(tree.len(), 4);
    assert_eq!(tree.roots().map(|e| e.id.as_str()).collect::<Vec<_>>(), vec![root.id.as_str()]);
    assert_eq!(tree.children(&a.id).map(|e| e.id.as_str()).collect::<Vec<_>>(), vec![&b.id, &x.id]);
    let path: Vec<&str> = tree.path(Some(&b.id)).iter().map(|e| e.id.as_str()).collect();
    assert_eq!(path, vec![&root.id, &a.id, &b.id]);

    // Moving the leaf back to b with nothing appended survives a restart.
    assert!(store.set_leaf(owner, &session, Some(&b.id)).await.unwrap());
    assert!(!store.set_leaf(owner, &session, Some("missing")).await.unwrap());
    let restarted = app.another_instance().await;
    assert_eq!(leaf(restarted.store(), owner, &session).await.as_deref(), Some(b.id.as_str()));

    // A branch with a summary: from a, a note of what the abandoned branch held.
    let summary = store
        .branch_with_summary(owner, &session, &a.id, "Looked at a side thought.", json!({"fromLeafId": x.id}))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(summary.kind, EntryKind::BranchSummary);
    assert_eq!(summary.parent_id.as_deref(), Some(a.id.as_str()));
    assert_eq!(leaf(store, owner, &session).await.as_deref(), Some(summary.id.as_str()));
    assert!(store.branch_with_summary(owner, &session, "missing", "x", json!({})).await.unwrap().is_none());

    // Another learner reaches none of it.
    let other = app.sign_up("someone-else").await;
    assert_eq!(store.entry(&other.id, &session, &a.id).await.unwrap(), None);
    assert!(store.children(&other.id, &session, &a.id).await.unwrap().is_empty());
    assert!(store.path(&other.id, &session, &b.id).await.unwrap().is_empty());
    assert!(store.tree(&other.id, &session).await.unwrap().is_none());
    assert!(!store.set_leaf(&other.id, &session, Some(&a.id)).await.unwrap());
    assert!(!store.set_label(&other.id, &session, &a.id, Some("mine")).await.unwrap());
    assert!(store.branch_with_summary(&other.id, &session, &a.id, "x", json!({})).await.unwrap().is_none());
}

/// An append that fails midway (its parent does not exist) or is given up while it waits for
/// the database leaves nothing half-written and no lock held: another instance writes at once,
/// and the session's entries and leaf are whole.
#[tokio::test]
async fn a_failed_or_abandoned_append_leaves_nothing_behind() {
    use sqlx::{Connection, Executor};

    let app = TestApp::spawn().await;
    let (session, _) = app.start("The living cell").await;
    // A store of its own, which nothing else writes through: only its own clean-up can free
    // a lock it left held.
    let store = &Store::open(&app.database_url).await.unwrap();
    let owner = app.owner();
    let root = append(store, owner, &session, None, "T:What do cells need?").await;

    let lost = NewEntry::message(Speaker::Learner, "under no parent");
    assert!(store.append_entry(owner, &session, Some("no-such-entry"), lost, true).await.is_err());

    // Another connection holds what the append needs (SQLite's write lock, the session's row
    // on PostgreSQL) until the append is given up.
    let mut holder = sqlx::AnyConnection::connect(&app.database_url).await.unwrap();
    if app.database_url.starts_with("sqlite") {
        holder.execute("BEGIN IMMEDIATE").await.unwrap();
    } else {
        holder.execute("BEGIN").await.unwrap();
        let lock = format!("SELECT id FROM sessions WHERE id = '{session}' FOR UPDATE");
        holder.execute(sqlx::AssertSqlSafe(lock)).await.unwrap();
    }
    let given_up = NewEntry::message(Speaker::Learner, "given up");
    let abandoned = tokio::time::timeout(
        std::time::Duration::from_millis(300),
        store.append_entry(owner, &session, Some(&root.id), given_up, true),
    )
    .await;
    assert!(abandoned.is_err(), "given up while it waited");
    holder.execute("ROLLBACK").await.unwrap();
    holder.close().await.unwrap();

    let energy = NewEntry::message(Speaker::Learner, "energy");
    let written = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        app.store().append_entry(owner, &session, Some(&root.id), energy, true),
    )
    .await
    .expect("no lock left held")
    .unwrap();
    let a = written.entry;
    let b = append(store, owner, &session, Some(&a.id), "T:From where?").await;

    let entries = store.entries(owner, &session).await.unwrap();
    assert!(entries.iter().all(|e| e.content != "under no parent"), "{entries:?}");
    // Given up, it was either written whole (under the root) or not at all.
    for e in entries.iter().filter(|e| e.content == "given up") {
        assert_eq!(e.parent_id.as_deref(), Some(root.id.as_str()));
    }
    let seqs: Vec<i64> = entries.iter().map(|e| e.seq).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    assert_eq!(entries.last().map(|e| e.id.as_str()), Some(b.id.as_str()));
    assert_eq!(leaf(store, owner, &session).await.as_deref(), Some(b.id.as_str()));
}

#[tokio::test]
async fn labels_are_set_and_cleared_and_the_newest_wins() {
    let app = TestApp::spawn().await;
    let (session, _) = app.start("The living cell").await;
    let (store, owner) = (app.store(), app.owner());
    let a = append(store, owner, &session, None, "T:Question").await;
    let b = append(store, owner, &session, Some(&a.id), "answer").await;

    assert!(store.set_label(owner, &session, &a.id, Some("  tricky  ")).await.unwrap());
    assert!(store.set_label(owner, &session, &b.id, Some("first")).await.unwrap());
    assert!(store.set_label(owner, &session, &b.id, Some("second")).await.unwrap());
    assert!(!store.set_label(owner, &session, "missing", Some("x")).await.unwrap());
    let labels = store.labels(owner, &session).await.unwrap();
    assert_eq!(labels.get(&a.id).map(String::as_str), Some("tricky"));
    assert_eq!(labels.get(&b.id).map(String::as_str), Some("second"), "the newest label wins");

    assert!(store.set_label(owner, &session, &a.id, None).await.unwrap());
    let labels = store.labels(owner, &session).await.unwrap();
    assert!(!labels.contains_key(&a.id), "cleared");
    // A label changes no one's context: the leaf stays where the conversation is.
    assert_eq!(leaf(store, owner, &session).await.as_deref(), Some(b.id.as_str()));
    let (_, tree) = store.tree(owner, &session).await.unwrap().unwrap();
    assert_eq!(tree.label(&b.id), Some("second"));
    assert_eq!(tree.label(&a.id), None);
    // A label entry cannot itself be labelled.
    let label_entry = tree.entries.iter().find(|e| e.kind == EntryKind::Label).unwrap();
    assert!(!store.set_label(owner, &session, &label_entry.id, Some("x")).await.unwrap());
}

#[tokio::test]
async fn compaction_resolves_to_its_summary_the_kept_entries_and_the_rest() {
    let app = TestApp::spawn().await;
    let (session, _) = app.start("The living cell").await;
    let (store, owner) = (app.store(), app.owner());
    let mut parent: Option<String> = None;
    let mut line = Vec::new();
    for text in ["T:q1", "a1", "T:q2", "a2", "T:q3"] {
        let e = append(store, owner, &session, parent.as_deref(), text).await;
        parent = Some(e.id.clone());
        line.push(e);
    }
    let compact = |summary: &str, first_kept: &str| {
        NewEntry::note(EntryKind::Compaction, summary, json!({"firstKeptEntryId": first_kept}))
    };
    let first = store
        .append_entry(owner, &session, parent.as_deref(), compact("older", &line[1].id), true)
        .await
        .unwrap()
        .entry;
    let a3 = append(store, owner, &session, Some(&first.id), "a3").await;
    let (row, tree) = store.tree(owner, &session).await.unwrap().unwrap();
    let path = tree.path(row.leaf_id.as_deref());
    let resolved = resolve(&path);
    assert_eq!(resolved.summary.map(|e| e.content.as_str()), Some("older"));
    let kept: Vec<&str> = resolved.kept.iter().map(|e| e.content.as_str()).collect();
    assert_eq!(kept, vec!["a1", "T:q2", "a2", "T:q3", "a3"], "kept from firstKeptEntryId, then the rest");

    // A newer compaction wins over the older one.
    let second = store
        .append_entry(owner, &session, Some(&a3.id), compact("newer", &line[3].id), true)
        .await
        .unwrap()
        .entry;
    let t4 = append(store, owner, &session, Some(&second.id), "T:q4").await;
    let tree = Tree::new(store.entries(owner, &session).await.unwrap());
    let path = tree.path(Some(&t4.id));
    let resolved = resolve(&path);
    assert_eq!(resolved.summary.map(|e| e.content.as_str()), Some("newer"));
    let kept: Vec<&str> = resolved.kept.iter().map(|e| e.content.as_str()).collect();
    assert_eq!(kept, vec!["a2", "T:q3", "a3", "T:q4"], "compaction entries themselves are left out");
    // Nothing was deleted.
    assert_eq!(tree.len(), 9);
    // Without a compaction, the whole path.
    let early = tree.path(Some(&line[2].id));
    assert_eq!(resolve(&early).kept.len(), 3);
    assert!(resolve(&early).summary.is_none());
}

#[tokio::test]
async fn a_tree_read_again_has_every_entry_appended_since_on_any_instance() {
    let app = TestApp::spawn().await;
    let (session, _) = app.start("The living cell").await;
    let (store, owner) = (app.store(), app.owner());
    let a = append(store, owner, &session, None, "T:first").await;
    let (_, first) = store.tree(owner, &session).await.unwrap().unwrap();
    assert_eq!(first.len(), 1);
    let b = append(store, owner, &session, Some(&a.id), "second").await;
    assert!(store.set_label(owner, &session, &b.id, Some("here")).await.unwrap());
    // Written by another instance, which this one's memory knows nothing of.
    let other = app.another_instance().await;
    append(other.store(), owner, &session, Some(&b.id), "T:third").await;
    let (_, again) = store.tree(owner, &session).await.unwrap().unwrap();
    assert_eq!(again.len(), 4, "two messages, a label and the other instance's reply");
    assert_eq!(again.label(&b.id), Some("here"));
    assert_eq!(first.len(), 1, "a tree handed out earlier does not change under its reader");
    // Another learner asking for it gets nothing, cached or not.
    let someone = app.sign_up("someone").await;
    assert!(store.tree(&someone.id, &session).await.unwrap().is_none());
}

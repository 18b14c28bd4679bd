//! Points from a learner's own material, through the real pages: a source pasted or uploaded
//! (prose, Markdown with a list and a table, a PDF written by fpdf2, a scanned PDF), drafted
//! in the background by the offline drafter or a model behind either wire format, reviewed,
//! edited and kept in one transaction with each point linked to its passage; every refusal a
//! sentence on the form; another learner's source unknown.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::multipart::{Form, Part};
use serde_json::Value;
use warren_app::api::ResourceKind;

use crate::common::fake_llm::{FakeLlm, Reply, Wire};
use crate::common::{Learner, TestApp};

const PROSE: &str = "The mitochondrion is the organelle that makes most of a cell's ATP. It has two membranes, \
and the inner one folds into cristae that give it more surface.\n\nRibosomes build proteins by reading messenger RNA. \
They are found free in the cytoplasm and on the rough endoplasmic reticulum.\n\nIn 1665, Robert Hooke named the cell \
after the small rooms of a monastery. The nucleus is the compartment that holds most of the cell's DNA. Lysosomes contain \
digestive enzymes that break down worn-out parts of the cell.";

const MARKDOWN: &str = "# The planets\n\nThe inner planets are small and rocky:\n\n- Mercury is the smallest planet in the solar system.\n\
- Venus is the hottest planet because its thick atmosphere traps heat.\n\n| Planet | Orbital period | Moons |\n|---|---|---|\n\
| Mercury | 88 days | 0 |\n| Mars | 687 days | 2 |\n\nJupiter is the largest planet, more than eleven times as wide as Earth.\n";

/// Where `scripts/test` writes the test PDFs (`scripts/sample-pdfs.py`).
fn sample_pdf(name: &str) -> Vec<u8> {
    let dir = std::env::var_os("WARREN_SAMPLE_PDFS")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/sample-pdfs"), PathBuf::from);
    std::fs::read(dir.join(name)).unwrap_or_else(|_| {
        panic!(
            "no {name} in {}: run scripts/test, or `source scripts/lib.sh; ensure_anki_packages`",
            dir.display()
        )
    })
}

impl TestApp {
    /// Sends the source form as `who`: a new set's name (or `into` a set), pasted text, a file.
    async fn send_source(
        &self,
        who: &Learner,
        into: Option<&str>,
        name: &str,
        text: &str,
        file: Option<(&str, Vec<u8>)>,
    ) -> reqwest::Response {
        let mut form = Form::new().text("name", name.to_string()).text("text", text.to_string());
        if let Some((file_name, bytes)) = file {
            form = form.part("file", Part::bytes(bytes).file_name(file_name.to_string()));
        }
        let path = into.map_or_else(|| "/sets/new/source".to_string(), |set| format!("/sets/{set}/source"));
        self.http.post(self.url(&path)).header("cookie", &who.cookie).multipart(form).send().await.unwrap()
    }

    /// Sends a source and waits for its drafts; the source page's path.
    async fn drafted(&self, name: &str, text: &str, file: Option<(&str, Vec<u8>)>) -> String {
        let res = self.send_source(&self.learner, None, name, text, file).await;
        assert_eq!(res.status(), 303, "{}", res.text().await.unwrap_or_default());
        let path = res.headers()["location"].to_str().unwrap().to_string();
        self.wait_for_drafts(&path).await;
        path
    }

    async fn wait_for_drafts(&self, path: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let res = self
                .http
                .get(self.url(&format!("{path}/progress")))
                .header("cookie", &self.learner.cookie)
                .send()
                .await
                .unwrap();
            let status = res.status().as_u16();
            let body = res.text().await.unwrap();
            if status == 200 {
                assert_eq!(body, "ready");
                return;
            }
            assert_eq!(status, 202, "{body}");
            assert!(Instant::now() < deadline, "still drafting: {body}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    fn source_id(path: &str) -> String {
        path.trim_start_matches("/sources/").to_string()
    }
}

#[tokio::test]
async fn a_pasted_passage_is_drafted_reviewed_edited_and_kept_with_its_passage() {
    let app = TestApp::spawn().await;
    let path = app.drafted("Cells from my notes", PROSE, None).await;
    let id = TestApp::source_id(&path);
    let drafts = app.store().source_drafts(app.owner(), &id).await.unwrap();
    assert!(drafts.len() >= 3, "{drafts:#?}");
    for draft in &drafts {
        assert!(PROSE.contains(&draft.quote), "quoted exactly: {}", draft.quote);
        assert!(!draft.cue.is_empty() && !draft.cue.contains(&draft.content));
    }
    let (status, page) = app.page(&path).await;
    assert_eq!(status, 200);
    let page = page.replace("<!>", "");
    assert!(page.contains("Keep the ticked points"), "{page}");
    // The source's words are quoted under a draft that says them otherwise, not under one that
    // repeats them word for word.
    let words = |text: &str| -> Vec<String> {
        text.split_whitespace().map(|w| w.trim_end_matches(['.', '!', '?']).to_lowercase()).collect()
    };
    let reworded = drafts.iter().filter(|d| words(&d.quote) != words(&d.content)).count();
    assert_eq!(page.matches("data-testid=\"draft-quote\"").count(), reworded, "{page}");
    // Every draft but the last can be merged with the next.
    assert_eq!(page.matches("Merge with the next point").count(), drafts.len() - 1, "{page}");
    // Nothing is kept before the learner says so.
    assert!(app.store().set_named(app.owner(), "Cells from my notes").await.unwrap().is_none());

    // Keep all but the first; the second edited.
    let mut form: Vec<(String, String)> = Vec::new();
    for (i, draft) in drafts.iter().enumerate().skip(1) {
        form.push((format!("keep-{i}"), "on".into()));
        let content = if i == 1 {
            "Ribosomes make proteins from messenger RNA.".to_string()
        } else {
            draft.content.clone()
        };
        form.push((format!("content-{i}"), content));
        form.push((format!("cue-{i}"), draft.cue.clone()));
    }
    let fields: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let res = app.post_form(&path, &fields).await;
    assert_eq!(res.status(), 303);
    let set = app.store().set_named(app.owner(), "Cells from my notes").await.unwrap().expect("the new set");
    assert!(res.headers()["location"].to_str().unwrap().starts_with(&format!("/sets/{}", set.id)));
    let points = app.store().points(app.owner(), &set.id).await.unwrap();
    assert_eq!(points.len(), drafts.len() - 1);
    assert_eq!(points[0].content, "Ribosomes make proteins from messenger RNA.");
    // Each point is linked to a text resource holding its passage.
    let resources = app.store().resources(app.owner(), &set.id).await.unwrap();
    assert!(!resources.is_empty());
    for point in &points {
        let linked: Vec<_> =
            resources.iter().filter(|r| r.points.iter().any(|(p, _)| *p == point.id)).collect();
        assert_eq!(linked.len(), 1, "{}", point.content);
        assert_eq!(linked[0].kind, ResourceKind::Text);
        assert!(
            PROSE.contains(linked[0].body.split("\n\n").next().unwrap()),
            "its passage: {}",
            linked[0].body
        );
    }
    // The source is gone once kept (its page says why it may be), and the new set can be studied.
    let (status, page) = app.page(&path).await;
    assert_eq!(status, 404);
    assert!(page.contains("kept or put aside already"), "{page}");
    app.engine.start_session(app.owner(), &set.id, true).await.unwrap();
}

#[tokio::test]
async fn markdown_with_a_list_and_a_table_and_a_pdf_give_drafts_quoted_from_their_source() {
    let app = TestApp::spawn().await;
    let path = app.drafted("Planets", MARKDOWN, None).await;
    let drafts = app.store().source_drafts(app.owner(), &TestApp::source_id(&path)).await.unwrap();
    assert!(drafts.len() >= 3, "{drafts:#?}");
    for draft in &drafts {
        assert!(MARKDOWN.contains(&draft.quote), "quoted exactly: {:?}", draft.quote);
    }
    // A table row is read out against its header, and quotes its own line.
    let row = drafts.iter().find(|d| d.content.contains(": orbital period ")).expect("a table row's point");
    assert!(row.quote.starts_with("| ") && row.quote.ends_with(" |"), "{row:?}");
    assert!(drafts.iter().any(|d| d.content.contains("Venus is the hottest planet")), "{drafts:#?}");

    let path = app.drafted("Water", "", Some(("water-cycle.pdf", sample_pdf("passage.pdf")))).await;
    let id = TestApp::source_id(&path);
    let source = app.store().source(app.owner(), &id).await.unwrap().unwrap();
    let text = source.passages.join("\n\n");
    assert!(
        text.contains("Evaporation is the process by which liquid water turns into water vapour."),
        "{text}"
    );
    let drafts = app.store().source_drafts(app.owner(), &id).await.unwrap();
    assert!(drafts.len() >= 3, "{drafts:#?}");
    let folded = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    for draft in &drafts {
        assert!(folded(&text).contains(&folded(&draft.quote)), "quoted from the PDF: {}", draft.quote);
    }
    assert!(drafts.iter().any(|d| d.content.contains("97 percent")), "{drafts:#?}");
}

#[tokio::test]
async fn every_refusal_is_a_sentence_on_the_form_and_keeps_nothing() {
    let app = TestApp::spawn().await;
    let refused = |res: reqwest::Response| async move {
        assert_eq!(res.status(), 422);
        res.text().await.unwrap().replace("<!>", "")
    };
    let page = refused(app.send_source(&app.learner, None, "", PROSE, None).await).await;
    assert!(page.contains("Give the new set a name."), "{page}");
    let page = refused(app.send_source(&app.learner, None, "Empty", "   ", None).await).await;
    assert!(page.contains("There is no text to draft from"), "{page}");
    let long = "a".repeat(200_001);
    let page = refused(app.send_source(&app.learner, None, "Long", &long, None).await).await;
    assert!(page.contains("The text has 200,001 characters; up to 200,000"), "{page}");
    let page = refused(
        app.send_source(&app.learner, None, "Scan", "", Some(("scan.pdf", sample_pdf("scanned.pdf")))).await,
    )
    .await;
    assert!(page.contains("This PDF has no text to read: its pages are pictures (a scan)."), "{page}");
    let page =
        refused(app.send_source(&app.learner, None, "Doc", "", Some(("notes.docx", b"PK".to_vec()))).await)
            .await;
    assert!(page.contains("Warren reads .txt, .md, .html and .pdf files"), "{page}");
    let names: Vec<String> =
        app.store().list_sets(app.owner(), 0).await.unwrap().into_iter().map(|s| s.name).collect();
    assert!(names.iter().all(|n| !["Empty", "Long", "Scan", "Doc"].contains(&n.as_str())), "{names:?}");
}

#[tokio::test]
async fn a_review_sent_twice_keeps_its_points_once_and_merged_drafts_are_one_point() {
    let app = TestApp::spawn().await;
    let path = app.drafted("Twice", PROSE, None).await;
    let drafts = app.store().source_drafts(app.owner(), &TestApp::source_id(&path)).await.unwrap();
    assert!(drafts.len() >= 3, "{drafts:#?}");
    // Every draft ticked, the first merged with the second.
    let mut form: Vec<(String, String)> = vec![("merge-0".into(), "on".into())];
    for (i, draft) in drafts.iter().enumerate() {
        form.push((format!("keep-{i}"), "on".into()));
        form.push((format!("content-{i}"), draft.content.clone()));
        form.push((format!("cue-{i}"), draft.cue.clone()));
    }
    let fields: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    // A double click: the same form twice at once.
    let (first, second) = tokio::join!(app.post_form(&path, &fields), app.post_form(&path, &fields));
    let statuses = [first.status().as_u16(), second.status().as_u16()];
    assert!(statuses.contains(&303), "{statuses:?}");
    let sets: Vec<String> = app
        .store()
        .list_sets(app.owner(), 0)
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.name)
        .filter(|n| n.starts_with("Twice"))
        .collect();
    assert_eq!(sets, ["Twice"], "one set, not two");
    let set = app.store().set_named(app.owner(), "Twice").await.unwrap().unwrap();
    let points = app.store().points(app.owner(), &set.id).await.unwrap();
    assert_eq!(points.len(), drafts.len() - 1, "kept once, two drafts merged into one");
    let joint = if drafts[0].content.ends_with('.') { " " } else { ". " };
    assert_eq!(points[0].content, format!("{}{joint}{}", drafts[0].content, drafts[1].content));
    assert_eq!(points[0].context, drafts[0].cue, "a merged point keeps the first cue");
    // Sent again later, it finds nothing to keep and changes nothing.
    assert_eq!(app.post_form(&path, &fields).await.status(), 404);
    assert_eq!(app.store().points(app.owner(), &set.id).await.unwrap().len(), points.len());
}

#[tokio::test]
async fn sources_nobody_kept_are_swept_after_a_day_and_a_file_over_the_cap_is_a_sentence() {
    use sqlx::Connection;
    let app = TestApp::spawn().await;
    let old = app.drafted("Old", PROSE, None).await;
    let fresh = app.drafted("Fresh", PROSE, None).await;
    sqlx::any::install_default_drivers();
    let mut db = sqlx::AnyConnection::connect(&app.database_url).await.unwrap();
    sqlx::query("UPDATE sources SET created_at = created_at - 86400001 WHERE id = $1")
        .bind(TestApp::source_id(&old))
        .execute(&mut db)
        .await
        .unwrap();
    assert_eq!(app.store().sweep_sources().await.unwrap(), 1);
    assert_eq!(app.page(&old).await.0, 404);
    assert!(app.store().source_drafts(app.owner(), &TestApp::source_id(&old)).await.unwrap().is_empty());
    assert_eq!(app.page(&fresh).await.0, 200, "a source of today stays");

    let big = vec![b'a'; warren_app::forms::limits::SOURCE_BYTES + 1];
    let res = app.send_source(&app.learner, None, "Big", "", Some(("big.txt", big))).await;
    assert_eq!(res.status(), 422);
    let page = res.text().await.unwrap();
    assert!(page.contains("The file is 21 MB; files up to 20 MB can be read."), "{page}");
    assert!(app.store().set_named(app.owner(), "Big").await.unwrap().is_none());
}

#[tokio::test]
async fn a_drafting_overtaken_by_draft_again_records_and_writes_nothing_when_it_ends() {
    use sqlx::Connection;
    use warren::store::{FIRST_RUN, NewDraft, SOURCE_LAPSE_MS, SourceStatus};
    let app = TestApp::spawn().await;
    let (store, me) = (app.store(), app.owner());
    let passage = "Ribosomes build proteins by reading messenger RNA.".to_string();
    let id =
        store.create_source(me, None, "Cells", "Pasted text", std::slice::from_ref(&passage)).await.unwrap();
    assert_eq!(
        store.claim_source(me, &id).await.unwrap(),
        None,
        "a drafting with a fresh heartbeat is left alone"
    );
    // The first run goes quiet past the lapse (a model slower than that, on an instance that
    // then died), and the learner presses "Draft again".
    sqlx::any::install_default_drivers();
    let mut db = sqlx::AnyConnection::connect(&app.database_url).await.unwrap();
    sqlx::query("UPDATE sources SET heartbeat_at = heartbeat_at - $1 WHERE id = $2")
        .bind(SOURCE_LAPSE_MS + 1)
        .bind(&id)
        .execute(&mut db)
        .await
        .unwrap();
    let second = store.claim_source(me, &id).await.unwrap().expect("a quiet drafting is taken over");
    assert_eq!(second, FIRST_RUN + 1);
    let draft = |content: &str| NewDraft {
        passage: 0,
        content: content.into(),
        cue: String::new(),
        quote: passage.clone(),
    };
    // The first run ends after all: its progress and drafts go nowhere.
    store.source_progress(me, &id, FIRST_RUN, Some(1)).await.unwrap();
    store.finish_source(me, &id, FIRST_RUN, &[draft("From the run that stopped")], &[]).await.unwrap();
    let source = store.source(me, &id).await.unwrap().unwrap();
    assert_eq!((source.status, source.passages_done), (SourceStatus::Drafting, 0));
    assert!(store.source_drafts(me, &id).await.unwrap().is_empty());
    // The run that holds the source records and keeps its own, once.
    store.source_progress(me, &id, second, Some(1)).await.unwrap();
    store.finish_source(me, &id, second, &[draft("From the run that holds it")], &[]).await.unwrap();
    let source = store.source(me, &id).await.unwrap().unwrap();
    assert_eq!((source.status, source.passages_done), (SourceStatus::Ready, 1));
    let kept: Vec<String> =
        store.source_drafts(me, &id).await.unwrap().into_iter().map(|d| d.content).collect();
    assert_eq!(kept, ["From the run that holds it"]);
    store.finish_source(me, &id, second, &[draft("Again")], &[]).await.unwrap();
    assert_eq!(store.source_drafts(me, &id).await.unwrap().len(), 1, "a finished run finishes once");
}

#[tokio::test]
async fn the_command_line_prints_drafts_and_keeps_them_with_yes() {
    let app = TestApp::spawn().await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cells.md");
    std::fs::write(&file, PROSE).unwrap();
    let run = |keep: bool| {
        let mut args = vec!["draft", "--user", "learner", "--set", "Cells", file.to_str().unwrap()];
        if keep {
            args.push("--yes");
        }
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_warren"))
            .args(args)
            .env("DATABASE_URL", &app.database_url)
            .env("WARREN_LLM", "offline")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{stdout} {}", String::from_utf8_lossy(&out.stderr));
        stdout
    };
    let printed = run(false);
    assert!(printed.contains(" points drafted from “cells.md” (1 passage):"), "{printed}");
    assert!(
        printed.contains(
            "quote (passage 1): “The nucleus is the compartment that holds most of the cell's DNA.”"
        ),
        "{printed}"
    );
    assert!(!printed.contains("check: "), "the offline drafter's own drafts pass the checks: {printed}");
    assert!(printed.contains("Nothing is kept yet: review them at /sources/"), "{printed}");
    assert!(app.store().set_named(app.owner(), "Cells").await.unwrap().is_none());
    let kept = run(true);
    let set = app.store().set_named(app.owner(), "Cells").await.unwrap().expect("kept with --yes");
    let points = app.store().points(app.owner(), &set.id).await.unwrap();
    assert!(points.len() >= 3, "{points:#?}");
    assert!(kept.contains(&format!("Kept {} points in “Cells”.", points.len())), "{kept}");
}

#[tokio::test]
async fn points_drafted_into_a_set_are_added_after_its_own_and_repeats_are_flagged() {
    let app = TestApp::spawn().await;
    let set = app.store().set_named(app.owner(), "The living cell").await.unwrap().unwrap();
    let before = app.store().points(app.owner(), &set.id).await.unwrap();
    let repeat =
        format!("{}\n\nCentrioles help a cell divide by organising the spindle fibres.", before[0].content);
    let res = app.send_source(&app.learner, Some(&set.id), "", &repeat, None).await;
    assert_eq!(res.status(), 303);
    let path = res.headers()["location"].to_str().unwrap().to_string();
    app.wait_for_drafts(&path).await;
    let (_, page) = app.page(&path).await;
    assert!(page.contains("data-check=\"duplicate\""), "the set has it already: {page}");
    let drafts = app.store().source_drafts(app.owner(), &TestApp::source_id(&path)).await.unwrap();
    let keep: Vec<(String, String)> = drafts
        .iter()
        .enumerate()
        .filter(|(_, d)| d.content.contains("Centrioles"))
        .flat_map(|(i, d)| {
            [(format!("keep-{i}"), "on".to_string()), (format!("content-{i}"), d.content.clone())]
        })
        .collect();
    let fields: Vec<(&str, &str)> = keep.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(app.post_form(&path, &fields).await.status(), 303);
    let after = app.store().points(app.owner(), &set.id).await.unwrap();
    assert_eq!(after.len(), before.len() + 1);
    assert!(after.last().unwrap().content.contains("Centrioles"));
    assert_eq!(after[..before.len()], before[..], "the set's own points stay as they were");
}

#[tokio::test]
async fn another_learners_source_progress_and_forms_are_not_found() {
    let app = TestApp::spawn().await;
    let path = app.drafted("Mine", PROSE, None).await;
    let id = TestApp::source_id(&path);
    let drafts_before = app.store().source_drafts(app.owner(), &id).await.unwrap();
    let bob = app.sign_up("bob").await;
    assert_eq!(app.page_as(&bob, &path).await.0, 404);
    let progress = app
        .http
        .get(app.url(&format!("{path}/progress")))
        .header("cookie", &bob.cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(progress.status(), 404);
    for action in [path.clone(), format!("{path}/again"), format!("{path}/cancel")] {
        let res = app.post_form_as(&bob, &action, &[("keep-0", "on")]).await;
        assert_eq!(res.status(), 404, "{action}");
    }
    // Another learner's set is not a place to draft into either.
    let set = app.store().set_named(app.owner(), "The living cell").await.unwrap().unwrap();
    assert_eq!(app.send_source(&bob, Some(&set.id), "", PROSE, None).await.status(), 404);
    assert_eq!(app.page_as(&bob, &format!("/sets/{}/source", set.id)).await.0, 404);
    assert_eq!(app.store().source_drafts(app.owner(), &id).await.unwrap(), drafts_before);
    assert!(app.store().source(&bob.id, &id).await.unwrap().is_none());
}

/// The drafting agent's request on both wire formats: its own prompt (the rules, the set),
/// the passage as the message; its answer read; a malformed one asked for again, and a
/// passage whose answer stays malformed reported as not drafted.
#[tokio::test]
async fn the_drafting_agent_asks_each_wire_format_and_a_bad_answer_leaves_a_passage_undrafted() {
    let good = r#"{"points":[{"content":"Ribosomes build proteins by reading messenger RNA.","cue":"What do ribosomes build, and from what?","quote":"Ribosomes build proteins by reading messenger RNA."}]}"#;
    for wire in [Wire::Anthropic, Wire::OpenAi] {
        // One passage: a malformed answer, then a good one.
        let llm = FakeLlm::start(wire, vec![Reply::Text(vec!["not json"]), Reply::Text(vec![good])]).await;
        let app = TestApp::on_fake(wire, &llm).await;
        let path = app.drafted("Proteins", "Ribosomes build proteins by reading messenger RNA.", None).await;
        let drafts = app.store().source_drafts(app.owner(), &TestApp::source_id(&path)).await.unwrap();
        assert_eq!(drafts.len(), 1, "{wire:?}");
        assert_eq!(drafts[0].cue, "What do ribosomes build, and from what?");
        let requests: Vec<Value> = llm.received().into_iter().map(|r| r.body).collect();
        let drafting: Vec<&Value> =
            requests.iter().filter(|r| r.to_string().contains("draft recall points")).collect();
        assert_eq!(drafting.len(), 2, "{wire:?}: asked, then once more");
        let request = drafting[0];
        let (system, messages) = match wire {
            Wire::Anthropic => (request["system"].to_string(), request["messages"].clone()),
            Wire::OpenAi => (
                request["messages"][0]["content"].to_string(),
                Value::from(request["messages"].as_array().unwrap()[1..].to_vec()),
            ),
        };
        for rule in [
            "One fact per point",
            "Self-contained",
            "No two points say the same",
            "Faithful",
            "exact words",
            "\\\"Proteins\\\"",
            "JSON only",
        ] {
            assert!(system.contains(rule), "{wire:?}: {rule} in {system}");
        }
        assert_eq!(messages.as_array().unwrap().len(), 1);
        assert!(messages.to_string().contains("Passage:\\nRibosomes build proteins"), "{messages}");

        // Malformed twice: the passage is named as not drafted on the review page.
        let llm = FakeLlm::start(wire, vec![Reply::Text(vec!["nope"]), Reply::Text(vec!["still no"])]).await;
        let app = TestApp::on_fake(wire, &llm).await;
        let path = app.drafted("Proteins", "Ribosomes build proteins by reading messenger RNA.", None).await;
        let (_, page) = app.page(&path).await;
        assert!(
            page.contains("data-testid=\"not-drafted\"") && page.contains("passage 1"),
            "{wire:?} {page}"
        );

        // Three passages drafted at once: one answered, one refused by the provider, one
        // answered in words that are not JSON, twice. The first keeps its drafts; the other two
        // are named.
        let answer = move |body: &Value| -> Reply {
            let asked = body["messages"].to_string();
            if !asked.contains("Passage:") {
                Reply::Text(vec!["What comes to mind?"])
            } else if asked.contains("Ribosomes build") {
                Reply::Said(good.to_string())
            } else if asked.contains("Robert Hooke") {
                Reply::Status { status: 400, headers: vec![], body: r#"{"error":{"message":"bad request"}}"# }
            } else {
                Reply::Text(vec!["Here are some points about the Golgi apparatus."])
            }
        };
        let llm = FakeLlm::start_with(wire, vec![], Some(Arc::new(answer))).await;
        let app = TestApp::on_fake(wire, &llm).await;
        let paragraph = |sentence: &str| sentence.repeat(1_000 / sentence.len() + 1).trim().to_string();
        let text = [
            paragraph("Ribosomes build proteins by reading messenger RNA. "),
            paragraph("In 1665, Robert Hooke named the cell after the small rooms of a monastery. "),
            paragraph("The Golgi apparatus packages proteins into vesicles for export. "),
        ]
        .join("\n\n");
        assert_eq!(warren::drafting::passages(&text).len(), 3);
        let path = app.drafted("Three passages", &text, None).await;
        let drafts = app.store().source_drafts(app.owner(), &TestApp::source_id(&path)).await.unwrap();
        let kept: Vec<(i64, &str)> = drafts.iter().map(|d| (d.passage, d.content.as_str())).collect();
        assert_eq!(kept, [(0, "Ribosomes build proteins by reading messenger RNA.")], "{wire:?}");
        let source = app.store().source(app.owner(), &TestApp::source_id(&path)).await.unwrap().unwrap();
        assert_eq!((source.passages_done, source.not_drafted), (3, vec![1, 2]), "{wire:?}");
        let (_, page) = app.page(&path).await;
        assert!(page.contains("passages 2, 3."), "{wire:?} {page}");
    }
}

//! Untrusted text stays text. Set names, descriptions, guidelines, points, cues, resources,
//! messages, labels, rabbit-hole topics, summaries, sign-in details and search terms come from
//! learners and from files other people make. Each payload below goes into every such field,
//! through the real forms, socket and imports; every page that shows them is parsed with an
//! HTML5 parser and must have the same element tree as with a harmless text, with nothing
//! from the payload become an element or an attribute. Imports in every format give the
//! payload back as the text it was.

use std::collections::BTreeSet;

use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use reqwest::multipart::Form;
use scraper::{ElementRef, Html, Selector};
use serde_json::json;
use warren_app::forms::limits;
use warren_app::protocol::ServerMessage;
use warren_app::summary::SummaryStatus;

use crate::common::{PASSWORD, TestApp};
use crate::synthesis::summary_reaches;

const HARMLESS: &str = "Harmless words";

/// What a hostile name, point or message might hold.
fn payloads() -> Vec<String> {
    let mut long = String::new();
    while long.chars().count() + 30 <= limits::SET_NAME {
        long.push_str("</textarea><iframe srcdoc=x>");
    }
    let long: String =
        format!("{long}{}", "<".repeat(limits::SET_NAME)).chars().take(limits::SET_NAME).collect();
    [
        r#"</title><meta http-equiv="refresh" content="0;url=http://127.0.0.1:9/phish"><title>"#,
        r#""><img src=x onerror=alert(1)>"#,
        r#"'><svg onload=alert(1)>"#,
        "</script><script>alert(1)</script>",
        "<!--",
        "]]>",
        r#"<base href="http://127.0.0.1:9/">"#,
        "javascript:alert(1)",
        r#"[click](javascript:alert(1)) <a href="javascript:alert(1)">x</a>"#,
        "data:text/html,<script>alert(1)</script>",
        "line\u{2028}separator\u{2029}end",
        "nul\0byte",
        &long,
    ]
    .into_iter()
    .map(str::to_string)
    .collect()
}

/// One element of a page: its name and its attributes' names.
fn element(e: &ElementRef) -> String {
    let attributes: BTreeSet<&str> = e.value().attrs().map(|(name, _)| name).collect();
    format!("{}[{}]", e.value().name(), attributes.into_iter().collect::<Vec<_>>().join(" "))
}

/// What a page is made of, in document order. A Markdown block (`div.md`) counts as one
/// element: Markdown turns text into structure on purpose, so its inside is checked by
/// [`smuggled`] instead.
fn shape(doc: &Html) -> Vec<String> {
    fn walk(e: ElementRef, out: &mut Vec<String>) {
        out.push(element(&e));
        if e.value().name() == "div" && e.value().classes().any(|c| c == "md") {
            return;
        }
        for child in e.children().filter_map(ElementRef::wrap) {
            walk(child, out);
        }
    }
    let mut out = Vec::new();
    walk(doc.root_element(), &mut out);
    out
}

/// Elements and attributes that no page of Warren's has, wherever they are, and anything
/// inside Markdown beyond what Markdown may make.
fn smuggled(doc: &Html) -> Vec<String> {
    let mut found = Vec::new();
    let all = Selector::parse("*").unwrap();
    for e in doc.select(&all) {
        let name = e.value().name();
        if matches!(name, "base" | "iframe" | "object" | "embed" | "img" | "frame" | "frameset") {
            found.push(element(&e));
        }
        if name == "meta"
            && let Some(equiv) = e.value().attr("http-equiv")
            && !equiv.eq_ignore_ascii_case("content-security-policy")
        {
            found.push(element(&e));
        }
        if name == "script" && e.text().any(|t| t.contains("alert(")) {
            found.push(format!("a script running {:?}", e.text().collect::<String>()));
        }
        for (attribute, value) in e.value().attrs() {
            let value = value.trim().to_ascii_lowercase();
            let url =
                matches!(attribute, "href" | "src" | "action" | "formaction" | "srcdoc" | "content" | "data");
            if attribute.starts_with("on")
                || url
                    && (value.starts_with("javascript:")
                        || value.contains("url=")
                        || value.starts_with("data:"))
            {
                found.push(format!("{}: {attribute}={value:?}", element(&e)));
            }
        }
    }
    let markdown = Selector::parse("div.md *").unwrap();
    for e in doc.select(&markdown) {
        let allowed: &[&str] = match e.value().name() {
            "a" => &["href", "rel", "target"],
            "span" | "div" => &["class"],
            "p" | "h4" | "blockquote" | "ol" | "ul" | "li" | "em" | "strong" | "del" | "code" | "pre"
            | "br" | "hr" => &[],
            _ => {
                found.push(format!("{} inside Markdown", element(&e)));
                continue;
            }
        };
        if e.value().attrs().any(|(name, _)| !allowed.contains(&name)) {
            found.push(format!("{} inside Markdown", element(&e)));
        }
    }
    found
}

fn query(text: &str) -> String {
    utf8_percent_encode(text, NON_ALPHANUMERIC).to_string()
}

/// Every field filled with `text` through the real forms, socket and imports; then every page
/// that shows them, by name.
async fn pages_with(text: &str) -> Vec<(&'static str, String)> {
    let app = TestApp::spawn().await;
    let expect_303 = |what: &str, res: &reqwest::Response| {
        assert_eq!(res.status(), 303, "{what} with {text:?}");
        res.headers()["location"].to_str().unwrap().to_string()
    };
    let created =
        app.post_form("/sets/new", &[("name", text), ("description", text), ("guidelines", text)]).await;
    let set = expect_303("a new set", &created).trim_start_matches("/sets/").to_string();
    for content in [text.to_string(), format!("{text} (2)")] {
        let added =
            app.post_form(&format!("/sets/{set}/points"), &[("content", &content), ("context", text)]).await;
        expect_303("a point", &added);
    }
    let points = app.store().points(app.owner(), &set).await.unwrap();
    let form = Form::new()
        .text("title", text.to_string())
        .text("body", text.to_string())
        .text("points", points[0].id.clone());
    expect_303("a resource", &app.upload(&set, form).await);
    let resource = app.store().resources(app.owner(), &set).await.unwrap().remove(0).id;
    // The same form sent back with what was typed: the description is over its cap.
    let over = "x".repeat(limits::DESCRIPTION + 1);
    let echo =
        app.post_form("/sets/new", &[("name", text), ("description", &over), ("guidelines", text)]).await;
    assert_eq!(echo.status(), 422);
    let echo = echo.text().await.unwrap();

    // A live session: a try, a rabbit hole on the payload, then Leave, which writes the summary.
    let session = app.engine.start_session(app.owner(), &set, true).await.unwrap().id;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    ws.say("I don't remember").await;
    // A rabbit hole on the payload, written as the engine writes one: from text that came in
    // through the socket, so already clean.
    let store = app.store();
    let topic = warren_app::clean::line(text);
    let hole =
        store.create_rabbithole(app.owner(), &session, &topic, &topic, None, &json!({})).await.unwrap();
    let said = warren_app::clean::text(text);
    store
        .finish_rabbithole(app.owner(), &hole, &json!([{"role": "user", "content": said}]), 0)
        .await
        .unwrap();
    ws.send(json!({"type": "leave_session"})).await;
    ws.until(|m| matches!(m, ServerMessage::SessionPaused(_))).await;
    summary_reaches(&app, app.owner(), &session, SummaryStatus::Ready).await;
    let entries = store.entries(app.owner(), &session).await.unwrap();
    let said = entries.iter().find(|e| e.content == "I don't remember").unwrap().id.clone();
    let labelled = app
        .post_form(&format!("/history/{session}/label"), &[("target", &said), ("label", text), ("back", "")])
        .await;
    expect_303("a label", &labelled);

    // A session file with the payload in every entry, a rabbit hole among them.
    let now = warren::store::now_ms();
    let lines = [
        json!({"type": "header", "format": "warren-session", "version": 2, "sessionId": "payload-session",
               "setName": text, "status": "paused", "startedAt": now - 60_000, "updatedAt": now,
               "endedAt": null, "activeMs": 60_000, "leafId": "e5", "points": [text], "recalled": []}),
        json!({"type": "entry", "id": "e1", "parentId": null, "timestamp": now - 50_000, "kind": "message",
               "speaker": "tutor", "content": text}),
        json!({"type": "entry", "id": "e2", "parentId": "e1", "timestamp": now - 40_000, "kind": "message",
               "speaker": "learner", "content": text}),
        json!({"type": "entry", "id": "e3", "parentId": "e2", "timestamp": now - 30_000, "kind": "mode_change",
               "content": "", "data": {"mode": "rabbithole", "rabbitholeId": "h1", "topic": text}}),
        json!({"type": "entry", "id": "e4", "parentId": "e3", "timestamp": now - 20_000, "kind": "message",
               "speaker": "explorer", "content": text}),
        json!({"type": "entry", "id": "e5", "parentId": "e2", "timestamp": now - 10_000, "kind": "branch_summary",
               "content": text, "data": {"rabbitholeId": "h1"}}),
        json!({"type": "entry", "id": "e6", "parentId": "e5", "timestamp": now, "kind": "label",
               "content": text, "data": {"targetId": "e2"}}),
    ];
    let file: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let imported = app.upload_import_as(&app.learner, "payload.jsonl", file.into_bytes()).await;
    let imported = expect_303("a session file", &imported).trim_start_matches("/history/").to_string();

    // An import waiting for its preview.
    let mut csv = csv::Writer::from_writer(Vec::new());
    csv.write_record(["content", "cue"]).unwrap();
    csv.write_record([text, text]).unwrap();
    let draft = app.upload_import_as(&app.learner, "payload.csv", csv.into_inner().unwrap()).await;
    let preview = expect_303("an import", &draft);

    // A second sign-in whose browser names itself with the payload (what a header can carry).
    let agent: String = text.chars().map(|c| if (' '..='~').contains(&c) { c } else { '?' }).collect();
    {
        let res = app
            .http
            .post(app.url("/auth/signin"))
            .header("user-agent", agent)
            .form(&[("username", app.learner.username.as_str()), ("password", PASSWORD)])
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 303);
    }

    let q = query(text);
    let point = &points[0].id;
    let paths: Vec<(&'static str, String)> = vec![
        ("dashboard", "/".into()),
        ("sets", "/sets".into()),
        ("set", format!("/sets/{set}")),
        ("set edit", format!("/sets/{set}/edit")),
        ("set delete", format!("/sets/{set}/delete")),
        ("point edit", format!("/sets/{set}/points/{point}/edit")),
        ("point delete", format!("/sets/{set}/points/{point}/delete")),
        ("resource delete", format!("/sets/{set}/resources/{resource}/delete")),
        ("import preview", preview),
        ("live session", format!("/sessions/{session}")),
        ("history", "/history".into()),
        ("history search", format!("/history?q={q}")),
        ("session", format!("/history/{session}")),
        ("session, searched", format!("/history/{session}?filter=all&q={q}")),
        ("imported session", format!("/history/{imported}?filter=all")),
        ("imported rabbit hole", format!("/history/{imported}?leafId=e4&targetId=e4")),
        ("account", "/account".into()),
        ("exported page", format!("/history/{session}/export.html")),
        ("imported session's exported page", format!("/history/{imported}/export.html")),
    ];
    let mut pages = vec![("new set sent back", echo)];
    for (name, path) in paths {
        let (status, html) = app.page(&path).await;
        assert_eq!(status, 200, "{name} ({path}) with {text:?}");
        pages.push((name, html));
    }
    pages
}

/// Where two shapes first part, for the failure message.
fn difference(want: &[String], got: &[String]) -> String {
    let at = want.iter().zip(got).position(|(a, b)| a != b).unwrap_or(want.len().min(got.len()));
    format!(
        "element {at}: expected {:?}, found {:?} ({} elements against {})",
        want.get(at),
        got.get(at),
        want.len(),
        got.len()
    )
}

#[tokio::test]
async fn untrusted_text_never_becomes_markup_on_any_page() {
    let baseline: Vec<(&str, Vec<String>)> = pages_with(HARMLESS)
        .await
        .iter()
        .map(|(name, html)| (*name, shape(&Html::parse_document(html))))
        .collect();
    let mut failures = Vec::new();
    for payload in payloads() {
        let pages = pages_with(&payload).await;
        assert_eq!(pages.len(), baseline.len());
        for ((name, html), (_, want)) in pages.iter().zip(&baseline) {
            let doc = Html::parse_document(html);
            let got = shape(&doc);
            // Which entries a search inside a session finds depends on their words, and the
            // tutor's hints and the summary quote the text in their own ways.
            if &got != want && *name != "session, searched" {
                failures.push(format!("{name} with {payload:?}: {}", difference(want, &got)));
            }
            for found in smuggled(&doc) {
                failures.push(format!("{name} with {payload:?}: {found}"));
            }
        }
        // The set's page is titled with the name, as text.
        let (_, set_page) = &pages[3];
        let title = Html::parse_document(set_page)
            .select(&Selector::parse("title").unwrap())
            .map(|t| t.text().collect::<String>())
            .collect::<Vec<_>>();
        let name = warren_app::clean::line(&payload).trim().to_string();
        if title != [format!("{name} · Warren")] {
            failures.push(format!("the set page's title with {payload:?} is {title:?}"));
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// Text compared as a reader sees it: the same words with the same spaces between them.
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[tokio::test]
async fn payloads_imported_in_every_format_come_out_as_text() {
    let app = TestApp::spawn().await;
    let owner = app.owner().clone();
    let mut failures = Vec::new();
    for payload in payloads() {
        let name = words(&warren_app::clean::line(&payload));
        let text = words(&warren_app::clean::text(&payload));
        let set_file = json!({"format": "warren-set", "version": 1, "name": payload, "description": payload,
                              "points": [{"content": payload, "cue": payload}]});
        let mut csv = csv::Writer::from_writer(Vec::new());
        csv.write_record(["content", "cue"]).unwrap();
        csv.write_record([&payload, &payload]).unwrap();
        let markdown = format!("# {payload}\n\n- {payload}\n  {payload}\n");
        // Anki keeps fields as HTML, so what a learner typed there is escaped; deck names are text.
        let field = html_escape::encode_text(&payload).to_string();
        let anki = crate::import::anki_package_in(&payload, &[(&field, &field)], &[]).await;
        let now = warren::store::now_ms();
        let session = [
            json!({"type": "header", "format": "warren-session", "version": 2, "sessionId": "imported-payload",
                   "setName": payload, "status": "completed", "startedAt": now - 1000, "updatedAt": now,
                   "endedAt": now, "activeMs": 1000, "leafId": "m1", "points": [payload], "recalled": []}),
            json!({"type": "entry", "id": "m1", "parentId": null, "timestamp": now, "kind": "message",
                   "speaker": "learner", "content": payload}),
        ]
        .iter()
        .map(|line| format!("{line}\n"))
        .collect::<String>();
        let files = [
            ("set.json", serde_json::to_vec(&set_file).unwrap(), Some(&name)),
            ("set.csv", csv.into_inner().unwrap(), None),
            ("set.md", markdown.into_bytes(), Some(&name)),
            ("deck.apkg", anki, Some(&name)),
            ("session.jsonl", session.into_bytes(), Some(&name)),
        ];
        for (file_name, bytes, set_name) in files {
            let what = format!("{file_name} with {payload:?}");
            let res = app.upload_import_as(&app.learner, file_name, bytes).await;
            assert_eq!(res.status(), 303, "{what}: {}", res.text().await.unwrap_or_default());
            let location = res.headers()["location"].to_str().unwrap().to_string();
            let (status, html) = app.page(&location).await;
            assert_eq!(status, 200, "{what}");
            failures
                .extend(smuggled(&Html::parse_document(&html)).into_iter().map(|f| format!("{what}: {f}")));
            let set_id = if let Some(draft) = location.strip_prefix("/import/") {
                let confirmed = app.post_form(&format!("/import/{draft}"), &[]).await;
                assert_eq!(confirmed.status(), 303, "{what}");
                let set = confirmed.headers()["location"]
                    .to_str()
                    .unwrap()
                    .trim_start_matches("/sets/")
                    .to_string();
                let points = app.store().points(&owner, &set).await.unwrap();
                let got: Vec<(String, String)> =
                    points.iter().map(|p| (words(&p.content), words(&p.context))).collect();
                if got != [(text.clone(), text.clone())] {
                    failures.push(format!("{what}: points {got:?}"));
                }
                set
            } else {
                let session = location.trim_start_matches("/history/");
                let row = app.store().session(&owner, session).await.unwrap().unwrap();
                let entries = app.store().entries(&owner, session).await.unwrap();
                let said: Vec<String> = entries.iter().map(|e| words(&e.content)).collect();
                if said != [text.clone()] {
                    failures.push(format!("{what}: messages {said:?}"));
                }
                row.set_id.expect("a set session")
            };
            let set = app.store().set(&owner, &set_id).await.unwrap().unwrap();
            if let Some(expected) = set_name
                && words(&set.name) != *expected
            {
                failures.push(format!("{what}: the set is named {:?}", set.name));
            }
            app.store().delete_set(&owner, &set_id).await.unwrap();
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[tokio::test]
async fn csv_exports_cannot_run_in_a_spreadsheet_and_come_back_as_they_were() {
    let app = TestApp::spawn().await;
    let set = app.new_set("Formulas").await;
    let cells = [("=SUM(A1)", "+1"), ("@cmd", "-2 is negative"), ("'=already quoted", "plain")];
    for (content, cue) in cells {
        let res =
            app.post_form(&format!("/sets/{set}/points"), &[("content", content), ("context", cue)]).await;
        assert_eq!(res.status(), 303);
    }
    let res = app.http.get(app.url(&format!("/sets/{set}/export.csv"))).header("cookie", &app.learner.cookie);
    let res = res.send().await.unwrap();
    assert_eq!(
        res.headers()["content-disposition"],
        "attachment; filename=\"formulas.csv\"; filename*=UTF-8''formulas.csv"
    );
    let exported = res.bytes().await.unwrap().to_vec();
    let rows: Vec<Vec<String>> = csv::Reader::from_reader(exported.as_slice())
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect();
    assert_eq!(
        rows,
        [["'=SUM(A1)", "'+1"], ["'@cmd", "'-2 is negative"], ["''=already quoted", "plain"]],
        "no cell starts with what a spreadsheet runs"
    );
    app.store().delete_set(app.owner(), &set).await.unwrap();
    let res = app.upload_import_as(&app.learner, "Formulas.csv", exported).await;
    let draft = res.headers()["location"].to_str().unwrap().to_string();
    let confirmed = app.post_form(&draft, &[]).await;
    let back = confirmed.headers()["location"].to_str().unwrap().trim_start_matches("/sets/").to_string();
    let points = app.store().points(app.owner(), &back).await.unwrap();
    let got: Vec<(&str, &str)> = points.iter().map(|p| (p.content.as_str(), p.context.as_str())).collect();
    assert_eq!(got, cells);
}

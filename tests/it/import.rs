//! Import and export through the real pages and the real binary: every format with good and
//! bad files, a preview that writes nothing, one transaction on confirming, an Anki package
//! built here with Anki's own schema, and a JSON round trip that gives the same set back.

use std::io::{Cursor, Write};
use std::process::Command;

use reqwest::multipart::{Form, Part};
use sqlx::{Connection, SqliteConnection};

use crate::authoring::PNG;
use crate::common::{Learner, TestApp};

impl TestApp {
    /// Uploads a file to import; the response (a redirect to its preview, or the form again).
    pub async fn upload_import_as(&self, learner: &Learner, name: &str, bytes: Vec<u8>) -> reqwest::Response {
        let form = Form::new().part("file", Part::bytes(bytes).file_name(name.to_string()));
        self.http
            .post(self.url("/import"))
            .header("cookie", &learner.cookie)
            .multipart(form)
            .send()
            .await
            .unwrap()
    }

    /// Uploads and previews a file; the preview page's path and HTML.
    pub async fn preview(&self, name: &str, bytes: &[u8]) -> (String, String) {
        let res = self.upload_import_as(&self.learner, name, bytes.to_vec()).await;
        assert_eq!(res.status(), 303, "{}", res.text().await.unwrap_or_default());
        let path = res.headers()["location"].to_str().unwrap().to_string();
        let (status, html) = self.page(&path).await;
        assert_eq!(status, 200);
        (path, html)
    }

    async fn set_total(&self) -> usize {
        self.store().list_sets(self.owner(), 0).await.unwrap().len()
    }
}

/// The text of a page without Leptos's hydration markers.
fn plain(html: &str) -> String {
    html.replace("<!>", "")
}

#[tokio::test]
async fn a_csv_is_previewed_with_its_bad_rows_then_imported_in_one_go() {
    let app = TestApp::spawn().await;
    let before = app.set_total().await;
    let csv = "content,cue\nThe Nile is the longest river.,Which river is longest?\n\nThe Amazon carries the most water.,\nA,B,C\nthe nile is the longest river.,dup\n";
    let (path, html) = app.preview("rivers.csv", csv.as_bytes()).await;
    let html = plain(&html);
    assert!(html.contains("Import “rivers”?"), "the file names the set: {html}");
    assert!(html.contains("2 points and 0 resources will be added."), "{html}");
    for line in [
        "line 3</strong>: the row is empty",
        "line 5</strong>: it has 3 columns",
        "line 6</strong>: the same point as line 2",
    ] {
        assert!(html.contains(line), "{line} in {html}");
    }
    assert_eq!(app.set_total().await, before, "a preview writes nothing");

    let res = app.post_form(&path, &[]).await;
    assert_eq!(res.status(), 303);
    let set = res.headers()["location"].to_str().unwrap().trim_start_matches("/sets/").to_string();
    let points = app.store().points(app.owner(), &set).await.unwrap();
    assert_eq!(points.len(), 2);
    assert_eq!(
        (points[0].context.as_str(), points[1].content.as_str()),
        ("Which river is longest?", "The Amazon carries the most water.")
    );
    // The draft is gone once used.
    assert_eq!(app.post_form(&path, &[]).await.status(), 404);

    // The same name again: the second one is renamed, and says so first.
    let (_, html) = app.preview("rivers.csv", csv.as_bytes()).await;
    assert!(plain(&html).contains("will be called “rivers (2)”"), "{html}");
}

#[tokio::test]
async fn bad_files_get_one_sentence_and_nothing_is_written() {
    let app = TestApp::spawn().await;
    let before = app.set_total().await;
    let mut huge = b"content\n".to_vec();
    huge.resize(warren_app::forms::limits::IMPORT_BYTES + 1, b'a');
    let mut truncated = anki_package(&[("Front", "Back")], &[]).await;
    truncated.truncate(truncated.len() / 2);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty.csv", vec![], "The file is empty."),
        ("latin1.csv", b"caf\xe9,cue\n".to_vec(), "not UTF-8 text"),
        ("wide.csv", b"a,b,c\nd,e,f\n".to_vec(), "The file has 3 columns"),
        ("huge.csv", huge, "files up to 20 MB can be imported"),
        ("deck.apkg", truncated, "The package is cut short"),
        ("deck.apkg", zip_of(&[("readme.txt", b"hello".to_vec())]), "holds no Anki collection"),
        ("broken.apkg", zip_of(&[("collection.anki21b", b"zstd".to_vec())]), "The package is damaged"),
        (
            "future.apkg",
            zip_of(&[("meta", vec![0x08, 0x04]), ("collection.anki21b", vec![])]),
            "version 4 of Anki",
        ),
        ("set.json", b"{\"format\":\"other\"".to_vec(), "not Warren JSON"),
        ("blank.md", b"# Only a title\n".to_vec(), "no points to import"),
    ];
    for (name, bytes, says) in cases {
        let res = app.upload_import_as(&app.learner, name, bytes).await;
        assert_eq!(res.status(), 422, "{name}");
        let html = res.text().await.unwrap();
        assert!(html.contains(says), "{name} should say “{says}”");
    }
    assert_eq!(app.set_total().await, before);
    assert!(app.store().sweep_drafts().await.is_ok());
}

#[tokio::test]
async fn markdown_names_the_set_and_indented_lines_are_cues() {
    let app = TestApp::spawn().await;
    let md = "# Rivers\nThe great rivers.\n\n- The Nile is the longest river.\n  Which river is longest?\n- The Amazon carries the most water.\n\nstray text\n";
    let (path, html) = app.preview("notes.md", md.as_bytes()).await;
    let html = plain(&html);
    assert!(
        html.contains("Import “Rivers”?") && html.contains("line 8</strong>: it is not a list item"),
        "{html}"
    );
    let res = app.post_form(&path, &[]).await;
    let set = res.headers()["location"].to_str().unwrap().trim_start_matches("/sets/").to_string();
    let stored = app.store().set(app.owner(), &set).await.unwrap().unwrap();
    assert_eq!(stored.description, "The great rivers.");
    let points = app.store().points(app.owner(), &set).await.unwrap();
    assert_eq!(points[0].context, "Which river is longest?");
}

#[tokio::test]
async fn an_anki_package_brings_its_notes_and_images() {
    let app = TestApp::spawn().await;
    let package = anki_package(
        &[
            (
                "Which organelle makes ATP?<br><img src=\"mito.png\">",
                "The <b>mitochondrion</b>&nbsp;makes ATP.",
            ),
            ("Where are proteins made?", "On ribosomes."),
            ("only a front", ""),
            ("A cloze", "unused"),
        ],
        &[("mito.png", PNG.to_vec()), ("notes.txt", b"not an image".to_vec())],
    )
    .await;
    let (path, html) = app.preview("cells.apkg", &package).await;
    let html = plain(&html);
    assert!(html.contains("Import “Biology · Cells”?"), "the deck names the set: {html}");
    // A note left out is named by its front, as the learner knows it, and its place.
    assert!(html.contains("“only a front” (note 3)</strong>: it has one field"), "{html}");
    let res = app.post_form(&path, &[]).await;
    let set = res.headers()["location"].to_str().unwrap().trim_start_matches("/sets/").to_string();
    let points = app.store().points(app.owner(), &set).await.unwrap();
    let pairs: Vec<(&str, &str)> = points.iter().map(|p| (p.content.as_str(), p.context.as_str())).collect();
    assert_eq!(
        pairs,
        [
            ("The mitochondrion makes ATP.", "Which organelle makes ATP?"),
            ("On ribosomes.", "Where are proteins made?"),
            ("The mitochondrion powers the cell.", "The […] powers the cell."),
        ]
    );
    let resources = app.store().resources(app.owner(), &set).await.unwrap();
    assert_eq!(resources.len(), 1);
    assert_eq!((resources[0].kind.as_str(), resources[0].mime_type.as_deref()), ("image", Some("image/png")));
    assert_eq!(resources[0].points, vec![(points[0].id.clone(), 1.0)]);
    let (mime, bytes) = app.store().resource_image(app.owner(), &resources[0].id).await.unwrap().unwrap();
    assert_eq!((mime.as_str(), bytes.as_slice()), ("image/png", PNG));
}

#[tokio::test]
async fn json_export_then_import_gives_the_same_set() {
    let app = TestApp::spawn().await;
    let sets = app.store().list_sets(app.owner(), 0).await.unwrap();
    let cell = sets.iter().find(|s| s.name == "The living cell").unwrap();
    // A schedule worth keeping, and an uploaded image beside the demo one.
    let (session, points) = app.start("The living cell").await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, warren_app::protocol::ServerMessage::AssistantComplete(_))).await;
    ws.say(&points[0].content).await;
    let upload = Form::new()
        .text("title", "Upload")
        .text("points", points[1].id.clone())
        .part("file", Part::bytes(PNG.to_vec()).file_name("p.png"));
    assert_eq!(app.upload(&cell.id, upload).await.status(), 303);

    let res = app
        .http
        .get(app.url(&format!("/sets/{}/export.json", cell.id)))
        .header("cookie", &app.learner.cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert!(res.headers()["content-disposition"].to_str().unwrap().contains("the-living-cell.json"));
    let json = res.bytes().await.unwrap().to_vec();
    let (path, _) = app.preview("the-living-cell.json", &json).await;
    let res = app.post_form(&path, &[]).await;
    let copy = res.headers()["location"].to_str().unwrap().trim_start_matches("/sets/").to_string();

    let (a, b) = (
        app.store().set(app.owner(), &cell.id).await.unwrap().unwrap(),
        app.store().set(app.owner(), &copy).await.unwrap().unwrap(),
    );
    assert_eq!(b.name, "The living cell (2)");
    assert_eq!((a.description, a.guidelines), (b.description, b.guidelines));
    let (pa, pb) = (
        app.store().points(app.owner(), &cell.id).await.unwrap(),
        app.store().points(app.owner(), &copy).await.unwrap(),
    );
    assert_eq!(pa.len(), pb.len());
    for (x, y) in pa.iter().zip(&pb) {
        assert_eq!(
            (&x.content, &x.context, &x.card, x.position),
            (&y.content, &y.context, &y.card, y.position)
        );
    }
    assert!(pa[0].card.reps > 0, "the recalled point's schedule came along");
    // With the review log it was replayed from: the copy's schedule is the same replay.
    let (la, lb) = (
        app.store().set_logs(app.owner(), &cell.id).await.unwrap(),
        app.store().set_logs(app.owner(), &copy).await.unwrap(),
    );
    for (x, y) in pa.iter().zip(&pb) {
        assert_eq!(la.get(&x.id), lb.get(&y.id), "{}", x.content);
    }
    assert_eq!(lb.get(&pb[0].id).map(|l| l.reviews.len()), Some(1), "the review came along");
    let copied = app.store().point_reviews(app.owner(), &pb[0].id).await.unwrap();
    assert_eq!(
        (copied[0].kind, copied[0].session_id.as_deref()),
        (warren::store::ReviewKind::Imported, None)
    );
    let (ra, rb) = (
        app.store().resources(app.owner(), &cell.id).await.unwrap(),
        app.store().resources(app.owner(), &copy).await.unwrap(),
    );
    assert_eq!(ra.len(), rb.len());
    let index = |points: &[warren::store::Point], id: &str| points.iter().position(|p| p.id == id);
    for (x, y) in ra.iter().zip(&rb) {
        assert_eq!(
            (&x.kind, &x.title, &x.body, &x.licence, &x.mime_type),
            (&y.kind, &y.title, &y.body, &y.licence, &y.mime_type)
        );
        let links = |r: &warren::store::Resource, points: &[warren::store::Point]| {
            r.points.iter().map(|(id, rel)| (index(points, id), *rel)).collect::<Vec<_>>()
        };
        assert_eq!(links(x, &pa), links(y, &pb));
        let images = (
            app.store().resource_image(app.owner(), &x.id).await.unwrap(),
            app.store().resource_image(app.owner(), &y.id).await.unwrap(),
        );
        assert_eq!(images.0, images.1);
        if images.0.is_none() {
            assert_eq!(x.url, y.url, "images served by the site keep their address");
        }
    }
}

#[tokio::test]
async fn another_learners_drafts_and_exports_are_not_found() {
    let app = TestApp::spawn().await;
    let (path, _) = app.preview("mine.csv", b"a fact\n").await;
    let other = app.sign_up("other").await;
    assert_eq!(app.page_as(&other, &path).await.0, 404);
    assert_eq!(app.post_form_as(&other, &path, &[]).await.status(), 404);
    assert_eq!(app.post_form_as(&other, &format!("{path}/cancel"), &[]).await.status(), 404);
    let set = &app.store().list_sets(app.owner(), 0).await.unwrap()[0];
    for ext in ["json", "csv", "md"] {
        let res = app
            .http
            .get(app.url(&format!("/sets/{}/export.{ext}", set.id)))
            .header("cookie", &other.cookie)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 404, "{ext}");
    }
    // The owner's draft is intact and can still be cancelled.
    assert_eq!(app.post_form(&format!("{path}/cancel"), &[]).await.status(), 303);
}

#[tokio::test]
async fn the_command_line_imports_and_exports() {
    let app = TestApp::spawn().await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("capitals.csv");
    std::fs::write(&file, "Paris is the capital of France.,Capital of France?\n,empty\n").unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_warren"))
            .args(args)
            .env("DATABASE_URL", &app.database_url)
            .env("WARREN_LLM", "offline")
            .output()
            .unwrap()
    };
    let out = run(&["import", "--user", "learner", file.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout} {}", String::from_utf8_lossy(&out.stderr));
    assert!(
        stdout.contains("Imported “capitals” (CSV): 1 points")
            && stdout.contains("Left out line 2: it has no point to recall."),
        "{stdout}"
    );
    let out = run(&["export", "--user", "learner", "--set", "capitals", "--format", "md"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "# capitals\n\n- Paris is the capital of France.\n  Capital of France?\n"
    );
    let out = run(&["export", "--user", "nobody", "--set", "capitals"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no learner called “nobody”"));
    let out = run(&["export", "--user", "learner"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("name the set with --set"));

    // The whole account as an archive, imported into another account.
    let out = run(&["export", "--user", "learner", "--format", "archive"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let archive = dir.path().join("learner.zip");
    std::fs::write(&archive, &out.stdout).unwrap();
    let other = app.sign_up("another").await;
    let out = run(&["import", "--user", "another", archive.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout} {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout, "Imported 4 sets and 0 sessions.\n");
    let names: Vec<String> =
        app.store().list_sets(&other.id, 0).await.unwrap().into_iter().map(|s| s.name).collect();
    assert_eq!(names.len(), 4, "the demo sets gave way to their copies: {names:?}");
    assert!(names.contains(&"capitals".to_string()), "{names:?}");
}

/// A zip of the given files.
fn zip_of(files: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, bytes) in files {
        zip.start_file(*name, zip::write::SimpleFileOptions::default()).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// An Anki package made the way Anki makes one: a collection with Anki's schema (`col`,
/// `notes`, `cards`, fields separated by U+001F), a `media` map and the media files named by
/// number. Notes are (front, back) of the Basic note type; a note whose front is "A cloze"
/// becomes a cloze note.
async fn anki_package(notes: &[(&str, &str)], media: &[(&str, Vec<u8>)]) -> Vec<u8> {
    anki_package_in("Biology::Cells", notes, media).await
}

/// [`anki_package`] with its cards in the deck named `deck`.
pub(crate) async fn anki_package_in(
    deck: &str,
    notes: &[(&str, &str)],
    media: &[(&str, Vec<u8>)],
) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("collection.anki21");
    let mut db = SqliteConnection::connect(&format!("sqlite://{}?mode=rwc", path.display())).await.unwrap();
    for ddl in [
        "CREATE TABLE col (id integer primary key, crt integer not null, mod integer not null, scm integer not null, ver integer not null, dty integer not null, usn integer not null, ls integer not null, conf text not null, models text not null, decks text not null, dconf text not null, tags text not null)",
        "CREATE TABLE notes (id integer primary key, guid text not null, mid integer not null, mod integer not null, usn integer not null, tags text not null, flds text not null, sfld integer not null, csum integer not null, flags integer not null, data text not null)",
        "CREATE TABLE cards (id integer primary key, nid integer not null, did integer not null, ord integer not null, mod integer not null, usn integer not null, type integer not null, queue integer not null, due integer not null, ivl integer not null, factor integer not null, reps integer not null, lapses integer not null, left integer not null, odue integer not null, odid integer not null, flags integer not null, data text not null)",
        "CREATE TABLE revlog (id integer primary key, cid integer not null, usn integer not null, ease integer not null, ivl integer not null, lastIvl integer not null, factor integer not null, time integer not null, type integer not null)",
        "CREATE TABLE graves (usn integer not null, oid integer not null, type integer not null)",
    ] {
        sqlx::query(ddl).execute(&mut db).await.unwrap();
    }
    let models = r#"{"1000":{"id":1000,"name":"Basic","type":0,"flds":[{"name":"Front","ord":0},{"name":"Back","ord":1}]},
                     "2000":{"id":2000,"name":"Cloze","type":1,"flds":[{"name":"Text","ord":0},{"name":"Back Extra","ord":1}]}}"#;
    let decks =
        serde_json::json!({"1": {"id": 1, "name": "Default"}, "77": {"id": 77, "name": deck}}).to_string();
    sqlx::query("INSERT INTO col VALUES (1, 0, 0, 0, 11, 0, 0, 0, '{}', $1, $2, '{}', '{}')")
        .bind(models)
        .bind(decks)
        .execute(&mut db)
        .await
        .unwrap();
    for (i, (front, back)) in notes.iter().enumerate() {
        let id = 1_600_000_000_000i64 + i as i64;
        let (mid, fields) = if *front == "A cloze" {
            (2000, "The {{c1::mitochondrion}} powers the cell.\u{1f}".to_string())
        } else if back.is_empty() {
            (1000, front.to_string())
        } else {
            (1000, format!("{front}\u{1f}{back}"))
        };
        sqlx::query("INSERT INTO notes VALUES ($1, $2, $3, 0, -1, '', $4, 0, 0, 0, '')")
            .bind(id)
            .bind(format!("guid{i}"))
            .bind(mid)
            .bind(&fields)
            .execute(&mut db)
            .await
            .unwrap();
        sqlx::query("INSERT INTO cards VALUES ($1, $2, 77, 0, 0, -1, 0, 0, $3, 0, 0, 0, 0, 0, 0, 0, 0, '')")
            .bind(id + 1)
            .bind(id)
            .bind(i as i64)
            .execute(&mut db)
            .await
            .unwrap();
    }
    db.close().await.unwrap();
    let map: serde_json::Map<String, serde_json::Value> =
        media.iter().enumerate().map(|(i, (name, _))| (i.to_string(), serde_json::json!(name))).collect();
    let mut files = vec![
        ("collection.anki21".to_string(), std::fs::read(&path).unwrap()),
        ("media".to_string(), serde_json::to_vec(&map).unwrap()),
    ];
    files.extend(media.iter().enumerate().map(|(i, (_, bytes))| (i.to_string(), bytes.clone())));
    let named: Vec<(&str, Vec<u8>)> = files.iter().map(|(n, b)| (n.as_str(), b.clone())).collect();
    zip_of(&named)
}

//! Anki packages written by Anki's own library (the `anki` wheel; `scripts/anki-packages.py`,
//! run by `scripts/test`): the current `.apkg` (zstd, protobuf media list), the older one, and
//! a whole `.colpkg`, each imported through the import page as a learner would, on the test's
//! database. Notes, decks, text, images, review history and due dates are compared with what
//! Anki said it wrote (`expected.json`).

use std::path::PathBuf;

use serde_json::Value;
use warren::store::{LoggedReview, Point, ReviewKind};
use warren_app::clock::DAY_MS;
use warren_app::schedule::Rating;

use crate::common::TestApp;

/// Where the packages are: `WARREN_ANKI_PACKAGES`, or `data/anki-packages` where
/// `scripts/test` writes them.
fn packages() -> PathBuf {
    let dir = std::env::var_os("WARREN_ANKI_PACKAGES")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/anki-packages"), PathBuf::from);
    assert!(
        dir.join("expected.json").exists(),
        "no Anki packages in {}: run scripts/test, or `source scripts/lib.sh; ensure_anki_packages`",
        dir.display()
    );
    dir
}

fn package(name: &str) -> Vec<u8> {
    std::fs::read(packages().join(name)).unwrap()
}

/// What Anki wrote: each note's first field, with its cards' due dates and review eases.
fn expected() -> Value {
    serde_json::from_slice(&std::fs::read(packages().join("expected.json")).unwrap()).unwrap()
}

fn note<'a>(expected: &'a Value, front_starts: &str) -> &'a Value {
    expected["notes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["fields"][0].as_str().unwrap().starts_with(front_starts))
        .unwrap()
}

/// Uploads a package, checks its preview shows `decks`, and confirms every deck (and the
/// suspended cards' points if asked); the learner's sets by name, with their points.
async fn import(app: &TestApp, file: &str, decks: &[&str], suspended: bool) -> Vec<(String, Vec<Point>)> {
    let (path, html) = app.preview(file, &package(file)).await;
    let html = html.replace("<!>", "");
    for deck in decks {
        assert!(html.contains(deck), "the preview names {deck}: {html}");
    }
    let mut fields: Vec<(String, String)> =
        (0..decks.len()).map(|i| (format!("deck-{i}"), "on".to_string())).collect();
    fields.push(("choose".into(), "decks".into()));
    if suspended {
        fields.push(("suspended".into(), "on".into()));
    }
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let res = app.post_form(&path, &fields).await;
    assert_eq!(res.status(), 303);
    let mut sets = Vec::new();
    for set in app.store().list_sets(app.owner(), 0).await.unwrap() {
        if decks.contains(&set.name.as_str()) {
            sets.push((set.name.clone(), app.store().points(app.owner(), &set.id).await.unwrap()));
        }
    }
    sets.sort_by(|a, b| a.0.cmp(&b.0));
    sets
}

fn point<'a>(sets: &'a [(String, Vec<Point>)], content: &str) -> &'a Point {
    sets.iter().flat_map(|(_, p)| p).find(|p| p.content == content).unwrap_or_else(|| {
        panic!(
            "no point “{content}” in {:#?}",
            sets.iter()
                .map(|(n, p)| (n, p.iter().map(|p| &p.content).collect::<Vec<_>>()))
                .collect::<Vec<_>>()
        )
    })
}

/// The Biology deck and its subdeck, as both `.apkg` formats bring them.
async fn biology_is_whole(app: &TestApp, sets: &[(String, Vec<Point>)]) {
    let names: Vec<&str> = sets.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["Biology", "Biology · Cells"]);
    let expected = expected();

    // One point per note: the reversed note is one point.
    let biology: Vec<(&str, &str)> =
        sets[0].1.iter().map(|p| (p.content.as_str(), p.context.as_str())).collect();
    assert_eq!(
        biology,
        [
            ("The mitochondrion", "What is the powerhouse of the cell?"),
            ("The organelle that translates mRNA into protein", "Ribosome"),
            ("a lub-dub", "Heartbeat sound"),
            ("1. prophase\n2. metaphase", "Steps of mitosis"),
        ],
        "the suspended card's point stays out unless ticked in"
    );
    // Cloze: a point per deletion; sup/sub as Unicode; MathJax as KaTeX.
    let cells: Vec<(&str, &str)> =
        sets[1].1.iter().map(|p| (p.content.as_str(), p.context.as_str())).collect();
    assert_eq!(
        cells,
        [
            ("The nucleus stores DNA;", "The […] stores DNA; the Golgi apparatus packages proteins."),
            ("the Golgi apparatus packages proteins.", "The nucleus stores DNA; the […] packages proteins."),
            // Two deletions of one sentence: two points, each asking for its own word.
            ("Paris is the capital of France.", "[…] is the capital of France."),
            ("Paris is the capital of France.", "Paris is the capital of […]."),
            ("H₂O, about 3×10⁸ molecules in a tiny drop", "Water's formula"),
            (r"$A = \pi r^2$", "Area of a circle"),
            (r"$$E = mc^2$$", "Mass–energy"),
        ]
    );

    // The image is a resource of its point.
    let biology_set = app.store().set_named(app.owner(), "Biology").await.unwrap().unwrap();
    let resources = app.store().resources(app.owner(), &biology_set.id).await.unwrap();
    assert_eq!(resources.len(), 1);
    let powerhouse = point(sets, "The mitochondrion");
    assert_eq!(resources[0].points, vec![(powerhouse.id.clone(), 1.0)]);
    let (mime, bytes) = app.store().resource_image(app.owner(), &resources[0].id).await.unwrap().unwrap();
    assert_eq!((mime.as_str(), bytes.len()), ("image/png", 69));

    // Its history came along, review for review, and it is due when Anki had it due.
    let anki = &note(&expected, "What is the powerhouse")["cards"][0];
    let reviews: Vec<LoggedReview> = app.store().point_reviews(app.owner(), &powerhouse.id).await.unwrap();
    let got: Vec<(i64, Rating, ReviewKind)> =
        reviews.iter().map(|r| (r.reviewed_at, r.rating, r.kind)).collect();
    let want: Vec<(i64, Rating, ReviewKind)> = anki["reviews"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let rating = [Rating::Again, Rating::Hard, Rating::Good, Rating::Easy]
                [r["ease"].as_u64().unwrap() as usize - 1];
            (r["at"].as_i64().unwrap(), rating, ReviewKind::Imported)
        })
        .collect();
    assert_eq!(got, want);
    let due = anki["due_ms"].as_i64().unwrap();
    assert!(
        (powerhouse.card.due_at - due).abs() <= DAY_MS,
        "due {} in Anki, {} here",
        due,
        powerhouse.card.due_at
    );
    due_in_days(powerhouse, anki);
    assert_eq!((powerhouse.card.reps, powerhouse.card.lapses), (5, 1));
    assert!(powerhouse.card.stability > 1.0, "a memory replayed from the history: {:?}", powerhouse.card);
    // A card Anki's own scheduler answered: its reviews and the due date Anki gave it.
    let ribosome = point(sets, "The organelle that translates mRNA into protein");
    let anki = &note(&expected, "Ribosome")["cards"][0];
    let reviews = app.store().point_reviews(app.owner(), &ribosome.id).await.unwrap();
    assert_eq!(reviews.len(), anki["reviews"].as_array().unwrap().len());
    assert_eq!(ribosome.card.reps, 2);
    due_in_days(ribosome, anki);
    // New cards are new.
    let water = point(sets, "H₂O, about 3×10⁸ molecules in a tiny drop");
    assert_eq!((water.card.reps, water.card.state), (0, warren_app::schedule::CardState::New));
}

/// The point is due as many days after the package was written as Anki's scheduler counted
/// for its card then (Anki's days start at 4 am: up to a day sooner).
fn due_in_days(point: &Point, card: &Value) {
    let days = card["due_in_days"].as_i64().unwrap();
    let written = expected()["generated_ms"].as_i64().unwrap();
    let after = (point.card.due_at - written) as f64 / DAY_MS as f64;
    assert!(
        after > (days - 1) as f64 && after <= days as f64 + 0.01,
        "Anki had it due in {days} days; here it is due {after:.2} days after the package was written"
    );
}

#[tokio::test]
async fn the_current_apkg_brings_decks_notes_images_history_and_due_dates() {
    let app = TestApp::spawn().await;
    let (path, html) = app.preview("modern.apkg", &package("modern.apkg")).await;
    let html = html.replace("<!>", "");
    assert!(html.contains("Import 2 sets?"), "{html}");
    assert!(html.contains("4 points and 1 resource will be added. They bring 7 reviews with them. 1 more is suspended in Anki"), "{html}");
    assert!(html.contains("its sound “heartbeat.mp3” is left out"), "{html}");
    assert!(html.contains("it is an image occlusion note, which needs its image to point at"), "{html}");
    // The reversed note's second card was reviewed once: named, and not among the 7.
    assert!(
        html.contains("its other card's review is left out: a note is one point, with the history of its card reviewed most"),
        "{html}"
    );
    // Nothing is written before the confirmation.
    assert!(app.store().set_named(app.owner(), "Biology").await.unwrap().is_none());
    drop(path);
    let sets = import(&app, "modern.apkg", &["Biology", "Biology · Cells"], false).await;
    biology_is_whole(&app, &sets).await;
}

#[tokio::test]
async fn the_older_apkg_brings_the_same() {
    let app = TestApp::spawn().await;
    let sets = import(&app, "legacy.apkg", &["Biology", "Biology · Cells"], false).await;
    biology_is_whole(&app, &sets).await;
}

#[tokio::test]
async fn a_colpkg_makes_a_set_per_deck_and_suspended_cards_come_when_ticked_in() {
    let app = TestApp::spawn().await;
    let sets = import(&app, "whole.colpkg", &["Biology", "Biology · Cells", "Chemistry"], true).await;
    assert_eq!(sets.len(), 3);
    let expected = expected();
    // Gold's card is in the filtered deck "Cram" for now: its set is its own deck, and its due
    // date the one it keeps there.
    let gold = point(&sets, "Au");
    let anki = &note(&expected, "Symbol of gold")["cards"][0];
    assert_eq!(anki["filtered"], true);
    assert!(sets.iter().any(|(name, points)| name == "Chemistry" && points.iter().any(|p| p.id == gold.id)));
    due_in_days(gold, anki);
    let names: Vec<String> =
        app.store().list_sets(app.owner(), 0).await.unwrap().into_iter().map(|s| s.name).collect();
    assert!(!names.contains(&"Cram".to_string()), "a filtered deck is no set: {names:?}");
    let held = point(&sets, "Suspended cards stay behind");
    assert_eq!(app.store().point_reviews(app.owner(), &held.id).await.unwrap().len(), 1);

    // Unticked decks stay out.
    let app = TestApp::spawn().await;
    let (path, _) = app.preview("whole.colpkg", &package("whole.colpkg")).await;
    let res = app.post_form(&path, &[("choose", "decks"), ("deck-2", "on")]).await;
    assert_eq!(res.status(), 303);
    let names: Vec<String> =
        app.store().list_sets(app.owner(), 0).await.unwrap().into_iter().map(|s| s.name).collect();
    assert!(names.contains(&"Chemistry".to_string()) && !names.contains(&"Biology".to_string()), "{names:?}");
}

#[tokio::test]
async fn a_replay_keeps_the_due_date_anki_gave() {
    let app = TestApp::spawn().await;
    let sets = import(&app, "whole.colpkg", &["Biology", "Biology · Cells", "Chemistry"], false).await;
    // A whole collection brings each deck as a deck's package does: its points, its image as
    // a resource, its reviews and due dates.
    biology_is_whole(&app, &sets[..2]).await;
    assert_eq!(sets[2].1.iter().map(|p| p.content.as_str()).collect::<Vec<_>>(), ["Au"]);
    let gold = point(&sets, "Au").clone();
    // Changing the retention replays every point; an imported due date stands until a review here.
    app.store().set_schedule(app.owner(), 0.97, 4).await.unwrap();
    let after = app.store().point(app.owner(), &gold.id).await.unwrap().unwrap();
    assert_eq!(after.card.due_at, gold.card.due_at);
}

#[tokio::test]
async fn the_oldest_layout_reads_as_genanki_writes_it() {
    let app = TestApp::spawn().await;
    let sets = import(&app, "genanki.apkg", &["Capitals · Europe"], false).await;
    let points: Vec<(&str, &str)> =
        sets[0].1.iter().map(|p| (p.content.as_str(), p.context.as_str())).collect();
    assert_eq!(points, [("Rome", "Capital of Italy"), ("Madrid", "Capital of Spain")]);
}

#[tokio::test]
async fn damaged_packages_are_one_sentence_and_write_nothing() {
    let app = TestApp::spawn().await;
    let modern = package("modern.apkg");
    let cut = &modern[..modern.len() / 2];
    let newer = package("newer-schema.apkg");
    // A well-formed zip whose collection is not a database at all.
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    zip.start_file("collection.anki21", zip::write::SimpleFileOptions::default()).unwrap();
    std::io::Write::write_all(&mut zip, b"these words are not an SQLite database").unwrap();
    let garbage = zip.finish().unwrap().into_inner();
    for (name, bytes, says) in [
        ("cut.apkg", cut, "The package is cut short"),
        ("text.apkg", &b"not a zip at all"[..], "is not a zip archive"),
        ("newer-schema.apkg", &newer[..], "schema 19, newer than Warren reads (up to 18)"),
        (
            "garbage.apkg",
            &garbage[..],
            "The package's collection cannot be read as an Anki database (file is not a database); export it from Anki again.",
        ),
    ] {
        let err = warren::transfer::read(name, bytes).await.unwrap_err().to_string();
        assert!(err.contains(says), "{err}");
        // One sentence: it ends with its only full stop.
        assert!(err.ends_with('.') && !err[..err.len() - 1].contains(". "), "{err}");
        let page = app.upload_import_as(&app.learner, name, bytes.to_vec()).await.text().await.unwrap();
        assert!(page.replace("<!>", "").contains(says), "the page says it: {page}");
    }
    assert!(app.store().list_sets(app.owner(), 0).await.unwrap().iter().all(|s| !s.name.starts_with("cut")));
}

//! Anki packages. Raw bytes reach the zip reader; a structured package (a real SQLite
//! collection, built from the input, in a real zip) reaches the note parsing: cloze markup,
//! HTML, images and the media map, in any mixture. Either gives a preview or a reason, never
//! a panic.
#![no_main]

use std::io::{Cursor, Write};

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sqlx::{Connection, SqliteConnection};

#[derive(Arbitrary, Debug)]
enum Input {
    Raw(Vec<u8>),
    Package(Package),
}

#[derive(Arbitrary, Debug)]
struct Package {
    older: bool,
    decks: Json,
    models: Json,
    notes: Vec<(bool, Vec<Piece>)>,
    decks_of_cards: Vec<i64>,
    media_map: Json,
    media: Vec<Vec<u8>>,
}

/// JSON the way Anki writes it, or anything at all.
#[derive(Arbitrary, Debug)]
enum Json {
    Usual,
    Text(String),
}

/// A fragment of a note's fields.
#[derive(Arbitrary, Debug)]
enum Piece {
    Text(String),
    ClozeOpen(u8),
    Hint,
    ClozeClose,
    Image(String),
    ImageOpen,
    Separator,
    Entity,
    Tag,
}

fn field_text(pieces: &[Piece]) -> String {
    let mut text = String::new();
    for piece in pieces {
        match piece {
            Piece::Text(t) => text.push_str(t),
            Piece::ClozeOpen(n) => text.push_str(&format!("{{{{c{n}::")),
            Piece::Hint => text.push_str("::"),
            Piece::ClozeClose => text.push_str("}}"),
            Piece::Image(name) => text.push_str(&format!("<img src=\"{name}\">")),
            Piece::ImageOpen => text.push_str("<img src='"),
            Piece::Separator => text.push('\u{1f}'),
            Piece::Entity => text.push_str("&amp;&nbsp;&#x1F600;&#99999999;"),
            Piece::Tag => text.push_str("<div><br/></div"),
        }
    }
    text
}

async fn package(p: &Package) -> Option<Vec<u8>> {
    let dir = tempfile::tempdir().ok()?;
    let path = dir.path().join("collection");
    let mut db = SqliteConnection::connect(&format!("sqlite://{}?mode=rwc", path.display())).await.ok()?;
    for ddl in [
        "CREATE TABLE col (id integer primary key, models text not null, decks text not null)",
        "CREATE TABLE notes (id integer primary key, mid integer not null, flds text not null)",
        "CREATE TABLE cards (id integer primary key, nid integer not null, did integer not null)",
    ] {
        sqlx::query(ddl).execute(&mut db).await.ok()?;
    }
    let models = match &p.models {
        Json::Usual => r#"{"1":{"type":0,"name":"Basic"},"2":{"type":1,"name":"Cloze"}}"#.to_string(),
        Json::Text(t) => t.clone(),
    };
    let decks = match &p.decks {
        Json::Usual => r#"{"1":{"name":"Default"},"7":{"name":"Biology::Cells"}}"#.to_string(),
        Json::Text(t) => t.clone(),
    };
    sqlx::query("INSERT INTO col VALUES (1, $1, $2)").bind(models).bind(decks).execute(&mut db).await.ok()?;
    for (i, (cloze, pieces)) in p.notes.iter().enumerate() {
        let mid = if *cloze { 2 } else { 1 };
        sqlx::query("INSERT INTO notes VALUES ($1, $2, $3)")
            .bind(i as i64)
            .bind(mid)
            .bind(field_text(pieces))
            .execute(&mut db)
            .await
            .ok()?;
    }
    for (i, deck) in p.decks_of_cards.iter().enumerate() {
        sqlx::query("INSERT INTO cards VALUES ($1, 0, $2)")
            .bind(i as i64)
            .bind(deck)
            .execute(&mut db)
            .await
            .ok()?;
    }
    db.close().await.ok()?;
    let collection = std::fs::read(&path).ok()?;
    let media_map = match &p.media_map {
        Json::Usual => {
            let names: Vec<String> = (0..p.media.len()).map(|i| format!("\"{i}\":\"{i}.png\"")).collect();
            format!("{{{}}}", names.join(","))
        }
        Json::Text(t) => t.clone(),
    };
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    let name = if p.older { "collection.anki2" } else { "collection.anki21" };
    zip.start_file(name, options).ok()?;
    zip.write_all(&collection).ok()?;
    zip.start_file("media", options).ok()?;
    zip.write_all(media_map.as_bytes()).ok()?;
    for (i, bytes) in p.media.iter().enumerate() {
        zip.start_file(i.to_string(), options).ok()?;
        zip.write_all(bytes).ok()?;
    }
    Some(zip.finish().ok()?.into_inner())
}

fuzz_target!(|input: Input| {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread().build() else { return };
    runtime.block_on(async {
        let bytes = match &input {
            Input::Raw(bytes) => bytes.clone(),
            Input::Package(p) => match package(p).await {
                Some(bytes) => bytes,
                None => return,
            },
        };
        if let Ok((_, preview)) = warren::transfer::read("deck.apkg", &bytes).await {
            assert!(!preview.set.points.is_empty(), "an accepted package has points");
        }
    });
});

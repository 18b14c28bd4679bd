//! Anki packages. Raw bytes reach the zip reader; a structured package (a real SQLite
//! collection in either schema, built from the input, in a real zip of any of the three
//! formats, the current one compressed with zstd and its media list in protobuf) reaches the
//! note parsing: cloze markup, HTML, images, the media map, cards and review history, in any
//! mixture. Either gives a preview or a reason, never a panic.
#![no_main]

use std::io::{Cursor, Write};

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use ruzstd::encoding::{CompressionLevel, compress_to_vec};
use sqlx::{Connection, SqliteConnection};

#[derive(Arbitrary, Debug)]
enum Input {
    Raw(Vec<u8>),
    Package(Package),
}

#[derive(Arbitrary, Debug)]
struct Package {
    /// 0: collection.anki2, 1: collection.anki21, otherwise collection.anki21b (zstd).
    format: u8,
    /// A `meta` entry's version, if any.
    meta: Option<u8>,
    decks: Json,
    models: Json,
    notes: Vec<(bool, Vec<Piece>)>,
    /// Each card: (note, deck, ord, type, queue, due).
    cards: Vec<(u8, i64, i8, i8, i8, i64)>,
    /// Each review: (card, ease, type, when).
    reviews: Vec<(u8, i8, i8, i64)>,
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
    let current = p.format > 1;
    let dir = tempfile::tempdir().ok()?;
    let path = dir.path().join("collection");
    let mut db = SqliteConnection::connect(&format!("sqlite://{}?mode=rwc", path.display())).await.ok()?;
    let mut ddl = vec![
        "CREATE TABLE col (id integer primary key, ver integer not null, crt integer not null, models text not null, decks text not null)",
        "CREATE TABLE notes (id integer primary key, mid integer not null, flds text not null)",
        "CREATE TABLE cards (id integer primary key, nid integer not null, did integer not null, ord integer not null, type integer not null, queue integer not null, due integer not null, odid integer not null, odue integer not null)",
        "CREATE TABLE revlog (id integer primary key, cid integer not null, ease integer not null, type integer not null)",
    ];
    if current {
        ddl.push("CREATE TABLE decks (id integer primary key, name text not null)");
        ddl.push("CREATE TABLE notetypes (id integer primary key, name text not null, config blob not null)");
    }
    for statement in ddl {
        sqlx::query(statement).execute(&mut db).await.ok()?;
    }
    let models = match &p.models {
        Json::Usual => r#"{"1":{"type":0,"name":"Basic"},"2":{"type":1,"name":"Cloze"}}"#.to_string(),
        Json::Text(t) => t.clone(),
    };
    let decks = match &p.decks {
        Json::Usual => r#"{"1":{"name":"Default"},"7":{"name":"Biology::Cells"}}"#.to_string(),
        Json::Text(t) => t.clone(),
    };
    let (models, decks) = if current { (String::new(), String::new()) } else { (models, decks) };
    sqlx::query("INSERT INTO col VALUES (1, $1, 1700000000, $2, $3)")
        .bind(if current { 18 } else { 11 })
        .bind(models)
        .bind(decks)
        .execute(&mut db)
        .await
        .ok()?;
    if current {
        for (id, name) in [(1, "Default".to_string()), (7, "Biology\u{1f}Cells".to_string())] {
            sqlx::query("INSERT INTO decks VALUES ($1, $2)").bind(id).bind(name).execute(&mut db).await.ok()?;
        }
        for (id, config) in [(1, vec![0x1a, 0x00]), (2, vec![0x08, 0x01])] {
            sqlx::query("INSERT INTO notetypes VALUES ($1, 'type', $2)")
                .bind(id)
                .bind(config)
                .execute(&mut db)
                .await
                .ok()?;
        }
    }
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
    for (i, &(note, deck, ord, kind, queue, due)) in p.cards.iter().enumerate() {
        // Every fourth card is in a filtered deck, away from its own.
        sqlx::query("INSERT INTO cards VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)")
            .bind(i as i64)
            .bind(i64::from(note))
            .bind(deck)
            .bind(i64::from(ord))
            .bind(i64::from(kind))
            .bind(i64::from(queue))
            .bind(due)
            .bind(if i % 4 == 3 { 1 } else { 0 })
            .bind(if i % 4 == 3 { due / 2 } else { 0 })
            .execute(&mut db)
            .await
            .ok()?;
    }
    for (i, &(card, ease, kind, at)) in p.reviews.iter().enumerate() {
        sqlx::query("INSERT INTO revlog VALUES ($1, $2, $3, $4)")
            .bind(at.wrapping_add(i as i64))
            .bind(i64::from(card))
            .bind(i64::from(ease))
            .bind(i64::from(kind))
            .execute(&mut db)
            .await
            .ok()?;
    }
    db.close().await.ok()?;
    let collection = std::fs::read(&path).ok()?;
    let media_map = match &p.media_map {
        Json::Usual if current => {
            // MediaEntries { repeated MediaEntry { string name = 1; } entries = 1; }
            let mut list = Vec::new();
            for i in 0..p.media.len() {
                let name = format!("{i}.png");
                list.extend([0x0a, (name.len() + 2) as u8, 0x0a, name.len() as u8]);
                list.extend(name.as_bytes());
            }
            list
        }
        Json::Usual => {
            let names: Vec<String> = (0..p.media.len()).map(|i| format!("\"{i}\":\"{i}.png\"")).collect();
            format!("{{{}}}", names.join(",")).into_bytes()
        }
        Json::Text(t) => t.clone().into_bytes(),
    };
    let packed = |bytes: &[u8]| {
        if current { compress_to_vec(bytes, CompressionLevel::Fastest) } else { bytes.to_vec() }
    };
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    if let Some(version) = p.meta {
        zip.start_file("meta", options).ok()?;
        zip.write_all(&[0x08, version]).ok()?;
    }
    let name = match p.format {
        0 => "collection.anki2",
        1 => "collection.anki21",
        _ => "collection.anki21b",
    };
    zip.start_file(name, options).ok()?;
    zip.write_all(&packed(&collection)).ok()?;
    zip.start_file("media", options).ok()?;
    zip.write_all(&packed(&media_map)).ok()?;
    for (i, bytes) in p.media.iter().enumerate() {
        zip.start_file(i.to_string(), options).ok()?;
        zip.write_all(&packed(bytes)).ok()?;
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
        if let Ok((_, previews)) = warren::transfer::read("deck.apkg", &bytes).await {
            assert!(previews.iter().any(|p| !p.set.points.is_empty()), "an accepted package has points");
            for preview in previews {
                let kept = preview.clone().without_suspended();
                assert!(kept.set.points.len() <= preview.set.points.len());
                for resource in &kept.set.resources {
                    assert!(resource.points.iter().all(|(p, _)| *p < kept.set.points.len()), "links stay in range");
                }
            }
        }
    });
});

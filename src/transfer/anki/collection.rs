//! An Anki collection read from its SQLite file: decks, note types, notes, cards and the
//! review log, from either schema Anki has written: 11 (decks and note types as JSON in
//! `col`) or 18 (their own tables, names nested with U+001F, settings as protobuf).

use std::collections::HashMap;

use sqlx::{Connection, SqliteConnection};

use super::super::ImportError;
use super::package::{Fields, Value};

/// The newest collection schema read.
pub const NEWEST_SCHEMA: i64 = 18;
const DAY_SECONDS: i64 = 86_400;
/// A card's `due` above this is a time in seconds, not a day number.
const TIMESTAMP_FROM: i64 = 1_000_000_000;

pub struct Collection {
    /// Each deck's name, nesting shown as " · ".
    pub decks: HashMap<i64, String>,
    /// Note types that are cloze deletions.
    pub cloze_types: Vec<i64>,
    /// (id, note type, fields), oldest first.
    pub notes: Vec<(i64, i64, String)>,
    /// Each note's cards, by note id, in template order.
    pub cards: HashMap<i64, Vec<Card>>,
}

/// A card as it stands, with its reviews.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Card {
    pub deck: i64,
    /// Which template (or, in a cloze note, which deletion less one) it shows.
    pub ord: i64,
    pub suspended: bool,
    /// Never studied (or reset to new).
    pub new: bool,
    /// When it is due, in milliseconds (`None` for a new card).
    pub due_at: Option<i64>,
    /// (when, in milliseconds; ease 1 to 4), oldest first.
    pub reviews: Vec<(i64, i64)>,
}

/// A row of `cards`, as far as a point needs it.
#[derive(sqlx::FromRow)]
struct CardRow {
    id: i64,
    nid: i64,
    did: i64,
    ord: i64,
    #[sqlx(rename = "type")]
    kind: i64,
    queue: i64,
    due: i64,
    odid: i64,
    odue: i64,
}

pub async fn read(sqlite: &[u8]) -> Result<Collection, ImportError> {
    let file = tempfile::NamedTempFile::new().map_err(|e| ImportError::BadCollection(e.to_string()))?;
    std::fs::write(file.path(), sqlite).map_err(|e| ImportError::BadCollection(e.to_string()))?;
    let url = format!("sqlite://{}?mode=ro", file.path().display());
    let mut db = SqliteConnection::connect(&url).await.map_err(bad)?;
    let read = read_from(&mut db).await;
    let closed = db.close().await;
    let collection = read?;
    closed.map_err(bad)?;
    Ok(collection)
}

/// What SQLite said, without sqlx's wrapping ("file is not a database", "no such table: col").
fn bad(e: sqlx::Error) -> ImportError {
    ImportError::BadCollection(
        e.as_database_error().map_or_else(|| e.to_string(), |db| db.message().to_string()),
    )
}

async fn read_from(db: &mut SqliteConnection) -> Result<Collection, ImportError> {
    let (schema, created): (i64, i64) =
        sqlx::query_as("SELECT ver, crt FROM col LIMIT 1").fetch_one(&mut *db).await.map_err(bad)?;
    if schema > NEWEST_SCHEMA {
        return Err(ImportError::NewerCollection(schema));
    }
    let tables: Vec<String> = sqlx::query_scalar("SELECT name FROM sqlite_master WHERE type = 'table'")
        .fetch_all(&mut *db)
        .await
        .map_err(bad)?;
    let (decks, cloze_types) = if tables.iter().any(|t| t == "notetypes") {
        let decks: Vec<(i64, String)> =
            sqlx::query_as("SELECT id, name FROM decks").fetch_all(&mut *db).await.map_err(bad)?;
        let types: Vec<(i64, Vec<u8>)> =
            sqlx::query_as("SELECT id, config FROM notetypes").fetch_all(&mut *db).await.map_err(bad)?;
        let decks = decks.into_iter().map(|(id, name)| (id, name.replace('\u{1f}', " · "))).collect();
        // NotetypeConfig's field 1 is its kind: 1 for cloze.
        let cloze = types
            .into_iter()
            .filter(|(_, config)| {
                Fields(config).filter_map(Result::ok).any(|f| matches!(f, (1, Value::Varint(1))))
            })
            .map(|(id, _)| id)
            .collect();
        (decks, cloze)
    } else {
        let (decks, models): (String, String) =
            sqlx::query_as("SELECT decks, models FROM col LIMIT 1").fetch_one(&mut *db).await.map_err(bad)?;
        (legacy_decks(&decks), legacy_cloze_types(&models))
    };
    let notes: Vec<(i64, i64, String)> = sqlx::query_as("SELECT id, mid, flds FROM notes ORDER BY id")
        .fetch_all(&mut *db)
        .await
        .map_err(bad)?;
    let rows: Vec<CardRow> = sqlx::query_as(
        "SELECT id, nid, did, ord, type, queue, due, odid, odue FROM cards ORDER BY nid, ord, id",
    )
    .fetch_all(&mut *db)
    .await
    .map_err(bad)?;
    // Reviews that rated a card: learning, review, relearning and cramming with an ease of
    // 1 to 4 (manual reschedules and resets have none).
    let log: Vec<(i64, i64, i64)> = sqlx::query_as(
        "SELECT cid, id, ease FROM revlog WHERE ease BETWEEN 1 AND 4 AND type BETWEEN 0 AND 3 ORDER BY cid, id",
    )
    .fetch_all(&mut *db)
    .await
    .map_err(bad)?;
    let mut reviews: HashMap<i64, Vec<(i64, i64)>> = HashMap::new();
    for (card, at, ease) in log {
        reviews.entry(card).or_default().push((at, ease));
    }
    let mut cards: HashMap<i64, Vec<Card>> = HashMap::new();
    for CardRow { id, nid: note, did, ord, kind, queue, due, odid, odue } in rows {
        // A card in a filtered deck is there for now: its own deck and due day are `odid` and
        // `odue`.
        let (deck, due) = match (odid, odue) {
            (0, _) => (did, due),
            (home, 0) => (home, due),
            (home, home_due) => (home, home_due),
        };
        let new = kind == 0;
        // Review cards (and learning ones counted in days) are due on a day numbered from the
        // collection's creation; learning cards within a day, at a time in seconds (a number
        // no day count reaches), suspended or not.
        let due_at = if new {
            None
        } else if due > TIMESTAMP_FROM {
            Some(due.saturating_mul(1000))
        } else {
            Some(created.saturating_add(due.saturating_mul(DAY_SECONDS)).saturating_mul(1000))
        };
        cards.entry(note).or_default().push(Card {
            deck,
            ord,
            suspended: queue == -1,
            new,
            due_at,
            reviews: if new { Vec::new() } else { reviews.remove(&id).unwrap_or_default() },
        });
    }
    Ok(Collection { decks, cloze_types, notes, cards })
}

/// Schema 11's decks: `{"id": {"name": "Parent::Child", …}, …}`.
fn legacy_decks(decks: &str) -> HashMap<i64, String> {
    let Ok(serde_json::Value::Object(decks)) = serde_json::from_str::<serde_json::Value>(decks) else {
        return HashMap::new();
    };
    decks
        .iter()
        .filter_map(|(id, deck)| {
            let name = deck.get("name")?.as_str()?;
            Some((id.parse().ok()?, name.replace("::", " · ")))
        })
        .collect()
}

/// Schema 11's note types that are cloze deletions (type 1).
fn legacy_cloze_types(models: &str) -> Vec<i64> {
    let Ok(serde_json::Value::Object(models)) = serde_json::from_str::<serde_json::Value>(models) else {
        return Vec::new();
    };
    models
        .iter()
        .filter(|(_, m)| m.get("type").and_then(serde_json::Value::as_i64) == Some(1))
        .filter_map(|(id, _)| id.parse().ok())
        .collect()
}

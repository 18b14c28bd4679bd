//! Anki packages (`.apkg`): a zip holding the collection as a SQLite file
//! (`collection.anki21`, or `collection.anki2` from older versions), a `media` map and the
//! media files themselves, named 0, 1, 2…. Each note becomes a point: its front the cue, its
//! back the content (cloze notes: the text with its answers, and with gaps for the cue), HTML
//! stripped to text. Images a note shows become resources linked to its point.

use std::collections::HashMap;
use std::io::{Cursor, Read};

use sqlx::{Connection, SqliteConnection};
use warren_app::api::ResourceKind;

use super::{Builder, ImportError, Preview};
use crate::store::{NewResource, image_type};

/// The field separator inside a note.
const FIELD_SEPARATOR: char = '\u{1f}';

type Archive<'a> = zip::ZipArchive<Cursor<&'a [u8]>>;

fn entry(archive: &mut Archive<'_>, name: &str) -> Option<Vec<u8>> {
    let mut file = archive.by_name(name).ok()?;
    let mut bytes = Vec::with_capacity(usize::try_from(file.size()).unwrap_or(0).min(1 << 26));
    file.read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

pub async fn read(stem: &str, bytes: &[u8]) -> Result<Preview, ImportError> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|_| ImportError::NotZip)?;
    let names: Vec<String> = archive.file_names().map(str::to_string).collect();
    let has = |name: &str| names.iter().any(|n| n == name);
    let collection = if has("collection.anki21") {
        "collection.anki21"
    } else if has("collection.anki21b") {
        return Err(ImportError::NewerAnki);
    } else if has("collection.anki2") {
        "collection.anki2"
    } else {
        return Err(ImportError::NoCollection);
    };
    let database = entry(&mut archive, collection).ok_or(ImportError::NoCollection)?;
    // media: {"0": "cell.png", …}: file names to the zip entries that hold them.
    let media: HashMap<String, String> = entry(&mut archive, "media")
        .and_then(|m| serde_json::from_slice::<HashMap<String, String>>(&m).ok())
        .unwrap_or_default()
        .into_iter()
        .map(|(key, name)| (name, key))
        .collect();

    let file = tempfile::NamedTempFile::new().map_err(|e| ImportError::BadCollection(e.to_string()))?;
    std::fs::write(file.path(), &database).map_err(|e| ImportError::BadCollection(e.to_string()))?;
    let url = format!("sqlite://{}?mode=ro", file.path().display());
    let mut db =
        SqliteConnection::connect(&url).await.map_err(|e| ImportError::BadCollection(e.to_string()))?;
    let bad = |e: sqlx::Error| ImportError::BadCollection(e.to_string());
    let (decks, models): (String, String) =
        sqlx::query_as("SELECT decks, models FROM col LIMIT 1").fetch_one(&mut db).await.map_err(bad)?;
    let notes: Vec<(i64, i64, String)> = sqlx::query_as("SELECT id, mid, flds FROM notes ORDER BY id")
        .fetch_all(&mut db)
        .await
        .map_err(bad)?;
    let deck: Option<i64> =
        sqlx::query_scalar("SELECT did FROM cards GROUP BY did ORDER BY COUNT(*) DESC LIMIT 1")
            .fetch_optional(&mut db)
            .await
            .map_err(bad)?;
    db.close().await.map_err(bad)?;

    let name = deck_name(&decks, deck).unwrap_or_else(|| stem.to_string());
    let cloze_models = cloze_models(&models);
    let mut builder = Builder::new(&name);
    // Each image file becomes one resource, linked to every point that shows it.
    let mut images: HashMap<String, usize> = HashMap::new();
    for (index, (_, model, fields)) in notes.iter().enumerate() {
        let place = format!("note {}", index + 1);
        let fields: Vec<&str> = fields.split(FIELD_SEPARATOR).collect();
        let (content, cue) = if cloze_models.contains(model) {
            let text = fields.first().copied().unwrap_or_default();
            (text_of(&cloze(text, true)), text_of(&cloze(text, false)))
        } else if fields.len() < 2 {
            builder
                .reject(&place, "it has one field; a point needs a front (the cue) and a back (the content)");
            continue;
        } else {
            (text_of(fields[1]), text_of(fields[0]))
        };
        let Some(point) = builder.point(&place, &content, &cue, None) else { continue };
        for source in fields.iter().flat_map(|f| image_sources(f)) {
            if let Some(&resource) = images.get(&source) {
                builder.preview.set.resources[resource].points.push((point, 1.0));
                continue;
            }
            let bytes = media.get(&source).and_then(|key| entry(&mut archive, key));
            match bytes.as_deref().map(|b| (image_type(b), b)) {
                None => builder.reject(&place, format!("its image “{source}” is not in the package")),
                Some((None, _)) => {
                    builder.reject(&place, format!("its image “{source}” is not a PNG, JPEG, WebP or GIF"))
                }
                Some((Some(mime), bytes)) => {
                    images.insert(source.clone(), builder.preview.set.resources.len());
                    builder.resource(NewResource {
                        kind: ResourceKind::Image,
                        title: source.clone(),
                        mime_type: Some(mime.to_string()),
                        image: Some(bytes.to_vec()),
                        points: vec![(point, 1.0)],
                        ..NewResource::default()
                    });
                }
            }
        }
    }
    Ok(builder.finish())
}

/// The name of the deck most cards are in, unless it is Anki's "Default".
fn deck_name(decks: &str, deck: Option<i64>) -> Option<String> {
    let decks: serde_json::Value = serde_json::from_str(decks).ok()?;
    let name = decks.get(deck?.to_string())?.get("name")?.as_str()?;
    (name != "Default").then(|| name.replace("::", " · "))
}

/// The ids of note types that are cloze deletions (type 1).
fn cloze_models(models: &str) -> Vec<i64> {
    let Ok(serde_json::Value::Object(models)) = serde_json::from_str::<serde_json::Value>(models) else {
        return Vec::new();
    };
    models
        .iter()
        .filter(|(_, m)| m.get("type").and_then(serde_json::Value::as_i64) == Some(1))
        .filter_map(|(id, _)| id.parse().ok())
        .collect()
}

/// `{{c1::answer::hint}}` as the answer (`answers`) or as a gap with its hint.
fn cloze(text: &str, answers: bool) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{c") {
        out.push_str(&rest[..start]);
        let inner = &rest[start + 3..];
        let Some(end) = inner.find("}}") else {
            out.push_str(&rest[start..]);
            return out;
        };
        let mut parts = inner[..end].splitn(3, "::");
        let _number = parts.next();
        let answer = parts.next().unwrap_or_default();
        let hint = parts.next();
        if answers {
            out.push_str(answer);
        } else {
            out.push_str(&format!("[{}]", hint.unwrap_or("…")));
        }
        rest = &inner[end + 2..];
    }
    out.push_str(rest);
    out
}

/// A field's HTML as plain text: tags dropped (line-breaking ones become spaces), entities
/// decoded, `[sound:…]` dropped, white space folded.
fn text_of(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut tag: Option<String> = None;
    for c in html.chars() {
        match (&mut tag, c) {
            (None, '<') => tag = Some(String::new()),
            (None, c) => out.push(c),
            (Some(name), '>') => {
                let name =
                    name.trim_start_matches('/').split_whitespace().next().unwrap_or_default().to_lowercase();
                if matches!(name.as_str(), "br" | "br/" | "div" | "p" | "li" | "tr" | "td" | "hr") {
                    out.push(' ');
                }
                tag = None;
            }
            (Some(name), c) => name.push(c),
        }
    }
    let decoded = html_escape::decode_html_entities(&out).replace('\u{a0}', " ");
    let mut text = decoded.as_str().to_string();
    while let Some(start) = text.find("[sound:") {
        match text[start..].find(']') {
            Some(end) => text.replace_range(start..start + end + 1, " "),
            None => break,
        }
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The `src` of each `<img>` in a field.
fn image_sources(html: &str) -> Vec<String> {
    let lower = html.to_lowercase();
    let mut sources = Vec::new();
    let mut from = 0;
    while let Some(at) = lower[from..].find("<img") {
        let start = from + at;
        let end = lower[start..].find('>').map_or(lower.len(), |e| start + e);
        let tag = &html[start..end];
        let tag_lower = &lower[start..end];
        if let Some(src) = tag_lower.find("src=") {
            let value = &tag[src + 4..];
            let source = match value.chars().next() {
                Some(quote @ ('"' | '\'')) => value[1..].split(quote).next().unwrap_or_default(),
                _ => value.split(|c: char| c.is_whitespace() || c == '/').next().unwrap_or_default(),
            };
            let source = html_escape::decode_html_entities(source).to_string();
            if !source.is_empty() && !sources.contains(&source) {
                sources.push(source);
            }
        }
        from = end;
    }
    sources
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_lose_their_html() {
        assert_eq!(
            text_of("Mito<b>chondria</b>&nbsp;make <i>ATP</i><br>[sound:x.mp3]"),
            "Mitochondria make ATP"
        );
        assert_eq!(text_of("<div>a</div><div>b &amp; c</div>"), "a b & c");
        assert_eq!(text_of("1 &lt; 2"), "1 < 2");
    }

    #[test]
    fn images_are_found_by_their_source() {
        let field =
            r#"See <img src="cell.png"> and <IMG class=x src='a&amp;b.jpg'/> and <img src=plain.gif>"#;
        assert_eq!(image_sources(field), ["cell.png", "a&b.jpg", "plain.gif"]);
    }

    #[test]
    fn clozes_give_answers_and_gaps() {
        let text = "The {{c1::mitochondrion}} makes {{c2::ATP::a molecule}}.";
        assert_eq!(cloze(text, true), "The mitochondrion makes ATP.");
        assert_eq!(cloze(text, false), "The […] makes [a molecule].");
    }
}

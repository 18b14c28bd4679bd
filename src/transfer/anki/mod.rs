//! Anki packages: `.apkg` (a deck, with its subdecks) and `.colpkg` (a whole collection), as
//! every Anki since 2.1 writes them (`package.rs`), their collection in either schema
//! (`collection.rs`). Each deck with cards becomes a set ("Parent::Child" is "Parent ·
//! Child"). Each note is one point, its front the cue and its back the content
//! (`text.rs`: the text a reader sees), or, for a cloze note, one point per deletion. A
//! point's review history is its card's review log (the card of the note with the most
//! reviews; a deletion's own card), so FSRS replays its memory from it, and it stays due when
//! Anki had it due until it is reviewed here. Suspended cards' points are kept apart for the
//! learner to tick in. Images a note shows become resources linked to its points.

mod collection;
mod package;
mod text;

use std::collections::HashMap;

use warren_app::api::ResourceKind;
use warren_app::schedule::Rating;

use warren_app::forms::limits;

use super::{Builder, ImportError, Preview};
use crate::schedule::Logged;
use crate::store::{NewResource, PointLog, image_type};
use collection::Card;
use package::{MAX_MEDIA_BYTES, Media};

/// The field separator inside a note.
const FIELD_SEPARATOR: char = '\u{1f}';

/// How the preview names a note it leaves out: its first field a learner would know it by
/// (a front, a cloze's text, an occlusion's header), a few words of it, and its place.
fn place(n: usize, fields: &[&str]) -> String {
    const WORDS: usize = 6;
    let front = fields
        .iter()
        .filter(|f| !f.contains("image-occlusion:"))
        .map(|f| match text::cloze_numbers(f).first() {
            // A cloze's text with its deletions said.
            Some(number) => text::cloze(f, *number).1,
            None => text::text_of(f).0,
        })
        .find(|t| !t.trim().is_empty());
    match front {
        Some(front) => {
            let words: Vec<&str> = front.split_whitespace().collect();
            let short = words.iter().take(WORDS).copied().collect::<Vec<_>>().join(" ");
            let more = if words.len() > WORDS { "…" } else { "" };
            format!("“{short}{more}” (note {})", n + 1)
        }
        None => format!("note {}", n + 1),
    }
}

/// Reads a package into one preview per deck that has cards, in the order of the decks' names.
pub async fn read(stem: &str, bytes: &[u8]) -> Result<Vec<Preview>, ImportError> {
    let (sqlite, mut package) = package::open(bytes)?;
    let collection = collection::read(&sqlite).await?;
    drop(sqlite);
    let mut decks: Vec<Deck> = Vec::new();
    let mut index: HashMap<i64, usize> = HashMap::new();
    let no_cards = Vec::new();
    for (n, (_, note_type, fields)) in collection.notes.iter().enumerate() {
        let cards = collection.cards.get(&collection.notes[n].0).unwrap_or(&no_cards);
        let fields: Vec<&str> = fields.split(FIELD_SEPARATOR).collect();
        let place = place(n, &fields);
        let mut points: Vec<(String, String, Option<&Card>)> = Vec::new();
        let mut problems: Vec<String> = Vec::new();
        if collection.cloze_types.contains(note_type) {
            let text = fields.first().copied().unwrap_or_default();
            if text.contains("image-occlusion:") {
                problems.push("it is an image occlusion note, which needs its image to point at".into());
            } else {
                for number in text::cloze_numbers(text) {
                    let (cue, content) = text::cloze(text, number);
                    let card = cards.iter().find(|c| c.ord == i64::from(number) - 1);
                    points.push((content, cue, card));
                }
                if points.is_empty() {
                    problems.push("its cloze text deletes nothing".into());
                }
                for sound in text::text_of(text).1 {
                    problems.push(format!("its sound “{sound}” is left out: Warren does not play sound"));
                }
            }
        } else if fields.len() < 2 {
            problems
                .push("it has one field; a point needs a front (the cue) and a back (the content)".into());
        } else {
            let (cue, _) = text::text_of(fields[0]);
            let (content, sounds) = text::text_of(fields[1]);
            for sound in sounds.iter().chain(&text::text_of(fields[0]).1) {
                problems.push(format!("its sound “{sound}” is left out: Warren does not play sound"));
            }
            // A note type of more fields than a front and a back ("Extra", "Source"): only
            // the first two become the point, and the preview says what else it had.
            let extra = fields.iter().skip(2).filter(|f| !text::text_of(f).0.trim().is_empty()).count();
            if extra > 0 {
                problems.push(
                    "what it has beyond its front and back is left out: a point is a front and a back".into(),
                );
            }
            // One point per note: the card with the most reviews speaks for it, and the
            // preview says what the others' reviews were (a reversed card's own history).
            let card = cards.iter().max_by_key(|c| (c.reviews.len(), -c.ord));
            let others: usize = cards
                .iter()
                .filter(|c| card.is_none_or(|kept| !std::ptr::eq(*c, kept)))
                .map(|c| c.reviews.len())
                .sum();
            if others > 0 {
                problems.push(format!(
                    "its other card's {} left out: a note is one point, with the history of its card reviewed most",
                    match others {
                        1 => "review is".to_string(),
                        n => format!("{n} reviews are"),
                    }
                ));
            }
            points.push((content, cue, card));
        }
        let deck_id = points.iter().find_map(|(_, _, c)| c.map(|c| c.deck)).or(cards.first().map(|c| c.deck));
        let Some(deck_id) = deck_id else {
            // A note without cards is in no deck: it is not studied in Anki either.
            continue;
        };
        let deck = *index.entry(deck_id).or_insert_with(|| {
            let name = match collection.decks.get(&deck_id).map(String::as_str) {
                None | Some("Default") => stem.to_string(),
                Some(name) => name.to_string(),
            };
            decks.push(Deck { builder: Builder::new(&name), images: HashMap::new() });
            decks.len() - 1
        });
        let deck = &mut decks[deck];
        for problem in problems {
            deck.builder.reject(&place, problem);
        }
        let cloze = collection.cloze_types.contains(note_type);
        for (content, cue, card) in points {
            let added = match cloze {
                true => deck.builder.deletion(&place, &content, &cue),
                false => deck.builder.point(&place, &content, &cue, None),
            };
            let Some(point) = added else { continue };
            if let Some(card) = card {
                deck.builder.preview.set.points[point].log = log_of(card);
                if card.suspended {
                    deck.builder.preview.suspended.push(point);
                }
            }
            for source in fields.iter().flat_map(|f| image_sources(f)) {
                deck.image(&mut package, &place, &source, point);
            }
        }
    }
    let mut previews: Vec<Preview> = decks.into_iter().map(|d| d.builder.finish()).collect();
    previews.retain(|p| !p.set.points.is_empty() || !p.rejected.is_empty());
    previews.sort_by_key(|p| p.set.name.to_lowercase());
    Ok(previews)
}

/// A deck being read: its set, and where each image it shows went.
struct Deck {
    builder: Builder,
    /// Each image file's resource, so one shown by several notes is one resource.
    images: HashMap<String, usize>,
}

impl Deck {
    fn image(&mut self, package: &mut package::Package<'_>, place: &str, source: &str, point: usize) {
        if let Some(&resource) = self.images.get(source) {
            self.builder.preview.set.resources[resource].points.push((point, 1.0));
            return;
        }
        let why = match package.media(source) {
            Media::Missing => "is not in the package".to_string(),
            Media::TooLarge => format!("is over {} MB", limits::IMAGE_BYTES / (1024 * 1024)),
            Media::Damaged => "cannot be unpacked".to_string(),
            Media::OverBudget => {
                format!(
                    "is past the {} MB the package's images may take in all",
                    MAX_MEDIA_BYTES / (1024 * 1024)
                )
            }
            Media::Found(bytes) => match image_type(&bytes) {
                None => "is not a PNG, JPEG, WebP or GIF".to_string(),
                Some(mime) => {
                    self.images.insert(source.to_string(), self.builder.preview.set.resources.len());
                    self.builder.resource(NewResource {
                        kind: ResourceKind::Image,
                        title: source.to_string(),
                        mime_type: Some(mime.to_string()),
                        image: Some(bytes),
                        points: vec![(point, 1.0)],
                        ..NewResource::default()
                    });
                    return;
                }
            },
        };
        self.builder.reject(place, format!("its image “{source}” {why}"));
    }
}

/// A card's history as a point's log: each rated review (ease 1 to 4 is Again to Easy), and
/// the due date Anki gave it. A new card has none: the point starts new.
fn log_of(card: &Card) -> Option<PointLog> {
    if card.new {
        return None;
    }
    let reviews: Vec<Logged> = card
        .reviews
        .iter()
        .filter_map(|&(at, ease)| {
            let rating = match ease {
                1 => Rating::Again,
                2 => Rating::Hard,
                3 => Rating::Good,
                4 => Rating::Easy,
                _ => return None,
            };
            Some(Logged { rating, at })
        })
        .collect();
    if reviews.is_empty() {
        return None;
    }
    Some(PointLog { carried: None, reviews, due_at: card.due_at })
}

/// The `src` of each `<img>` in a field. Only ASCII is lowered, so a place in the lowered
/// text is the same place in the field (`to_lowercase` changes some characters' lengths: Ω, K).
fn image_sources(html: &str) -> Vec<String> {
    let lower = html.to_ascii_lowercase();
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
    fn images_are_found_by_their_source() {
        let field =
            r#"See <img src="cell.png"> and <IMG class=x src='a&amp;b.jpg'/> and <img src=plain.gif>"#;
        assert_eq!(image_sources(field), ["cell.png", "a&b.jpg", "plain.gif"]);
        // Characters whose lowercase is shorter or longer than they are move nothing.
        assert_eq!(image_sources("\u{2126}\u{212a}İ<IMG SRC=a.png>Ω"), ["a.png"]);
    }

    #[test]
    fn a_cards_rated_reviews_are_its_log_and_a_new_card_has_none() {
        let card =
            Card { reviews: vec![(10, 3), (20, 1), (30, 4), (40, 0)], due_at: Some(99), ..Card::default() };
        let log = log_of(&card).expect("a log");
        let ratings: Vec<Rating> = log.reviews.iter().map(|r| r.rating).collect();
        assert_eq!(ratings, [Rating::Good, Rating::Again, Rating::Easy]);
        assert_eq!(log.due_at, Some(99));
        assert_eq!(log_of(&Card { new: true, ..card }), None);
    }
}

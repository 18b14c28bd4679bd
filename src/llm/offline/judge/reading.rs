//! What the sentence model's reading of a text gives the judgement: the names in a point,
//! the stretches of a message, how well it stands for a point's phrases, a point's parts.

use super::wording::{clauses, is_joint};
use crate::embed::{Reading, similarity};
use crate::text::tokens;

/// The words of `content` that are names, as (word index, run): capitalised (not all
/// capitals: "DNA" has expansions), not the sentence's first word, not a number ("Nineteen
/// Eighty-Four"); neighbours separated by a space make one run ("Franz Ferdinand").
pub(super) fn names(content: &str, words: &[crate::embed::Word]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    let mut run = 0;
    for (i, word) in words.iter().enumerate().skip(1) {
        let Some(text) = content.get(word.span.clone()) else { continue };
        let capitalised = text.chars().next().is_some_and(char::is_uppercase)
            && text.chars().any(char::is_lowercase)
            && tokens(text).iter().all(|k| k.quantity.is_none());
        if !capitalised {
            continue;
        }
        let joined = out.last().is_some_and(|(last, _)| {
            *last + 1 == i && content.get(words[*last].span.end..word.span.start) == Some(" ")
        });
        if !joined {
            run += 1;
        }
        out.push((i, run));
    }
    out
}

/// The text of a word the model read, when it is a content word (not "the", "is", "of").
pub(super) fn meaning_word(text: &str, span: std::ops::Range<usize>) -> Option<&str> {
    text.get(span).filter(|w| !tokens(w).is_empty())
}

/// The stretches of a message a point may be said in: each clause, each two neighbouring
/// clauses, and the whole, as the mean of their words in context.
pub(super) fn stretches(text: &str, message: &Reading) -> Vec<crate::embed::Vector> {
    let mut clauses: Vec<Vec<&[f32]>> = vec![Vec::new()];
    for word in message.words.iter() {
        match text.get(word.span.clone()) {
            Some(w) if !is_joint(w) => {
                if let Some(clause) = clauses.last_mut() {
                    clause.push(&*word.vector);
                }
            }
            Some(_) | None => clauses.push(Vec::new()),
        }
    }
    clauses.retain(|c| !c.is_empty());
    let mut out: Vec<crate::embed::Vector> = vec![message.sentence.clone()];
    out.extend(clauses.iter().map(|c| crate::embed::pooled(c)));
    out.extend(clauses.windows(2).map(|pair| crate::embed::pooled(&pair.concat())));
    out
}

/// A point's clauses, each with two content words or more (a shorter one joins the next),
/// when it has several: "Magma is molten rock underground", "once it erupts onto the surface
/// it is called lava". Each must be said for the point to be.
pub fn parts(content: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut pending = String::new();
    // A relative clause says a fact of its own ("…a phospholipid bilayer that controls what
    // enters and leaves the cell").
    let relative = |clause: &str| -> Vec<String> {
        let mut parts = vec![String::new()];
        for word in clause.split_whitespace() {
            if matches!(word.to_lowercase().as_str(), "that" | "which" | "who" | "where") {
                parts.push(String::new());
            }
            if let Some(part) = parts.last_mut() {
                part.push(' ');
                part.push_str(word);
            }
        }
        parts
    };
    // An aside ("(mostly red and blue)") is no clause of its own to be said.
    let content = super::without_asides(content);
    for clause in clauses(&content).iter().flat_map(|c| relative(c)) {
        let joined = if pending.is_empty() { clause } else { format!("{pending} {clause}") };
        if tokens(&joined).len() >= 2 {
            out.push(joined.trim().to_string());
            pending.clear();
        } else {
            pending = joined;
        }
    }
    if !pending.trim().is_empty() {
        match out.last_mut() {
            Some(last) => {
                last.push(' ');
                last.push_str(pending.trim());
            }
            None => out.push(pending.trim().to_string()),
        }
    }
    if out.len() > 1 { out } else { Vec::new() }
}

/// How well the message stands for the point's phrases: for each two neighbouring content
/// words of the point (and what lies between), not both already given, the best cosine of a
/// stretch of one to three neighbouring content words of the message; the mean over phrases.
pub(super) fn phrases(
    content: &str,
    point: &Reading,
    said: &str,
    message: &Reading,
    given: impl Fn(&str) -> bool,
) -> f64 {
    let content_words = |text: &str, reading: &Reading| -> Vec<usize> {
        (0..reading.words.len())
            .filter(|i| meaning_word(text, reading.words[*i].span.clone()).is_some())
            .collect()
    };
    let pool = |reading: &Reading, from: usize, to: usize| {
        let vectors: Vec<&[f32]> = reading.words[from..=to].iter().map(|w| &*w.vector).collect();
        crate::embed::pooled(&vectors)
    };
    let ours = content_words(said, message);
    let mut stretches = Vec::new();
    for (i, from) in ours.iter().enumerate() {
        for to in ours.iter().skip(i).take(3) {
            stretches.push(pool(message, *from, *to));
        }
    }
    let theirs = content_words(content, point);
    let mut total = 0.0;
    let mut count = 0.0;
    for pair in theirs.windows(2) {
        let (from, to) = (pair[0], pair[1]);
        let both_given =
            [from, to].iter().all(|i| content.get(point.words[*i].span.clone()).is_some_and(&given));
        if both_given {
            continue;
        }
        let phrase = pool(point, from, to);
        total += stretches.iter().map(|s| f64::from(similarity(s, &phrase))).fold(0.0, f64::max);
        count += 1.0;
    }
    if count > 0.0 { total / count } else { 0.0 }
}

//! What a draft's review flags for the learner to look at: too long, two facts joined, a cue
//! that gives the answer away, a point the set already has (by meaning with the sentence
//! model, by words without it), a quote the source does not hold.

use warren_app::api::DraftCheck;

use crate::embed::{Vector, similarity};
use crate::llm::offline::drafter::repeats;
use crate::text::tokens;

/// Longer than this (characters, or words) is long for a point.
const LONG_CHARS: usize = 250;
const LONG_WORDS: usize = 40;
/// A cue holding this share of a point's words says it.
const GIVEN_AWAY: f64 = 0.8;
/// A point this near in meaning to one the set has is that point.
const SAME_MEANING: f32 = 0.88;

/// The checks a draft fails, against the source's text and the set's points (with their
/// vectors, when the sentence model read them; `vector` is the draft's).
pub fn checks(
    content: &str,
    cue: &str,
    quote: &str,
    source: &str,
    existing: &[(String, Option<Vector>)],
    vector: Option<&Vector>,
) -> Vec<DraftCheck> {
    let mut found = Vec::new();
    if content.chars().count() > LONG_CHARS || content.split_whitespace().count() > LONG_WORDS {
        found.push(DraftCheck::TooLong);
    }
    if two_facts(content) {
        found.push(DraftCheck::TwoFacts);
    }
    if gives_away(content, cue) {
        found.push(DraftCheck::GivesAway);
    }
    let duplicate = existing.iter().any(|(point, point_vector)| match (vector, point_vector) {
        (Some(v), Some(p)) => similarity(v, p) >= SAME_MEANING,
        (Some(_) | None, _) => repeats(content, point),
    });
    if duplicate {
        found.push(DraftCheck::Duplicate);
    }
    if !quoted(quote, source) {
        found.push(DraftCheck::QuoteMissing);
    }
    found
}

/// More than one sentence, or clauses a semicolon joins.
fn two_facts(content: &str) -> bool {
    let trimmed = content.trim().trim_end_matches(['.', '!', '?']);
    let inner_stops = trimmed
        .char_indices()
        .filter(|&(i, c)| {
            matches!(c, '.' | '!' | '?')
                && trimmed[i + 1..].starts_with(' ')
                && trimmed[i + 1..].trim_start().starts_with(char::is_uppercase)
        })
        .count();
    inner_stops > 0 || trimmed.contains("; ")
}

/// The cue holds most of the point's own words.
fn gives_away(content: &str, cue: &str) -> bool {
    let point: Vec<String> = tokens(content).into_iter().map(|t| t.term).collect();
    if point.is_empty() {
        return false;
    }
    let asked: Vec<String> = tokens(cue).into_iter().map(|t| t.term).collect();
    let said = point.iter().filter(|w| asked.contains(w)).count();
    // A cue with a gap ("In …, Robert Hooke named the cell") asks for what the gap hides: it
    // gives the answer away only if nothing is hidden.
    if [BLANK, "___", "[...]"].iter().any(|gap| cue.contains(gap)) {
        return said == point.len();
    }
    said as f64 / point.len() as f64 >= GIVEN_AWAY
}

/// What a cue puts in place of the words it asks for.
const BLANK: &str = "…";

/// The quote stands in the source, spaces and line breaks aside.
fn quoted(quote: &str, source: &str) -> bool {
    let fold = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let quote = fold(quote);
    !quote.is_empty() && fold(source).contains(&quote)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "Ribosomes build proteins from messenger RNA.\nThe nucleus holds the DNA.";

    #[test]
    fn each_check_flags_what_it_names_and_nothing_else() {
        let good = checks(
            "Ribosomes build proteins from messenger RNA.",
            "What do ribosomes build, and from what?",
            "Ribosomes build proteins from messenger RNA.",
            SOURCE,
            &[],
            None,
        );
        assert_eq!(good, Vec::<DraftCheck>::new());
        let long = "word ".repeat(45);
        assert!(checks(&long, "q", "", SOURCE, &[], None).contains(&DraftCheck::TooLong));
        let two = checks("Ribosomes build proteins. The nucleus holds DNA.", "q", "", SOURCE, &[], None);
        assert!(two.contains(&DraftCheck::TwoFacts) && two.contains(&DraftCheck::QuoteMissing));
        assert!(!two_facts("Pi is about 3.14 in value."));
        let given = checks(
            "The nucleus holds the DNA.",
            "Does the nucleus hold the DNA?",
            "The nucleus holds the DNA.",
            SOURCE,
            &[],
            None,
        );
        assert_eq!(given, [DraftCheck::GivesAway]);
        let gap = "In …, Robert Hooke named the cell after the small rooms of a monastery.";
        let content = "In 1665, Robert Hooke named the cell after the small rooms of a monastery.";
        assert!(!gives_away(content, gap), "a gap hides the year");
        assert!(gives_away(content, &format!("{content} …")), "a gap that hides nothing");
        let existing = [("The nucleus holds the cell's DNA.".to_string(), None)];
        let dup = checks(
            "The nucleus holds the DNA.",
            "Where is the DNA?",
            "The nucleus  holds\nthe DNA.",
            SOURCE,
            &existing,
            None,
        );
        assert_eq!(dup, [DraftCheck::Duplicate], "a quote is found across spaces and line breaks");
    }
}

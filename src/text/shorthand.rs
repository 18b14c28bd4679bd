//! Chat shorthand written out, so the judges read the words a learner meant: "lists r mutable,
//! can't change em after u make em" is "lists are mutable, can't change them after you make
//! them", and "the govt decides w/ the central bank" has "government" and "with". The sentence
//! model was trained on written text, and the word lists know whole words only.
//!
//! A short form the notes themselves use stays as it is ("r" of a formula, Python's `def`, "BC"
//! after a year), and so does a lone letter where it reads as a symbol ("pi times r", "a u
//! shape").

use std::borrow::Cow;

/// Each short form, lower-case, and what it stands for.
const SHORT_FORMS: &[(&str, &str)] = &[
    ("u", "you"),
    ("ya", "you"),
    ("ur", "your"),
    ("r", "are"),
    ("em", "them"),
    ("bc", "because"),
    ("b/c", "because"),
    ("bcos", "because"),
    ("bcuz", "because"),
    ("cuz", "because"),
    ("coz", "because"),
    ("w/", "with"),
    ("w/o", "without"),
    ("govt", "government"),
    ("gov't", "government"),
    ("approx", "approximately"),
    ("thru", "through"),
    ("tho", "though"),
    ("altho", "although"),
    ("smth", "something"),
    ("sth", "something"),
    ("ppl", "people"),
    ("btwn", "between"),
    ("esp", "especially"),
    ("mil", "million"),
    ("bn", "billion"),
    ("yr", "year"),
    ("yrs", "years"),
    ("hr", "hour"),
    ("hrs", "hours"),
    ("mins", "minutes"),
    ("temp", "temperature"),
    ("temps", "temperatures"),
    ("avg", "average"),
    ("abt", "about"),
    ("def", "definitely"),
    ("defo", "definitely"),
    ("obv", "obviously"),
    ("obvs", "obviously"),
    ("cmd", "command"),
    ("info", "information"),
    ("b4", "before"),
    ("msg", "message"),
    ("gonna", "going to"),
    ("wanna", "want to"),
    ("gotta", "have to"),
    ("kinda", "kind of"),
    ("sorta", "sort of"),
    ("eg", "for example"),
    ("e.g.", "for example"),
    ("ie", "that is"),
    ("i.e.", "that is"),
    ("&", "and"),
    ("@", "at"),
];

/// Words after which a lone letter is a symbol, not a word ("times r", "a u", "the r").
const BEFORE_A_SYMBOL: &[&str] =
    &["a", "an", "the", "times", "by", "over", "plus", "minus", "of", "is", "=", "×", "*", "/", "+", "-"];

/// The text with its chat shorthand written out, or the text itself when it has none. `used`
/// tells whether the notes use a word (lower-case) themselves, which then stays.
pub fn expand<'a>(text: &'a str, used: impl Fn(&str) -> bool) -> Cow<'a, str> {
    let mut out = String::with_capacity(text.len() + 16);
    let mut changed = false;
    let mut previous: Option<String> = None;
    let mut rest = text;
    while !rest.is_empty() {
        let start = rest.find(|c: char| !c.is_whitespace()).unwrap_or(rest.len());
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        if rest.is_empty() {
            break;
        }
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let chunk = &rest[..end];
        rest = &rest[end..];
        // The word itself, without the punctuation around it ("(can't", "em)", "u,").
        let lead = chunk.find(|c: char| c.is_alphanumeric() || matches!(c, '&' | '@')).unwrap_or(chunk.len());
        let trail = chunk[lead..]
            .char_indices()
            .rev()
            .find(|(_, c)| c.is_alphanumeric() || matches!(c, '/' | '.' | '&' | '@'))
            .map_or(lead, |(i, c)| lead + i + c.len_utf8());
        let word = &chunk[lead..trail];
        let lower = word.to_lowercase();
        let next = rest.split_whitespace().next().unwrap_or_default();
        let written = written_out(word, &lower, previous.as_deref(), next, &used);
        match written {
            Some(full) => {
                changed = true;
                out.push_str(&chunk[..lead]);
                out.push_str(&match_case(word, full));
                out.push_str(&chunk[trail..]);
            }
            None => out.push_str(chunk),
        }
        previous = Some(lower.trim_end_matches(|c: char| !c.is_alphanumeric()).to_string());
        if lead == chunk.len() {
            previous = Some(chunk.to_string());
        }
    }
    if changed { Cow::Owned(out) } else { Cow::Borrowed(text) }
}

/// What one word stands for, if it is shorthand here.
fn written_out(
    word: &str,
    lower: &str,
    previous: Option<&str>,
    next: &str,
    used: &impl Fn(&str) -> bool,
) -> Option<&'static str> {
    let (_, full) = SHORT_FORMS.iter().find(|(short, _)| *short == lower)?;
    // "U" and "R" are uranium and a language; "BC" is an era.
    if word.len() <= 2 && word.chars().any(char::is_alphabetic) && !word.chars().any(char::is_lowercase) {
        return None;
    }
    if used(lower.trim_end_matches(['.', '/'])) {
        return None;
    }
    let after_number = previous.is_some_and(|p| p.chars().next().is_some_and(|c| c.is_ascii_digit()));
    if lower == "bc" && after_number {
        return None;
    }
    if lower.len() == 1 && lower.chars().all(char::is_alphabetic) {
        let before_symbol = previous.is_some_and(|p| BEFORE_A_SYMBOL.contains(&p));
        let symbol_next = next.starts_with(|c: char| {
            c.is_ascii_digit() || matches!(c, '=' | '²' | '³' | '^' | '*' | '+' | '-')
        });
        if previous.is_none() || before_symbol || after_number || symbol_next {
            return None;
        }
    }
    Some(full)
}

/// "Govt" is "Government" at the start of a sentence.
fn match_case(word: &str, full: &str) -> String {
    let mut chars = full.chars();
    match (word.chars().next(), chars.next()) {
        (Some(w), Some(f)) if w.is_uppercase() => f.to_uppercase().chain(chars).collect(),
        _ => full.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none(_: &str) -> bool {
        false
    }

    #[test]
    fn chat_shorthand_is_written_out() {
        for (said, meant) in [
            (
                "lists r mutable, tuples aren't (can't change em after u make em)",
                "lists are mutable, tuples aren't (can't change them after you make them)",
            ),
            ("fiscal is the govt deciding on taxes", "fiscal is the government deciding on taxes"),
            ("india hit asia like 50 mil yrs ago", "india hit asia like 50 million years ago"),
            ("runs a cmd as root, w/ admin privs", "runs a command as root, with admin privs"),
            ("Govt spending", "Government spending"),
            (
                "hot water forced thru the beans @ high pressure",
                "hot water forced through the beans at high pressure",
            ),
            ("where the S & D curves cross", "where the S and D curves cross"),
            ("it's prob bc the air is thin", "it's prob because the air is thin"),
        ] {
            assert_eq!(expand(said, none), meant);
        }
    }

    #[test]
    fn symbols_eras_and_the_notes_own_words_stay() {
        for said in [
            "pi times r",
            "a u shape, and rivers make the v ones",
            "at olympia in 776 bc i think",
            "U-235 splits",
            "r = 5 cm",
            "log n",
            "it's the symmetric one",
            "nine point eight m/s²",
            "감사합니다 (kamsahamnida)",
            "right △: a²+b²=c², c = hyp",
        ] {
            assert_eq!(expand(said, none), said);
        }
        let notes = ["def", "r"];
        let used = |w: &str| notes.contains(&w);
        assert_eq!(expand("you write def then the name", used), "you write def then the name");
        assert_eq!(expand("they r both", used), "they r both");
    }
}

//! A topic's pill label: two to four of its words, cut where a phrase ends.

use super::verbs::{is_verb, is_verb_form};
use super::{AUXILIARIES, BE, CLOSING_ADVERBS, FUNCTION_WORDS, MODALS, WH, is};

/// Two to four words of a topic for its pill. A short question keeps its question
/// word ("Why cats purr", "What happened to Neanderthals"); a longer topic loses its opening
/// question word, article or auxiliary, then, if it still runs past four words, its articles
/// and small adverbs ("Roman army organised legions"), and is cut where a phrase ends: never on
/// a small joining word, never between a verb and its object ("organised its"), nor inside a
/// run of content words ("the immune" before "system").
pub fn label_of(topic: &str) -> String {
    let words: Vec<&str> = topic
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-' && c != '\''))
        .filter(|w| !w.is_empty())
        .collect();
    let asks = |w: &str| is(w, &["how", "why", "who", "when", "where", "what"]);
    let titled = match words.as_slice() {
        // "who invented the telescope": the question word is the subject.
        [wh, verb, ..] if is(wh, &["who", "what"]) && is_verb_form(verb) => {
            Some(if words.len() <= 4 { words.clone() } else { headless(&words) })
        }
        // "how many moons Jupiter has": the amount asked about is the label.
        [how, amount, thing, _, ..] if is(how, &["how"]) && is(amount, &["many", "much"]) => {
            Some(vec![*how, *amount, *thing])
        }
        // "how long planetary rings last": the measure asked, then the subject's head and its
        // verb.
        [how, measure, rest @ ..] if is(how, &["how"]) && is(measure, MEASURES) && !rest.is_empty() => {
            let rest = headless(rest);
            let tail = &rest[rest.len().saturating_sub(2)..];
            Some([&[*how, *measure][..], tail].concat())
        }
        [wh, second, ..] if asks(wh) && !is(second, FUNCTION_WORDS) => Some(words.clone()),
        _ => None,
    }
    .filter(|label| label.len() <= 4);
    let label = titled.unwrap_or_else(|| headline(&words)).join(" ");
    let mut chars = label.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().collect::<String>() + chars.as_str(),
        None => label,
    }
}

/// What "how" asks the measure of ("how long", "how far").
const MEASURES: &[&str] =
    &["long", "far", "often", "old", "big", "fast", "large", "deep", "hot", "cold", "high", "heavy", "soon"];

/// Articles and possessives, the first words a headline drops.
const DETERMINERS: &[&str] = &["a", "an", "the", "its", "their", "his", "her", "our", "my", "your"];

/// Adverbs a headline drops, and a label never ends on.
const ADVERBS: &[&str] = &[
    "ever",
    "only",
    "always",
    "never",
    "first",
    "really",
    "still",
    "just",
    "often",
    "actually",
    "even",
    "also",
    "already",
    "once",
    "originally",
    "eventually",
    "finally",
    "usually",
    "suddenly",
    "quickly",
];

/// Words that leave a phrase open: no label ends on one.
pub(super) const OPENERS: &[&str] = &[
    "other", "same", "each", "every", "own", "very", "more", "most", "less", "what", "which", "who", "how",
    "why", "when", "where", "whether", "inside", "outside", "across", "through", "under", "without",
    "within", "between", "during", "around", "against", "about", "like", "than",
];

/// Words a verb can end on ("ended up", "died out").
const PARTICLES: &[&str] = &["up", "down", "out", "off", "away", "back"];

/// The words without articles, small adverbs, and a plural's "need to" before its verb
/// ("plants need to lose water" → "plants lose water").
fn headless<'a>(words: &[&'a str]) -> Vec<&'a str> {
    let mut kept = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let catenative = is(words[i], CATENATIVES)
            && words.get(i + 1).is_some_and(|w| is(w, &["to"]))
            && words.get(i + 2).is_some_and(|w| is_verb(w));
        if catenative {
            i += 2;
            continue;
        }
        if !is(words[i], DETERMINERS) && !is(words[i], ADVERBS) {
            kept.push(words[i]);
        }
        i += 1;
    }
    kept
}

/// Verbs whose "to" and verb after them carry the meaning, in the plural's form.
const CATENATIVES: &[&str] = &["need", "have", "want", "seem", "tend", "manage", "try"];

/// The words of a headline label, as `label_of` says.
fn headline<'a>(words: &[&'a str]) -> Vec<&'a str> {
    let skippable = |w: &str| is(w, WH) || is(w, FUNCTION_WORDS) || is(w, BE) || is(w, MODALS);
    let mut start = words.iter().position(|w| !skippable(w)).unwrap_or(0);
    // "what made the Renaissance start": the verb of a question word that was the subject.
    if start == 1 && is(words[0], &["who", "what"]) && is_verb_form(words[1]) {
        let after = (start + 1..words.len()).find(|&i| !skippable(words[i]) && !is(words[i], OPENERS));
        start = after.unwrap_or(start);
    }
    let rest = &words[start..];
    if rest.len() <= 4 {
        return trimmed(rest);
    }
    let dropped = headless(rest);
    if dropped.len() <= 4 {
        return trimmed(&dropped);
    }
    // The longest cut at a phrase's end, from the words as written or without their articles,
    // whichever keeps more; on a tie, the one followed by a small word rather than by what
    // may only look like a verb ("a lub-dub | sound"), else as written.
    let cut = |words: &[&'a str]| {
        (2..=4).rev().find(|&n| ends_phrase(words, n - 1)).map(|n| {
            let next = words.get(n).copied().unwrap_or_default();
            let open = !next.is_empty()
                && ![FUNCTION_WORDS, OPENERS, PARTICLES, CLOSING_ADVERBS].iter().any(|list| is(next, list));
            (words[..n].to_vec(), open)
        })
    };
    let best = match (cut(rest), cut(&dropped)) {
        (Some((a, a_open)), Some((b, b_open)))
            if b.len() > a.len() || b.len() == a.len() && a_open && !b_open =>
        {
            Some(b)
        }
        (Some((a, _)), _) => Some(a),
        (None, b) => b.map(|(b, _)| b),
    };
    // Two words say little: a longer phrase further on, opening on a noun, says more ("other
    // animals have four chambers too" → "Animals have four chambers").
    let opens = |w: &str| !skippable(w) && !is(w, OPENERS) && !is(w, ADVERBS) && !is_verb_form(w);
    let later = || {
        (1..rest.len()).filter(|&s| opens(rest[s])).find_map(|s| {
            (3..=4)
                .rev()
                .find(|&n| s + n <= rest.len() && ends_phrase(rest, s + n - 1))
                .map(|n| rest[s..s + n].to_vec())
        })
    };
    match best {
        Some(best) if best.len() >= 3 => best,
        best => later().or(best).unwrap_or_else(|| trimmed(rest)),
    }
}

/// The first four words, less any that would leave the label open at its end.
fn trimmed<'a>(words: &[&'a str]) -> Vec<&'a str> {
    let open = |w: &&str| is(w, FUNCTION_WORDS) || is(w, OPENERS);
    let mut label: Vec<&str> = words.iter().take(4).copied().collect();
    while label.len() > 2 && label.last().is_some_and(|w| open(w) || is(w, AUXILIARIES)) {
        label.pop();
    }
    // "DNA is | in every cell": without its auxiliary the phrase closes ("DNA in every cell").
    let plain: Vec<&str> = words.iter().copied().filter(|w| !is(w, AUXILIARIES)).collect();
    if label.last().is_some_and(|w| is(w, AUXILIARIES))
        && plain.len() + 1 == words.len()
        && (2..=4).contains(&plain.len())
        && !plain.last().is_some_and(open)
    {
        return plain;
    }
    label
}

/// Whether a phrase can end at `words[i]`: see `label_of`.
fn ends_phrase(words: &[&str], i: usize) -> bool {
    let word = words[i];
    let verb = is_verb_form(word);
    let particle = is(word, PARTICLES) && i > 0 && is_verb_form(words[i - 1]);
    if is(word, FUNCTION_WORDS) || is(word, OPENERS) || is(word, ADVERBS) || is(word, PARTICLES) && !particle
    {
        return false;
    }
    let Some(next) = words.get(i + 1) else { return true };
    // "DNA is | in every cell": an auxiliary leaves its phrase open.
    if is(word, AUXILIARIES) {
        return false;
    }
    if word.ends_with(',') || is(next, CLOSING_ADVERBS) {
        true
    } else if is(next, &["to"]) {
        // "need to lose" is open, "went to Britain" is not.
        !(verb && words.get(i + 2).is_some_and(|w| is_verb(w)))
    } else if is(next, FUNCTION_WORDS) || is(next, OPENERS) || is(next, PARTICLES) {
        !(verb && is(next, DETERMINERS))
    } else {
        // A subject before its verb: "the small island like Britain | could rule"; but "the
        // printing press" is one noun.
        !verb && !word.ends_with("ing") && (is_verb_form(next) || is(next, MODALS) || is(next, BE))
    }
}

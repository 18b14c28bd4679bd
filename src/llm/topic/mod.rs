//! Rabbit-hole topics and labels. The offline detector turns a learner's question into the
//! phrase a person would write about it: "How did the Roman army organise its legions?"
//! becomes "how the Roman army organised its legions"; "What about the printing press?"
//! becomes "the printing press". Any detector's topic gets a pill label of two to four of its
//! words. Plain word patterns and a list of common verbs, no grammar model: a verb's tense is
//! changed only when the word is known to be a verb; otherwise the question keeps the learner's
//! own words. `evals/topics.jsonl` and `evals/holdout/topics.jsonl` hold the phrases a person
//! would write for sixty-eight tangents; `tests.rs` reads both. Which words are verbs, and
//! their forms, is in `verbs`; the pill's label in `label`.

mod label;
mod verbs;

pub use label::label_of;
use verbs::{IRREGULAR, is_participle, is_verb, past, third_person};

/// Small words that open or join a phrase: never a subject's verb, never a label's end.
const FUNCTION_WORDS: &[&str] = &[
    "a", "an", "the", "its", "their", "his", "her", "our", "my", "your", "this", "that", "these", "those",
    "of", "to", "in", "on", "at", "by", "for", "from", "with", "into", "over", "after", "before", "and",
    "or", "so", "such", "some", "any", "all", "much", "many",
];

/// Openers with nothing to say: "wait,", "so", "hmm".
const FILLERS: &[&str] = &[
    "wait", "so", "hmm", "oh", "ok", "okay", "but", "and", "also", "actually", "well", "hey", "um", "anyway",
];

const WH: &[&str] = &["how", "why", "when", "where", "what", "who", "which", "whether"];

const MODALS: &[&str] = &["can", "could", "would", "should", "will", "might", "may", "must"];

const BE: &[&str] = &["is", "are", "was", "were"];

/// Words that open a clause of their own, after the main one ("… if it is so big").
const SUBORDINATORS: &[&str] =
    &["if", "because", "when", "although", "though", "while", "since", "unless", "whereas", "even"];

/// Words of degree, which follow "is" in a statement ("Saturn is so light").
const DEGREE: &[&str] = &["so", "too", "very", "more", "less", "really", "that", "quite", "such", "much"];

/// Words that close a question after its verb's complement ("why is it hot too"): the verb
/// put back goes before them.
const CLOSING_ADVERBS: &[&str] = &["too", "also", "then", "now", "again", "anyway", "though", "still"];

/// Words that add nothing to a topic ("how did Champollion actually crack the code").
const HEDGES: &[&str] = &["actually", "exactly", "even"];

/// Openings that name the topic after them: "I'm curious about endosymbiosis".
const CURIOUS_ABOUT: &[&str] = &["i'm curious about", "i am curious about", "curious about"];

/// Requests whose topic follows: "can you tell me what mRNA is" → "what mRNA is".
const REQUESTS: &[&[&str]] = &[
    &["can", "you", "tell", "me", "about"],
    &["could", "you", "tell", "me", "about"],
    &["can", "you", "tell", "me"],
    &["could", "you", "tell", "me"],
    &["can", "you", "explain"],
    &["could", "you", "explain"],
    &["i'm", "curious", "about"],
    &["i", "am", "curious", "about"],
    &["curious", "about"],
    &["i'm", "curious"],
];

/// Endings that add nothing to a topic.
/// Asides that open a question and are no part of its topic: "hang on, is…", "sorry, was…".
const ASIDES: &[&[&str]] = &[
    &["hang", "on"],
    &["hold", "on"],
    &["sorry"],
    &["lol"],
    &["haha"],
    &["tbh"],
    &["ooh"],
    &["ah"],
    &["btw"],
    &["quick", "question"],
    &["random", "question"],
    &["side", "question"],
    &["out", "of", "curiosity"],
    &["just", "wondering"],
    &["just", "curious"],
    &["by", "the", "way"],
];

/// Adjectives that say what a subject is ("the war | costly for Rome").
const PREDICATES: &[&str] = &[
    "alive",
    "dead",
    "true",
    "real",
    "big",
    "small",
    "tall",
    "short",
    "hot",
    "cold",
    "old",
    "young",
    "new",
    "good",
    "bad",
    "hard",
    "easy",
    "strong",
    "weak",
    "heavy",
    "fast",
    "slow",
    "rare",
    "common",
    "safe",
    "important",
    "different",
    "same",
    "older",
    "bigger",
    "smaller",
    "larger",
    "faster",
    "slower",
    "better",
    "worse",
    "possible",
    "necessary",
    "sure",
    "able",
    "enough",
    "right",
    "wrong",
    "free",
    "full",
    "empty",
    "natural",
    "normal",
    "legal",
    "illegal",
    "constant",
    "useful",
    "harmful",
    "likely",
    "unlikely",
];

/// Whether a word reads as an adjective by its ending ("visible", "useless", "poisonous").
fn described(word: &str) -> bool {
    let lower = word.to_lowercase();
    lower.len() > 5 && ["ible", "able", "ful", "less", "ous", "ive"].iter().any(|end| lower.ends_with(end))
}

/// Auxiliaries that open a yes-no question ("is Pluto a planet", "can octopuses…").
const AUXILIARIES: &[&str] = &[
    "is", "are", "was", "were", "do", "does", "did", "has", "have", "had", "can", "could", "would", "should",
    "will", "might", "may", "must",
];

/// Words a yes-no question's subject can be on its own ("is there…", "has anyone…").
const PRONOUNS: &[&str] = &[
    "it",
    "there",
    "they",
    "we",
    "you",
    "he",
    "she",
    "anyone",
    "anybody",
    "someone",
    "somebody",
    "anything",
    "something",
    "everyone",
    "everybody",
    "everything",
    "nobody",
    "nothing",
    "people",
];

/// Words that end a noun phrase: small adverbs and prepositions ("the heart | actually…",
/// "viruses | in…"). "Of" is not among them ("the speed of light").
const AFTER_SUBJECT: &[&str] = &[
    "still", "really", "actually", "ever", "always", "just", "even", "also", "already", "usually", "only",
    "never", "once", "so", "too", "very", "in", "on", "at", "by", "for", "from", "with", "into", "as",
    "than", "like", "without", "to", "a", "an", "the", "not", "that", "who", "which",
];

const TAILS: &[&[&str]] = &[&["in", "the", "first", "place"], &["anyway"], &["though"], &["again"]];

/// Whether `word` (a comma after it aside) is one of `list`.
fn is(word: &str, list: &[&str]) -> bool {
    list.contains(&word.trim_end_matches(',').to_lowercase().as_str())
}

fn asks_yes_or_no(word: &str) -> bool {
    is(word, AUXILIARIES)
}

/// Where the subject of a yes-no question ends, the auxiliary taken off: a pronoun, a name,
/// or a noun phrase up to a verb, a small adverb, a preposition or the last word ("the
/// heart | counted as…", "Pluto | still a planet", "viruses | alive").
fn subject_end(tail: &[&str]) -> Option<usize> {
    let first = tail.first()?;
    if tail.len() < 2 {
        return None;
    }
    if is(first, PRONOUNS) {
        return Some(1);
    }
    let named = |w: &str| w.chars().next().is_some_and(char::is_uppercase) && w != "I";
    if named(first) {
        let run = tail.iter().take_while(|w| named(w) && !w.ends_with(',')).count();
        return Some(run.min(tail.len() - 1));
    }
    let verb_like = |w: &str| {
        let lower = w.to_lowercase();
        is_verb(w)
            || is(w, AUXILIARIES)
            || is(w, &["be", "been", "being"])
            || IRREGULAR.iter().any(|(_, past)| *past == lower)
            || lower.ends_with("ed")
            || lower.ends_with("ing")
    };
    let start = usize::from(is(first, FUNCTION_WORDS) && !is(first, &["of", "to", "in", "on", "at", "by"]));
    let mut end = start + 1;
    if end >= tail.len() {
        // "is that true": the determiner stands alone.
        return Some(start.max(1));
    }
    if start == 1 && named(tail[1]) {
        // "the Great Wall | visible from space".
        let run = tail[1..].iter().take_while(|w| named(w) && !w.ends_with(',')).count();
        return Some((1 + run).min(tail.len() - 1));
    }
    let ends_it = |w: &str| verb_like(w) || is(w, AFTER_SUBJECT) || is(w, PREDICATES) || described(w);
    // The word after "of" is a noun ("the speed of light").
    while end < tail.len() - 1
        && (is(tail[end - 1], &["of"]) || !ends_it(tail[end]))
        && !tail[end - 1].ends_with(',')
    {
        end += 1;
    }
    Some(end)
}

/// Where the verb is in "the Roman army organise its legions" (after the auxiliary): the first
/// known verb after the subject's first word that is not itself followed by a known verb ("the
/// printing press change Europe": "change", not "press"); else, if it is a known verb, the word
/// before the first function word after the subject, or before a closing proper name, or the
/// last word. None when no known verb is there: the learner's own words are then kept.
fn verb_index(words: &[&str]) -> Option<usize> {
    let subject_start = words.iter().position(|w| !is(w, FUNCTION_WORDS)).unwrap_or(0);
    (subject_start + 1..words.len())
        .find(|&i| is_verb(words[i]) && !words.get(i + 1).is_some_and(|next| is_verb(next)))
        .or_else(|| placed_verb(words).filter(|&i| is_verb(words[i])))
}

/// The words after "do", "does" or "did" with their verb carrying the auxiliary's tense ("did
/// the army organise" → "the army organised"); `None` when no known verb is there.
fn without_do(auxiliary: &str, words: &[String]) -> Option<String> {
    let refs: Vec<&str> = words.iter().map(String::as_str).collect();
    let v = verb_index(&refs)?;
    let mut tail = words.to_vec();
    let verb = tail[v].trim_end_matches(',');
    let comma = &tail[v][verb.len()..];
    tail[v] = match auxiliary {
        "did" => past(verb),
        "does" => third_person(verb),
        _ => verb.to_string(),
    } + comma;
    Some(tail.join(" "))
}

/// Where the verb would be by word order alone.
fn placed_verb(words: &[&str]) -> Option<usize> {
    if words.len() < 2 {
        return None;
    }
    let subject_start = words.iter().position(|w| !is(w, FUNCTION_WORDS)).unwrap_or(0);
    let after = subject_start + 1;
    if let Some(marker) = (after + 1..words.len()).find(|&i| is(words[i], FUNCTION_WORDS)) {
        return Some(marker - 1);
    }
    let capitalised = |w: &str| w.chars().next().is_some_and(char::is_uppercase);
    if capitalised(words[words.len() - 1]) {
        let verb = (after..words.len()).rev().find(|&i| !capitalised(words[i]))?;
        return Some(verb);
    }
    Some(words.len() - 1)
}

/// The question's sentence, without fillers and the question mark.
fn question(message: &str) -> Vec<String> {
    // The first sentence that asks, or the whole message.
    let sentence = message
        .split_inclusive(['.', '!', '?'])
        .map(str::trim)
        .find(|s| s.ends_with('?'))
        .unwrap_or(message.trim())
        .to_string();
    // "Speaking of yeast, how does…": the question starts at the clause that asks. A dash
    // or a colon ("random question: why do…") parts clauses as a comma does.
    let sentence = sentence
        .replace('\u{2019}', "'")
        .replace(": ", ", ")
        .replace(" \u{2014} ", ", ")
        .replace(" \u{2013} ", ", ")
        .replace(" - ", ", ");
    let clauses: Vec<&str> = sentence.split(',').collect();
    let asking = clauses.iter().position(|c| {
        let first = c.split_whitespace().next().unwrap_or_default().to_lowercase();
        is(&first, WH) || asks_yes_or_no(&first) || matches!(first.as_str(), "tell" | "i" | "i'm")
    });
    let mut asked: &[&str] = asking.map_or(&clauses[..], |i| &clauses[i..]);
    // "I'm curious about endosymbiosis — how did…": what they are curious about is the topic.
    if let [first, _, ..] = asked
        && CURIOUS_ABOUT.iter().any(|lead| first.trim().to_lowercase().starts_with(lead))
    {
        asked = &asked[..1];
    }
    // "Where did mitochondria come from, endosymbiosis?": a short guess or aside after the
    // question is not part of its topic ("roughly", "really", "the Romans?"). A list goes on.
    if let [head @ .., before, last] = asked
        && head.iter().chain([before]).map(|c| c.split_whitespace().count()).sum::<usize>() >= 4
        && before.split_whitespace().count() >= 3
        && (1..=3).contains(&last.split_whitespace().count())
        && !last.split_whitespace().next().is_some_and(|w| is(w, &["and", "or", "nor"]))
    {
        asked = &asked[..asked.len() - 1];
    }
    let sentence = asked.join(",");
    // A comma after a word stays ("Rome, Athens, or Sparta"); `is` and `is_verb` look past it.
    let mut words: Vec<String> = sentence
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| matches!(c, '?' | '!' | ';' | ':' | '"' | '.')))
        .map(|w| w.trim_start_matches(',').to_string())
        .filter(|w| !w.trim_end_matches(',').is_empty() && !is(w, HEDGES))
        .collect();
    loop {
        if words.first().is_some_and(|w| is(w, FILLERS)) {
            words.remove(0);
        } else if let Some(aside) = ASIDES.iter().find(|aside| {
            words.len() > aside.len() && words.iter().zip(aside.iter()).all(|(w, a)| is(w, &[a]))
        }) {
            words.drain(..aside.len());
        } else {
            break;
        }
    }
    // "random question but are viruses alive": what comes before "but" and a question is an
    // aside.
    if let Some(but) = words.iter().take(5).position(|w| is(w, &["but"]))
        && words.get(but + 1).is_some_and(|w| is(w, WH) || asks_yes_or_no(w))
    {
        words.drain(..=but);
    }
    if let Some(last) = words.last_mut() {
        last.truncate(last.trim_end_matches(',').len());
    }
    for tail in TAILS {
        if words.len() > tail.len() + 2
            && words[words.len() - tail.len()..]
                .iter()
                .zip(tail.iter())
                .all(|(w, t)| w.eq_ignore_ascii_case(t))
        {
            words.truncate(words.len() - tail.len());
        }
    }
    words
}

/// The topic of a learner's question, as a phrase.
pub fn topic_of(message: &str) -> String {
    let words = question(message);
    let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let rest = |from: usize| words.get(from..).map(|w| w.join(" ")).unwrap_or_default();
    let starts =
        |pattern: &[&str]| lower.len() > pattern.len() && lower.iter().zip(pattern).all(|(w, p)| w == p);
    if let Some(request) = REQUESTS.iter().find(|r| starts(r)) {
        return topic_of(&rest(request.len()));
    }
    let phrase = if starts(&["what", "about"]) {
        rest(2)
    } else if starts(&["tell", "me", "more", "about"]) {
        rest(4)
    } else if starts(&["tell", "me", "about"]) {
        rest(3)
    } else if starts(&["is", "it", "true", "that"]) {
        rest(4)
    } else if let Some(k) = (lower.len() > 1 && is(&lower[0], &["i", "i've", "i'm"]))
        .then(|| (1..lower.len().min(4)).find(|&k| lower[k].starts_with("wonder")))
        .flatten()
    {
        // "I wonder if…", "I've always wondered why…", "I was wondering how…".
        match lower.get(k + 1).map(String::as_str) {
            Some("if" | "whether") => format!("whether {}", rest(k + 2)),
            Some(_) => topic_of(&rest(k + 1)),
            None => String::new(),
        }
    } else if lower.len() >= 3 && is(&lower[0], WH) && matches!(lower[1].as_str(), "did" | "do" | "does") {
        // "how did the army organise its legions" → "how the army organised its legions"
        match without_do(&lower[1], &words[2..]) {
            Some(tail) => format!("{} {tail}", lower[0]),
            // No verb it knows: the question as asked, not a guess.
            None => format!("{} {} {}", lower[0], lower[1], words[2..].join(" ")),
        }
    } else if let Some(k) = (lower.len() >= 4 && lower[0] == "how")
        .then(|| (2..lower.len().min(5)).find(|&k| matches!(lower[k].as_str(), "did" | "do" | "does")))
        .flatten()
        .filter(|&k| lower[1..k].iter().all(|w| !is_verb(w)))
    {
        // "how long do planetary rings last" → "how long planetary rings last"; "how many
        // moons does Jupiter have" → "how many moons Jupiter has".
        let asked = words[..k].join(" ").to_lowercase();
        match without_do(&lower[k], &words[k + 1..]) {
            Some(tail) => format!("{asked} {tail}"),
            None => format!("{asked} {} {}", lower[k], words[k + 1..].join(" ")),
        }
    } else if lower.len() >= 3 && matches!(lower[0].as_str(), "do" | "does" | "did") {
        // "do other animals have four chambers" → "whether other animals have four chambers"
        match without_do(&lower[0], &words[1..]) {
            Some(tail) => format!("whether {tail}"),
            // "do fish sleep": the verb keeps its form after "do", known or not.
            None if lower[0] == "do" => format!("whether {}", rest(1)),
            None => words.join(" ").to_lowercase(),
        }
    } else if let Some(end) = (lower.len() >= 3 && asks_yes_or_no(&lower[0]))
        .then(|| subject_end(&words[1..].iter().map(String::as_str).collect::<Vec<_>>()))
        .flatten()
    {
        // "is Pluto still a planet" → "whether Pluto is still a planet"; "can octopuses change
        // colour" → "whether octopuses can change colour".
        format!("whether {} {} {}", words[1..=end].join(" "), lower[0], words[end + 1..].join(" "))
    } else if lower.len() >= 3 && is(&lower[0], WH) && (is(&lower[1], MODALS) || is(&lower[1], BE)) {
        // "why was Caesar assassinated" → "why Caesar was assassinated";
        // "how could the Republic last" → "how the Republic could last"
        let tail: Vec<&str> = words[2..].iter().map(String::as_str).collect();
        // A closing "too", "then", "again"… stays at the end, after the verb put back.
        let closing = tail.iter().rev().take_while(|w| is(w, CLOSING_ADVERBS)).count();
        let ends = if closing < tail.len() { tail.len() - closing } else { tail.len() };
        if is(&lower[1], BE) && lower[0] != "what" && tail.len() > 1 && tail[0].eq_ignore_ascii_case("there")
        {
            // "why is there a bulge on the far side too" → "why there is a bulge on the far side too"
            format!("{} there {} {}", lower[0], lower[1], tail[1..].join(" "))
        } else if is(&lower[1], BE) && tail.len() == 1 || lower[0] == "what" && is(&lower[1], BE) {
            // "what was the Senate's role" → "the Senate's role"
            if lower[0] == "what" { rest(2) } else { format!("{} {} {}", lower[0], tail.join(" "), lower[1]) }
        } else {
            // "is" goes back after the subject: before a word of degree ("why Saturn is so
            // light"), else before the main clause's last word ("why the far side is bulging");
            // a clause after "if", "because"… is not the main one.
            let main = tail
                .iter()
                .position(|w| is(w, SUBORDINATORS))
                .filter(|&k| k >= 2)
                .map_or(ends, |k| k.min(ends));
            let degree = tail[..main].iter().position(|w| is(w, DEGREE)).filter(|&k| k >= 1);
            // Or before a participle ("why Canberra was chosen over Sydney").
            let subject_start = tail.iter().position(|w| !is(w, FUNCTION_WORDS)).unwrap_or(0);
            let participle =
                (subject_start + 1..main).find(|&k| is_participle(tail[k])).filter(|_| is(&lower[1], BE));
            let first = match (degree, participle) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            // Else before the last word, and the article it has ("why light's speed is a limit").
            let last = |end: usize| {
                let mut k = end.max(1) - 1;
                while k > subject_start + 1 && is(tail[k - 1], &["a", "an", "the"]) {
                    k -= 1;
                }
                k
            };
            let split =
                if is(&lower[1], BE) { Some(first.unwrap_or_else(|| last(main))) } else { verb_index(&tail) };
            match split {
                Some(split) => {
                    format!(
                        "{} {} {} {}",
                        lower[0],
                        tail[..split].join(" "),
                        lower[1],
                        tail[split..].join(" ")
                    )
                }
                None => format!("{} {} {}", lower[0], lower[1], tail.join(" ")),
            }
        }
    } else {
        // Anything else: the question itself, as a phrase.
        let mut phrase = words.join(" ");
        if let Some(first) = words.first().filter(|w| !w.chars().skip(1).any(char::is_uppercase) && *w != "I")
        {
            phrase = first.to_lowercase() + &phrase[first.len()..];
        }
        phrase
    };
    let phrase = phrase.split_whitespace().collect::<Vec<_>>().join(" ");
    // A banner, not an essay.
    match phrase.char_indices().nth(80) {
        Some((cut, _)) => {
            phrase[..cut].rsplit_once(' ').map_or(phrase[..cut].to_string(), |(head, _)| head.into())
        }
        None => phrase,
    }
}

#[cfg(test)]
mod tests;

//! "I don't know" in its many forms ("no idea", "it's just gone", "I forget the last one"), and
//! what a message says before it.

use super::words_spaced;

/// "I don't know", "no idea", "can't remember"… (also with an adverb inside: "I don't actually
/// remember", "it's just gone").
pub fn is_dont_know(text: &str) -> bool {
    said_before_dont_know(text).is_some()
}

/// What a message says before it says it does not know, if it does ("some German geographer,
/// " before "can't remember his name"), as its words between single spaces.
pub fn said_before_dont_know(text: &str) -> Option<String> {
    let mut t = words_spaced(text);
    for adverb in [" actually ", " really ", " just ", " completely ", " totally "] {
        t = t.replace(adverb, " ");
    }
    let at = DONT_KNOW
        .iter()
        .filter_map(|p| {
            let at = t.find(&format!(" {p} "))?;
            // "it's gone cold", "that's gone up": gone somewhere, not from memory.
            let next = t[at + p.len() + 2..].split_whitespace().next();
            let elsewhere = p.ends_with("gone") && next.is_some_and(|w| GONE_SOMEWHERE.contains(&w));
            let own =
                matches!(*p, "no idea" | "no clue" | "not a clue") && of_my_own_doing(&t[at + p.len() + 2..]);
            (!elsewhere && !own).then_some(at)
        })
        .chain(passes(&t))
        .min()?;
    Some(t[..=at].to_string())
}

/// Whether what follows "no idea" asks about the learner's own past, not the point: "still no
/// idea what i did wrong", "no clue how i passed".
fn of_my_own_doing(after: &str) -> bool {
    let words: Vec<&str> = after.split_whitespace().take(3).collect();
    match words.as_slice() {
        // Not what the learner learnt: "no idea what i learned" gives up on it.
        [wh, "i", verb, ..] => {
            matches!(*wh, "what" | "how" | "why")
                && !matches!(*verb, "learned" | "studied" | "revised" | "memorised" | "memorized")
                && (verb.ends_with("ed") || matches!(*verb, "did" | "was" | "got" | "made" | "went" | "had"))
        }
        _ => false,
    }
}

/// Where a learner passes ("pass", "i'll pass on this one", "pass for now"), not where a thing
/// passes ("ions can pass through", "they pass on their genes"): the word stands alone or is
/// followed by what only passing a turn is followed by.
fn passes(spaced: &str) -> Option<usize> {
    // "Can pass", "to pass": a thing that passes.
    const AFTER_A_MODAL: &[&str] =
        &["can", "could", "would", "may", "might", "must", "cannot", "can't", "to", "should"];
    const THEN: &[&str] = &[
        "for", "sorry", "again", "too", "thanks", "please", "pls", "here", "lol", "haha", "tbh", "honestly",
        "ngl", "this", "that", "i", "no", "idk",
    ];
    let words: Vec<&str> = spaced.split_whitespace().collect();
    let at = words.iter().enumerate().position(|(i, w)| {
        let before = i.checked_sub(1).map(|b| words[b]);
        let after = &words[i + 1..];
        *w == "pass"
            && !before.is_some_and(|b| AFTER_A_MODAL.contains(&b))
            && match after {
                [] => true,
                ["on", next, ..] => matches!(*next, "this" | "that" | "it" | "these" | "those" | "one"),
                ["on"] => true,
                [next, ..] => THEN.contains(next),
            }
    })?;
    // Its place in the spaced text: each word before it and the space before that word.
    Some(words[..at].iter().map(|w| w.len() + 1).sum())
}

/// What follows "it's gone" when a thing has changed, not the memory ("it's gone cold", "that's
/// gone up").
const GONE_SOMEWHERE: &[&str] = &[
    "cold", "hot", "warm", "up", "down", "off", "through", "into", "in", "bad", "stale", "wrong", "over",
    "soft", "hard", "brown", "black", "dry", "flat", "dark", "sour", "mouldy", "moldy", "crisp", "thick",
    "thin",
];

/// The ways a learner says they do not know, lower-case, as whole words ("pass" is a learner
/// passing, "en passant" is not).
pub const DONT_KNOW: &[&str] = &[
    "don't know",
    "dont know",
    "do not know",
    "don't remember",
    "dont remember",
    "do not remember",
    "can't remember",
    "cant remember",
    "cannot remember",
    "can't recall",
    "cant recall",
    "cannot recall",
    "don't recall",
    "dont recall",
    "tip of my tongue",
    "no idea",
    "idk",
    "dunno",
    "not sure",
    "forgot",
    "forgotten",
    "i forget",
    "i always forget",
    "no clue",
    "not a clue",
    "haven't a clue",
    "beats me",
    "couldn't tell you",
    "couldnt tell you",
    "could not tell you",
    "it's gone",
    "its gone",
    "that's gone",
    "thats gone",
    "that one's gone",
    "that ones gone",
    "nope gone",
    "i'm stuck",
    "im stuck",
    // "Got nothing" alone may be what someone got ("the peasants got nothing").
    "i got nothing",
    "i've got nothing",
    "ive got nothing",
    "nope got nothing",
    "got nothing on this",
    "drawing a blank",
    "blanking on",
    "i'm blanking",
    "im blanking",
    "mind's gone blank",
    "mind went blank",
];

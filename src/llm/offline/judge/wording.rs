//! What the wording of a text says, with no model: its clauses and sentences, an answer that
//! trails off, a pairing swapped, a way run backwards, the opposite of a word.

use crate::text::{Token, role_tokens, tokens};

/// Ways of saying a part escapes the learner besides "I don't know" ("the third one's on the
/// tip of my tongue", "I'm blanking", "the last one's gone"), lower-case, as whole words.
const GAPS: &[&str] = &[
    "can't think",
    "cant think",
    "cannot think",
    "tip of my tongue",
    "blanking",
    "blanked",
    "lost it",
    "escapes me",
    "can't recall",
    "cant recall",
    "don't recall",
    "dont recall",
    "one's gone",
    "ones gone",
    "slipped my mind",
    "mixed up",
    "mix them up",
    "get them confused",
];

/// Whether a text says something escapes the learner.
fn says_gap(text: &str) -> bool {
    let words = crate::text::words_spaced(text);
    crate::text::is_dont_know(text) || GAPS.iter().any(|p| words.contains(&format!(" {p} ")))
}

/// Whether a message trails off: its last clause, after something said, says what escapes the
/// learner ("the left ventricle? not sure why though", "…isolation and um d something i cant
/// remember the last one"), or it breaks off mid-answer and then says so ("phloem... can't
/// remember", "sensorimotor, preoperational and... the last one's gone"). A leading "don't
/// know" ("no idea, but the nucleus…") is about something else, and a hedge on what was said
/// ("…through respiration, not sure") is not a gap in it.
pub(super) fn trails_off(message: &str) -> bool {
    let clauses: Vec<&str> = message
        .split([',', '.', ';', '!', '?', '…'])
        .flat_map(|c| c.split(" but "))
        .flat_map(|c| c.split(" and "))
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    let last_says_gap = match clauses.split_last() {
        Some((last, before)) => {
            says_gap(last)
                && names_something(last)
                && before.iter().any(|c| !says_gap(c) && !tokens(c).is_empty())
        }
        None => false,
    };
    // "no idea, I always get the hemispheres mixed up": every clause says what escapes them.
    let all_gaps = clauses.len() >= 2
        && clauses.iter().all(|c| says_gap(c))
        && clauses.iter().any(|c| names_something(c));
    last_says_gap || all_gaps || breaks_off(message)
}

/// Whether an answer breaks off (an ellipsis after something said) and what follows says a
/// part escapes the learner; "not sure" there hedges what came before it.
fn breaks_off(message: &str) -> bool {
    let text = message.replace('…', "...");
    let Some(at) = text.find("...") else { return false };
    let (before, after) = text.split_at(at);
    let hedge_only = crate::text::words_spaced(after).trim() == "not sure";
    !tokens(before).is_empty() && !says_gap(before) && says_gap(after) && !hedge_only
}

/// The names in a text: its capitalised words past each sentence's first ("What is
/// Michelangelo best known for?").
pub(super) fn proper_names(text: &str) -> Vec<Token> {
    text.split(['.', '?', '!', ':', ';'])
        .flat_map(|sentence| sentence.split_whitespace().skip(1))
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| {
            w.len() > 1
                && w.chars().next().is_some_and(char::is_uppercase)
                && w.chars().skip(1).all(char::is_lowercase)
        })
        .flat_map(tokens)
        .collect()
}

/// The words of a point's names of two or more words that the question names by one of
/// them: asked about "Bach", the point's "Johann Sebastian Bach" gives "Johann" and
/// "Sebastian" away too. A name is a run of capitalised words (not all capitals), and the
/// question's word counts when it is capitalised there too, wherever it stands.
pub(super) fn named_in_full(points: &[&str], question: &str) -> Vec<Token> {
    let capitalised = |w: &&str| {
        w.chars().next().is_some_and(char::is_uppercase) && w.chars().skip(1).any(char::is_lowercase)
    };
    let asked: Vec<Token> = question
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(capitalised)
        .flat_map(tokens)
        .collect();
    let mut out = Vec::new();
    for point in points {
        let words: Vec<&str> = point.split_whitespace().collect();
        let mut run: Vec<&str> = Vec::new();
        // Each run ends at a word that is not capitalised, or after one with punctuation.
        for (i, word) in words.iter().enumerate() {
            let bare = word.trim_matches(|c: char| !c.is_alphanumeric());
            if capitalised(&bare) && !crate::text::is_stopword(&bare.to_lowercase()) {
                run.push(bare);
            }
            let ends =
                !capitalised(&bare) || word.ends_with(|c: char| !c.is_alphanumeric()) || i + 1 == words.len();
            if ends {
                let named: Vec<Token> = run.iter().flat_map(|w| tokens(w)).collect();
                if named.len() >= 2 && named.iter().any(|t| asked.iter().any(|a| a.same_as(t))) {
                    out.extend(named);
                }
                run.clear();
            }
        }
    }
    out
}

/// Whether a "don't know" says what escapes the learner ("not sure why though", "I forget the
/// last one"), rather than hedging what they said ("…through respiration, not sure", "…, I
/// don't know"): a word is left once the "don't know" and the filler around it are taken out.
fn names_something(clause: &str) -> bool {
    const FILLER: &[&str] = &[
        "i", "i'm", "im", "am", "and", "so", "um", "uh", "erm", "hmm", "just", "really", "tbh", "though",
        "honestly", "totally", "about", "it", "that", "this", "to", "be", "but", "yet", "lol", "haha",
    ];
    let mut words = crate::text::words_spaced(clause);
    for phrase in crate::text::DONT_KNOW.iter().chain(GAPS) {
        words = words.replace(&format!(" {phrase} "), " ");
    }
    words.split_whitespace().any(|w| !FILLER.contains(&w))
}

/// Words that join one clause of an answer to the next.
const JOINERS: &[&str] =
    &["and", "but", "so", "because", "also", "plus", "then", "while", "whereas", "or", "though", "although"];

/// Whether a word of a reading ends one clause and starts the next (punctuation, or a
/// joining word, neither of which belongs to a clause).
pub(super) fn is_joint(text: &str) -> bool {
    !text.chars().any(char::is_alphanumeric) || JOINERS.contains(&text.to_lowercase().as_str())
}

/// A text's clauses: split at punctuation (not a comma inside a number) and joining words.
pub(super) fn clauses(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = vec![String::new()];
    for (i, &c) in chars.iter().enumerate() {
        let digit = |j: Option<usize>| j.and_then(|j| chars.get(j)).is_some_and(char::is_ascii_digit);
        let inside_number = matches!(c, ',' | '.') && digit(i.checked_sub(1)) && digit(Some(i + 1));
        if matches!(c, ',' | '.' | ';' | ':' | '!' | '?' | '(' | ')' | '—' | '–' | '\n') && !inside_number
        {
            out.push(String::new());
        } else if let Some(current) = out.last_mut() {
            current.push(c);
        }
    }
    out.iter()
        .flat_map(|clause| {
            let mut parts = vec![String::new()];
            let words: Vec<&str> = clause.split_whitespace().collect();
            for (i, word) in words.iter().enumerate() {
                // "zero or more", "more or less": one amount, not two clauses.
                let amount = word.eq_ignore_ascii_case("or")
                    && words.get(i + 1).is_some_and(|w| {
                        matches!(w.to_lowercase().as_str(), "more" | "less" | "fewer" | "so")
                    });
                if JOINERS.contains(&word.to_lowercase().as_str()) && !amount {
                    parts.push(String::new());
                } else if let Some(part) = parts.last_mut() {
                    part.push(' ');
                    part.push_str(word);
                }
            }
            parts
        })
        .filter(|c| !c.trim().is_empty())
        .collect()
}

/// Whether the message swaps what the point pairs: the point says two things in clauses of
/// their own ("Sound is a longitudinal wave, while light is a transverse wave"), and two of
/// the message's clauses each join a word only one of them has with a word only another has
/// ("sound is a transverse wave, while light is a longitudinal wave"). One such clause is a
/// compact answer ("Octavian became Augustus in 27 BC"); two are a crossed pairing.
pub(super) fn swapped(point: &str, message_clauses: &[Vec<Token>]) -> bool {
    // A name in brackets belongs to its clause ("The focus (hypocentre) is where…").
    let parts: Vec<Vec<Token>> =
        clauses(&point.replace(['(', ')'], " ")).iter().map(|c| role_tokens(c)).collect();
    // Each word of the point that only one clause has, with that clause; a clause counts only
    // with two such words (a lone "B" in "topsoil (A) lies above subsoil (B)" pairs nothing).
    let mut own: Vec<(Token, usize)> = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let only_here: Vec<&Token> = part
            .iter()
            .filter(|k| k.quantity.is_none())
            .filter(|k| {
                parts.iter().enumerate().all(|(j, other)| j == i || !other.iter().any(|o| o.same_as(k)))
            })
            .collect();
        if only_here.len() >= 2 {
            own.extend(only_here.into_iter().map(|k| (k.clone(), i)));
        }
    }
    let joined = message_clauses
        .iter()
        .filter(|clause| {
            let mut found: Vec<usize> = clause
                .iter()
                .filter(|m| !m.negated)
                .filter_map(|m| own.iter().find(|(k, _)| k.same_as(m)).map(|(_, i)| *i))
                .collect();
            found.sort_unstable();
            found.dedup();
            found.len() >= 2
        })
        .count();
    joined >= 2
}

/// Whether the message compares the point's two things the other way round, by the same
/// word: "Stegosaurus lived closer in time to humans than to T. rex" for "Tyrannosaurus rex
/// lived closer in time to humans than to Stegosaurus". ("S-waves are slower than P-waves"
/// turns both round and says the point; its "slower" is read as an opposite elsewhere.)
pub(super) fn compared_the_other_way(point: &str, said: &str) -> bool {
    let sides = |text: &str| -> Option<(Vec<Token>, Vec<Token>)> {
        let spaced = crate::text::words_spaced(text);
        let (before, after) = spaced.split_once(" than ")?;
        Some((tokens(before), tokens(after)))
    };
    let (Some((ours_before, ours_after)), Some((theirs_before, theirs_after))) = (sides(point), sides(said))
    else {
        return false;
    };
    let has = |words: &[Token], t: &Token| words.iter().any(|w| w.same_as(t));
    let same_comparison = ours_before.last().zip(theirs_before.last()).is_some_and(|(a, b)| a.same_as(b));
    let first: Vec<&Token> = ours_before.iter().filter(|t| !has(&ours_after, t)).collect();
    let second: Vec<&Token> = ours_after.iter().filter(|t| !has(&ours_before, t)).collect();
    same_comparison
        && second.iter().any(|t| has(&theirs_before, t))
        && first.iter().any(|t| has(&theirs_after, t))
        && !second.iter().any(|t| has(&theirs_after, t))
}

/// Whether the message has the opposite of one of the point's words, and not the word itself
/// ("quantity demanded rises" for "falls", "repel" for "attract"): by the lexicon's pairs, or by
/// WordNet's antonyms ("insoluble" for "soluble") when the message's word is not the point's
/// own ("forte is loud and piano is quiet" says "soft" in other words, not "loud" for it).
pub(super) fn says_the_opposite(point: &str, message: &[Token], said: &str) -> bool {
    let point_words = crate::text::words_spaced(point);
    let point = tokens(point);
    let by_tokens = point.iter().any(|p| {
        !message.iter().any(|m| m.same_as(p))
            && message.iter().any(|m| {
                !m.negated
                    && (crate::text::opposite(&p.term, &m.term)
                        || (crate::text::antonyms::opposed(&p.word, &m.word)
                            && !point.iter().any(|q| q.same_as(m))))
            })
    });
    // Words of degree are too common to be tokens: "the most dense" for "the least dense".
    let said_words = crate::text::words_spaced(said);
    let has = |text: &str, word: &str| text.contains(&format!(" {word} "));
    let by_degree = DEGREE_OPPOSITES.iter().any(|(a, b)| {
        [(a, b), (b, a)].iter().any(|(x, y)| {
            has(&point_words, x) && !has(&point_words, y) && has(&said_words, y) && !has(&said_words, x)
        })
    });
    // "reabsorb less water" for "more water": a comparison turned round on the same thing.
    let after = |text: &str, degree: &str| -> Vec<String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        words
            .windows(2)
            .filter(|w| w[0] == degree)
            .map(|w| tokens(w[1]).into_iter().map(|t| t.term).collect())
            .collect()
    };
    let by_comparison = COMPARISON_OPPOSITES.iter().any(|(a, b)| {
        [(a, b), (b, a)].iter().any(|(x, y)| {
            let (theirs, as_point) = (after(&said_words, y), after(&said_words, x));
            after(&point_words, x)
                .iter()
                .any(|thing| !thing.is_empty() && theirs.contains(thing) && !as_point.contains(thing))
        })
    });
    by_tokens || by_degree || by_comparison
}

/// Whether a clause of the message says two or more of a clause of the point's words and
/// the opposite of another of them in its place ("the resistant bacteria die during the
/// course" for "resistant bacteria survive a course"). Read clause by clause, so that a
/// message saying both
/// sides ("…, and the non-resistant ones survive") still turns the point round. One of the
/// words said must be the point's `own` (no other point's), and the opposite no word of
/// `anothers` (another point's): "recessive needs both copies" is about another point than
/// "dominant needs one copy", and "inner keeps only the rows that match" about another than
/// "a full outer join keeps all rows".
pub(super) fn turned_in_a_clause(
    point: &str,
    message: &[Vec<Token>],
    own: impl Fn(&Token) -> bool,
    anothers: impl Fn(&Token) -> bool,
) -> bool {
    clauses(point).iter().map(|c| tokens(c)).any(|ours| {
        message.iter().any(|theirs| {
            let said = |p: &Token| theirs.iter().any(|m| m.negated == p.negated && m.same_as(p));
            let anchors: Vec<&Token> = ours.iter().filter(|p| said(p)).collect();
            anchors.len() >= 2
                && anchors.iter().any(|p| own(p))
                && ours.iter().any(|p| {
                    !theirs.iter().any(|m| m.same_as(p))
                        && theirs
                            .iter()
                            .any(|m| !m.negated && crate::text::opposite(&p.term, &m.term) && !anothers(m))
                })
        })
    })
}

/// Whether the message says "down" where the point says "up" (or the reverse) after the same
/// words: "step the voltage down" for "step the voltage up". Neither is a content word to the
/// judges, so this reads the words as written, with up to three before each.
pub(super) fn turns_up_or_down(point: &str, said: &str) -> bool {
    let before = |text: &str, word: &str| -> Option<Vec<Token>> {
        let spaced = crate::text::words_spaced(text);
        let words: Vec<&str> = spaced.split_whitespace().collect();
        let at: Vec<usize> = words.iter().enumerate().filter(|(_, w)| **w == word).map(|(i, _)| i).collect();
        (!at.is_empty())
            .then(|| at.iter().flat_map(|&i| tokens(&words[i.saturating_sub(3)..i].join(" "))).collect())
    };
    [("up", "down"), ("down", "up")].iter().any(|(x, y)| {
        match (before(point, x), before(point, y), before(said, y), before(said, x)) {
            (Some(ours), None, Some(theirs), None) => {
                ours.iter().any(|o| theirs.iter().any(|t| t.same_as(o)))
            }
            _ => false,
        }
    })
}

/// Whether the message says "right" where the point says "left" (or the reverse), as a
/// direction: "the right side", "right ventricle", "turn right"; not "that's right" or "…,
/// right?". "Right" is no content word to the judges, so this reads the words as written.
pub(super) fn turns_direction(point: &str, said: &str) -> bool {
    let directions = |text: &str| -> Vec<&'static str> {
        let words: Vec<String> =
            crate::text::words_spaced(text).split_whitespace().map(str::to_string).collect();
        let mut out = Vec::new();
        for (i, word) in words.iter().enumerate() {
            let Some(side) = ["left", "right"].into_iter().find(|side| word == side) else { continue };
            let before = i.checked_sub(1).and_then(|i| words.get(i)).map(String::as_str);
            let after = words.get(i + 1).map(String::as_str);
            let as_direction =
                matches!(before, Some("the" | "to" | "on" | "turn" | "turns" | "keep" | "far"))
                    || after.is_some_and(|w| !crate::text::is_stopword(w));
            if as_direction {
                out.push(side);
            }
        }
        out
    };
    let (ours, theirs) = (directions(point), directions(said));
    [("left", "right"), ("right", "left")]
        .iter()
        .any(|(x, y)| ours.contains(x) && !ours.contains(y) && theirs.contains(y) && !theirs.contains(x))
}

/// Words of degree that turn a point round when said of the same thing ("more water", "less
/// water"; "a different molecular formula" for "the same molecular formula").
const COMPARISON_OPPOSITES: &[(&str, &str)] = &[("more", "less"), ("more", "fewer"), ("same", "different")];

/// Words of degree that turn a point round, said in each other's place.
/// Superlatives only: a comparison is often said the other way round ("A has more than B", "B
/// has less than A").
const DEGREE_OPPOSITES: &[(&str, &str)] = &[("most", "least")];

/// Whether a word is a number or a code ("g2", "3rd"), which names nothing by itself.
pub(super) fn is_number_like(word: &str) -> bool {
    word.chars().any(|c| c.is_ascii_digit())
}

/// Whether the message's way (`said`, from [`way`]) runs the point's the other way: "from the
/// non-metal to the metal" for electrons "transferred from a metal to a non-metal"; "converts
/// the urea into ammonia" for "converts toxic ammonia into urea". Each end is weighed by the
/// words only it has.
pub(super) fn reverses(point: &str, said: Option<&Way>) -> bool {
    let (Some((from, to)), Some((said_from, said_to))) = (way(point), said) else { return false };
    // "From a metal to a non-metal": a word and its denial are two ends.
    let same = |a: &Token, b: &Token| a.same_as(b) && a.negated == b.negated;
    let only = |end: &[Token], other: &[Token]| -> Vec<Token> {
        end.iter().filter(|t| !other.iter().any(|o| same(o, t))).cloned().collect()
    };
    let (ins, outs) = (only(&from, &to), only(&to, &from));
    let has = |end: &[Token], words: &[Token]| end.iter().any(|m| words.iter().any(|w| same(w, m)));
    !ins.is_empty()
        && !outs.is_empty()
        && has(said_from, &outs)
        && has(said_to, &ins)
        && !has(said_from, &ins)
        && !has(said_to, &outs)
}

/// Whether the message runs the point's conversion backwards: what the point has going in
/// comes out in the message, and what comes out goes in ("oxygen and glucose combine to make
/// carbon dioxide and water" for "carbon dioxide + water, using light energy, gives glucose +
/// oxygen"). Each side is read around the first verb that yields, without words both sides of
/// the point have.
pub(super) fn runs_backwards(point: &str, message: &str) -> bool {
    crossed(sides(point, YIELDS), sides(message, YIELDS), true)
}

/// Whether the message has the point's doer and done-to the other way round ("Antony beat
/// Octavian" for "Octavian defeated Antony"), read around the first verb of [`ACTS`] in each;
/// a passive ("Antony was defeated by Octavian") reads as its active.
pub(super) fn acts_backwards(point: &str, message: &str) -> bool {
    crossed(sides(point, ACTS), sides(message, ACTS), false)
}

/// Whether what one side of the point has only stands on the other side of the message, and
/// the message's first side has none of the point's first side's (nor, `both`, its second
/// side any of the second's: a victory's place and date come after either way).
fn crossed(
    point: Option<(Vec<Token>, Vec<Token>)>,
    said: Option<(Vec<Token>, Vec<Token>)>,
    both: bool,
) -> bool {
    let (Some((point_in, point_out)), Some((said_in, said_out))) = (point, said) else {
        return false;
    };
    let only = |side: &[Token], other: &[Token]| -> Vec<Token> {
        side.iter().filter(|t| !other.iter().any(|o| o.same_as(t))).cloned().collect()
    };
    let (ins, outs) = (only(&point_in, &point_out), only(&point_out, &point_in));
    let has = |side: &[Token], words: &[Token]| {
        side.iter().any(|m| !m.negated && words.iter().any(|w| w.same_as(m)))
    };
    has(&said_in, &outs) && has(&said_out, &ins) && !has(&said_in, &ins) && !(both && has(&said_out, &outs))
}

/// Verbs (and arrows) that make what stands after them out of what stands before.
const YIELDS: &[&str] = &[
    " give ",
    " gives ",
    " make ",
    " makes ",
    " produce ",
    " produces ",
    " form ",
    " forms ",
    " yield ",
    " yields ",
    " create ",
    " creates ",
    " -> ",
    " → ",
    " = ",
];

/// Verbs with a doer before them and what it is done to after, which cannot be swapped.
const ACTS: &[&str] = &[
    " defeated ",
    " defeats ",
    " beat ",
    " beats ",
    " conquered ",
    " conquers ",
    " overthrew ",
    " overthrown ",
    " deposed ",
    " killed ",
    " kills ",
    " assassinated ",
    " murdered ",
    " invaded ",
    " invades ",
    " succeeded ",
    " replaced ",
    " replaces ",
    " eats ",
    " ate ",
    " eaten ",
];

/// The words before a text's first verb of `verbs` (from its last colon before it) and after
/// it (to the sentence's end); after a passive ("was defeated by"), the other way round.
fn sides(text: &str, verbs: &[&str]) -> Option<(Vec<Token>, Vec<Token>)> {
    let lower = format!(" {} ", text.to_lowercase().replace(['\n', '\t'], " "));
    let (before, after) =
        verbs.iter().filter_map(|verb| lower.split_once(verb)).min_by_key(|(b, _)| b.len())?;
    let before = before.rsplit([':', '.', '?', '!', ';']).next().unwrap_or(before);
    let after = after.split(['.', '?', '!', ';']).next().unwrap_or(after);
    let passive = ["was", "were", "is", "are", "been", "be", "got"]
        .iter()
        .any(|be| before.trim_end().ends_with(&format!(" {be}")))
        && after.trim_start().starts_with("by ");
    let (before, after) = (tokens(before), tokens(after));
    let (before, after) = if passive { (after, before) } else { (before, after) };
    (!before.is_empty() && !after.is_empty()).then_some((before, after))
}

/// What a text says goes from where to where: the words between "from" and the "to" (or
/// "into", "towards") after it, and the phrase after that; or what a conversion turns into
/// what ("turn light energy into chemical energy": light energy, then chemical energy).
pub type Way = (Vec<Token>, Vec<Token>);

/// See [`Way`].
pub(super) fn way(text: &str) -> Option<Way> {
    const TURNS: &[&str] = &[
        " turn ",
        " turns ",
        " turned ",
        " turning ",
        " convert ",
        " converts ",
        " converted ",
        " converting ",
        " change ",
        " changes ",
        " changed ",
        " changing ",
        " transform ",
        " transforms ",
        " transformed ",
        " transforming ",
    ];
    // Punctuation kept as words of its own: an end stops at it.
    let mut spaced = String::from(" ");
    for c in text.to_lowercase().chars() {
        if matches!(c, ',' | '.' | ';' | ':' | '(' | ')' | '!' | '?') {
            spaced.push_str(" , ");
        } else {
            spaced.push(c);
        }
    }
    spaced.push(' ');
    let spaced = spaced.split_whitespace().collect::<Vec<_>>().join(" ");
    let spaced = format!(" {spaced} ");
    let (source, rest) = match spaced.split_once(" from ") {
        Some((_, after)) => [" to ", " into ", " towards "]
            .iter()
            .filter_map(|to| after.split_once(to))
            .min_by_key(|(source, _)| source.len())?,
        None => {
            let (_, turned) = TURNS
                .iter()
                .filter_map(|verb| spaced.split_once(verb))
                .min_by_key(|(before, _)| before.len())?;
            turned.split_once(" into ")?
        }
    };
    let source = tokens(source.rsplit(" , ").next().unwrap_or(source));
    let target = tokens(phrase(rest));
    (!source.is_empty() && !target.is_empty()).then_some((source, target))
}

/// The phrase a text starts with: to its first comma or a word that starts a clause.
fn phrase(text: &str) -> &str {
    const ENDS: &[&str] = &[
        " , ",
        " which ",
        " that ",
        " and ",
        " while ",
        " so ",
        " when ",
        " before ",
        " after ",
        " because ",
        " where ",
        " but ",
    ];
    let padded_end =
        ENDS.iter().filter_map(|end| format!(" {text}").find(end)).min().unwrap_or(text.len() + 1);
    &text[..padded_end.saturating_sub(1).min(text.len())]
}

/// Whether the tutor's question asks two things, each in a clause of its own opened by a
/// question word: "Who led the Reformation in Geneva, and what did he teach?" ("What happens
/// when…?" asks one).
pub(super) fn asks_two_things(question: &str) -> bool {
    crate::text::sentences(question)
        .iter()
        .filter(|s| s.ends_with('?'))
        .map(|s| {
            clauses(s)
                .iter()
                .filter(|clause| {
                    crate::text::words_spaced(clause).split_whitespace().any(|w| {
                        crate::llm::offline::kinds::is_wh(w) || matches!(w, "what's" | "who's" | "how's")
                    })
                })
                .count()
        })
        .any(|asked| asked >= 2)
}

/// A message's sentences, each with its words and whether it asks (ends with "?").
pub(super) fn asked_sentences(message: &str) -> Vec<(Vec<Token>, bool)> {
    let chars: Vec<char> = message.chars().collect();
    let mut out = Vec::new();
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        current.push(c);
        // An ellipsis before a lower-case word is a pause, not a sentence's end ("they're
        // where respiration happens... and they make glucose?" asks all of it).
        let ellipsis = c == '…' || (c == '.' && (current.ends_with("..") || chars.get(i + 1) == Some(&'.')));
        let paused = ellipsis
            && chars[i + 1..]
                .iter()
                .find(|n| !n.is_whitespace() && **n != '.')
                .is_some_and(|n| n.is_lowercase());
        if paused {
            continue;
        }
        if matches!(c, '.' | '!' | '?' | '\n' | '…') {
            out.push((tokens(&current), c == '?'));
            current.clear();
        }
    }
    if !current.trim().is_empty() {
        out.push((tokens(&current), false));
    }
    out.retain(|(words, asks)| !words.is_empty() || *asks);
    out
}

//! What turns a point round in the wording alone, with no model: the opposite of one of its
//! words (in the message or in one clause), a direction or "up" for "down", a comparison the
//! other way round. A way from one thing to another run backwards is in `ways`.

use super::wording::clauses;
use crate::text::{Token, role_tokens, tokens};

/// Whether the message compares the point's two things the other way round, by the same
/// word: "Stegosaurus lived closer in time to humans than to T. rex" for "Tyrannosaurus rex
/// lived closer in time to humans than to Stegosaurus". ("S-waves are slower than P-waves"
/// turns both round and says the point; its "slower" is read as an opposite elsewhere.)
pub(super) fn compared_the_other_way(point: &str, said: &str) -> bool {
    // What is compared ends with its clause: "land heating faster than the ocean, creating low
    // pressure…", "the ocean heats up faster than the land so the air rises…".
    let sides = |text: &str| -> Option<(Vec<Token>, Vec<Token>)> {
        let lower = text.to_lowercase();
        let (before, after) = lower.split_once(" than ")?;
        // (Not at a full stop: "than to T. rex".)
        let after = after.split([',', ';', '!', '?', '(']).next().unwrap_or_default();
        let after = [" so ", " because ", " which ", " while ", " whereas "]
            .iter()
            .filter_map(|joint| after.find(joint))
            .min()
            .map_or(after, |at| &after[..at]);
        let before = before.rsplit([',', ';', '!', '?']).next().unwrap_or_default();
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

/// Whether the point names a threshold by the side a thing must fall on ("the threshold below
/// which the p-value leads us to reject") and the message puts it on the other side only
/// ("if your p value comes out bigger than that you reject").
pub(super) fn crosses_the_threshold(point: &str, said: &str) -> bool {
    const UP: &[&str] = &["bigger", "greater", "larger", "higher", "more", "above", "over"];
    const DOWN: &[&str] = &["smaller", "less", "lower", "fewer", "below", "under", "beneath"];
    let point = crate::text::words_spaced(point);
    let said = crate::text::words_spaced(said);
    let threshold = |side: &[&str]| {
        side.iter().any(|w| [" which ", " that "].iter().any(|r| point.contains(&format!(" {w}{r}"))))
    };
    let compares = |side: &[&str]| {
        side.iter().any(|w| {
            said.contains(&format!(" {w} than "))
                || ["above", "below", "under", "over"].contains(w) && said.contains(&format!(" {w} "))
        })
    };
    (threshold(DOWN) && !threshold(UP) && compares(UP) && !compares(DOWN))
        || (threshold(UP) && !threshold(DOWN) && compares(DOWN) && !compares(UP))
}

/// Whether the message moves the point's denial from one thing to another: "let can't be
/// reassigned but const can" for "const cannot be reassigned, while let allows reassignment".
/// A thing is weighed by the one clause it stands in on each side: one the point denies a word
/// of is plain in the message, and the message denies that word of one the point leaves plain
/// (so "mitosis doesn't shuffle genes" denies nothing the point on meiosis denies).
pub(super) fn moves_the_denial(point: &str, said: &str) -> bool {
    let read = |text: &str| -> Vec<Vec<Token>> {
        clauses(text).iter().map(|clause| tokens(clause)).filter(|words| !words.is_empty()).collect()
    };
    let (ours, theirs) = (read(point), read(said));
    let denied = |clause: &[Token]| clause.iter().any(|w| w.negated);
    // The one clause a thing stands in, if it stands in one only.
    let only_in = |side: &[Vec<Token>], t: &Token| -> Option<usize> {
        let mut holding = side.iter().enumerate().filter(|(_, words)| words.iter().any(|w| w.same_as(t)));
        let (at, _) = holding.next()?;
        holding.next().is_none().then_some(at)
    };
    ours.iter().filter(|clause| denied(clause)).any(|clause| {
        let words: Vec<&Token> = clause.iter().filter(|w| w.negated).collect();
        let freed = clause.iter().any(|t| {
            only_in(&ours, t).is_some() && only_in(&theirs, t).is_some_and(|at| !denied(&theirs[at]))
        });
        let denied_of_another = theirs.iter().any(|said| {
            said.iter().any(|m| m.negated && words.iter().any(|w| w.same_as(m)))
                && said.iter().any(|t| {
                    only_in(&ours, t).is_some_and(|at| !denied(&ours[at])) && only_in(&theirs, t).is_some()
                })
        });
        freed && denied_of_another
    })
}

/// Whether the message has the opposite of one of the point's words, and not the word itself
/// ("quantity demanded rises" for "falls", "repel" for "attract"): by the lexicon's pairs, or by
/// WordNet's antonyms ("insoluble" for "soluble") when the message's word is not the point's
/// own ("forte is loud and piano is quiet" says "soft" in other words, not "loud" for it).
/// The terms a text says together with their opposite, joined by "and" or "or" ("grow and
/// shrink", "rise or fall"): both directions, neither one asserted.
fn both_directions(text: &str) -> Vec<String> {
    let words: Vec<String> = crate::text::words_spaced(text).split_whitespace().map(str::to_string).collect();
    let term = |w: &str| tokens(w).into_iter().next().map(|t| t.term);
    let mut out = Vec::new();
    for (i, word) in words.iter().enumerate() {
        if !matches!(word.as_str(), "and" | "or") || i == 0 {
            continue;
        }
        if let (Some(a), Some(b)) = (term(&words[i - 1]), words.get(i + 1).and_then(|w| term(w)))
            && (crate::text::opposite(&a, &b) || crate::text::antonyms::opposed(&words[i - 1], &words[i + 1]))
        {
            out.extend([a, b]);
        }
    }
    out
}

pub(super) fn says_the_opposite(
    point_text: &str,
    message: &[Token],
    said: &str,
    message_clauses: &[Vec<Token>],
) -> bool {
    let point_words = crate::text::words_spaced(point_text);
    let point = tokens(point_text);
    // The opposite of a word the point denies agrees with it ("onside" for "cannot be offside").
    // A word of the point's own in the message stands for itself, not in place of its opposite,
    // when nothing the opposite goes with is said: "they drop" for bonds that "fall" when
    // interest rates "rise" (but "quantity demanded rises" for "falls" when "price rises").
    let goes_with_unsaid = |i: usize| {
        let near =
            point[i.saturating_sub(2)..(i + 3).min(point.len())].iter().filter(|q| q.term != point[i].term);
        near.clone().next().is_some() && !near.clone().any(|q| message.iter().any(|m| m.same_as(q)))
    };
    // A word said with its own opposite ("they grow and shrink together") turns nothing round.
    let both_ways = both_directions(said);
    let point_clauses: Vec<Vec<Token>> = clauses(point_text).iter().map(|c| tokens(c)).collect();
    let by_tokens = point.iter().enumerate().filter(|(_, p)| !p.negated).any(|(i, p)| {
        !message.iter().any(|m| m.same_as(p))
            && message.iter().any(|m| {
                !m.negated
                    && !both_ways.contains(&m.term)
                    && ((crate::text::opposite(&p.term, &m.term)
                        && !(point.iter().any(|q| q.same_as(m)) && goes_with_unsaid(i)))
                        || (crate::text::antonyms::opposed(&p.word, &m.word)
                            // Ordinals are numbers ("urban the second" says nothing against
                            // "the First Crusade"), weighed as numbers.
                            && (p.quantity.is_none() || m.quantity.is_none())
                            && !point.iter().any(|q| q.same_as(m))))
                    && !said_of_another_clause(&point_clauses, message_clauses, p, m)
            })
    });
    // Words of degree are too common to be tokens: "the most dense" for "the least dense".
    let said_words = crate::text::words_spaced(said);
    let has = |text: &str, word: &str| text.contains(&format!(" {word} "));
    // "Most of the detail" counts, it compares nothing.
    let as_degree = |text: &str| text.replace(" most of ", " of ").replace(" least of ", " of ");
    let (point_degrees, said_degrees) = (as_degree(&point_words), as_degree(&said_words));
    let by_degree = DEGREE_OPPOSITES.iter().any(|(a, b)| {
        [(a, b), (b, a)].iter().any(|(x, y)| {
            has(&point_degrees, x)
                && !has(&point_degrees, y)
                && has(&said_degrees, y)
                && !has(&said_degrees, x)
        })
    });
    // "reabsorb less water" for "more water", "more activation energy" for "lowering the
    // activation energy": a change turned round on the same thing.
    let changed = |text: &str| -> Vec<(bool, String)> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let mut out = Vec::new();
        for (i, word) in words.iter().enumerate() {
            let Some(up) = direction_of_change(word) else { continue };
            let thing = words[i + 1..].iter().take(3).find_map(|w| tokens(w).into_iter().next());
            if let Some(thing) = thing {
                out.push((up, thing.term));
            }
        }
        out
    };
    // "B has fewer protons than A" says "A has more protons than B" the other way round.
    let (ours, theirs) = (changed(&point_words), changed(&said_words));
    let by_comparison = !has(&said_words, "than")
        && ours.iter().any(|(up, thing)| {
            theirs.contains(&(!up, thing.clone())) && !theirs.contains(&(*up, thing.clone()))
        });
    // "The same percentage" for "a larger percentage" says no difference where the point has one.
    const MORE_OR_LESS: &[&str] =
        &["larger", "higher", "greater", "bigger", "smaller", "lower", "more", "less"];
    let pairs = [("same", "different"), ("different", "same")]
        .into_iter()
        .chain(MORE_OR_LESS.iter().map(|degree| (*degree, "same")));
    let by_sameness = pairs.into_iter().any(|(x, y)| {
        let after = |text: &str, word: &str| -> Vec<String> {
            let words: Vec<&str> = text.split_whitespace().collect();
            words.windows(2).filter(|w| w[0] == word).flat_map(|w| tokens(w[1])).map(|t| t.term).collect()
        };
        let (theirs, as_point) = (after(&said_words, y), after(&said_words, x));
        after(&point_words, x).iter().any(|thing| theirs.contains(thing) && !as_point.contains(thing))
    });
    // "speeds up" for "slows down": neither half is a content word.
    let by_phrase = PHRASE_OPPOSITES.iter().any(|(a, b)| {
        let says = |text: &str, forms: &[&str]| forms.iter().any(|f| text.contains(&format!(" {f} ")));
        [(a, b), (b, a)].iter().any(|(x, y)| {
            says(&point_words, x) && !says(&point_words, y) && says(&said_words, y) && !says(&said_words, x)
        })
    });
    // "above the start line" for "below the start line", "after it boils" for "before it
    // boils": neither word is a content word, so each is read with the thing it places.
    let placed = |text: &str, word: &str| -> Vec<Token> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let at = words.iter().enumerate().filter(|(_, w)| **w == word);
        at.filter_map(|(i, _)| words[i + 1..].iter().take(3).find_map(|w| tokens(w).into_iter().next()))
            .collect()
    };
    // The thing placed both ways in the point is no guide ("the left hemisphere… the right
    // side" may say "left side").
    let by_place = PLACE_OPPOSITES.iter().any(|(a, b)| {
        [(a, b), (b, a)].iter().any(|(x, y)| {
            let of =
                |text: &str, word: &str, thing: &Token| placed(text, word).iter().any(|t| t.same_as(thing));
            placed(&point_words, x).iter().any(|thing| {
                !of(&point_words, y, thing) && of(&said_words, y, thing) && !of(&said_words, x, thing)
            })
        })
    });
    // A point that names both of two opposites ("a stroke in the left hemisphere… weakness on
    // the right side") is turned round by a message that says one more often than the point
    // does and the other never ("…weakness on the left side").
    // A pole the point denies ("can only pull, not push") is no place for the other.
    let (point_roles, said_roles) = (role_tokens(point_text), role_tokens(said));
    let count = |words: &[Token], t: &Token| words.iter().filter(|m| !m.negated && m.same_as(t)).count();
    let said_at_all = |t: &Token| said_roles.iter().any(|m| m.same_as(t));
    let by_one_pole = point_roles.iter().filter(|x| !x.negated).any(|x| {
        count(&said_roles, x) > count(&point_roles, x)
            && point_roles.iter().filter(|y| !y.negated).any(|y| {
                (crate::text::opposite(&x.term, &y.term) || crate::text::antonyms::opposed(&x.word, &y.word))
                    && !said_at_all(y)
            })
    });
    by_tokens || by_degree || by_comparison || by_sameness || by_phrase || by_place || by_one_pole
}

/// Whether the message says `word`, the opposite of the point's `instead`, only of another
/// thing the point names: each clause of the message that has it has words of another clause
/// of the point than `instead`'s, and none of that one's. "Your money sort of shrinks" for
/// "a general rise in prices…, which means each unit of money buys less"; "long air-dried
/// things like salami" for "#1 is for short cures, while #2 … for long dry cures like
/// salami"; not "the quantity demanded rises too" for "as price rises, the quantity demanded
/// falls". The message must speak of `instead`'s clause elsewhere.
fn said_of_another_clause(
    point: &[Vec<Token>],
    message: &[Vec<Token>],
    instead: &Token,
    word: &Token,
) -> bool {
    let has = |clause: &[Token], t: &Token| clause.iter().any(|c| c.same_as(t));
    let Some(own) = point.iter().find(|c| has(c, instead)) else { return false };
    // The words of the point's clauses but `instead`'s, and of its clause alone.
    let only_own: Vec<&Token> = own
        .iter()
        .filter(|t| !t.same_as(instead) && !point.iter().any(|c| !has(c, instead) && has(c, t)))
        .collect();
    let elsewhere: Vec<&Token> = point
        .iter()
        .filter(|c| !has(c, instead))
        .flatten()
        .filter(|t| !t.same_as(word) && !has(own, t))
        .collect();
    let of_own = |c: &[Token]| c.iter().any(|t| only_own.iter().any(|o| o.same_as(t)));
    let (with_word, without): (Vec<&Vec<Token>>, Vec<&Vec<Token>>) =
        message.iter().partition(|c| has(c, word));
    // The message speaks of `instead`'s thing too, elsewhere: "a fast shutter freezes the
    // action" says half of "a fast shutter freezes motion, while a slow one blurs it".
    without.iter().any(|c| of_own(c))
        && !with_word.is_empty()
        && with_word.iter().all(|c| c.iter().any(|t| elsewhere.iter().any(|e| e.same_as(t))) && !of_own(c))
}

/// Words that place a thing, each with its opposite; neither is a content word.
const PLACE_OPPOSITES: &[(&str, &str)] = &[
    ("above", "below"),
    ("above", "beneath"),
    ("above", "underneath"),
    ("before", "after"),
    // "While it runs" for "before it runs": another time.
    ("before", "while"),
    ("before", "during"),
    ("after", "while"),
    ("after", "during"),
];

/// Whether a clause of the message says two or more of a clause of the point's words and
/// the opposite of another of them in its place ("the resistant bacteria die during the
/// course" for "resistant bacteria survive a course"). Read clause by clause, so that a
/// message saying both
/// sides ("…, and the non-resistant ones survive") still turns the point round. One of the
/// words said must be the point's `own` (no other point's), and the opposite no word of
/// `anothers` (another point's): "recessive needs both copies" is about another point than
/// "dominant needs one copy", and "inner keeps only the rows that match" about another than
/// "a full outer join keeps all rows". An opposite the clause says itself, said as it says it,
/// stands for itself ("the South Island" where it says "the North Island from the South
/// Island").
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
                        && theirs.iter().any(|m| {
                            !m.negated
                                && crate::text::opposite(&p.term, &m.term)
                                && !anothers(m)
                                && !as_the_point_says(&ours, theirs, m)
                        })
                })
        })
    })
}

/// Whether the message says `word`, one of `ours` (a clause of the point), each time beside a
/// word it has beside it there too: "the south island" for "…from the South Island", not "a low
/// temp would lower the yield" for "lower temperatures raise the yield".
fn as_the_point_says(ours: &[Token], theirs: &[Token], word: &Token) -> bool {
    let beside = |words: &[Token], i: usize| -> Vec<Token> {
        [i.checked_sub(1), Some(i + 1)].into_iter().flatten().filter_map(|j| words.get(j).cloned()).collect()
    };
    let at =
        |words: &[Token]| -> Vec<usize> { (0..words.len()).filter(|&i| words[i].same_as(word)).collect() };
    let point_beside: Vec<Token> = at(ours).into_iter().flat_map(|i| beside(ours, i)).collect();
    let said = at(theirs);
    !said.is_empty()
        && said
            .into_iter()
            .all(|k| beside(theirs, k).iter().any(|t| point_beside.iter().any(|p| p.same_as(t))))
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
            // "Leftwards" is a direction however it is placed.
            let Some(side) = ["left", "right"].into_iter().find(|side| {
                word == side || word.strip_prefix(side).is_some_and(|w| w == "wards" || w == "ward")
            }) else {
                continue;
            };
            let before = i.checked_sub(1).and_then(|i| words.get(i)).map(String::as_str);
            let after = words.get(i + 1).map(String::as_str);
            let as_direction = word != side
                || matches!(before, Some("the" | "to" | "from" | "on" | "turn" | "turns" | "keep" | "far"))
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

/// Whether the message runs the point's way between two ends from the other end: "right to
/// left" for "from left to right", "bottom to top" for "top to bottom".
pub(super) fn runs_from_the_other_end(point: &str, said: &str) -> bool {
    let runs = |text: &str| -> Vec<(String, String)> {
        let words: Vec<String> =
            crate::text::words_spaced(text).split_whitespace().map(str::to_string).collect();
        words
            .windows(3)
            .filter(|w| {
                w[1] == "to"
                    && ENDS.iter().any(|(a, b)| (w[0] == *a && w[2] == *b) || (w[0] == *b && w[2] == *a))
            })
            .map(|w| (w[0].clone(), w[2].clone()))
            .collect()
    };
    let (our_runs, their_runs) = (runs(point), runs(said));
    our_runs.iter().any(|(from, to)| {
        their_runs.iter().any(|(f, t)| f == to && t == from)
            && !their_runs.iter().any(|(f, t)| f == from && t == to)
    })
}

/// Two ends a way can run between, either way round.
const ENDS: &[(&str, &str)] =
    &[("left", "right"), ("top", "bottom"), ("east", "west"), ("north", "south"), ("front", "back")];

/// Phrasal verbs that say the opposite of each other, each in its forms.
const PHRASE_OPPOSITES: &[(&[&str], &[&str])] = &[
    (
        &["speed up", "speeds up", "sped up", "speeding up"],
        &["slow down", "slows down", "slowed down", "slowing down"],
    ),
    (
        &["heat up", "heats up", "heated up", "heating up", "warm up", "warms up", "warmed up", "warming up"],
        &["cool down", "cools down", "cooled down", "cooling down"],
    ),
    (
        &["parallel to", "parallel with", "along the grain", "with the grain"],
        &["perpendicular to", "at right angles to", "across the grain", "against the grain"],
    ),
    (
        &["switch on", "switches on", "switched on", "turn on", "turns on", "turned on"],
        &["switch off", "switches off", "switched off", "turn off", "turns off", "turned off"],
    ),
];

/// Whether a word says that what follows it grows (`Some(true)`: "more water", "raising the
/// price") or shrinks (`Some(false)`: "less water", "lowering the activation energy").
fn direction_of_change(word: &str) -> Option<bool> {
    const UP: &[&str] = &[
        "more",
        "greater",
        "extra",
        "increase",
        "increases",
        "increased",
        "increasing",
        "raise",
        "raises",
        "raised",
        "raising",
        "boost",
        "boosts",
        "boosted",
        "boosting",
    ];
    const DOWN: &[&str] = &[
        "less",
        "fewer",
        "lower",
        "lowers",
        "lowered",
        "lowering",
        "decrease",
        "decreases",
        "decreased",
        "decreasing",
        "reduce",
        "reduces",
        "reduced",
        "reducing",
    ];
    if UP.contains(&word) {
        Some(true)
    } else if DOWN.contains(&word) {
        Some(false)
    } else {
        None
    }
}

/// Words of degree that turn a point round, said in each other's place.
/// Superlatives only: a comparison is often said the other way round ("A has more than B", "B
/// has less than A").
const DEGREE_OPPOSITES: &[(&str, &str)] = &[("most", "least")];

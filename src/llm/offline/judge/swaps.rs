//! A pairing swapped, in the wording alone: what the point pairs or contrasts in two halves
//! (things and their kinds, things and their numbers, a division, a superlative, two ways
//! round) joined the other way round by the message.

use super::wording::{clauses, names_in_apposition};
use crate::text::{Token, role_tokens, tokens};

/// Words that place or direct a verb, or tie a thing to its use or company ("sudah for
/// already", "shown with words"), and name nothing: a clause with two of a point's own is not
/// joined to it by them.
const PARTICLES: &[&str] = &[
    "into", "onto", "down", "up", "in", "on", "out", "off", "from", "to", "over", "through", "by", "at",
    "for", "with",
];

/// Whether the message swaps what the point pairs: the point says two things in clauses of
/// their own ("Sound is a longitudinal wave, while light is a transverse wave"), and two of
/// the message's clauses each join a word only one of them has with a word only another has
/// ("sound is a transverse wave, while light is a longitudinal wave"). One such clause is a
/// compact answer ("Octavian became Augustus in 27 BC"); two are a crossed pairing.
pub(super) fn swapped(point: &str, message_clauses: &[Vec<Token>]) -> bool {
    // A name in brackets belongs to its clause ("The focus (hypocentre) is where…"), and so
    // does one between commas ("The Inca road network, the Qhapaq Ñan, stretched…").
    // A word that frames a number ("In 1894", "by 1900") dates the clause; it pairs nothing.
    let parts: Vec<Vec<Token>> = clauses(&names_in_apposition(&point.replace(['(', ')'], " ")))
        .iter()
        .map(|c| {
            let words = role_tokens(c);
            let frames_a_number = |i: usize| {
                crate::text::is_stopword(&words[i].word)
                    && words.get(i + 1).is_some_and(|n| n.quantity.is_some())
            };
            (0..words.len()).filter(|&i| !frames_a_number(i)).map(|i| words[i].clone()).collect()
        })
        .collect();
    // Each word of the point that only one clause has, with that clause; a clause counts only
    // with two such words (a lone "B" in "topsoil (A) lies above subsoil (B)" pairs nothing).
    let mut own: Vec<(Token, usize)> = Vec::new();
    // And every word only one clause has, however few.
    let mut own_any: Vec<(Token, usize)> = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let only_here: Vec<&Token> = part
            .iter()
            .filter(|k| k.quantity.is_none())
            .filter(|k| {
                parts.iter().enumerate().all(|(j, other)| j == i || !other.iter().any(|o| o.same_as(k)))
            })
            .collect();
        own_any.extend(only_here.iter().map(|k| ((*k).clone(), i)));
        if only_here.len() >= 2 {
            own.extend(only_here.into_iter().map(|k| (k.clone(), i)));
        }
    }
    // A clause is joined to the point's by its words, not its particles ("rain washes down"
    // says nothing of "break down … into ammonium").
    let found_in = |clause: &[Token], own: &[(Token, usize)]| -> Vec<usize> {
        let mut found: Vec<usize> = clause
            .iter()
            .filter(|m| !m.negated && !PARTICLES.contains(&m.word.as_str()))
            .filter_map(|m| own.iter().find(|(k, _)| k.same_as(m)).map(|(_, i)| *i))
            .collect();
        found.sort_unstable();
        found.dedup();
        found
    };
    // A word the message has said of its own clause's thing, in a clause of that thing alone
    // ("every contact leaves a trace"), joins nothing when it comes again in another sense
    // ("the criminal leaves stuff behind at the scene").
    let straight: Vec<&Token> = message_clauses
        .iter()
        .filter(|clause| found_in(clause, &own).len() == 1)
        .flat_map(|clause| clause.iter().filter(|m| !m.negated && own.iter().any(|(k, _)| k.same_as(m))))
        .collect();
    let unspoken: Vec<(Token, usize)> =
        own.iter().filter(|(k, _)| !straight.iter().any(|m| m.same_as(k))).cloned().collect();
    let joined = message_clauses.iter().filter(|clause| found_in(clause, &unspoken).len() >= 2).count();
    // Clauses that follow from one another ("Quartz has a hardness of 7, so it scratches
    // glass") pair nothing: a message that says both in one breath joins them rightly.
    let follows = [" so ", " which "].iter().any(|w| crate::text::words_spaced(point).contains(w));
    if (joined >= 2 && !follows) || crossed_pair(&parts, message_clauses) {
        return true;
    }
    // Or one clause opens on one clause's subject (its first own word) with a word of another
    // that has two of its own, while another clause of the message opens on that other's
    // subject: the two things the point contrasts are both named, and one has the other's
    // pairing ("ligaments hold the muscles onto the bones and tendons hold the bones to each
    // other").
    let subject = |i: usize| own_any.iter().find(|(_, at)| *at == i).map(|(k, _)| k);
    let opens_on = |clause: &[Token], i: usize| {
        clause.iter().find(|m| !m.is_generic()).zip(subject(i)).is_some_and(|(m, k)| m.same_as(k))
    };
    // Or, where the point contrasts its two things ("…, while Java's JVM uses tracing
    // collectors"), one clause opens on one thing's subject and gives it two words of the
    // other's and none of its own ("Java uses reference counting").
    let contrasts =
        [" while ", " whereas ", " unlike "].iter().any(|w| crate::text::words_spaced(point).contains(w));
    let given_the_others = |clause: &[Token], i: usize| {
        let of = |j: usize| {
            clause
                .iter()
                .filter(|m| !m.negated)
                .filter(|m| {
                    own_any
                        .iter()
                        .any(|(k, at)| *at == j && k.same_as(m) && !subject(j).is_some_and(|s| s.same_as(m)))
                })
                .count()
        };
        (0..parts.len()).any(|j| j != i && of(j) >= 2) && of(i) == 0
    };
    if contrasts
        && message_clauses
            .iter()
            .any(|clause| (0..parts.len()).any(|i| opens_on(clause, i) && given_the_others(clause, i)))
    {
        return true;
    }
    message_clauses.iter().enumerate().any(|(c, clause)| {
        (0..parts.len()).any(|i| {
            opens_on(clause, i)
                && found_in(clause, &own).iter().filter(|&&j| j != i).any(|&j| {
                    // By a word that names something: "both" and "ones" are any clause's.
                    clause.iter().any(|m| {
                        own.iter().any(|(k, at)| *at == j && k.same_as(m))
                            && !subject(j).is_some_and(|s| s.same_as(m))
                            && !m.is_generic()
                            && !crate::text::is_stopword(&m.word)
                    }) && message_clauses.iter().enumerate().any(|(d, other)| d != c && opens_on(other, j))
                })
        })
    })
}

/// Whether the message divides the other way round: "volume divided by mass" for "Density is
/// mass divided by volume", "teeth on the driving gear over those on the driven one" for "the
/// driven gear's teeth divided by the driving gear's". Each side of the division is read as up
/// to three words, back to its clause's start or its "is"; words both sides share are no guide.
pub(super) fn divides_the_other_way(point: &str, said: &str) -> bool {
    let Some((top, bottom)) = division(point) else { return false };
    let Some((their_top, their_bottom)) = division(said) else { return false };
    let only = |side: &[String], other: &[String]| -> Vec<String> {
        side.iter().filter(|w| !other.contains(w)).cloned().collect()
    };
    let (top_only, bottom_only) = (only(&top, &bottom), only(&bottom, &top));
    let meets = |side: &[String], words: &[String]| side.iter().any(|w| words.contains(w));
    let crossed = meets(&their_top, &bottom_only) && meets(&their_bottom, &top_only);
    let straight = meets(&their_top, &top_only) && meets(&their_bottom, &bottom_only);
    crossed && !straight
}

/// The words on each side of a text's first division ("divided by", "over", "/"), as written.
fn division(text: &str) -> Option<(Vec<String>, Vec<String>)> {
    let lower = format!(" {} ", text.to_lowercase().replace('/', " over "));
    let (before, after) = lower.split_once(" divided by ").or_else(|| lower.split_once(" over "))?;
    let ends = ['.', ',', ';', ':', '(', ')', '?', '!'];
    let before = format!(" {} ", before.rsplit(ends).next().unwrap_or_default());
    let after = after.split(ends).next().unwrap_or_default();
    let clause_start = |t: &str| {
        [" is ", " are ", " equals ", " equal ", " gives ", " means "]
            .iter()
            .filter_map(|w| t.rfind(w).map(|at| at + w.len()))
            .max()
            .unwrap_or(0)
    };
    let before = &before[clause_start(&before)..];
    let words = |t: &str| tokens(t).into_iter().map(|k| k.word).collect::<Vec<_>>();
    let top: Vec<String> = words(before).into_iter().rev().take(3).collect();
    let bottom: Vec<String> = words(after).into_iter().take(3).collect();
    (!top.is_empty() && !bottom.is_empty()).then_some((top, bottom))
}

/// Whether two of the point's clauses told in one frame ("with red marking heroes and blue
/// marking villains") are crossed by the message: two of its clauses each join a word only
/// one of them has with a word only the other has, and by other words each ("blue lines mark
/// the heroes and red marks the villains"). A single such clause may be a compact answer.
fn crossed_pair(parts: &[Vec<Token>], message_clauses: &[Vec<Token>]) -> bool {
    let only = |a: usize, b: usize| -> Vec<&Token> {
        parts[a]
            .iter()
            .filter(|k| k.quantity.is_none() && !k.is_generic() && !parts[b].iter().any(|o| o.same_as(k)))
            .collect()
    };
    let found = |clause: &[Token], words: &[&Token]| -> Vec<usize> {
        (0..words.len()).filter(|&w| clause.iter().any(|m| !m.negated && m.same_as(words[w]))).collect()
    };
    (0..parts.len()).any(|i| {
        (i + 1..parts.len()).any(|j| {
            let framed = parts[i].iter().any(|k| !k.is_generic() && parts[j].iter().any(|o| o.same_as(k)));
            let (of_i, of_j) = (only(i, j), only(j, i));
            if !framed || of_i.is_empty() || of_j.is_empty() {
                return false;
            }
            let crossing: Vec<(Vec<usize>, Vec<usize>)> = message_clauses
                .iter()
                .map(|clause| (found(clause, &of_i), found(clause, &of_j)))
                .filter(|(a, b)| !a.is_empty() && !b.is_empty())
                .collect();
            crossing.iter().enumerate().any(|(c, (a, b))| {
                crossing[c + 1..]
                    .iter()
                    .any(|(x, y)| a.iter().all(|w| !x.contains(w)) && b.iter().all(|w| !y.contains(w)))
            })
        })
    })
}

/// Whether the message gives the point's two things each other's numbers: the point says two
/// numbers in halves of their own ("A conversion is worth two points, while a penalty … is
/// worth three"), and one clause of the message joins a word only one half has with the number
/// only the other has, and another clause the other way round ("a conversion is worth three
/// and a penalty is worth two"). One such clause alone may be a number of its own beside the
/// other thing ("thirty two if all your wisdom teeth came through, there's four of those").
pub(super) fn swapped_numbers(point: &str, message_clauses: &[Vec<Token>]) -> bool {
    let halves = NumberHalves::of(point);
    (0..halves.own.len()).any(|i| {
        (0..halves.own.len()).filter(|j| *j != i).any(|j| {
            message_clauses.iter().enumerate().any(|(c, one)| {
                halves.crossed(one, i, j)
                    && message_clauses
                        .iter()
                        .enumerate()
                        .any(|(d, other)| d != c && halves.crossed(other, j, i))
            })
        })
    })
}

/// Whether one clause of the message gives a half of the point the count another half has, of
/// the same thing: "5040, which is the full extent on eight bells" for "at least 5,000 changes
/// on eight or more bells, or the full extent of 5,040 changes on seven bells". The count must
/// name what it counts, as the half's own does ("eight bells" against "seven bells"): a number
/// beside the other thing may be a number of its own ("thirty two if all your wisdom teeth came
/// through").
pub(super) fn count_of_another_half(point: &str, said: &str) -> bool {
    // Most messages count nothing: the point is read only for those that do.
    let counted: Vec<(String, Vec<(Token, String)>)> = clauses(said)
        .into_iter()
        .filter_map(|clause| {
            let counted = counts(&clause);
            (!counted.is_empty()).then_some((clause, counted))
        })
        .collect();
    let texts = NumberHalves::split(point);
    if counted.is_empty() || texts.len() < 2 {
        return false;
    }
    let halves = NumberHalves::of_halves(&texts);
    let own_counts: Vec<Vec<(Token, String)>> = texts.iter().map(|t| counts(t)).collect();
    counted.iter().any(|(clause, said_counts)| {
        let said_tokens = tokens(clause);
        (0..halves.own.len()).any(|i| {
            (0..halves.own.len()).filter(|j| *j != i).any(|j| {
                halves.crossed(&said_tokens, i, j)
                    && said_counts.iter().any(|(n, of)| {
                        halves.own[j].1.iter().any(|k| k.same_as(n))
                            && own_counts[i].iter().any(|(k, own_of)| !k.same_as(n) && own_of == of)
                    })
            })
        })
    })
}

/// A point cut into halves that may each give a number ("… is worth two points, while …
/// is worth three"), and each half's own words and own numbers.
struct NumberHalves {
    own: Vec<(Vec<Token>, Vec<Token>)>,
}

impl NumberHalves {
    fn split(point: &str) -> Vec<String> {
        let mut text = format!(" {} ", point.replace(['(', ')'], " "));
        for joint in [" while ", " whereas ", " but ", ", ", "; "] {
            text = text.replace(joint, "\u{1}");
        }
        // A half with no words of its own has no own words or numbers, so it crosses nothing.
        text.split('\u{1}').filter(|h| h.chars().any(char::is_alphanumeric)).map(str::to_string).collect()
    }

    fn of(point: &str) -> NumberHalves {
        Self::of_halves(&Self::split(point))
    }

    fn of_halves(texts: &[String]) -> NumberHalves {
        let halves: Vec<Vec<Token>> = texts.iter().map(|h| tokens(h)).collect();
        // A half that lists the numbers the others then tell apart ("Wi-Fi uses the 2.4 GHz and
        // 5 GHz bands; 2.4 GHz reaches further…") owns none of them and takes none from them.
        let in_another = |t: &Token, i: usize| {
            halves.iter().enumerate().any(|(j, other)| j != i && other.iter().any(|o| o.same_as(t)))
        };
        let lists = |j: usize| {
            let numbers: Vec<&Token> = halves[j].iter().filter(|t| t.quantity.is_some()).collect();
            numbers.len() >= 2 && numbers.iter().all(|t| in_another(t, j))
        };
        let only_in = |t: &Token, i: usize| {
            halves.iter().enumerate().all(|(j, other)| {
                j == i || (t.quantity.is_some() && lists(j)) || !other.iter().any(|o| o.same_as(t))
            })
        };
        let own = halves
            .iter()
            .enumerate()
            .map(|(i, half)| {
                half.iter()
                    .filter(|k| !k.is_generic() && only_in(k, i))
                    .cloned()
                    .partition(|k| k.quantity.is_none())
            })
            .collect();
        NumberHalves { own }
    }

    /// Whether a clause says half `i`'s thing with half `j`'s number and not its own.
    fn crossed(&self, clause: &[Token], i: usize, j: usize) -> bool {
        let has = |ks: &[Token]| ks.iter().any(|k| clause.iter().any(|m| !m.negated && m.same_as(k)));
        let ((words, numbers), (_, theirs)) = (&self.own[i], &self.own[j]);
        !numbers.is_empty() && has(words) && !has(numbers) && has(theirs)
    }
}

/// The numbers of a text that name what they count, each with the stem of the word after it
/// ("seven bells", "5,040 changes").
fn counts(text: &str) -> Vec<(Token, String)> {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let Some((_, used)) = crate::text::numbers::read(&words[i..]) else {
            i += 1;
            continue;
        };
        let number = tokens(&words[i..i + used].join(" ")).into_iter().find(|t| t.quantity.is_some());
        let counted = words.get(i + used).and_then(|w| tokens(w).into_iter().next());
        if let (Some(number), Some(counted)) = (number, counted)
            && counted.quantity.is_none()
        {
            out.push((number, counted.term));
        }
        i += used;
    }
    out
}

/// Whether the point says two things both ways round and the message one way only: "right over
/// left, and then right over left again" for "right over left, then left over right". Each way
/// is three words, two of the point's own about a third ("right over left").
pub(super) fn one_way_of_two(point: &str, said: &str) -> bool {
    let words = |text: &str| -> Vec<String> {
        crate::text::words_spaced(text).split_whitespace().map(str::to_string).collect()
    };
    let (ours, theirs) = (words(point), words(said));
    // "…then the other way round", "…and vice versa" say the second way in other words.
    let spaced = crate::text::words_spaced(said);
    if [" other way", " vice versa ", " reverse", " opposite way", " swap", " switch"]
        .iter()
        .any(|p| spaced.contains(p))
    {
        return false;
    }
    let has = |text: &[String], a: &str, by: &str, b: &str| {
        text.windows(3).any(|w| w[0] == a && w[1] == by && w[2] == b)
    };
    ours.windows(3).any(|w| {
        let (a, by, b) = (w[0].as_str(), w[1].as_str(), w[2].as_str());
        // "Left" and "right" are words of the point here, common as they are.
        let content = |x: &str| {
            x.len() > 2 && x.chars().all(char::is_alphabetic) && !matches!(x, "the" | "and" | "then" | "are")
        };
        a != b
            && content(a)
            && content(b)
            && has(&ours, b, by, a)
            && has(&theirs, a, by, b)
            && !has(&theirs, b, by, a)
    })
}

/// Whether the message counts the point's period from another moment: "20 years from when
/// it's granted" for "20 years from the filing date of the application", "14 days from when
/// you place the order" for "…starting the day after the goods are received". The moment the
/// learner names shares no word with the point ("counted from when u applied" does).
pub(super) fn counts_from_another_start(point: &str, said: &str) -> bool {
    let counted = crate::text::words_spaced(point);
    if ![" from ", " starting ", " after "].iter().any(|w| counted.contains(w))
        || !tokens(point).iter().any(|t| t.quantity.is_some())
    {
        return false;
    }
    let said = said.to_lowercase();
    let Some((_, after)) = said.split_once("from when ") else { return false };
    let moment = clauses(after).into_iter().next().unwrap_or_default();
    let named = tokens(&moment);
    let ours = tokens(point);
    // "applied" for "application": a word of the same root, which stems may part.
    let root = |t: &Token| t.word.chars().take(5).collect::<String>();
    let shares = |m: &Token, k: &Token| k.same_as(m) || (m.word.len() >= 5 && root(m) == root(k));
    !named.is_empty() && !named.iter().any(|m| ours.iter().any(|k| shares(m, k)))
}

/// Whether the message gives the point's superlative to another of the point's things:
/// "hokkaido's the biggest" for "…Honshu, Hokkaido, Kyushu and Shikoku, and Honshu is the
/// largest".
pub(super) fn crowns_another(point: &str, said: &str) -> bool {
    // Each thing crowned ("X is the largest", "X's the biggest"), with its superlative's group.
    let crowned = |text: &str| -> Vec<(String, usize)> {
        let words: Vec<String> =
            crate::text::words_spaced(text).split_whitespace().map(str::to_string).collect();
        let mut out = Vec::new();
        for (i, word) in words.iter().enumerate() {
            let Some(group) = SUPERLATIVES.iter().position(|g| g.contains(&word.as_str())) else { continue };
            if i < 2 || words[i - 1] != "the" {
                continue;
            }
            let subject = match words[i - 2].as_str() {
                "is" | "was" | "are" | "were" => i.checked_sub(3).map(|j| words[j].clone()),
                before => before.strip_suffix("'s").map(str::to_string),
            };
            if let Some(subject) = subject.filter(|s| !crate::text::is_stopword(s)) {
                out.push((subject, group));
            }
        }
        out
    };
    let (ours, theirs) = (crowned(point), crowned(said));
    let in_point = crate::text::words_spaced(point);
    ours.iter().any(|(subject, group)| {
        theirs.iter().any(|(s, g)| g == group && s != subject && in_point.contains(&format!(" {s} ")))
            && !theirs.iter().any(|(s, g)| g == group && s == subject)
    })
}

/// Superlatives, those that mean the same in one group.
const SUPERLATIVES: &[&[&str]] = &[
    &["largest", "biggest", "greatest"],
    &["smallest", "tiniest"],
    &["highest", "tallest"],
    &["lowest"],
    &["longest"],
    &["shortest"],
    &["deepest"],
    &["oldest", "earliest"],
    &["youngest", "newest", "latest"],
    &["hottest", "warmest"],
    &["coldest"],
    &["fastest", "quickest"],
    &["slowest"],
    &["heaviest"],
    &["lightest"],
    &["richest"],
    &["poorest"],
    &["busiest"],
    &["driest"],
    &["wettest"],
];

/// Whether the message swaps what the point contrasts in two halves, by its marks as well
/// as its words: the point's halves (split at "while", "whereas", "but", ";" or ", and") each
/// have two or more things of their own, a letter ("B and C"), a symbol ("+"), a number
/// ("zero or more") or a word, and two halves of the message each join things of two of the
/// point's ("* matches one or more…, while + matches zero or more"; "B and C are fat-soluble…,
/// and A, D, E and K are water-soluble"). [`swapped`] reads words only, clause by clause.
pub(super) fn swapped_marks(point: &str, message: &str) -> bool {
    let things = |half: &str| -> Vec<String> {
        let mut out: Vec<String> = role_tokens(half).into_iter().map(|t| t.term).collect();
        let raw: Vec<&str> = half.split_whitespace().collect();
        for (i, word) in raw.iter().enumerate() {
            // A sound between slashes is a letter too ("/z/").
            let bare = word
                .trim_matches(|c: char| matches!(c, ',' | '.' | ';' | ':' | '(' | ')' | '"' | '\'' | '/'));
            let letter = bare.chars().count() == 1 && bare.chars().all(|c| c.is_ascii_alphabetic());
            // "A" and "I" are words, save in a list of letters ("A, D, E and K").
            let listed = word.ends_with(',') || raw.get(i + 1).is_some_and(|n| *n == "and");
            let lone_word = matches!(bare, "a" | "A" | "i" | "I") && !listed;
            let symbol = !bare.is_empty() && bare.chars().all(|c| "*+^$=<>|&%#~!®™©§".contains(c));
            if (letter && !lone_word) || symbol {
                out.push(format!("'{}", bare.to_lowercase()));
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    };
    let halves = |text: &str, joints: &[&str]| -> Vec<Vec<String>> {
        let mut text = format!(" {} ", text.replace(';', " ; "));
        for joint in joints {
            text = text.replace(joint, "\u{1}");
        }
        text.split('\u{1}').map(things).filter(|t| !t.is_empty()).collect()
    };
    const JOINTS: &[&str] = &[" while ", " whereas ", " but ", ", and ", " ; "];
    let ours = halves(point, JOINTS);
    if ours.len() < 2 {
        return false;
    }
    let own: Vec<Vec<&String>> = ours
        .iter()
        .enumerate()
        .map(|(i, half)| {
            half.iter().filter(|t| ours.iter().enumerate().all(|(j, o)| j == i || !o.contains(t))).collect()
        })
        .collect();
    if own.iter().filter(|o| o.len() >= 2).count() < 2 {
        return false;
    }
    let joined = |theirs: &[Vec<String>], counts: &dyn Fn(&String) -> bool| {
        theirs
            .iter()
            .filter(|half| {
                own.iter().filter(|o| o.len() >= 2 && o.iter().any(|t| counts(t) && half.contains(t))).count()
                    >= 2
            })
            .count()
    };
    let theirs = halves(message, JOINTS);
    if theirs.len() >= 2 {
        return joined(&theirs, &|_| true) >= 2;
    }
    // A message said in one breath joins its halves with a bare "and" ("/z/ is the voiceless
    // one and /s/ is voiced"). Its halves are shorter, so only what names a thing joins them,
    // not a word like "can" or "on".
    let theirs = halves(message, &[JOINTS, &[" and "]].concat());
    joined(&theirs, &|t| !crate::text::is_stopword(t)) >= 2
}

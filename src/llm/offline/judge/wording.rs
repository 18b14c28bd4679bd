//! What the wording of a text says, with no model: its clauses and sentences, an answer that
//! trails off or breaks off, the names it gives. A pairing swapped is in `swaps`, what turns a
//! point round in `turned`.

use crate::text::{Token, tokens};

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

/// Whether the message has another code in place of one of the point's, neither said nor
/// asked ("below AAA" for "below BBB-", "UDP" for "TCP", "the G2 phase" for "the S phase",
/// "AB negative" for "type O negative"): a code is a word in capitals, two or more of them,
/// and no small letters, a capital with figures ("G2"), or a capital standing alone inside a
/// sentence (not "I").
pub(super) fn another_code(point: &str, said: &str, asked: impl Fn(&str) -> bool) -> bool {
    let codes = |text: &str| -> Vec<String> {
        let mut words: Vec<(usize, &str)> = Vec::new();
        let mut start = None;
        for (i, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
            let apart = c.is_whitespace()
                || matches!(c, ',' | '.' | ';' | ':' | '(' | ')' | '"' | '!' | '?' | '/' | '-');
            match (apart, start) {
                (true, Some(from)) => {
                    words.push((from, &text[from..i]));
                    start = None;
                }
                (false, None) => start = Some(i),
                (true, None) | (false, Some(_)) => {}
            }
        }
        // A word after a figure is its unit or era ("776 BCE" for "776 BC"), weighed as a number.
        let after_a_figure = |i: usize| i > 0 && words[i - 1].1.chars().any(|c| c.is_ascii_digit());
        // A capital that opens a sentence ("A compiler…") is no code.
        let inside_a_sentence = |at: usize| {
            let before = text[..at].trim_end();
            !before.is_empty() && !before.ends_with(['.', '!', '?', ':', '"'])
        };
        let coded = |(at, w): (usize, &str)| {
            let capitals = w.chars().filter(char::is_ascii_uppercase).count();
            let lone = capitals == 1 && w.len() == 1 && w != "I" && inside_a_sentence(at);
            let figured = capitals == 1
                && w.len() > 1
                && w.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                && w.chars().skip(1).all(|c| c.is_ascii_digit());
            is_code(w) || lone || figured
        };
        words
            .iter()
            .enumerate()
            .filter(|&(i, &word)| coded(word) && !after_a_figure(i))
            .map(|(_, (_, w))| {
                w.trim_end_matches("'s").chars().filter(char::is_ascii_alphanumeric).collect::<String>()
            })
            .map(|w| w.to_lowercase())
            .collect()
    };
    let has = |text: &str, code: &str| crate::text::words_spaced(text).contains(&format!(" {code} "));
    // A message in capitals throughout is shouted, not coded.
    let shouted = !said.chars().any(char::is_lowercase);
    // A code that shortens the point's words says them, and the point's code it starts with.
    let shortened: Vec<String> = codes(said).into_iter().filter(|c| shortens(point, c)).collect();
    !shouted
        && codes(point)
            .iter()
            .any(|c| !has(said, c) && !asked(c) && !shortened.iter().any(|s| s.starts_with(c.as_str())))
        && codes(said).iter().any(|c| !has(point, c) && !asked(c) && !shortened.contains(c))
}

/// The colours, which WordNet files too high up for its kin to call them siblings.
const COLOURS: &[&str] = &[
    "white", "black", "red", "green", "blue", "yellow", "brown", "pink", "purple", "orange", "grey", "gray",
];

/// The colour a word names, shades too ("reddish", "bluish", "pinky").
fn colour_of(word: &str) -> Option<&'static str> {
    COLOURS.iter().copied().find(|c| {
        let last = &c[c.len() - 1..];
        word == *c
            || word
                .strip_prefix(*c)
                .is_some_and(|rest| rest == "ish" || rest == "y" || rest == format!("{last}ish"))
            || word.strip_prefix(c.trim_end_matches('e')).is_some_and(|rest| rest == "ish")
    })
}

/// Whether the message gives a thing of the point another colour: the point's colour before a
/// word, another before the same word in the message, and the point's colour nowhere in it ("a
/// brown roux" for "a white roux").
pub(super) fn another_colour(point: &str, said: &str) -> bool {
    let (ours, theirs) = (tokens(point), tokens(said));
    ours.windows(2).any(|pair| {
        colour_of(&pair[0].word).is_some_and(|colour| {
            !theirs.iter().any(|m| colour_of(&m.word) == Some(colour))
                && theirs
                    .windows(2)
                    .any(|other| colour_of(&other[0].word).is_some() && other[1].same_as(&pair[1]))
        })
    })
}

/// Whether a word is a code: two or more capitals and no small letters ("TCP", "BBB").
fn is_code(word: &str) -> bool {
    word.chars().filter(char::is_ascii_uppercase).count() >= 2 && !word.chars().any(char::is_lowercase)
}

/// Whether `code` is made of the initials of a run of the point's words, a code among them
/// whole: "USD" for "US dollars", "IOC" for "the International Olympic Committee".
fn shortens(point: &str, code: &str) -> bool {
    let words: Vec<String> = point
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            if is_code(w) {
                w.to_lowercase()
            } else {
                w.chars().take(1).flat_map(char::to_lowercase).collect()
            }
        })
        .collect();
    (0..words.len()).any(|start| {
        let mut run = String::new();
        words[start..].iter().any(|part| {
            run.push_str(part);
            run == code
        }) && run.len() > 1
    })
}

/// Whether the message has another named figure in place of one of the point's, neither said
/// nor asked: a word and a number joined by a hyphen ("carbon-12" for "nitrogen-14", "F-16"
/// for "F-15").
pub(super) fn another_compound(point: &str, said: &str, asked: &str) -> bool {
    let compounds = |text: &str| -> Vec<String> {
        text.split(|c: char| {
            c.is_whitespace() || matches!(c, ',' | '.' | ';' | ':' | '(' | ')' | '"' | '!' | '?')
        })
        .filter_map(|w| {
            let (word, figure) = w.split_once('-')?;
            let named = word.len() > 1 && word.chars().all(char::is_alphabetic);
            let numbered = !figure.is_empty() && figure.chars().all(|c| c.is_ascii_digit());
            (named && numbered).then(|| w.to_lowercase())
        })
        .collect()
    };
    let (ours, theirs, given) = (compounds(point), compounds(said), compounds(asked));
    ours.iter().any(|c| !theirs.contains(c) && !given.contains(c))
        && theirs.iter().any(|c| !ours.contains(c) && !given.contains(c))
}

/// The numbers a text spells out only to make a word of a compound ("three-dimensional",
/// "two-handed", "one-way"), each with the rest of its compound: a kind of thing, not a count
/// the learner must give. Not a fraction ("two-thirds"), nor a number the text also says alone.
pub(super) fn numbered_compounds(text: &str) -> Vec<(String, String)> {
    let spaced = crate::text::words_spaced(text);
    text.split(|c: char| {
        c.is_whitespace() || matches!(c, ',' | '.' | ';' | ':' | '(' | ')' | '"' | '!' | '?')
    })
    .filter_map(|w| {
        let (number, rest) = w.split_once('-')?;
        let (number, rest) = (number.to_lowercase(), rest.to_lowercase());
        let spelled = number.chars().all(char::is_alphabetic)
            && crate::text::numbers::read(&[number.as_str()]).is_some_and(|(_, used)| used == 1);
        let worded = rest.len() > 2
            && rest.chars().all(|c| c.is_alphabetic() || c == '-')
            && crate::text::numbers::read(&[number.as_str(), rest.as_str()])
                .is_none_or(|(_, used)| used == 1);
        let alone = spaced.matches(&format!(" {number} ")).count()
            > spaced.matches(&format!(" {number} {rest} ")).count();
        (spelled && worded && !alone).then_some((number, rest))
    })
    .collect()
}

/// The meaning a point gives a word in quotes: "thank you" of "'Kamsahamnida' means 'thank
/// you' in formal Korean".
pub(super) fn quoted_meaning(point: &str) -> Option<&str> {
    let (_, after) = point.split_once(" mean")?;
    let after = after.strip_prefix('s').unwrap_or(after).trim_start();
    let open = after.chars().next().filter(|c| matches!(c, '\'' | '"' | '‘' | '“'))?;
    let rest = &after[open.len_utf8()..];
    let end = rest.find(['\'', '"', '’', '”'])?;
    Some(&rest[..end])
}

/// Titles a name follows ("Lord Diplock", "King Leopold", "Mount Kenya").
const TITLES: &[&str] = &[
    "lord",
    "lady",
    "sir",
    "dame",
    "king",
    "queen",
    "prince",
    "princess",
    "emperor",
    "empress",
    "tsar",
    "czar",
    "pope",
    "saint",
    "st",
    "president",
    "general",
    "admiral",
    "captain",
    "dr",
    "professor",
    "mount",
    "lake",
    "cape",
];

/// Whether the message gives the title of a name in the point to another name, and never says
/// the point's ("lord denning" for "Lord Diplock"), neither being asked.
pub(super) fn another_titled_name(point: &str, said: &str, asked: impl Fn(&str) -> bool) -> bool {
    let point_words: Vec<&str> =
        point.split_whitespace().map(|w| w.trim_matches(|c: char| !c.is_alphanumeric())).collect();
    let said_spaced = crate::text::words_spaced(said);
    let said_words: Vec<&str> = said_spaced.split_whitespace().collect();
    let said_tokens = tokens(said);
    let said_has = |word: &str| tokens(word).iter().any(|t| said_tokens.iter().any(|m| m.same_as(t)));
    let point_lower = crate::text::words_spaced(point);
    point_words.windows(2).any(|pair| {
        let (title, name) = (pair[0].to_lowercase(), pair[1]);
        let capitalised = name.chars().next().is_some_and(char::is_uppercase)
            && name.chars().skip(1).any(char::is_lowercase);
        if !TITLES.contains(&title.as_str()) || !capitalised || said_has(name) || asked(&name.to_lowercase())
        {
            return false;
        }
        said_words.windows(2).any(|w| {
            w[0] == title
                && w[1].len() > 2
                && w[1].chars().all(char::is_alphabetic)
                && !crate::text::is_stopword(w[1])
                && !point_lower.contains(&format!(" {} ", w[1]))
                && !asked(w[1])
        })
    })
}

/// Hedges that stand where a detail should be: "some kind of hormone replacement" for
/// "levothyroxine", "it reuses it somehow".
const VAGUE: &[&str] =
    &["some kind of", "some sort of", "some type of", "somehow", "something about", "something to do with"];

/// Whether the message hedges where a detail should be ([`VAGUE`]).
pub(super) fn hedges_a_detail(said: &str) -> bool {
    let words = crate::text::words_spaced(said);
    VAGUE.iter().any(|v| words.contains(&format!(" {v} ")))
}

/// Words that leave no exception: "more arousal always means better performance".
/// ("Never" and "every time" are as often the point's own: "Socrates never wrote anything down".)
const ABSOLUTE: &[&str] = &["always", "no matter", "all the time", "in every case"];

/// Words by which a point keeps its claim within bounds: "up to a point", "usually".
const BOUNDED: &[&str] = &[
    "up to",
    "until",
    "usually",
    "often",
    "mainly",
    "mostly",
    "typically",
    "generally",
    "tend",
    "tends",
    "sometimes",
    "moderate",
    "optimal",
    "optimum",
    "beyond",
    "after which",
    "can",
    "may",
    "most",
];

/// Words for a share of a whole short of all of it: "a majority of servers".
const SHARE_OF: &[&str] = &["a majority", "the majority", "more than half", "most of", "a quorum"];

/// Words for the whole: "every server", "all of them".
const WHOLE: &[&str] = &["every", "all", "each", "everyone", "everybody", "everything"];

/// Whether the message claims without exception what the point bounds ("more arousal always
/// means better performance" for "performance rises with arousal up to an optimal level"), or
/// all of what it gives a share of ("replicated to every server" for "to a majority of servers").
pub(super) fn overgeneralises(point: &str, said: &str) -> bool {
    let (point, mut said) = (crate::text::words_spaced(point), crate::text::words_spaced(said));
    // "every so often" is now and then, not every one.
    for now_and_then in [" every so often ", " every now and then ", " every once in a while "] {
        said = said.replace(now_and_then, " ");
    }
    let has = |text: &str, words: &[&str]| words.iter().any(|w| text.contains(&format!(" {w} ")));
    (has(&said, ABSOLUTE) && !has(&point, ABSOLUTE) && has(&point, BOUNDED))
        || (has(&said, WHOLE) && !has(&point, WHOLE) && has(&point, SHARE_OF))
}

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
pub(in crate::llm::offline) fn trails_off(message: &str) -> bool {
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

/// The words `text` plainly uses as verbs, lower-case: after a pronoun, a modal or an adverb
/// in -ly ("you pick", "can reject", "correctly rejects"), or before a particle ("pick up").
/// (Not after "to": "from muscle to bone".)
pub(super) fn verbs(text: &str) -> Vec<String> {
    const BEFORE: &[&str] =
        &["i", "you", "we", "they", "he", "she", "can", "could", "will", "would", "should", "might", "must"];
    const PARTICLES: &[&str] = &["up", "down", "out", "off"];
    let spaced = crate::text::words_spaced(text);
    let words: Vec<&str> = spaced.split_whitespace().collect();
    words
        .iter()
        .enumerate()
        .filter(|&(i, word)| {
            let before = i.checked_sub(1).map(|i| words[i]);
            let after = words.get(i + 1).copied();
            word.chars().all(char::is_alphabetic)
                && (before.is_some_and(|b| BEFORE.contains(&b) || b.len() > 4 && b.ends_with("ly"))
                    || after.is_some_and(|a| PARTICLES.contains(&a)))
        })
        .map(|(_, word)| (*word).to_string())
        .collect()
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
        "i",
        "i'm",
        "im",
        "am",
        "and",
        "so",
        "um",
        "uh",
        "erm",
        "hmm",
        "just",
        "really",
        "tbh",
        "though",
        "honestly",
        "totally",
        "about",
        "it",
        "that",
        "this",
        "to",
        "be",
        "but",
        "yet",
        "lol",
        "haha",
        "genuinely",
        "actually",
        "literally",
        "seriously",
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

/// The text with the commas around a name in apposition taken away ("The Inca road network,
/// the Qhapaq Ñan, stretched…"): a name of what comes before it, not a clause of its own. A
/// name is a few capitalised words, an article before them allowed.
pub(super) fn names_in_apposition(text: &str) -> String {
    let parts: Vec<&str> = text.split(',').collect();
    let is_name = |part: &str| {
        let words: Vec<&str> = part.split_whitespace().collect();
        let name = match words.as_slice() {
            [article, rest @ ..] if matches!(article.to_lowercase().as_str(), "the" | "a" | "an") => rest,
            all => all,
        };
        (1..=4).contains(&name.len()) && name.iter().all(|w| w.chars().next().is_some_and(char::is_uppercase))
    };
    let mut out = String::new();
    for (i, part) in parts.iter().enumerate() {
        let joined = |j: usize| j > 0 && j + 1 < parts.len() && is_name(parts[j]);
        if i > 0 {
            // The comma before a name and the one after it go.
            out.push_str(if joined(i) || joined(i - 1) { " " } else { "," });
        }
        out.push_str(part);
    }
    out
}

/// Whether a word is a number or a code ("g2", "3rd"), which names nothing by itself.
pub(super) fn is_number_like(word: &str) -> bool {
    word.chars().any(|c| c.is_ascii_digit())
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

/// Whether a sentence that ends with "?" says rather than asks: long, and no clause of it
/// opens as a question does ("hmm not 100% but phosphorus donates spare electrons = n-type,
/// and boron gives holes = p-type?"), nor ends on a tag ("…, right?"), nor says the learner
/// does not know.
fn says_with_a_rising_tone(sentence: &str) -> bool {
    use crate::llm::offline::kinds::{FILLERS, YES_NO, is_wh};
    let spaced = crate::text::words_spaced(sentence);
    let tagged = [" right ", " yeah ", " correct ", " no ", " isn't it ", " innit ", " or not "]
        .iter()
        .any(|tag| spaced.ends_with(tag));
    let opens_asking = sentence.split([',', ';', ':', '—', '–']).any(|clause| {
        crate::text::words_spaced(clause).split_whitespace().find(|w| !FILLERS.contains(w)).is_some_and(|w| {
            is_wh(w)
                || YES_NO.contains(&w)
                || w.ends_with("n't")
                || matches!(w, "what's" | "who's" | "how's" | "why's")
        })
    });
    // "pretty sure it's roughly 5700 yrs?", "two hundred and six i think?": offered as an
    // answer, however short.
    let hedged = |text: &str| {
        let spaced = crate::text::words_spaced(text);
        HEDGES
            .iter()
            .any(|h| spaced.starts_with(h) || spaced.starts_with(&format!(" so{h}")) || spaced.ends_with(h))
    };
    // "no idea tbh... maybe they just split in half?": a guess offered after the pause.
    let guess = sentence.replace("...", "…").rsplit(['…', ',', ';']).next().is_some_and(hedged);
    // "run dmc doing walk this way w aerosmith, 86?": said, with a doubt about the detail
    // after it alone.
    let doubted_detail = sentence
        .rsplit_once(',')
        .is_some_and(|(said, detail)| tokens(said).len() >= 3 && (1..=2).contains(&tokens(detail).len()));
    // "i dont remember the name, something that helps make red blood cells??" still guesses.
    let unsure = crate::text::is_dont_know(sentence) && !guess;
    (tokens(sentence).len() >= RISING_TONE_WORDS || hedged(sentence) || guess || doubted_detail)
        && !tagged
        && !opens_asking
        && !unsure
}

/// How an answer offered with a rising tone opens.
const HEDGES: &[&str] = &[
    " pretty sure ",
    " i'm pretty sure ",
    " im pretty sure ",
    " fairly sure ",
    " i think ",
    " i reckon ",
    " i believe ",
    " probably ",
    " maybe ",
    " perhaps ",
];

/// The fewest words a statement said with a rising tone has: "the ribosome?" offers a guess.
const RISING_TONE_WORDS: usize = 6;

/// A message's sentences, each with its words and whether it asks (ends with "?").
pub(super) fn asked_sentences(message: &str) -> Vec<(Vec<Token>, bool)> {
    let chars: Vec<char> = message.chars().collect();
    let mut sentences: Vec<(String, bool)> = Vec::new();
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
            sentences.push((current.clone(), c == '?' && !says_with_a_rising_tone(&current)));
            current.clear();
        }
    }
    if !current.trim().is_empty() {
        sentences.push((current, false));
    }
    // "ethiopia and... liberia? yeah pretty sure": a guess the learner then stands by.
    let stands_by = |next: &str| {
        let spaced = crate::text::words_spaced(next);
        CONFIRMATIONS.iter().any(|c| spaced.starts_with(c))
    };
    let mut out: Vec<(Vec<Token>, bool)> = sentences
        .iter()
        .enumerate()
        .map(|(i, (text, asks))| {
            let confirmed = sentences.get(i + 1).is_some_and(|(next, _)| stands_by(next));
            (tokens(text), *asks && !confirmed)
        })
        .collect();
    out.retain(|(words, asks)| !words.is_empty() || *asks);
    out
}

/// How a learner stands by the guess just asked ("…liberia? yeah pretty sure").
const CONFIRMATIONS: &[&str] = &[
    " yeah ",
    " yes ",
    " yep ",
    " pretty sure ",
    " i'm pretty sure ",
    " im pretty sure ",
    " i'm sure ",
    " im sure ",
];

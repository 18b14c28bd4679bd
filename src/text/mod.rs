//! Word-level text handling, shared by the offline provider's judges and the tutor's reply
//! check: content terms with light stemming, so "mitochondria produce ATP" matches "the
//! mitochondrion produces atp".

pub mod antonyms;
pub mod cues;
pub mod dates;
mod dont_know;
pub mod equations;
pub mod growth;
pub mod html;
pub mod initials;
pub mod kinship;
mod lexicon;
pub mod numbers;
pub mod settled;
pub mod shorthand;
pub mod vocabulary;

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

pub use dont_know::{DONT_KNOW, is_dont_know, said_before_dont_know};
use lexicon::{BASE_FORMS, FORMULAS, GENERIC, NEGATIONS, OPPOSITES, STOPWORDS, SYNONYMS};
use numbers::Quantity;
use rust_stemmers::{Algorithm, Stemmer};

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// The lexicon's lists as sets and maps: a judgement looks words up in them thousands of times.
static STOPWORD_SET: LazyLock<HashSet<&'static str>> = LazyLock::new(|| STOPWORDS.iter().copied().collect());
static BASE_FORM_OF: LazyLock<HashMap<&'static str, &'static str>> = LazyLock::new(|| {
    let mut map = HashMap::new();
    // The first pair for a form wins, as a scan of the list would find it.
    for (form, base) in BASE_FORMS {
        map.entry(*form).or_insert(*base);
    }
    map
});
static GENERIC_TERMS: LazyLock<HashSet<String>> =
    LazyLock::new(|| GENERIC.iter().map(|g| canonical(g)).collect());

pub fn is_stopword(word: &str) -> bool {
    STOPWORD_SET.contains(word)
}

/// One content word of a text, as the judges compare it.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// The word as written, lower-cased (for spotting typos).
    pub word: String,
    /// Its canonical stem: base form, synonym group and Snowball stem; `#n` for a number.
    pub term: String,
    /// Said under a negation ("not the nucleus").
    pub negated: bool,
    /// For a number, its value (and its value in base units when a unit followed).
    pub quantity: Option<Quantity>,
}

impl Token {
    /// Whether two tokens say the same word: the same term, a typo of it (one edit in five
    /// letters, two in nine), or the same amount.
    pub fn same_as(&self, other: &Token) -> bool {
        match (&self.quantity, &other.quantity) {
            (Some(a), Some(b)) => return a.matches(b),
            (Some(_), None) | (None, Some(_)) => return false,
            (None, None) => {}
        }
        if self.term == other.term {
            return true;
        }
        // A typo keeps the first letter; "deoxygenated" is not "oxygenated".
        if self.word.chars().next() != other.word.chars().next() {
            return false;
        }
        let shortest = self.word.chars().count().min(other.word.chars().count());
        let allowed = match shortest {
            0..=4 => 0,
            5..=8 => 1,
            _ => 2,
        };
        // Two words WordNet knows are two words, not one mistyped ("washes" is no "wastes").
        let both_words =
            || kinship::nouns().is_some_and(|nouns| nouns.knows(&self.word) && nouns.knows(&other.word));
        allowed > 0 && strsim::levenshtein(&self.word, &other.word) <= allowed && !both_words()
    }

    /// Counts for less in telling points apart.
    pub fn is_generic(&self) -> bool {
        GENERIC_TERMS.contains(&self.term)
    }
}

/// Lower-cased words, with numbers kept whole ("8,849", "1.6", "-273.15"), "n't" split off
/// as its own word, and clause ends marked as "," words.
fn raw_words(text: &str) -> Vec<String> {
    let text = text.to_lowercase().replace(['’', '‘'], "'").replace('−', "-").replace('°', " ");
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut current = String::new();
    let flush = |current: &mut String, out: &mut Vec<String>| {
        let word = current.trim_matches('\'').to_string();
        current.clear();
        if word.is_empty() {
            return;
        }
        match word.strip_suffix("n't") {
            // "can't" is "can not"; "won't" is "will not".
            Some(base) => {
                out.push(match base {
                    "ca" => "can".into(),
                    "wo" => "will".into(),
                    other => other.to_string(),
                });
                out.push("n't".into());
            }
            None => {
                let word = word.strip_suffix("'s").unwrap_or(&word);
                // "2kw", "100km": an amount and its unit written together ("1800s" is a decade,
                // "300k" three hundred thousand), a year and its era ("300bc"), or a number
                // said roughly ("300ish").
                let at = word.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(0);
                let (amount, unit) = word.split_at(at);
                let glued = at > 0
                    && !matches!(unit, "s" | "k")
                    && unit.chars().all(|c| c.is_ascii_alphabetic())
                    && (numbers::unit(&[unit]).is_some() || matches!(unit, "bc" | "bce" | "ad" | "ce"));
                if glued {
                    out.push(amount.to_string());
                    out.push(unit.to_string());
                } else if at > 0 && unit == "ish" {
                    // "300ish": about 300.
                    out.push("about".into());
                    out.push(amount.to_string());
                } else {
                    out.push(word.to_string());
                }
            }
        }
    };
    for (i, &c) in chars.iter().enumerate() {
        let digit_around =
            |j: Option<usize>| j.and_then(|j| chars.get(j)).is_some_and(|d| d.is_ascii_digit());
        let inside_number =
            matches!(c, '.' | ',' | '/') && digit_around(i.checked_sub(1)) && digit_around(Some(i + 1));
        let sign = c == '-' && current.is_empty() && digit_around(Some(i + 1));
        if c.is_alphanumeric() || c == '\'' || inside_number || sign {
            current.push(c);
            continue;
        }
        flush(&mut current, &mut out);
        if matches!(c, ',' | '.' | ';' | ':' | '!' | '?' | '(' | ')' | '\n') {
            out.push(",".into());
        }
        // "75%": a unit, as "percent" is.
        if c == '%' {
            out.push("%".into());
        }
    }
    flush(&mut current, &mut out);
    out
}

/// "-ize" and "-ise" spell the same word; then Snowball's English stem.
fn stem(word: &str) -> String {
    STEMMER.stem(&word.replace("iz", "is")).into_owned()
}

/// Each synonym's stem, to its group's.
static SYNONYM_STEMS: LazyLock<HashMap<String, String>> = LazyLock::new(|| {
    let mut map = HashMap::new();
    for group in SYNONYMS {
        let first = stem(group[0]);
        for word in group.iter() {
            map.entry(stem(word)).or_insert_with(|| first.clone());
        }
    }
    map
});

/// A word's canonical stem: its base form, then its stem, then its synonym group's.
/// A word's base form where the lexicon lists it as irregular ("fell" is "fall").
fn base_form(word: &str) -> Option<&'static str> {
    BASE_FORM_OF.get(word).copied()
}

fn canonical(word: &str) -> String {
    let base = BASE_FORM_OF.get(word).copied().unwrap_or(word);
    let stemmed = stem(base);
    SYNONYM_STEMS.get(&stemmed).cloned().unwrap_or(stemmed)
}

/// A chemical formula written after its coefficient ("6co2"): the count, and the formula's words.
fn coefficient_formula(word: &str) -> Option<(f64, &'static [&'static str])> {
    let digits = word.find(|c: char| !c.is_ascii_digit())?;
    let (count, formula) = word.split_at(digits);
    let count: f64 = count.parse().ok()?;
    FORMULAS.iter().find(|(f, _)| *f == formula).map(|(_, expanded)| (count, *expanded))
}

/// The first word each denial of a text reaches: "effect" in "no effect on viruses", "cure" in
/// "can't cure colds", "citizen" in "non-citizen soldiers". The rest in its reach is what is
/// denied of it.
pub fn denied_heads(text: &str) -> Vec<Token> {
    let words = raw_words(text);
    let opens = |i: usize| {
        let (word, next) = (words[i].as_str(), words.get(i + 1).map(String::as_str));
        NEGATIONS.contains(&word)
            || matches!(word, "non" | "lack" | "lacks" | "lacking")
            || matches!((word, next), ("rather", Some("than")) | ("instead" | "absence", Some("of")))
    };
    (0..words.len())
        .filter(|&i| opens(i))
        // An adverb says how, not what ("rather than simply by drying out" denies drying).
        .filter_map(|i| {
            tokens(&words[i..].join(" ")).into_iter().find(|t| t.negated && !t.word.ends_with("ly"))
        })
        .collect()
}

/// The content words of a text, in order, numbers read with their units, negations marked.
pub fn tokens(text: &str) -> Vec<Token> {
    tokens_keeping(text, |_| false)
}

/// Words that say the number after them is rounded.
const APPROXIMATELY: &[&str] =
    &["about", "around", "roughly", "approximately", "approx", "nearly", "almost", "circa"];

/// Words that say only how a clause is built (articles, "is", pronouns, "of", "to"), never
/// which thing it pairs with which.
const FRAME_WORDS: &[&str] = &[
    "a", "an", "the", "of", "to", "is", "are", "was", "were", "am", "been", "being", "it", "its", "it's",
    "they", "them", "their", "this", "that", "these", "those", "which", "who", "what", "i", "you", "we",
    "he", "she", "his", "her", "our", "your", "each", "other", "one", "ones", "just", "so", "um", "uh",
    "yeah", "think",
];

/// A text's words with the common words that can carry a role kept ("like charges repel",
/// "oxygen diffuses out", "essere means to be"): only words that build the clause are left
/// out. For telling which of a point's things the learner paired with which.
pub fn role_tokens(text: &str) -> Vec<Token> {
    tokens_keeping(text, |word| !FRAME_WORDS.contains(&word))
}

/// [`tokens`], keeping the stopwords `keep` accepts.
fn tokens_keeping(text: &str, keep: impl Fn(&str) -> bool) -> Vec<Token> {
    let words = raw_words(text);
    let refs: Vec<&str> = words.iter().map(String::as_str).collect();
    let mut out: Vec<Token> = Vec::new();
    // Content words left in reach of the last negation.
    let mut negation_reach: u8 = 0;
    let mut i = 0;
    while i < refs.len() {
        let word = refs[i];
        // A new clause ends a denial's reach: "no intrinsic factor so B12 can't…" denies no
        // B12 (but "not so fast", "not because…" deny what follows).
        // So does "and" after a denial that is a whole phrase ("there's none and B12…").
        let after_a_whole_denial = word == "and" && i > 0 && matches!(refs[i - 1], "none" | "nothing");
        if matches!(word, "so" | "because" | "cos" | "therefore") && (1..4).contains(&negation_reach)
            || after_a_whole_denial
        {
            negation_reach = 0;
        }
        if word == "," || word == "but" {
            negation_reach = 0;
            i += 1;
            continue;
        }
        // "no turbine can capture more than about 59%": the bound is said, not denied.
        let bound = word == "than"
            && i > 0
            && matches!(refs[i - 1], "more" | "less" | "fewer" | "greater" | "higher" | "lower" | "longer")
            && {
                let rest = &refs[i + 1..];
                let rest =
                    if rest.first().is_some_and(|w| APPROXIMATELY.contains(w)) { &rest[1..] } else { rest };
                numbers::read(rest).is_some()
            };
        if bound {
            negation_reach = 0;
        }
        // "not enough water", "not many left": an amount, as "too little water" is, not a denial.
        if let Some(amount) =
            NEGATIONS.contains(&word).then(|| refs.get(i + 1)).flatten().and_then(|next| match *next {
                "enough" | "much" => Some("little"),
                "many" => Some("few"),
                _ => None,
            })
        {
            out.push(Token {
                word: amount.into(),
                term: canonical(amount),
                negated: negation_reach > 0,
                quantity: None,
            });
            i += 2;
            continue;
        }
        if NEGATIONS.contains(&word) {
            // In a relative clause ("water that is not absorbed flows over the land") the
            // denial is of its one word; what follows is the main clause's.
            let relative = i >= 2
                && matches!(refs[i - 1], "is" | "are" | "was" | "were")
                && matches!(refs[i - 2], "that" | "which" | "who");
            negation_reach = if relative { 1 } else { 4 };
            i += 1;
            continue;
        }
        // "zero redundancy": none of it, as "no redundancy" says (not "zero kelvin", an amount,
        // nor "zero-sum").
        if word == "zero"
            && refs.get(i + 1).is_some_and(|w| {
                w.chars().all(char::is_alphabetic) && !is_stopword(w) && !matches!(*w, "sum" | "point")
            })
            && numbers::unit(&refs[i + 1..]).is_none()
        {
            negation_reach = 1;
            i += 1;
            continue;
        }
        // "non-citizen", "non-metal": the prefix denies the one word it joins.
        if word == "non" && refs.get(i + 1).is_some_and(|w| w.chars().all(char::is_alphabetic)) {
            negation_reach = 1;
            i += 1;
            continue;
        }
        // "a lack of intrinsic factor", "in the absence of light": no intrinsic factor, no light.
        let of = refs.get(i + 1) == Some(&"of");
        if matches!(word, "lack" | "lacks" | "lacking") || (word == "absence" && of) {
            negation_reach = 4;
            i += 1 + usize::from(of);
            continue;
        }
        // "rather than curly braces", "instead of sugar": the words after are not what is meant.
        if matches!((word, refs.get(i + 1).copied()), ("rather", Some("than")) | ("instead", Some("of"))) {
            negation_reach = 4;
            i += 2;
            continue;
        }
        // "goes up", "went down": a rise, a fall.
        if matches!(word, "go" | "goes" | "went" | "going" | "gone")
            && let Some(direction) = refs.get(i + 1).filter(|w| matches!(**w, "up" | "down"))
        {
            let meaning = if *direction == "up" { "increase" } else { "decrease" };
            out.push(Token {
                word: meaning.into(),
                term: canonical(meaning),
                negated: negation_reach > 0,
                quantity: None,
            });
            negation_reach = negation_reach.saturating_sub(1);
            i += 2;
            continue;
        }
        let negated = negation_reach > 0;
        // "6CO2", "6O2": a formula with its coefficient, as an equation writes it.
        if let Some((count, expanded)) = coefficient_formula(word) {
            out.push(Token {
                word: count.to_string(),
                term: format!("#{count}"),
                negated,
                quantity: Some(Quantity {
                    value: count,
                    base: None,
                    span: 0.0,
                    approximate: false,
                    part: None,
                }),
            });
            for w in expanded {
                out.push(Token { word: (*w).into(), term: canonical(w), negated, quantity: None });
            }
            negation_reach = negation_reach.saturating_sub(1);
            i += 1;
            continue;
        }
        // "subtract one from the other", "the one we live in", "each half": pronouns and a
        // noun, no amounts.
        let reading = numbers::read(&refs[i..]);
        let pronoun = word == "one"
            && reading.is_some_and(|(_, used)| used == 1)
            && (refs[i + 1..].iter().take(4).any(|w| matches!(*w, "other" | "another"))
                || i > 0 && matches!(refs[i - 1], "the" | "this" | "that" | "which"));
        let a_part = word == "half" && i > 0 && matches!(refs[i - 1], "each" | "either" | "every" | "other");
        if !pronoun
            && !a_part
            && let Some((value, used)) = reading
        {
            let rest = &refs[i + used..];
            let century = numbers::century_start(value, numbers::is_ordinal(refs[i + used - 1]), rest);
            let value = century.unwrap_or(value);
            let (base, unit_words) = match numbers::unit(rest).filter(|_| century.is_none()) {
                // "an hour and a half".
                Some((dimension, to_base, n)) if rest.get(n..n + 3) == Some(&["and", "a", "half"][..]) => {
                    (Some((dimension, to_base(value + 0.5))), n + 3)
                }
                Some((dimension, to_base, n)) => (Some((dimension, to_base(value))), n),
                // "5 to 6 centimetres": the unit after a range is both ends'.
                None => match rest {
                    [joint, ..] if matches!(*joint, "to" | "and" | "-") => numbers::read(&rest[1..])
                        .and_then(|(_, n)| numbers::unit(&rest[1 + n..]))
                        .map_or((None, 0), |(dimension, to_base, _)| (Some((dimension, to_base(value))), 0)),
                    _ => (None, 0),
                },
            };
            // "three quarters", "0.75": a share of a whole, as "75%" is.
            let base =
                base.or_else(|| (value > 0.0 && value < 1.0).then_some((numbers::Dimension::Share, value)));
            let span = if used == 1 { numbers::span(word) } else { 0.0 };
            let approximate = i > 0 && APPROXIMATELY.contains(&refs[i - 1]);
            // "the mid 1400s": a third of the span, its first and last year.
            let third = (span + 1.0) / 3.0;
            let part = match i.checked_sub(1).map(|p| refs[p]) {
                Some("early") if span > 0.0 => Some((value, (value + third).floor())),
                Some("mid") if span > 0.0 => Some(((value + third).ceil(), (value + 2.0 * third).floor())),
                Some("late") if span > 0.0 => Some(((value + 2.0 * third).ceil(), value + span)),
                _ => None,
            };
            out.push(Token {
                word: refs[i..i + used].join(" "),
                term: format!("#{value}"),
                negated,
                quantity: Some(Quantity { value, base, span, approximate, part }),
            });
            negation_reach = negation_reach.saturating_sub(1);
            i += used + unit_words;
            continue;
        }
        i += 1;
        if let Some((_, expanded)) = FORMULAS.iter().find(|(formula, _)| *formula == word) {
            for w in *expanded {
                out.push(Token { word: (*w).into(), term: canonical(w), negated, quantity: None });
            }
            continue;
        }
        if (is_stopword(word) && !keep(word))
            || (word.chars().count() < 2 && !word.chars().all(|c| c.is_ascii_digit()))
        {
            continue;
        }
        out.push(Token { word: word.to_string(), term: canonical(word), negated, quantity: None });
        negation_reach = negation_reach.saturating_sub(1);
    }
    // "V = IR" says voltage, current and resistance.
    out.extend(equations::quantities(text).into_iter().map(|w| Token {
        word: w.into(),
        term: canonical(w),
        negated: false,
        quantity: None,
    }));
    out
}

/// Each pair of opposite words, as canonical terms.
static OPPOSITE_TERMS: LazyLock<HashSet<(String, String)>> = LazyLock::new(|| {
    OPPOSITES
        .iter()
        .flat_map(|(a, b)| {
            let (a, b) = (canonical(a), canonical(b));
            [(a.clone(), b.clone()), (b, a)]
        })
        .filter(|(a, b)| a != b)
        .collect()
});

/// Whether two canonical terms say the opposite of each other ("attract" and "repel").
pub fn opposite(a: &str, b: &str) -> bool {
    OPPOSITE_TERMS.contains(&(a.to_string(), b.to_string()))
}

/// Content terms of a text, stemmed, in order of first appearance, without repeats.
pub fn terms(text: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    tokens(text).into_iter().map(|t| t.term).filter(|t| seen.insert(t.clone())).collect()
}

/// The original content words (not stemmed), for quoting back.
pub fn content_words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-'))
        .filter(|w| !w.is_empty() && !is_stopword(&w.to_lowercase()))
        .map(str::to_string)
        .collect()
}

/// Share of `key` terms present in `text` terms (0..1), and the ones present.
pub fn coverage(key: &[String], text: &[String]) -> (f64, Vec<String>) {
    if key.is_empty() {
        return (0.0, Vec::new());
    }
    let present: Vec<String> = key.iter().filter(|k| text.contains(k)).cloned().collect();
    (present.len() as f64 / key.len() as f64, present)
}

/// A text's words, lower-case, each between single spaces (" not sure why though "), for
/// matching whole-word phrases.
pub fn words_spaced(text: &str) -> String {
    let words: String = text
        .to_lowercase()
        .replace('’', "'")
        .chars()
        .map(|c| if c.is_alphanumeric() || c == '\'' { c } else { ' ' })
        .collect();
    format!(" {} ", words.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// Sentences of a text, trimmed.
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        current.push(c);
        if matches!(c, '.' | '!' | '?') {
            let s = current.trim();
            if s.chars().count() > 2 {
                out.push(s.to_string());
            }
            current.clear();
        }
    }
    if !current.trim().is_empty() {
        out.push(current.trim().to_string());
    }
    out
}

/// A stable number from a text, to vary phrasing deterministically.
pub fn pick(text: &str, n: usize) -> usize {
    let h = text.bytes().fold(2166136261u32, |h, b| (h ^ u32::from(b)).wrapping_mul(16777619));
    (h as usize) % n.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_of_two_and_each_half_are_no_amounts() {
        let amounts = |text: &str| tokens(text).iter().filter(|t| t.quantity.is_some()).count();
        assert_eq!(amounts("take the potential of each half and subtract one from the other"), 0);
        assert_eq!(amounts("one atom and one half"), 2);
        assert_eq!(amounts("troposphere, thats the one we live in"), 0);
        assert_eq!(amounts("the one hundred days"), 1);
    }

    #[test]
    fn plurals_and_inflections_match() {
        assert_eq!(terms("Mitochondria produce ATP"), terms("the mitochondrion produces atp"));
        assert_eq!(terms("Ribosomes translate"), terms("ribosome translates"));
        assert_eq!(terms("produced producing produces made built"), vec!["make"], "one synonym group");
        assert_eq!(terms("the the THE"), Vec::<String>::new());
        assert_eq!(terms("In 49 BC"), vec!["#49", "bc"]);
        assert_eq!(terms("in forty-nine BC"), vec!["#49", "bc"]);
        assert_eq!(terms("c. 300bc, 1066AD"), vec!["#300", "bc", "#1066", "ad"], "a year and its era");
        let roughly = tokens("like 300ish");
        assert!(roughly.len() == 1 && roughly[0].quantity.is_some_and(|q| q.value == 300.0 && q.approximate));
        assert_eq!(
            terms("a 2kW kettle, 100km, in the 1800s, 49bc"),
            terms("a 2 kW kettle, 100 km, in the 1800s, 49bc")
        );
        let (half, thirty) = (tokens("half an hour"), tokens("30 minutes"));
        assert!(half.len() == 1 && half[0].same_as(&thirty[0]), "{half:?}");
        let denied = |text: &str| {
            tokens(text).iter().filter(|t| t.negated).map(|t| t.term.clone()).collect::<Vec<_>>()
        };
        assert_eq!(denied("causing a lack of intrinsic factor"), denied("so there's no intrinsic factor"));
        assert_eq!(denied("in the absence of light"), denied("without light"));
        assert_eq!(denied("no intrinsic factor so B12 is not taken up"), ["intrins", "factor", "take"]);
        assert_eq!(denied("not so fast"), ["fast"]);
        assert_eq!(denied("there's none and B12 is taken up"), Vec::<String>::new());
        assert_eq!(denied("none of the B12 is taken up"), ["b12", "take"]);
        assert_eq!(terms("cos is adjacent over hypotenuse"), ["cos", "adjac", "hypotenus"]);
        // Bytes, glued or spelt out; a kilobyte either way round 1,000.
        let (glued, spelt) = (tokens("64B"), tokens("64 bytes"));
        assert!(glued.len() == 1 && glued[0].same_as(&spelt[0]), "{glued:?}");
        assert!(tokens("4 KB")[0].same_as(&tokens("4096 bytes")[0]));
        assert!(!tokens("64 KB")[0].same_as(&tokens("64 bytes")[0]));
        assert_eq!(terms("CO2 and H2O"), terms("carbon dioxide and water"));
        // An equation's coefficients are counts of what follows them.
        assert_eq!(
            terms("6CO2 + 6H2O -> C6H12O6 + 6O2"),
            terms("six carbon dioxide, six water, glucose, six oxygen")
        );
    }

    #[test]
    fn negations_reach_a_few_words_up_to_the_clause_end() {
        let negated: Vec<(String, bool)> = tokens("Canberra, not Sydney. Mitochondria don't make proteins")
            .into_iter()
            .map(|t| (t.term, t.negated))
            .collect();
        let flags: Vec<bool> = negated.iter().map(|(_, n)| *n).collect();
        assert_eq!(flags, vec![false, true, false, true, true], "{negated:?}");
        let none: Vec<(String, bool)> =
            tokens("zero redundancy, zero kelvin").into_iter().map(|t| (t.word, t.negated)).collect();
        assert_eq!(none, vec![("redundancy".to_string(), true), ("zero".to_string(), false)]);
        let amount = tokens("not enough water left for microbes");
        assert!(amount.iter().all(|t| !t.negated), "an amount, not a denial: {amount:?}");
        assert!(amount.iter().any(|t| t.same_as(&tokens("too little").remove(0))));
        // A relative clause's denial is of its one word.
        let runoff: Vec<(String, bool)> = tokens("water that is not absorbed flows over the land")
            .into_iter()
            .map(|t| (t.word, t.negated))
            .collect();
        let flags: Vec<bool> = runoff.iter().map(|(_, n)| *n).collect();
        assert_eq!(flags, vec![false, true, false, false], "{runoff:?}");
        let heads = |text: &str| denied_heads(text).into_iter().map(|t| t.word).collect::<Vec<_>>();
        assert_eq!(heads("no effect on viruses, so they can't cure colds"), ["effect", "cure"]);
        assert_eq!(heads("hardens by hydration rather than simply by drying out"), ["drying"]);
    }

    #[test]
    fn typos_and_amounts_are_the_same_word() {
        let one = |text: &str| tokens(text).remove(0);
        assert!(one("sharin").same_as(&one("sharing")));
        assert!(!one("cat").same_as(&one("car")), "short words must match exactly");
        assert!(one("about two inches").same_as(&one("5 cm")));
        assert!(!one("1945").same_as(&one("1919")));
    }

    #[test]
    fn coverage_counts_key_terms() {
        let key = terms("binary search runs in logarithmic time");
        let (score, present) = coverage(&key, &terms("it's a binary search, log time"));
        assert!((score - 0.6).abs() < 1e-9, "{score}");
        assert_eq!(present, vec!["binari", "search", "time"]);
    }

    #[test]
    fn dont_know_phrases() {
        assert!(is_dont_know("I don’t remember"));
        assert!(is_dont_know("no idea, sorry"));
        assert!(!is_dont_know("ribosomes make proteins"));
        assert!(is_dont_know("pass"));
        assert!(is_dont_know("i'll pass on this one") && is_dont_know("hmm pass for now"));
        assert!(
            !is_dont_know("water can pass through the membrane") && !is_dont_know("they pass on their genes")
        );
        assert_eq!(said_before_dont_know("the golgi, no wait, pass").as_deref(), Some(" the golgi no wait "));
        assert!(is_dont_know("I've completely forgotten"));
        assert!(is_dont_know("read it this morning and it's just gone"));
        assert!(is_dont_know("it's gone, sorry") && is_dont_know("nope, it's gone from my head"));
        assert!(is_dont_know("the sine rule... nope, gone. all i can think of is soh cah toa"));
        assert!(!is_dont_know("fold it through while it's still hot, not once it's gone cold"));
        assert!(is_dont_know("it's on the tip of my tongue but no") && is_dont_know("I can't recall"));
        assert!(is_dont_know("I forget") && !is_dont_know("we forget slowly at first"));
        assert!(!is_dont_know("Who came up with en passant?"));
        assert!(!is_dont_know("light passes from one medium into another"));
        assert!(is_dont_know("nope, got nothing on this one") && is_dont_know("drawing a blank here"));
        assert!(!is_dont_know("the peasants got nothing from the reforms"));
        assert!(!is_dont_know("got chocolate on the ceiling. still no idea what I did wrong"));
        assert!(is_dont_know("no idea what it's called") && is_dont_know("no idea what i should say"));
        assert!(is_dont_know("no idea what i learned about this") && is_dont_know("i forget what i learned"));
    }

    #[test]
    fn a_share_is_one_amount_however_it_is_said_and_a_decade_is_near_its_years() {
        let q = |text: &str| tokens(text).into_iter().find_map(|t| t.quantity);
        let same = |a: &str, b: &str| q(a).zip(q(b)).is_some_and(|(a, b)| a.matches(&b));
        let near = |a: &str, b: &str| q(a).zip(q(b)).is_some_and(|(a, b)| a.is_near(&b));
        assert!(same("75%", "three quarters") && same("75 per cent", "3/4") && same("5 percent", "0.05"));
        assert!(!same("40%", "45%") && !same("70%", "three quarters"));
        assert!(same("a fifth of a gram", "0.2 grams"));
        assert!(same("75%", "75"), "a share said without its mark is still its number");
        assert!(!same("the 1880s", "1884") && near("mid 1880s", "1884") && near("mid 1880s", "85"));
        assert!(!near("the 1890s", "1884") && same("the 1700s", "18th century") && near("the 1700s", "1750"));
        assert!(same("back in the 900s", "the 10th-century Danish king") && !same("the 900s", "1900"));
    }

    #[test]
    fn a_bound_under_a_denial_is_said_not_denied() {
        let bound = tokens("no turbine can capture more than about 59% of the energy");
        assert!(bound.iter().any(|t| t.word == "59" && !t.negated), "{bound:?}");
        assert!(bound.iter().any(|t| t.word == "turbine" && t.negated), "{bound:?}");
        let denied = tokens("no turbine can capture more energy");
        assert!(denied.iter().any(|t| t.word == "energy" && t.negated), "{denied:?}");
    }

    #[test]
    fn a_rough_year_is_said_by_the_part_of_a_span_it_falls_in() {
        let year = |text: &str| tokens(text).into_iter().find(|t| t.quantity.is_some()).expect("a number");
        let rough = year("around 1450");
        assert!(year("in the mid 1400s").same_as(&rough));
        assert!(year("mid-1400s").same_as(&rough));
        assert!(year("the 1450s").same_as(&rough));
        assert!(!year("the early 1400s").same_as(&rough), "another part of the century");
        assert!(!year("the 1400s").same_as(&rough), "a whole century says no year");
        assert!(year("the early 1940s").same_as(&year("about 1942")));
        assert!(!year("the late 1940s").same_as(&year("about 1942")));
        assert!(!year("the mid 1400s").same_as(&year("1450")), "an exact year is the answer");
    }

    #[test]
    fn a_span_of_time_is_one_amount_in_any_unit() {
        let q = |text: &str| tokens(text).into_iter().find_map(|t| t.quantity);
        let same = |a: &str, b: &str| q(a).zip(q(b)).is_some_and(|(a, b)| a.matches(&b));
        assert!(same("about 500 years before Columbus", "roughly five centuries before him"));
        assert!(
            same("two weeks", "14 days") && same("18 months", "1.5 years") && same("two decades", "20 years")
        );
        assert!(!same("five centuries", "the 5th century") && !same("3 years", "3 months"));
        assert!(same("the 14th and 15th centuries", "the 14th century"));
    }
}

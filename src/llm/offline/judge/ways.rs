//! A way from one thing to another, as a point says it ("converts toxic ammonia into urea",
//! "transferred from a metal to a non-metal", "X is made of Y"), and the message running it
//! backwards, in the wording alone.

use crate::text::{Token, tokens};

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
        // "Copy their RNA genome into DNA", "translate mRNA into protein": one made from the other.
        " copy ",
        " copies ",
        " copied ",
        " copying ",
        " transcribe ",
        " transcribes ",
        " transcribed ",
        " translate ",
        " translates ",
        " translated ",
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

/// What a text says is made of what ("builds a syntax tree from the tokens", "makes a list of
/// tokens out of the raw text"): the source's words and the product's.
fn made_of(text: &str) -> Option<Way> {
    const MAKES: &[&str] = &[
        " build ",
        " builds ",
        " built ",
        " make ",
        " makes ",
        " made ",
        " create ",
        " creates ",
        " created ",
        " produce ",
        " produces ",
        " produced ",
        " form ",
        " forms ",
        " formed ",
        " generate ",
        " generates ",
    ];
    let spaced =
        format!(" {} ", crate::text::words_spaced(text).split_whitespace().collect::<Vec<_>>().join(" "));
    let (_, made) =
        MAKES.iter().filter_map(|verb| spaced.split_once(verb)).min_by_key(|(before, _)| before.len())?;
    let (product, source) = [" from ", " out of "]
        .iter()
        .filter_map(|of| made.split_once(of))
        .min_by_key(|(product, _)| product.len())?;
    let (source, product) = (tokens(phrase(source)), tokens(phrase(product)));
    (!source.is_empty() && !product.is_empty()).then_some((source, product))
}

/// Whether the message makes what the point makes things from, and not what the point makes:
/// "the parser makes a list of tokens out of the source text" for "the parser builds a syntax
/// tree from the tokens".
pub(super) fn makes_the_source(point: &str, said: &str) -> bool {
    let (Some((from, to)), Some((_, said_to))) = (made_of(point), made_of(said)) else { return false };
    let has = |end: &[Token], t: &Token| end.iter().any(|e| e.same_as(t));
    let ins: Vec<&Token> = from.iter().filter(|t| !has(&to, t)).collect();
    let outs: Vec<&Token> = to.iter().filter(|t| !has(&from, t)).collect();
    !outs.is_empty() && ins.iter().any(|t| has(&said_to, t)) && !outs.iter().any(|t| has(&said_to, t))
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
        " according ",
    ];
    let padded_end =
        ENDS.iter().filter_map(|end| format!(" {text}").find(end)).min().unwrap_or(text.len() + 1);
    &text[..padded_end.saturating_sub(1).min(text.len())]
}

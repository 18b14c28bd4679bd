//! The offline evaluator's judgement of one point against a learner's message. Words are
//! compared as canonical stems (base forms, synonyms, Snowball), numbers by value and unit,
//! typos within an edit or two, and negation by polarity. Words the tutor's question already
//! said count for little: repeating the question is not recalling the answer. Words several
//! points share count for less than the ones that tell a point apart.
//!
//! With the sentence model, meaning joins the words ([`Features`]): how well the message's
//! words in context cover each word of the point the learner had to supply ("build proteins
//! from mRNA" covers "translate messenger RNA into proteins"), how near the point is to the
//! message and to its nearest clause, how near the message is to the tutor's question (saying
//! it back is not recalling), how well each clause of the point is said, and whether a word of
//! the same kind stands where one of the point's should be. One logistic formula,
//! fitted on `evals/evaluator.jsonl` and no other case (`scripts/fit-judge`), weighs them.
//! Rules the formula cannot overturn ([`Flags::rule_out`]) keep what words decide surely:
//! another number or unit, the opposite word (or what the point denies said plainly, its way
//! run backwards, one of its clauses or directions turned round), a question back, an answer
//! that trails or breaks off (or answers half of a question of two things), another point's
//! subject in its place (or another point said instead), the point's pairs swapped (or
//! crossed with another point's, or compared the other way round), a thing
//! denied by name, a sibling term in place of one of its words (WordNet's nouns:
//! [`crate::text::kinship`]), a figure of the point the learner had to supply never said.
//!
//! Here: what one judgement reads of the message and the question ([`Context`]) and the verdict
//! it returns. The verdict by words is in `lexical`; the rules that weigh the message against
//! the other points and the question in `rules`; the features and their fitted formula in
//! `formula`. What the wording of a text alone says (its clauses, a gap, a swap) is in
//! `wording`, what turns a point round (an opposite, a way run backwards) in `turned`; what
//! the model's reading of it gives (names, stretches, phrases, a point's parts) in `reading`.

mod formula;
mod lexical;
mod reading;
mod rules;
mod swaps;
#[cfg(test)]
mod tests;
mod turned;
mod ways;
mod wording;

use std::collections::HashMap;

use crate::embed::{Reading, similarity};
use crate::llm::Role;
use crate::llm::brief::{EvaluatorBrief, PointBrief};
use crate::text::{Token, equations, growth, role_tokens, tokens};

pub use formula::Features;
pub use reading::parts;
use reading::{meaning_word, stretches};
use ways::way;
pub(super) use wording::trails_off;
use wording::{asked_sentences, clauses, proper_names};

/// How a message stands against one point.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// Share of the point's weight the message carries (0..1).
    pub score: f64,
    pub recalled: bool,
    pub near: bool,
    /// The point's words the message has (or, by meaning, stands for), as the point writes them.
    pub present: Vec<String>,
    /// The message denies the point, has its number wrong, or asks rather than says.
    pub vetoed: bool,
    /// Which of those, for measuring.
    pub flags: Flags,
    /// The message is the point's quoted word and nothing else, and the question did not give
    /// it ("TAKE!" for climbers shout "take"): the answer the point is about, however little
    /// else of it comes along.
    pub says_the_quoted: bool,
}

/// What the words say against a recall. A negation (`opposed`) is weighed, as it is read less
/// surely than it reads; the others are rules: no point is recalled by a message that asks
/// rather than says, trails off before saying all of it, has another number of its kind in
/// place of the point's, or the opposite of one of its words ("repel" for "attract"). Such a
/// message may still be a near miss.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Flags {
    /// A number, unit or operation of the point missing, and another of its kind in the message.
    pub wrong_number: bool,
    /// The message denies a word of the point.
    pub opposed: bool,
    /// The message asks rather than says.
    pub asks: bool,
    /// The message trails off, naming what escapes the learner, before saying all of it.
    pub partial: bool,
    /// The message has the opposite of one of the point's words in its place.
    pub opposite: bool,
    /// The message names another point's subject in place of this point's ("the nucleus makes
    /// ATP" for the mitochondria's point).
    pub another_point: bool,
    /// The message swaps what the point pairs ("phloem carries water and xylem sugar").
    pub swapped: bool,
    /// The message denies one of the point's things by name, and never says it ("definitely
    /// not the pituitary", "not around the Ring of Fire").
    pub denied: bool,
    /// The message has a sibling of a word of the point in its place, and not the word: another
    /// kind of the same thing ("troposphere" for "stratosphere", "Kenya" for "Tanzania"; see
    /// [`crate::text::kinship`]).
    pub sibling: bool,
    /// The point has a number the learner had to supply, and the message says it nowhere
    /// ("when the p value is really small" for "below 0.05"; "it killed loads of people" for
    /// "about a third to half").
    pub unsaid_number: bool,
}

impl Flags {
    /// Whether a rule rules out a recall.
    pub fn rule_out(&self) -> bool {
        self.wrong_number
            || self.asks
            || self.partial
            || self.opposite
            || self.another_point
            || self.swapped
            || self.denied
            || self.sibling
            || self.unsaid_number
    }
}

/// What a point is judged against: the message, what the learner was already told (the
/// tutor's question, the set's name), and the other unchecked points.
pub struct Context {
    /// The message as written.
    said_text: String,
    message: Vec<Token>,
    /// Words of the tutor's last question and of the set's name.
    given: Vec<Token>,
    /// Words of the tutor's last question alone.
    asked: Vec<Token>,
    /// The tutor's last question as written.
    asked_text: String,
    /// The names in it ("Michelangelo"): capitalised words past each sentence's first.
    asked_names: Vec<Token>,
    /// Words of the set's name (and in today's review, every set's).
    named: Vec<Token>,
    /// The question's words as written, for compounds ("sunlight" gives "sun" and "light").
    asked_words: Vec<String>,
    others: Vec<Vec<Token>>,
    /// The unchecked points' ids, in the order of `others`.
    ids: Vec<String>,
    /// Each sentence of the message with its words, and whether it asks (ends with "?").
    asks: Vec<(Vec<Token>, bool)>,
    /// The message ends by saying the rest escapes the learner ("…, I forget the last one").
    trails_off: bool,
    /// The tutor's question asks two things ([`wording::asks_two_things`]).
    asks_two: bool,
    meaning: Option<Meaning>,
    /// The words of each word the model read of the message (none for "the", "is", …).
    message_words: Vec<Vec<Token>>,
    /// The message's clauses, as words.
    message_clauses: Vec<Vec<Token>>,
    /// The message's clauses, as words with those that can carry a role ([`role_tokens`]).
    message_roles: Vec<Vec<Token>>,
    /// Where the message says something goes ([`turned::way`]), if it does.
    message_way: Option<ways::Way>,
    /// The operations of the message's equations ([`equations::operations`]).
    message_operations: Vec<char>,
    /// The orders of growth the message names ("O(n)").
    message_orders: Vec<growth::Order>,
    /// The compounds the message makes of a number ([`wording::numbered_compounds`]).
    message_compounds: Vec<(String, String)>,
    /// The message's clauses and neighbouring pairs of them, and the whole, as vectors.
    stretches: Vec<crate::embed::Vector>,
    /// By point id: the cosine of the point and the message's stretch nearest it.
    clauses: HashMap<String, f64>,
}

/// What the sentence model read: the message, the tutor's last question, each point.
pub struct Meaning {
    /// The message, its words read after the tutor's question.
    pub message: Reading,
    pub question: Option<Reading>,
    /// The question and the message read as one text (none without a question).
    pub answered: Option<crate::embed::Vector>,
    /// By point id.
    pub points: HashMap<String, Reading>,
    /// By point id, each clause of a point of several (see [`parts`]).
    pub parts: HashMap<String, Vec<Reading>>,
}

impl Context {
    pub fn new(brief: &EvaluatorBrief, meaning: Option<Meaning>) -> Self {
        let question = question(brief).unwrap_or_default();
        let asked = tokens(question);
        let mut named = tokens(&brief.set_name);
        // In today's review every set's name is on the page: naming one is no recall.
        for set in &brief.review {
            named.extend(tokens(&set.name));
        }
        // Asked about "Bach", "Johann Sebastian" is given away with him.
        let contents: Vec<&str> = brief.unchecked.iter().map(|p| p.content.as_str()).collect();
        let in_full = wording::named_in_full(&contents, question);
        let given = asked.iter().chain(&named).chain(&in_full).cloned().collect();
        Self {
            said_text: brief.learner_message.clone(),
            message: tokens(&brief.learner_message),
            given,
            asked,
            asked_text: question.to_string(),
            asked_names: proper_names(question),
            named,
            asked_words: question
                .to_lowercase()
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| w.len() > 5)
                .map(str::to_string)
                .collect(),
            others: brief
                .unchecked
                .iter()
                .map(|p| key(&p.content).into_iter().map(|(t, _)| t).collect())
                .collect(),
            ids: brief.unchecked.iter().map(|p| p.id.clone()).collect(),
            // A question back ("is it the ribosome?") is a guess, not a recall.
            asks: asked_sentences(&brief.learner_message),
            trails_off: trails_off(&brief.learner_message),
            asks_two: wording::asks_two_things(question),
            message_words: Vec::new(),
            message_clauses: clauses(&brief.learner_message).iter().map(|c| tokens(c)).collect(),
            message_roles: clauses(&brief.learner_message).iter().map(|c| role_tokens(c)).collect(),
            message_way: way(&brief.learner_message),
            message_operations: equations::operations(&brief.learner_message),
            message_orders: growth::orders(&brief.learner_message),
            message_compounds: wording::numbered_compounds(&brief.learner_message),
            stretches: Vec::new(),
            clauses: HashMap::new(),
            meaning: None,
        }
        .with_meaning(meaning)
    }

    /// The message's stretches and each point's nearest one, once a message.
    fn with_meaning(mut self, meaning: Option<Meaning>) -> Self {
        if let Some(meaning) = &meaning {
            self.message_words = meaning
                .message
                .words
                .iter()
                .map(|w| meaning_word(&self.said_text, w.span.clone()).map(tokens).unwrap_or_default())
                .collect();
            self.stretches = stretches(&self.said_text, &meaning.message);
            self.clauses = meaning
                .points
                .iter()
                .map(|(id, point)| (id.clone(), self.nearest(&point.sentence)))
                .collect();
        }
        self.meaning = meaning;
        self
    }

    /// The cosine of `vector` and the message's stretch nearest it.
    fn nearest(&self, vector: &[f32]) -> f64 {
        self.stretches.iter().map(|s| f64::from(similarity(s, vector))).fold(0.0, f64::max)
    }

    /// Whether the learner was already told every word of a text.
    fn is_given_text(&self, text: &str) -> bool {
        tokens(text).iter().all(|k| self.is_given(k))
    }

    /// How many unchecked points have `t` among their words (this one too, if it does).
    fn owners(&self, t: &Token) -> usize {
        self.others.iter().filter(|other| other.iter().any(|o| o.same_as(t))).count()
    }

    /// Whether the learner was already told a word of the point.
    fn is_given(&self, k: &Token) -> bool {
        self.given.iter().any(|g| g.same_as(k))
            || (k.word.len() >= 3
                && k.quantity.is_none()
                && self.asked_words.iter().any(|w| w.contains(&k.word)))
    }

    pub fn judge(&self, point: &PointBrief) -> Verdict {
        let lexical = self.lexical(point);
        match self.features(point, &lexical) {
            Some((features, present)) => self.decide(&features, lexical, present),
            None => lexical,
        }
    }

    /// What the formula weighs of `point`; None without the sentence model.
    pub fn judge_features(&self, point: &PointBrief) -> Option<Features> {
        self.features(point, &self.lexical(point)).map(|(features, _)| features)
    }

    /// How much a word of a point counts: numbers most, generic words and words several points
    /// share less.
    fn weight(&self, k: &Token) -> f64 {
        let mut weight = if k.quantity.is_some() { 1.5 } else { 1.0 };
        if k.is_generic() {
            weight *= 0.4;
        }
        // The point itself is among `others`.
        let shared = self.others.iter().filter(|other| other.iter().any(|o| o.term == k.term)).count();
        weight / shared.max(1) as f64
    }
}

/// The tutor's last question in the conversation, if any.
pub fn question(brief: &EvaluatorBrief) -> Option<&str> {
    brief.recent.iter().rev().find(|m| m.role == Role::Assistant).map(|m| m.content.as_str())
}

/// Where each character of a point stands: in its own words, in an aside, or a bracket that
/// opens or closes an aside.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    Main,
    Aside,
    Bracket,
}

/// Each character of `content` with its byte offset and [`Place`]. An aside is a stretch in
/// parentheses opened after a space or a punctuation mark ("light (mostly red and blue)"); one
/// opened right after a letter is a function's ("P(A and B)") and stays in the text it stands in.
fn places(content: &str) -> impl Iterator<Item = (usize, char, Place)> + '_ {
    // For each open bracket, whether it opens an aside.
    let mut open: Vec<bool> = Vec::new();
    let mut previous = ' ';
    content.char_indices().map(move |(at, c)| {
        let bracket = match c {
            '(' => {
                open.push(!previous.is_alphanumeric());
                open.last().copied()
            }
            ')' => Some(open.pop().unwrap_or(false)),
            _ => None,
        };
        previous = c;
        let place = if bracket == Some(true) {
            Place::Bracket
        } else if open.iter().any(|a| *a) {
            Place::Aside
        } else {
            Place::Main
        };
        (at, c, place)
    })
}

/// Where a point's asides are, in bytes, brackets included. An aside weighs less than the
/// point's own words (see [`key`]).
fn asides(content: &str) -> Vec<std::ops::Range<usize>> {
    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
    for (at, c, place) in places(content) {
        if place == Place::Main {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.end == at => last.end = at + c.len_utf8(),
            Some(_) | None => out.push(at..at + c.len_utf8()),
        }
    }
    out
}

/// The point without its asides, for reading its clauses.
pub(super) fn without_asides(content: &str) -> String {
    let mut out = String::with_capacity(content.len());
    let mut from = 0;
    for aside in asides(content) {
        out.push_str(content.get(from..aside.start).unwrap_or_default());
        from = aside.end;
    }
    out.push_str(content.get(from..).unwrap_or_default());
    out.split_whitespace().collect::<Vec<_>>().join(" ").replace(" ,", ",").replace(" .", ".")
}

/// A point's content words, each once, and whether each was said in parentheses (an
/// alternative or an aside: "Litmus (an indicator)", "93 °C (200 °F)").
fn key(content: &str) -> Vec<(Token, bool)> {
    let (mut main, mut aside) = (String::new(), String::new());
    for (_, c, place) in places(content) {
        match place {
            Place::Bracket => {
                main.push(' ');
                aside.push(' ');
            }
            Place::Aside => aside.push(c),
            Place::Main => main.push(c),
        }
    }
    let mut out: Vec<(Token, bool)> = Vec::new();
    let all =
        tokens(&main).into_iter().map(|t| (t, false)).chain(tokens(&aside).into_iter().map(|t| (t, true)));
    for (token, is_aside) in all {
        // The same number in other units is another figure ("One parsec … one arcsecond").
        if !out.iter().any(|(t, _)| t.term == token.term && t.quantity == token.quantity) {
            out.push((token, is_aside));
        }
    }
    out
}

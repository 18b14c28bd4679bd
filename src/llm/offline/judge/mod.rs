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
//! Here: the judgement of one point ([`Context`]), its features and its fitted formula, so a
//! change to a feature and to its weight are seen together, and the rules that weigh the
//! message against the other points. What the wording of a text alone says (its clauses, a
//! gap, a swap) is in `wording`, what turns a point round (an opposite, a way run backwards) in
//! `turned`; what the model's reading of it gives
//! (names, stretches, phrases, a point's parts) in `reading`. Long by design: one judgement.

mod reading;
#[cfg(test)]
mod tests;
mod turned;
mod wording;

use std::collections::HashMap;

use crate::embed::{Reading, similarity};
use crate::llm::Role;
use crate::llm::brief::{EvaluatorBrief, PointBrief};
use crate::text::numbers::{self, Quantity};
use crate::text::{Token, equations, growth, role_tokens, tokens};

pub use reading::parts;
use reading::{meaning_word, names, phrases, stretches};
use turned::{
    acts_backwards, compared_the_other_way, makes_the_source, moves_the_denial, reverses, runs_backwards,
    runs_from_the_other_end, says_the_opposite, turned_in_a_clause, turns_direction, turns_up_or_down, way,
};
pub(super) use wording::trails_off;
use wording::{asked_sentences, clauses, is_number_like, proper_names, swapped, swapped_marks};

/// Share of a point's weight a message must carry to recall it.
const RECALL: f64 = 0.5;
/// Enough when the message has the point's number right: numbers are strong evidence.
const RECALL_WITH_NUMBER: f64 = 0.3;
/// Share for a near miss.
const NEAR: f64 = 0.25;

/// The formula that joins meaning and words: a weight for each of [`Features`], in its
/// order, then the bias. Fitted by logistic regression (L2 penalty 0.3) on the development
/// cases only: `warren eval evaluator evals/evaluator.jsonl --features F`, then
/// `scripts/fit-judge F`. The fit had one more feature, a crossed pairing, since made the
/// rule [`Flags::swapped`]; refitted without it the formula scores the same F1 on the
/// development set (0.821 at penalty 0.3, 0.815 at 3) with lower precision, and a point
/// wrongly marked recalled costs a learner more than one missed, so these weights stay.
const WEIGHTS: [f64; FEATURES] =
    [-1.246, 0.103, -0.545, 4.866, -2.819, 0.901, -0.330, 1.524, 1.194, 1.464, 0.464, 0.272, 6.059];
const BIAS: f64 = -4.560;
/// Log-odds from which a point counts as recalled (the development set's best F1) and from
/// which it is a near miss (its best F2: a near miss only words the tutor's reply).
const RECALL_ODDS: f64 = -1.104;
const NEAR_ODDS: f64 = -2.506;

/// How many features the formula weighs.
pub const FEATURES: usize = 13;

/// What the fitted formula weighs of one point against one message.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Features {
    /// Share of the point's weight the message's words carry (0..1).
    pub lexical: f64,
    /// 1 when the words alone recall the point.
    pub lexical_recalled: f64,
    /// Cosine of the message and the point.
    pub near_point: f64,
    /// How well the message covers, word by word in context, the point's words it had to supply.
    pub cover: f64,
    /// Cosine of the message and the tutor's question (saying it back is not recalling).
    pub near_question: f64,
    /// Cosine of the point and the question and message read as one ("When was the Battle of
    /// Hastings? ten sixty-six"); the message's own without a question.
    pub answered: f64,
    /// 1 when the words veto a recall: a denial, a wrong number, a question back.
    pub vetoed: f64,
    /// Cosine of the point and the stretch of the message nearest it (a clause or two
    /// neighbouring ones), which a run-on answer about several things hides in the whole.
    pub clause: f64,
    /// That, less the same for the nearest other unchecked point.
    pub margin: f64,
    /// How well stretches of the message stand for each two neighbouring words of the point,
    /// the point's phrases ("a harmless form of a pathogen": "a weakened version of the bug").
    pub phrases: f64,
    /// For a point of several clauses, the cosine of its least said clause and the message's
    /// stretch nearest it (the point's own nearest without clauses): a half answer leaves one
    /// clause unsaid.
    pub least_part: f64,
    /// The mean of the same over its clauses.
    pub parts: f64,
    /// How much a word the message has in place of one of the point's looks like it: a word
    /// of the same kind where the point's should be ("troposphere" for "stratosphere"), times
    /// the share of the point the words carry (a paraphrase replaces many words, a wrong
    /// detail one).
    pub stand_in: f64,
    /// What the words say against a recall (not weighed: see [`Flags`]).
    pub flags: Flags,
}

impl Features {
    /// In the order of [`WEIGHTS`].
    pub fn values(&self) -> [f64; FEATURES] {
        [
            self.lexical,
            self.lexical_recalled,
            self.near_point,
            self.cover,
            self.near_question,
            self.answered,
            self.vetoed,
            self.clause,
            self.margin,
            self.phrases,
            self.least_part,
            self.parts,
            self.stand_in,
        ]
    }

    /// The formula's log-odds that the point is recalled.
    pub fn odds(&self) -> f64 {
        BIAS + WEIGHTS.iter().zip(self.values()).map(|(w, x)| w * x).sum::<f64>()
    }
}

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
    message_way: Option<turned::Way>,
    /// The operations of the message's equations ([`equations::operations`]).
    message_operations: Vec<char>,
    /// The orders of growth the message names ("O(n)").
    message_orders: Vec<growth::Order>,
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

/// Words (content words and numbers) of an answer that may leave its subject to the question.
const SHORT_ANSWER: usize = 8;

/// A clause of the point's reason said this nearly by a stretch of the message is said.
const REASON_SAID: f64 = 0.6;

/// A word of a point covered this well (cosine in context) is as good as said.
const COVERED: f32 = 0.7;

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

    /// Whether the message names another point's subject where this point's is missing: the
    /// point's first word (its subject, as points are written) unsaid, and a clause of the
    /// message opening on a word that belongs to another unchecked point and not to this one,
    /// followed by one of this point's ("the nucleus makes ATP").
    fn names_another_subject(&self, key: &[&Token]) -> bool {
        let ours = |m: &Token| key.iter().any(|k| k.same_as(m));
        let Some(subject) = key.iter().find(|k| !k.is_generic() && k.quantity.is_none() && !self.is_given(k))
        else {
            return false;
        };
        if self.message.iter().any(|m| m.same_as(subject)) {
            return false;
        }
        let anothers = |m: &Token| {
            !m.negated
                && !m.is_generic()
                && m.quantity.is_none()
                && !ours(m)
                && !self.given.iter().any(|g| g.same_as(m))
                && self.owners(m) > 0
        };
        // Asked of another point's thing, the learner gives it this point's ("green goes to the
        // best climber", asked about the green jersey, for the polka-dot jersey's point): the
        // question's word, only that point's, opens a clause, and two of this point's words
        // follow that were not asked and are not that point's too.
        let asked_anothers = |m: &Token| -> Option<&Vec<Token>> {
            let plain = !m.negated && !m.is_generic() && m.quantity.is_none() && !ours(m);
            let asked = self.asked.iter().any(|a| a.same_as(m));
            let mut owners = self.others.iter().filter(|other| other.iter().any(|o| o.same_as(m)));
            match (owners.next(), owners.next()) {
                (Some(other), None) if plain && asked => Some(other),
                _ => None,
            }
        };
        let ours_alone = |t: &Token, other: &[Token]| {
            !t.negated
                && !t.is_generic()
                && ours(t)
                && !self.is_given(t)
                && !other.iter().any(|o| o.same_as(t))
        };
        let clauses = &self.message_clauses;
        clauses.iter().enumerate().any(|(i, clause)| match clause.as_slice() {
            // The clause opens on the other point's word, and this point's come right after it.
            [first, second, ..] if anothers(first) && ours(second) && !second.negated => true,
            // Or on the question's, and this point's follow in it and the clause after it.
            [first, rest @ ..] => asked_anothers(first).is_some_and(|other| {
                let next = clauses.get(i + 1).map(Vec::as_slice).unwrap_or_default();
                let in_it = rest.iter().filter(|t| ours_alone(t, other)).count();
                in_it >= 1 && in_it + next.iter().filter(|t| ours_alone(t, other)).count() >= 2
            }),
            [] => false,
        })
    }

    /// Whether the message says another point instead of this one: none of the words only this
    /// point has, and two or more that only another has ("git clone creates a new empty
    /// repository" says what "git init" does, not what "git clone" does).
    fn says_another_instead(&self, key: &[&Token]) -> bool {
        // A message of several clauses may say this point in other words and another in its own.
        if self.message_clauses.len() > 1 {
            return false;
        }
        let said = |t: &Token| self.message.iter().any(|m| !m.negated && m.same_as(t));
        let telling =
            |t: &Token| !t.is_generic() && t.quantity.is_none() && !self.is_given(t) && self.owners(t) == 1;
        let ours: Vec<&&Token> = key.iter().filter(|k| telling(k)).collect();
        if ours.is_empty() || ours.iter().any(|k| said(k)) {
            return false;
        }
        let ours_or_shared = |t: &Token| key.iter().any(|k| k.same_as(t));
        self.others
            .iter()
            .any(|other| other.iter().filter(|t| said(t) && !ours_or_shared(t) && telling(t)).count() >= 2)
    }

    /// Whether the message, leaving its subject to the question, says this point's thing of the
    /// question's subject, which is another point's: asked about criminal cases, "the balance
    /// of probabilities" (the point on civil cases); asked about Michelangelo, "he painted the
    /// Mona Lisa" (the point on Leonardo). Such an answer is short (a longer one that goes on
    /// to another point names it or says it in other words). This point's subject (its first
    /// telling word not in the set's name) is neither asked nor said; the question has a word
    /// of another point that this one lacks, and none of this point's that the other lacks;
    /// and the message says nothing of that other point beyond the question (else it answered
    /// it, then went on). Unless the question names the other point's subject
    /// ("Michelangelo"), it also reads nearer that point than this one to the sentence model,
    /// where there is one.
    fn answers_for_another(&self, id: &str, content: &str, key: &[&Token]) -> bool {
        let has = |words: &[&Token], t: &Token| words.iter().any(|w| w.same_as(t));
        let telling = |t: &Token| !t.negated && !t.is_generic() && t.quantity.is_none();
        let named = |t: &Token| self.named.iter().any(|n| n.same_as(t));
        let asked: Vec<&Token> = self.asked.iter().filter(|t| telling(t) && !named(t)).collect();
        let Some(subject) = key.iter().find(|k| telling(k) && !named(k)) else {
            return false;
        };
        let short = self.message.len() <= SHORT_ANSWER;
        // "locke! … natural rights": a message that opens on this point's own name leaves
        // nothing to the question ("he painted the Mona Lisa" does).
        let names_ours = self.message.first().is_some_and(|first| {
            !first.negated
                && proper_names(content)
                    .iter()
                    .any(|name| self.owners(name) == 1 && !has(&asked, name) && first.same_as(name))
        });
        if !short
            || asked.is_empty()
            || has(&asked, subject)
            || self.message.iter().any(|m| m.same_as(subject))
            || names_ours
        {
            return false;
        }
        // Without the model, or where it did not read the question, the words decide alone.
        let asked_nearer = |other: &str| {
            let Some(meaning) = &self.meaning else { return true };
            let near = |point: &str| {
                meaning
                    .question
                    .as_ref()
                    .zip(meaning.points.get(point))
                    .map(|(q, p)| similarity(&q.sentence, &p.sentence))
            };
            match (near(other), near(id)) {
                (Some(theirs), Some(ours)) => theirs > ours,
                _ => true,
            }
        };
        self.ids.iter().zip(&self.others).filter(|(other, _)| *other != id).any(|(other_id, other)| {
            let other: Vec<&Token> = other.iter().collect();
            let theirs = |t: &Token| has(&other, t) && !has(key, t);
            asked.iter().copied().any(&theirs)
                && (self.asked_names.iter().any(&theirs) || asked_nearer(other_id))
                && !asked.iter().any(|q| has(key, q) && !has(&other, q))
                && !self.message.iter().any(|m| telling(m) && theirs(m) && !has(&asked, m))
        })
    }

    /// Whether the message denies a thing the point names ("not the", "not around the", "isn't
    /// a" before one of its words) and never says it outright: "definitely not the pituitary,
    /// that one's tiny". A negated verb ("energy can't be made or destroyed") says the point.
    fn denies_by_name(&self, key: &[&Token]) -> bool {
        const DENIALS: &[&str] = &["not", "isn't", "isnt", "wasn't", "wasnt", "aren't", "arent", "never"];
        const BETWEEN: &[&str] =
            &["around", "in", "to", "from", "on", "at", "for", "of", "with", "about", "by", "just"];
        let spaced = crate::text::words_spaced(&self.said_text);
        let words: Vec<&str> = spaced.split_whitespace().collect();
        words.iter().enumerate().filter(|(_, w)| DENIALS.contains(w)).any(|(i, _)| {
            let mut at = i + 1;
            if words.get(at).is_some_and(|w| BETWEEN.contains(w)) {
                at += 1;
            }
            if !words.get(at).is_some_and(|w| matches!(*w, "the" | "a" | "an")) {
                return false;
            }
            let named = words.get(at + 1).map(|w| tokens(w)).unwrap_or_default();
            // A word the point denies too ("non-steroidal": "not a steroid") is agreed with.
            key.iter().filter(|k| !k.is_generic() && k.quantity.is_none() && !k.negated).any(|k| {
                named.iter().any(|n| n.same_as(k)) && !self.message.iter().any(|m| !m.negated && m.same_as(k))
            })
        })
    }

    /// Whether the message has, where a word of the point should be, another kind of the same
    /// thing: a word of the point missing, and a word of the message that is no point's, nor
    /// the question's, nor a kind of a missing one ("enzymes" for proteins), and is
    /// its sibling in WordNet ("Danton and the Committee of Public Safety" for Robespierre's
    /// point). Never without WordNet's nouns.
    fn names_a_sibling(&self, point: &str, key: &[&Token]) -> bool {
        let Some(nouns) = crate::text::kinship::nouns() else { return false };
        let plain = |t: &Token| !t.is_generic() && t.quantity.is_none();
        // Kin are nouns: "correctly rejects" and "you pick up" are verbs, whatever WordNet's
        // nouns "reject" and "pick" are to each other.
        let (point_verbs, message_verbs) = (wording::verbs(point), wording::verbs(&self.said_text));
        let lacking: Vec<&str> = key
            .iter()
            .filter(|k| !point_verbs.contains(&k.word))
            .filter(|k| plain(k) && !self.is_given(k) && !self.message.iter().any(|m| m.same_as(k)))
            // Said in another word for the same thing ("intestines" for "gut"), it is not lacking.
            .filter(|k| !self.message.iter().any(|m| nouns.synonyms(&k.word, &m.word)))
            .map(|k| k.word.as_str())
            .collect();
        // Another point's word counts only as that point's lone trace: where the message says
        // more of that point, the word is there for it.
        let other_said = |m: &Token| {
            self.others.iter().any(|other| {
                other.iter().any(|o| o.same_as(m))
                    && other.iter().any(|o| {
                        self.message.iter().any(|w| w.same_as(o))
                            && !o.same_as(m)
                            && plain(o)
                            && !key.iter().any(|k| k.same_as(o))
                            && !self.is_given(o)
                    })
            })
        };
        let stranger = |m: &Token| {
            !m.negated
                && !message_verbs.contains(&m.word)
                && plain(m)
                && !key.iter().any(|k| k.same_as(m))
                && !self.given.iter().any(|g| g.same_as(m))
                && !other_said(m)
        };
        if self.message.iter().any(|m| stranger(m) && nouns.stands_in(&lacking, &m.word)) {
            return true;
        }
        // In the very place of a missing word (the same words on either side), a kind of the same
        // thing is wrong even where that thing has many kinds ("the giant oak tree" for ash), and
        // so is a word WordNet does not know for a name it does not know either ("lake Titicaca"
        // for Lake Texcoco).
        let named = |word: &str| {
            point.split_whitespace().skip(1).any(|w| {
                let w = w.trim_matches(|c: char| !c.is_alphanumeric());
                w.to_lowercase() == word && w.chars().next().is_some_and(char::is_uppercase)
            })
        };
        // Two named ones are two people (or places) there: "kerensky led the bolsheviks" for
        // "Lenin led the Bolsheviks".
        let two_named = |k: &str, m: &str| nouns.names_one(k) && nouns.names_one(m) && !nouns.related(k, m);
        let replaces = |k: &str, m: &str| {
            nouns.replaces(k, m)
                || two_named(k, m)
                || (named(k) && !nouns.knows(k) && !nouns.knows(m) && !is_number_like(m))
        };
        let message = &self.message;
        let same = |a: Option<&Token>, b: Option<&&Token>| match (a, b) {
            (Some(a), Some(b)) => a.same_as(b),
            (None, None) => true,
            _ => false,
        };
        // Or another point's word before the same word there ("the left temporal lobe" for
        // "the left frontal lobe", where another point is the temporal lobe's).
        let another_points = |m: &Token, next: Option<&&Token>| {
            next.is_some_and(|next| {
                self.others
                    .iter()
                    .any(|other| other.windows(2).any(|pair| pair[0].same_as(m) && pair[1].same_as(next)))
            })
        };
        // Or a name of two words ("white dwarf" for "red giant", "basking shark" for "whale
        // shark"): both are WordNet's, and kin.
        let replaces_with_next = |i: usize, j: usize| match (message.get(i..i + 2), key.get(j..j + 2)) {
            (Some([m, m_next]), Some([k, k_next])) => {
                nouns.replaces(&format!("{}_{}", k.word, k_next.word), &format!("{}_{}", m.word, m_next.word))
            }
            _ => false,
        };
        message.iter().enumerate().any(|(i, m)| {
            stranger(m)
                && key.iter().enumerate().any(|(j, k)| {
                    lacking.contains(&k.word.as_str())
                        && same(
                            i.checked_sub(1).and_then(|i| message.get(i)),
                            j.checked_sub(1).and_then(|j| key.get(j)),
                        )
                        && ((same(message.get(i + 1), key.get(j + 1))
                            && (replaces(&k.word, &m.word) || another_points(m, key.get(j + 1))))
                            || (same(message.get(i + 2), key.get(j + 2)) && replaces_with_next(i, j)))
                })
        })
    }

    /// Whether the message crosses this point with another: in a message of several clauses,
    /// one opens on one point's subject and has two or more words only the other point has and
    /// none of its own ("attrition is when they scrape along the bed": abrasion's scraping said of
    /// attrition).
    fn crossed_with_another(&self, id: &str, key: &[&Token]) -> bool {
        let ours: Vec<Token> = key.iter().map(|k| (*k).clone()).collect();
        let own = |of: &[Token], besides: &[Token]| -> Vec<Token> {
            of.iter()
                .filter(|t| t.quantity.is_none() && !t.is_generic() && !besides.iter().any(|b| b.same_as(t)))
                .cloned()
                .collect()
        };
        let count = |clause: &[Token], own: &[Token]| {
            clause.iter().filter(|m| !m.negated && own.iter().any(|o| o.same_as(m))).count()
        };
        // A clause that opens on one point's subject and has, of its words, only that.
        let misattributed = |clause: &[Token], own: &[Token], theirs: &[Token]| {
            own.first()
                .zip(clause.first())
                .is_some_and(|(subject, first)| !first.negated && first.same_as(subject))
                && count(clause, own) == 1
                && count(clause, theirs) >= 2
        };
        self.ids.iter().zip(&self.others).filter(|(other, _)| *other != id).any(|(_, theirs)| {
            let (mine, other) = (own(&ours, theirs), own(theirs, &ours));
            if mine.len() < 2 || other.len() < 2 {
                return false;
            }
            let clauses = &self.message_clauses;
            clauses.len() >= 2
                && clauses.iter().any(|c| misattributed(c, &mine, &other) || misattributed(c, &other, &mine))
        })
    }

    /// The clause of the point the question asks about: the one clause with a word of the
    /// question no other clause has ("Which side is port?" asks of "Port is the left side…",
    /// not of "…and starboard is the right"); the whole point when no one clause is asked.
    fn asked_part(&self, point: &str) -> String {
        let parts = clauses(&without_asides(point));
        let asked: Vec<&String> = parts
            .iter()
            .filter(|part| {
                tokens(part).iter().any(|k| {
                    self.asked.iter().any(|a| a.same_as(k))
                        && parts.iter().filter(|other| tokens(other).iter().any(|o| o.same_as(k))).count()
                            == 1
                })
            })
            .collect();
        match asked.as_slice() {
            [one] => one.to_string(),
            _ => point.to_string(),
        }
    }

    /// Whether the point says how a thing is done ("… using the transit method", "… via the
    /// vagus nerve", "… in exchange for a pledge") and the message leaves all of it out, unasked: "Kepler found thousands of
    /// planets" is half of "found thousands of exoplanets using the transit method".
    fn lacks_the_means(&self, point: &str) -> bool {
        let lower = point.to_lowercase();
        let means = [" using ", " via ", " in exchange for ", " in return for ", " but "];
        let Some(at) = means.iter().filter_map(|w| lower.find(w).map(|i| i + w.len())).min() else {
            return false;
        };
        let rest = &lower[at..];
        // A list of means ("using logograms and syllabic glyphs") runs on past its "and".
        let end = [",", ";", ".", " so ", " which ", " while "]
            .iter()
            .filter_map(|w| rest.find(w))
            .min()
            .unwrap_or(rest.len());
        let means: Vec<Token> = tokens(&rest[..end])
            .into_iter()
            .filter(|k| !k.is_generic() && k.quantity.is_none() && !self.is_given(k))
            .collect();
        // "… with help but not yet alone": a denial is said in other words too ("can't quite do
        // it by themselves"), so a message that denies anything may have said it.
        let denied = means.iter().all(|k| k.negated) && self.message.iter().any(|m| m.negated);
        let said = means.iter().any(|k| self.message.iter().any(|m| m.same_as(k)));
        !means.is_empty() && !said && !denied
    }

    /// Whether the message gives a reason of its own where the point gives another: "light to
    /// dark because the dark pigments are the expensive ones" for "… because the white of the
    /// paper serves as the lightest tone". The message says none of the words only the point's
    /// reason has, its reason has two words of its own, and (with the model) no stretch of
    /// the message is near any clause of the point's reason.
    fn gives_another_reason(&self, id: &str, point: &str) -> bool {
        let lower = point.to_lowercase();
        let Some((from, to)) =
            [" because ", " due to "].iter().filter_map(|w| lower.find(w).map(|i| (i, i + w.len()))).min()
        else {
            return false;
        };
        let said = crate::text::words_spaced(&self.said_text);
        let Some(theirs) = ["because", "cos", "coz", "cuz", "cause", "bc"]
            .iter()
            .filter_map(|w| said.find(&format!(" {w} ")).map(|i| i + w.len() + 2))
            .min()
        else {
            return false;
        };
        let (main, all) = (tokens(&lower[..from]), tokens(point));
        let plain = |t: &Token| !t.is_generic() && t.quantity.is_none() && !self.is_given(t);
        let ours: Vec<Token> = tokens(&lower[to..])
            .into_iter()
            .filter(|k| plain(k) && !main.iter().any(|m| m.same_as(k)))
            .collect();
        let own =
            tokens(&said[theirs..]).into_iter().filter(|t| plain(t) && !all.iter().any(|k| k.same_as(t)));
        if ours.is_empty()
            || own.count() < 2
            || ours.iter().any(|k| self.message.iter().any(|m| m.same_as(k)))
        {
            return false;
        }
        let Some(readings) = self.meaning.as_ref().and_then(|m| m.parts.get(id)) else { return true };
        let reason: Vec<f64> = parts(point)
            .iter()
            .zip(readings)
            .filter(|(part, _)| lower.find(&part.to_lowercase()).is_some_and(|at| at >= from))
            .map(|(_, reading)| self.nearest(&reading.sentence))
            .collect();
        reason.iter().all(|near| *near < REASON_SAID)
    }

    /// Whether the message lists the point's things in another order where the order is what
    /// the point (or the question, of a point that lists three things or more) is about:
    /// "intake, power, compression, exhaust" for "intake, compression, power and exhaust, in
    /// that order". Elsewhere a paraphrase may say the point's words in any order.
    fn out_of_order(&self, point: &str) -> bool {
        let spaced = crate::text::words_spaced(point);
        let lists = point.matches(',').count() >= 2;
        let ordered = [" in that order ", " in this order ", " in order "].iter().any(|p| spaced.contains(p))
            || (lists && self.asked.iter().any(|t| t.word == "order"));
        if !ordered {
            return false;
        }
        let key: Vec<Token> = tokens(point)
            .into_iter()
            .filter(|k| !k.is_generic() && k.quantity.is_none() && !self.is_given(k))
            .collect();
        let mut places: Vec<usize> = Vec::new();
        for m in self.message.iter().filter(|m| !m.negated) {
            if let Some(at) = key.iter().position(|k| k.same_as(m))
                && !places.contains(&at)
            {
                places.push(at);
            }
        }
        places.len() >= 3 && places.windows(2).any(|w| w[1] < w[0])
    }

    /// Whether, asked two things, a short message says words of one of the point's clauses
    /// and none of another's (counting only words the learner had to supply).
    fn half_said(&self, point: &str) -> bool {
        if !self.asks_two || self.message.len() > 3 {
            return false;
        }
        let said: Vec<bool> = clauses(&without_asides(point))
            .iter()
            .map(|clause| tokens(clause).into_iter().filter(|k| !self.is_given(k)).collect::<Vec<_>>())
            .filter(|own| !own.is_empty())
            .map(|own| own.iter().any(|k| self.message.iter().any(|m| !m.negated && m.same_as(k))))
            .collect();
        said.contains(&true) && said.contains(&false)
    }

    /// Whether a short message names one of a pair the point joins by "and" and not the
    /// other, both of them words the learner had to supply: "constipation" for "can cause
    /// constipation and dependence". Examples ("such as codeine and morphine") are no pair
    /// to name.
    fn one_of_a_pair(&self, point: &str) -> bool {
        if self.message.len() > 4 {
            return false;
        }
        let spaced = crate::text::words_spaced(&without_asides(point));
        let words: Vec<&str> = spaced.split_whitespace().collect();
        let said = |k: &Token| self.message.iter().any(|m| !m.negated && m.same_as(k));
        words.iter().enumerate().filter(|(_, w)| **w == "and").any(|(i, _)| {
            let example = words[i.saturating_sub(3)..i].windows(2).any(|w| w == ["such", "as"])
                || words[i.saturating_sub(2)..i].iter().any(|w| matches!(*w, "like" | "including"));
            let (Some(before), Some(after)) = (i.checked_sub(1).and_then(|b| words.get(b)), words.get(i + 1))
            else {
                return false;
            };
            let (before, after) = (tokens(before), tokens(after));
            let (Some(a), Some(b)) = (before.first(), after.first()) else { return false };
            let plain = |t: &Token| t.quantity.is_none() && !t.is_generic() && !self.is_given(t);
            !example && plain(a) && plain(b) && !a.same_as(b) && said(a) != said(b)
        })
    }

    /// Whether the message asks about the point rather than says it: every sentence with a
    /// word of the point is a question ("does proofing mean the same as proving? I've seen
    /// both"), or, with none, it ends with one. "It's the mitochondria. Why do they have their
    /// own DNA?" says the point, then asks something else.
    fn asks_about(&self, key: &[&Token]) -> bool {
        let saying: Vec<bool> = self
            .asks
            .iter()
            .filter(|(words, _)| words.iter().any(|m| key.iter().any(|k| k.same_as(m))))
            .map(|(_, asks)| *asks)
            .collect();
        match saying.as_slice() {
            [] => self.asks.last().is_some_and(|(_, asks)| *asks),
            some => some.iter().all(|asks| *asks),
        }
    }

    /// The message's words but another point's in a clause about that point: in "plus the
    /// standing charge, which is fixed, and a 2 kW kettle running for half an hour…",
    /// "standing" is the charge's, no opposite of the kettle's "running". In "with an ammeter
    /// connected in parallel" it stands in this point's clause, and is.
    fn for_this_point(&self, id: &str, key: &[&Token]) -> Vec<Token> {
        let ours = |m: &Token| key.iter().any(|k| k.same_as(m));
        let others: Vec<&Vec<Token>> = self
            .ids
            .iter()
            .zip(&self.others)
            .filter(|(other, _)| *other != id)
            .map(|(_, words)| words)
            .collect();
        let of = |words: &Vec<Token>, m: &Token| !ours(m) && words.iter().any(|o| o.same_as(m));
        let mut kept = Vec::new();
        for clause in clauses(&self.said_text) {
            let said = tokens(&clause);
            let mine = said.iter().filter(|m| ours(m)).count();
            let theirs = others.iter().map(|o| said.iter().filter(|m| of(o, m)).count()).max().unwrap_or(0);
            kept.extend(said.into_iter().filter(|m| theirs <= mine || !others.iter().any(|o| of(o, m))));
        }
        kept
    }

    /// What the formula weighs of `point`; None without the sentence model.
    pub fn judge_features(&self, point: &PointBrief) -> Option<Features> {
        self.features(point, &self.lexical(point)).map(|(features, _)| features)
    }

    /// The verdict by words alone.
    fn lexical(&self, point: &PointBrief) -> Verdict {
        let keyed = key(&point.content);
        let key: Vec<&Token> = keyed.iter().map(|(t, _)| t).collect();
        // What the learner had to add: the point's words they were not told. Repeating the
        // question recalls nothing. (A point the question wholly gives away is judged whole.)
        let told: Vec<bool> = key.iter().map(|k| self.is_given(k)).collect();
        let all_told = told.iter().all(|t| *t);
        let judged: Vec<(&Token, bool)> = keyed
            .iter()
            .zip(&told)
            .filter(|(_, told)| !**told || all_told)
            .map(|((k, aside), _)| (k, *aside))
            .collect();
        let mut total = 0.0;
        let mut carried = 0.0;
        let mut present = Vec::new();
        let mut number_right = false;
        // The point's numbers the message does not have.
        let mut missing_numbers: Vec<&Quantity> = Vec::new();
        // One of them written in figures ("0.05", "1348"), not a word that may be no amount
        // ("Newton's first law", "to a colder one").
        let mut unsaid_figure = false;
        // A figure of a name said by its code ("uncoupling protein 1 (UCP1)" by "UCP1") is said.
        let said_words = crate::text::words_spaced(&self.said_text);
        let codes_said: Vec<String> = point
            .content
            .split('(')
            .skip(1)
            .filter_map(|rest| rest.split_once(')').map(|(code, _)| code.trim().to_lowercase()))
            .filter(|code| {
                !code.contains(' ')
                    && code.chars().any(|c| c.is_ascii_digit())
                    && said_words.contains(&format!(" {code} "))
            })
            .collect();
        let asked_when = {
            let asked = crate::text::words_spaced(&self.asked_text);
            [" when ", " year ", " years ", " date ", " century ", " how long "]
                .iter()
                .any(|w| asked.contains(w))
        };
        for (k, aside) in &judged {
            let weight = self.weight(k) * if *aside { 0.3 } else { 1.0 };
            total += weight;
            if self.message.iter().any(|m| m.negated == k.negated && m.same_as(k)) {
                carried += weight;
                present.push(k.word.clone());
                number_right |= k.quantity.is_some();
            } else if let Some(q) = &k.quantity {
                missing_numbers.push(q);
                // A figure in brackets is an aside ("In Leviathan (1651) Hobbes…"), not one the
                // learner had to supply, unless the question asks when.
                unsaid_figure |= (!aside || asked_when)
                    && k.word.trim_start_matches(['-', '−', '~']).starts_with(|c: char| c.is_ascii_digit())
                    && !codes_said.iter().any(|code| code.contains(k.word.as_str()));
            }
        }
        // "It's not the nucleus", "not sure about katakana": the message denies a word of the point.
        // (A word the message says both ways is not denied: "non-citizens granted citizenship".)
        // A denial is of the word itself: "left Africa" does not deny "non-African".
        // A word the point says both ways is denied by it too: "not the idea" for "the expression
        // of an idea, not the idea itself".
        let all = tokens(&point.content);
        let both_ways = |k: &Token| {
            all.iter().any(|t| t.term == k.term && t.negated)
                && all.iter().any(|t| t.term == k.term && !t.negated)
        };
        // A denial the message agrees with carries the words in its reach: "the ratio doesn't
        // change" says "does not change the overall gear ratio".
        let agreed_denial =
            key.iter().any(|k| k.negated && self.message.iter().any(|m| m.negated && m.same_as(k)));
        let opposed = key.iter().filter(|k| !both_ways(k)).any(|k| {
            self.message.iter().any(|m| m.negated != k.negated && m.term == k.term)
                && !self.message.iter().any(|m| m.negated == k.negated && m.same_as(k))
                && !(k.negated && agreed_denial)
        });
        // A number of the point missing while the message has another in its place. An amount
        // with a unit answers only for the point's amounts of its kind, where it has any: "one
        // degree" is not the "One" of "One parsec is … one arcsecond".
        let dimension = |q: &Quantity| q.base.map(|(d, _)| d).filter(|d| *d != numbers::Dimension::Share);
        let answers = |k: &Token, q: &Quantity| {
            k.quantity.as_ref().is_some_and(|kq| {
                let measured_alike = dimension(q).is_some_and(|d| {
                    key.iter().any(|other| other.quantity.as_ref().and_then(dimension) == Some(d))
                });
                kq.matches(q) && (!measured_alike || dimension(kq) == dimension(q))
            })
        };
        let wrong_number = self.message.iter().any(|m| {
            m.quantity.as_ref().is_some_and(|q| {
                !m.negated
                    && !key.iter().any(|k| answers(k, q))
                    && missing_numbers.iter().any(|n| n.comparable(q))
            })
        });
        // A unit of the point missing, and another of its dimension in its place ("1/72 of a cm"
        // for "of an inch"; "cm" for "centimetres" is the same unit).
        let unit = |t: &Token| {
            numbers::unit(&[t.word.as_str()]).map(|(dimension, to_base, _)| (dimension, to_base(1.0)))
        };
        let units: Vec<_> = self.message.iter().filter(|m| !m.negated).filter_map(unit).collect();
        // An amount of the dimension ("half an hour" for "hour") is weighed as a number.
        let measured = |dimension| {
            self.message.iter().any(|m| m.quantity.and_then(|q| q.base).is_some_and(|(d, _)| d == dimension))
        };
        let wrong_unit = key.iter().filter_map(|k| unit(k)).any(|(dimension, size)| {
            !units.contains(&(dimension, size))
                && units.iter().any(|(d, _)| *d == dimension)
                && !measured(dimension)
        });
        // Another operation in the point's equation ("P(A) + P(B)" for "P(A) × P(B)").
        let theirs = &self.message_operations;
        let wrong_operation =
            !theirs.is_empty() && equations::operations(&point.content).iter().any(|o| !theirs.contains(o));
        // Another order of growth than the point's ("O(n)" for "O(log n)").
        let orders = growth::orders(&point.content);
        let wrong_order = !orders.is_empty()
            && !self.message_orders.is_empty()
            && !self.message_orders.iter().any(|o| orders.contains(o));
        let wrong_code = wording::another_code(&point.content, &self.said_text, |code| {
            self.asked.iter().any(|t| t.word == code)
        });
        let wrong_compound = wording::another_compound(&point.content, &self.said_text, &self.asked_text);
        let wrong_number =
            wrong_number || wrong_unit || wrong_operation || wrong_order || wrong_code || wrong_compound;
        let score = if total > 0.0 { carried / total } else { 0.0 };
        let enough = score >= RECALL || (number_right && score >= RECALL_WITH_NUMBER);
        let asks = self.asks_about(&key);
        let vetoed = wrong_number || opposed || asks;
        // "…, but I don't remember the upper limit": what was said is part of the point, unless
        // it is all of it and the gap is in none of its words ("46, not sure about katakana"
        // says half of "hiragana and katakana each have 46", even with both in the question).
        // So is a short answer to a question of two things that says nothing of one half of
        // the point ("Calvin" asked who led Geneva's Reformation and what he taught).
        let partial = (self.trails_off && (score < 1.0 || opposed))
            || self.half_said(&point.content)
            || self.one_of_a_pair(&point.content)
            || self.lacks_the_means(&point.content)
            || self.gives_another_reason(&point.id, &point.content)
            // Or claims without exception what the point bounds.
            || wording::overgeneralises(&point.content, &self.said_text)
            // Or hedges where a detail the learner had to give should be ("some kind of
            // hormone replacement" for "levothyroxine").
            || wording::hedges_a_detail(&self.said_text)
                && key.iter().any(|k| {
                    !k.is_generic()
                        && k.quantity.is_none()
                        && !self.is_given(k)
                        && !self.message.iter().any(|m| m.same_as(k))
                });
        // Or it says plainly, with no negation anywhere, what the point denies ("entropy
        // always decreases" for "never decreases").
        // So does what the point denies can be done, said as done ("the redness blanches" for
        // "non-blanchable redness").
        let can_be = |k: &Token, m: &Token| {
            ["abl", "ibl"].iter().any(|end| k.term.strip_suffix(end) == Some(m.term.as_str()))
                && m.term.len() >= 4
        };
        let affirms_denied = !self.message.iter().any(|m| m.negated)
            && key.iter().any(|k| k.negated && self.message.iter().any(|m| m.term == k.term))
            || key.iter().any(|k| k.negated && self.message.iter().any(|m| !m.negated && can_be(k, m)));
        // Or it turns what the point says and what it denies round ("when it is received, not
        // when it is posted" for "when it is posted, not when received").
        let only_as = |k: &Token, negated: bool| {
            self.message.iter().any(|m| m.negated == negated && m.term == k.term)
                && !self.message.iter().any(|m| m.negated != negated && m.term == k.term)
        };
        let turned_round = key.iter().any(|k| !k.negated && only_as(k, true))
            && key.iter().any(|k| k.negated && only_as(k, false));
        let opposite = affirms_denied
            || turned_round
            || moves_the_denial(&point.content, &self.said_text)
            || says_the_opposite(&point.content, &self.for_this_point(&point.id, &key), &self.said_text)
            || reverses(&point.content, self.message_way.as_ref())
            || turns_direction(&self.asked_part(&point.content), &self.said_text)
            || runs_from_the_other_end(&point.content, &self.said_text)
            || turns_up_or_down(&point.content, &self.said_text)
            || turned_in_a_clause(
                &point.content,
                &self.message_clauses,
                |t| self.owners(t) == 1,
                |t| !key.iter().any(|k| k.same_as(t)) && self.owners(t) > 0,
            )
            || runs_backwards(&point.content, &self.said_text)
            || acts_backwards(&point.content, &self.said_text)
            || makes_the_source(&point.content, &self.said_text);
        let another_point = self.names_another_subject(&key)
            || self.says_another_instead(&key)
            || self.answers_for_another(&point.id, &point.content, &key);
        let swapped = swapped(&point.content, &self.message_roles)
            || wording::swapped_numbers(&point.content, &self.message_clauses)
            || wording::count_of_another_half(&point.content, &self.said_text)
            || swapped_marks(&point.content, &self.said_text)
            || wording::one_way_of_two(&point.content, &self.said_text)
            || wording::crowns_another(&point.content, &self.said_text)
            || compared_the_other_way(&point.content, &self.said_text)
            || wording::divides_the_other_way(&point.content, &self.said_text)
            || self.crossed_with_another(&point.id, &key)
            || self.out_of_order(&point.content);
        let denied = self.denies_by_name(&key.iter().copied().filter(|k| !both_ways(k)).collect::<Vec<_>>());
        let sibling = self.names_a_sibling(&point.content, &key)
            || wording::another_titled_name(&point.content, &self.said_text, |w| {
                self.asked.iter().any(|t| t.word == w)
            });
        let recalled =
            enough && !vetoed && !partial && !opposite && !another_point && !swapped && !denied && !sibling;
        // A number of the point nearly right is a near miss, however few words came with it.
        let number_near = self.message.iter().any(|m| {
            m.quantity.as_ref().is_some_and(|q| {
                !m.negated && key.iter().any(|k| k.quantity.as_ref().is_some_and(|kq| q.is_near(kq)))
            })
        });
        // So is part of it said with the rest named as what escapes the learner ("small
        // intestine, no idea why it's good at it"): the tutor asks for the rest. A word or so
        // in common makes no point near ("not sure why" names a gap in the point it is about).
        let said_part = partial && !opposed && present.len() >= 2;
        let near = !recalled && ((score >= NEAR && !present.is_empty()) || number_near || said_part);
        // A figure in an order of growth is said by naming the order ("constant time": O(1)).
        let same_orders = !orders.is_empty() && orders.iter().all(|o| self.message_orders.contains(o));
        let unsaid_number = unsaid_figure && !number_right && !same_orders;
        let recalled = recalled && !unsaid_number;
        let flags = Flags {
            wrong_number,
            opposed,
            asks,
            partial,
            opposite,
            another_point,
            swapped,
            denied,
            sibling,
            unsaid_number,
        };
        let says_the_quoted = self.says_the_quoted(&point.content);
        let recalled = recalled || (says_the_quoted && !vetoed && !flags.rule_out());
        Verdict { score, recalled, near, present, vetoed, flags, says_the_quoted }
    }

    /// Whether the message says a quoted word or two of the point and nothing more, which the
    /// question did not give.
    fn says_the_quoted(&self, content: &str) -> bool {
        // Double marks only: a single one is as often an apostrophe.
        let quotes = ['"', '“', '”'];
        let quoted = content
            .split(|c| quotes.contains(&c))
            .skip(1)
            .step_by(2)
            .filter(|q| !q.trim().is_empty() && q.split_whitespace().count() <= 3);
        let said: Vec<&Token> = self.message.iter().filter(|m| !m.negated).collect();
        !said.is_empty()
            && said.len() == self.message.len()
            && quoted.into_iter().any(|q| {
                let words = tokens(q);
                !words.is_empty()
                    && words.iter().all(|w| said.iter().any(|m| m.same_as(w)) && !self.is_given(w))
                    && said.iter().all(|m| words.iter().any(|w| w.same_as(m)))
            })
    }

    /// What the fitted formula weighs of `point`, with the point's words the message stands
    /// for by meaning; None without the sentence model.
    fn features(&self, point: &PointBrief, lexical: &Verdict) -> Option<(Features, Vec<String>)> {
        let meaning = self.meaning.as_ref()?;
        let reading = meaning.points.get(&point.id)?;
        let content = point.content.as_str();
        let message = &meaning.message;
        // The message's content words (not "the", "is", "of"), and the point's.
        let said: Vec<&[f32]> = message
            .words
            .iter()
            .filter(|w| meaning_word(&self.said_text, w.span.clone()).is_some())
            .map(|w| &*w.vector)
            .collect();
        let mut words: Vec<(f64, f64, bool, String)> = Vec::new();
        // The names in the point ("Robespierre", "George Orwell"), each a run of capitalised
        // words, and whether the message says any word of it. Another name in the same place
        // reads much the same to the model ("Danton", "Kenya" for "Tanzania"), so a name
        // counts as covered only when the learner says it.
        let names = names(content, &reading.words);
        let said_name = |run: usize| {
            names.iter().filter(|(_, r)| *r == run).any(|(i, _)| {
                meaning_word(content, reading.words[*i].span.clone())
                    .is_some_and(|t| tokens(t).iter().any(|k| self.message.iter().any(|m| m.same_as(k))))
            })
        };
        let asides = asides(content);
        for (i, word) in reading.words.iter().enumerate() {
            let Some(text) = meaning_word(content, word.span.clone()) else { continue };
            // An aside counts for less, as it does for the words alone.
            let aside = asides.iter().any(|a| a.start <= word.span.start && word.span.end <= a.end);
            let keys = tokens(text);
            let given = keys.iter().all(|k| self.is_given(k));
            let lexical = keys.iter().any(|k| self.message.iter().any(|m| m.same_as(k)));
            let nearest = said.iter().map(|v| similarity(v, &word.vector)).fold(0.0f32, f32::max);
            let unsaid_name = names.iter().any(|(n, run)| *n == i && !said_name(*run));
            let cover = match (lexical, unsaid_name) {
                (true, _) => 1.0,
                (false, true) => 0.0,
                (false, false) => f64::from(nearest),
            };
            let weight =
                keys.iter().map(|k| self.weight(k)).fold(0.0, f64::max) * if aside { 0.3 } else { 1.0 };
            words.push((weight, cover, given, text.to_string()));
        }
        // The words the learner had to supply; all of them when the question gave every one.
        let judged: Vec<&(f64, f64, bool, String)> = if words.iter().all(|w| w.2) {
            words.iter().collect()
        } else {
            words.iter().filter(|w| !w.2).collect()
        };
        let total: f64 = judged.iter().map(|w| w.0).sum();
        let cover = if total > 0.0 { judged.iter().map(|w| w.0 * w.1).sum::<f64>() / total } else { 0.0 };
        let clause = self.clauses.get(&point.id).copied().unwrap_or_default();
        let others = self
            .clauses
            .iter()
            .filter(|(id, _)| **id != point.id)
            .map(|(_, score)| *score)
            .fold(f64::MIN, f64::max);
        let near_point = f64::from(similarity(&message.sentence, &reading.sentence));
        let (least_part, parts) = match meaning.parts.get(&point.id).filter(|p| !p.is_empty()) {
            Some(parts) => {
                let each: Vec<f64> = parts.iter().map(|p| self.nearest(&p.sentence)).collect();
                (each.iter().copied().fold(f64::MAX, f64::min), each.iter().sum::<f64>() / each.len() as f64)
            }
            None => (clause, clause),
        };
        let features = Features {
            lexical: lexical.score,
            lexical_recalled: f64::from(u8::from(lexical.recalled)),
            near_point,
            cover,
            near_question: meaning
                .question
                .as_ref()
                .map_or(0.0, |q| f64::from(similarity(&message.sentence, &q.sentence))),
            answered: meaning
                .answered
                .as_ref()
                .map_or(near_point, |a| f64::from(similarity(a, &reading.sentence))),
            vetoed: f64::from(u8::from(lexical.vetoed)),
            clause,
            margin: if others == f64::MIN { 0.0 } else { clause - others },
            phrases: phrases(content, reading, &self.said_text, message, |t| self.is_given_text(t)),
            least_part,
            parts,
            stand_in: lexical.score * self.stand_in(&words, reading, content, message),
            flags: lexical.flags,
        };
        let mut present = lexical.present.clone();
        for (_, cover, given, text) in &judged {
            if *cover >= f64::from(COVERED)
                && !*given
                && !present.iter().any(|p| p.eq_ignore_ascii_case(text))
            {
                present.push(text.to_lowercase());
            }
        }
        Some((features, present))
    }

    /// The nearest a word of the message that is not the point's (nor the question's) comes to
    /// a word of the point the message lacks, in context.
    fn stand_in(
        &self,
        words: &[(f64, f64, bool, String)],
        point: &Reading,
        content: &str,
        message: &Reading,
    ) -> f64 {
        let ours = tokens(content);
        let strays: Vec<&[f32]> = message
            .words
            .iter()
            .zip(self.message_words.iter())
            .filter(|(_, said)| {
                !said.is_empty()
                    && said.iter().all(|m| !self.given.iter().any(|g| g.same_as(m)))
                    && !ours.iter().any(|k| said.iter().any(|m| m.same_as(k)))
            })
            .map(|(w, _)| &*w.vector)
            .collect();
        let lacking: Vec<&[f32]> = point
            .words
            .iter()
            .filter(|w| {
                meaning_word(content, w.span.clone()).is_some_and(|t| {
                    words.iter().any(|(_, cover, given, text)| text == t && *cover < 1.0 && !*given)
                })
            })
            .map(|w| &*w.vector)
            .collect();
        lacking.iter().flat_map(|l| strays.iter().map(|s| f64::from(similarity(l, s)))).fold(0.0, f64::max)
    }

    /// The lexical verdict joined with meaning, by the fitted formula.
    fn decide(&self, features: &Features, lexical: Verdict, present: Vec<String>) -> Verdict {
        let odds = features.odds();
        tracing::debug!(?features, odds, "the evaluator's reading of a point");
        let recalled = (odds >= RECALL_ODDS || lexical.says_the_quoted) && !features.flags.rule_out();
        let near = !recalled && (odds >= NEAR_ODDS || lexical.near);
        Verdict {
            score: 1.0 / (1.0 + (-odds).exp()),
            recalled,
            near,
            present,
            vetoed: lexical.vetoed,
            flags: lexical.flags,
            says_the_quoted: lexical.says_the_quoted,
        }
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

//! The fitted formula that joins meaning and words: the [`Features`] it weighs of one point
//! against one message, computed from the sentence model's readings, and its weights, kept
//! side by side so a change to a feature and to its weight are seen together.

use super::reading::{meaning_word, names, phrases};
use super::{Context, Flags, Verdict, asides};
use crate::embed::{Reading, similarity};
use crate::llm::brief::PointBrief;
use crate::text::tokens;

/// A word of a point covered this well (cosine in context) is as good as said.
const COVERED: f32 = 0.7;

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

impl Context {
    /// What the fitted formula weighs of `point`, with the point's words the message stands
    /// for by meaning; None without the sentence model.
    pub(super) fn features(&self, point: &PointBrief, lexical: &Verdict) -> Option<(Features, Vec<String>)> {
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
    pub(super) fn decide(&self, features: &Features, lexical: Verdict, present: Vec<String>) -> Verdict {
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
}

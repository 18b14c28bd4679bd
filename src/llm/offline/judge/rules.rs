//! The rules that weigh the message against the whole question: another point's subject, answer
//! or reason said in this one's place, a sibling term or a thing denied by name, a pairing
//! crossed with another point's, and the part of the point the question asks for (said half,
//! out of order, or without its means).

use super::reading::parts;
use super::wording::{self, clauses, is_number_like, proper_names};
use super::{Context, without_asides};
use crate::embed::similarity;
use crate::text::{Token, tokens};

/// The cosine at which a message says one side of a contrast in its own words. The two sides
/// of a contrast are near each other in meaning, so a message about one comes to about 0.6 of
/// the other: "pulls everything down onto your laptop and wipes it off the server" comes to
/// 0.78 of "POP3 usually downloads them and deletes them from the server".
const SIDE_SAID: f64 = 0.67;

/// Words (content words and numbers) of an answer that may leave its subject to the question.
const SHORT_ANSWER: usize = 8;

/// A clause of the point's reason said this nearly by a stretch of the message is said.
const REASON_SAID: f64 = 0.6;

/// Words that are prepositions far more often than WordNet's nouns ("behind", "inside").
const PREPOSITIONS: &[&str] = &[
    "behind",
    "beneath",
    "beside",
    "inside",
    "outside",
    "within",
    "without",
    "beyond",
    "underneath",
    "amid",
];

impl Context {
    /// Whether the message names another point's subject where this point's is missing: the
    /// point's first word (its subject, as points are written) unsaid, nor the second of a
    /// name of two ("nehru" for "Jawaharlal Nehru"), and a clause of the message opening on a
    /// word that belongs to another unchecked point and not to this one, followed by one of
    /// this point's ("the nucleus makes ATP").
    pub(super) fn names_another_subject(&self, content: &str, key: &[&Token]) -> bool {
        let ours = |m: &Token| key.iter().any(|k| k.same_as(m));
        // The subject, by its first word or, in a name of two, its second ("Jawaharlal Nehru"
        // by "nehru").
        let subject: Vec<&&Token> = key
            .iter()
            .filter(|k| !k.is_generic() && k.quantity.is_none() && !self.is_given(k))
            .take(2)
            .collect();
        // Two capitalised words side by side ("Mitochondria produce most of the cell's ATP"
        // has no name of two).
        let words: Vec<&str> =
            content.split_whitespace().map(|w| w.trim_matches(|c: char| !c.is_alphanumeric())).collect();
        let a_name = match subject.as_slice() {
            [first, second] => words.windows(2).any(|pair| {
                pair.iter().all(|w| w.starts_with(char::is_uppercase))
                    && pair[0].to_lowercase() == first.word
                    && pair[1].to_lowercase() == second.word
            }),
            _ => false,
        };
        let named = |k: &Token| self.message.iter().any(|m| m.same_as(k));
        match subject.as_slice() {
            [] => return false,
            [first, ..] if named(first) => return false,
            [_, second] if a_name && named(second) => return false,
            _ => {}
        }
        let anothers = |m: &Token| {
            !m.negated
                && !m.is_generic()
                && m.quantity.is_none()
                && !ours(m)
                && !self.given.iter().any(|g| g.same_as(m))
                && self.owners(m) > 0
        };
        // The other point's subject, one of its first words as points are written, not any
        // word of it ("working the dough builds up… gluten" names no other point's subject
        // for the point on kneading).
        let subject_of_another = |m: &Token| {
            self.others.iter().any(|other| {
                other.iter().filter(|o| !o.is_generic() && o.quantity.is_none()).take(2).any(|o| o.same_as(m))
            })
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
            [first, second, ..]
                if anothers(first) && subject_of_another(first) && ours(second) && !second.negated =>
            {
                true
            }
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
    pub(super) fn says_another_instead(&self, key: &[&Token]) -> bool {
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
    pub(super) fn answers_for_another(&self, id: &str, content: &str, key: &[&Token]) -> bool {
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
    pub(super) fn denies_by_name(&self, key: &[&Token]) -> bool {
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
    pub(super) fn names_a_sibling(&self, point: &str, key: &[&Token]) -> bool {
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
        // A word of a name of two words in WordNet ("caustic soda", "the north star") is not
        // a noun of its own; nor is a preposition ("behind the eardrum").
        let message = &self.message;
        let in_a_name = |i: usize| {
            let joined = |a: &Token, b: &Token| nouns.knows(&format!("{}_{}", a.word, b.word));
            i.checked_sub(1).and_then(|p| message.get(p)).is_some_and(|p| joined(p, &message[i]))
                || message.get(i + 1).is_some_and(|n| joined(&message[i], n))
        };
        let named = |word: &str| {
            point.split_whitespace().skip(1).any(|w| {
                let w = w.trim_matches(|c: char| !c.is_alphanumeric());
                w.to_lowercase() == word && w.chars().next().is_some_and(char::is_uppercase)
            })
        };
        // Another place or person for one the point names is wrong wherever it stands, though
        // it is also one of the name's other words ("at cambridge", a university, for "at the
        // University of Leicester").
        let names_another = |m: &Token| {
            nouns.names_one(&m.word)
                && lacking.iter().any(|k| named(k) && nouns.names_one(k) && nouns.siblings(k, &m.word))
        };
        if message.iter().enumerate().any(|(i, m)| stranger(m) && !in_a_name(i) && names_another(m)) {
            return true;
        }
        if message.iter().enumerate().any(|(i, m)| {
            stranger(m)
                && !in_a_name(i)
                && !PREPOSITIONS.contains(&m.word.as_str())
                && nouns.stands_in(&lacking, &m.word)
        }) {
            return true;
        }
        // In the very place of a missing word (the same words on either side), a kind of the same
        // thing is wrong even where that thing has many kinds ("the giant oak tree" for ash), and
        // so is a word WordNet does not know for a name it does not know either ("lake Titicaca"
        // for Lake Texcoco).
        // Two named ones are two people (or places) there: "kerensky led the bolsheviks" for
        // "Lenin led the Bolsheviks".
        let two_named = |k: &str, m: &str| nouns.names_one(k) && nouns.names_one(m) && !nouns.related(k, m);
        let replaces = |k: &str, m: &str| {
            nouns.replaces(k, m)
                || two_named(k, m)
                || (named(k) && !nouns.knows(k) && !nouns.knows(m) && !is_number_like(m))
        };
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
        // shark", "Oort cloud" for "Kuiper belt"): both are WordNet's, and name two things
        // (see `Nouns::replaces_name`).
        let replaces_with_next = |i: usize, j: usize| match (message.get(i..i + 2), key.get(j..j + 2)) {
            (Some([m, m_next]), Some([k, k_next])) => nouns.replaces_name(
                &format!("{}_{}", k.word, k_next.word),
                &format!("{}_{}", m.word, m_next.word),
            ),
            _ => false,
        };
        message.iter().enumerate().any(|(i, m)| {
            stranger(m)
                && key.iter().enumerate().any(|(j, k)| {
                    let before = same(
                        i.checked_sub(1).and_then(|i| message.get(i)),
                        j.checked_sub(1).and_then(|j| key.get(j)),
                    );
                    lacking.contains(&k.word.as_str())
                        && ((before
                            && same(message.get(i + 1), key.get(j + 1))
                            && (replaces(&k.word, &m.word) || another_points(m, key.get(j + 1))))
                            // A name of two words is placed by the words on either side.
                            || ((before || same(message.get(i + 2), key.get(j + 2))) && replaces_with_next(i, j)))
                })
        })
    }

    /// Whether the message crosses this point with another: in a message of several clauses,
    /// one opens on one point's subject and has two or more words only the other point has and
    /// none of its own ("attrition is when they scrape along the bed": abrasion's scraping said of
    /// attrition).
    pub(super) fn crossed_with_another(&self, id: &str, key: &[&Token]) -> bool {
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
    pub(super) fn asked_part(&self, point: &str) -> String {
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
    /// planets" is half of "found thousands of exoplanets using the transit method". A word
    /// WordNet takes for the same thing or a kind of it says the means ("with letters made of
    /// baked clay" for "using ceramic characters").
    pub(super) fn lacks_the_means(&self, point: &str) -> bool {
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
        // Said in a word for the same thing, or a kind of it ("letters" for "characters"),
        // that is not one of the point's own words.
        let nouns = crate::text::kinship::nouns();
        let own = tokens(point);
        let in_other_words = |k: &Token, m: &Token| {
            !m.negated
                && m.quantity.is_none()
                && !own.iter().any(|o| o.same_as(m))
                && nouns.is_some_and(|n| n.related_in_any_number(&k.word, &m.word))
        };
        let said = means.iter().any(|k| self.message.iter().any(|m| m.same_as(k) || in_other_words(k, m)));
        !means.is_empty() && !said && !denied
    }

    /// Whether the message gives a reason of its own where the point gives another: "light to
    /// dark because the dark pigments are the expensive ones" for "… because the white of the
    /// paper serves as the lightest tone". The message says none of the words only the point's
    /// reason has, its reason has two words of its own, and (with the model) no stretch of
    /// the message is near any clause of the point's reason.
    pub(super) fn gives_another_reason(&self, id: &str, point: &str) -> bool {
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
    pub(super) fn out_of_order(&self, point: &str) -> bool {
        let spaced = crate::text::words_spaced(point);
        let lists = point.matches(',').count() >= 2;
        // A sequence told step by step ("you write a failing test first, then…, then refactor")
        // is in order too.
        let steps = spaced.contains(" first ") && spaced.contains(" then ");
        let ordered = [" in that order ", " in this order ", " in order "].iter().any(|p| spaced.contains(p))
            || (lists && self.asked.iter().any(|t| t.word == "order"));
        if !ordered && !steps {
            return false;
        }
        // Of steps, only the steps are in order: from the clause that says which comes first.
        let point = match point.find("first") {
            Some(at) if !ordered => {
                point.get(..at).and_then(|head| head.rfind(',')).map_or(point, |comma| &point[comma..])
            }
            _ => point,
        };
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
    pub(super) fn half_said(&self, point: &str) -> bool {
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

    /// Whether the message speaks of one side of a point that sets two things against each
    /// other ("The balance sheet shows… at one point in time, while the income statement
    /// covers a period") and says no word of the other side: "the balance sheet is like a
    /// snapshot of the company at one moment" is half the contrast.
    pub(super) fn one_side_of_a_contrast(&self, id: &str, point: &str) -> bool {
        let Some((at, joint)) = [", while ", ", whereas ", "; whereas "]
            .iter()
            .find_map(|joint| point.find(joint).map(|at| (at, *joint)))
        else {
            return false;
        };
        let (first, second) = (&point[..at], &point[at + joint.len()..]);
        let plain = |t: &Token| !t.is_generic();
        let (first, second): (Vec<Token>, Vec<Token>) = (
            tokens(first).into_iter().filter(plain).collect(),
            tokens(second).into_iter().filter(plain).collect(),
        );
        let own = |side: &[Token], other: &[Token]| -> Vec<Token> {
            side.iter().filter(|t| !other.iter().any(|o| o.same_as(t))).cloned().collect()
        };
        let (first_own, second_own) = (own(&first, &second), own(&second, &first));
        if first_own.len() < 2 || second_own.len() < 2 {
            return false;
        }
        // How near the message comes to a side in meaning, as the mean of its content words.
        let near = |from: usize, to: usize| -> f64 {
            let Some(reading) = self.meaning.as_ref().and_then(|m| m.points.get(id)) else { return 0.0 };
            let vectors: Vec<&[f32]> = reading
                .words
                .iter()
                .filter(|w| w.span.start >= from && w.span.end <= to)
                .filter(|w| super::reading::meaning_word(point, w.span.clone()).is_some())
                .map(|w| &*w.vector)
                .collect();
            if vectors.is_empty() { 0.0 } else { self.nearest(&crate::embed::pooled(&vectors)) }
        };
        // A message that sets something against it says the other side in its own words
        // ("…win or lose each hole on its own instead of adding up every shot").
        let said = crate::text::words_spaced(&self.said_text);
        let contrasts = [" instead ", " whereas ", " while ", " unlike ", " rather ", " other ", " but "]
            .iter()
            .any(|w| said.contains(w));
        let spoken = |side: &[Token], from: usize, to: usize| {
            side.iter().any(|k| self.message.iter().any(|m| m.same_as(k))) || near(from, to) >= SIDE_SAID
        };
        let (first, second) = (spoken(&first_own, 0, at), spoken(&second_own, at + joint.len(), point.len()));
        !contrasts && first != second
    }

    /// Whether a short message names one of a pair the point joins by "and" and not the
    /// other, both of them words the learner had to supply: "constipation" for "can cause
    /// constipation and dependence". Examples ("such as codeine and morphine") are no pair
    /// to name.
    pub(super) fn one_of_a_pair(&self, point: &str) -> bool {
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
    pub(super) fn asks_about(&self, key: &[&Token]) -> bool {
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
    pub(super) fn for_this_point(&self, id: &str, key: &[&Token]) -> Vec<Token> {
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
}

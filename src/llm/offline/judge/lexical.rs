//! The verdict by words alone: the share of the point's weight the message's words carry, and
//! every rule the words decide surely (a wrong number, an opposite, a question back, a swap),
//! gathered in [`Flags`](super::Flags) for the formula, which cannot overturn them.

use super::swaps::{self, swapped, swapped_marks};
use super::turned::{
    compared_the_other_way, crosses_the_threshold, moves_the_denial, runs_from_the_other_end,
    says_the_opposite, turned_in_a_clause, turns_direction, turns_up_or_down,
};
use super::ways::{acts_backwards, makes_the_source, reverses, runs_backwards};
use super::wording;
use super::wording::clauses;
use super::{Context, Flags, Verdict, key, without_asides};
use crate::llm::brief::PointBrief;
use crate::text::numbers::{self, Quantity};
use crate::text::{Token, equations, growth, tokens};

/// Share of a point's weight a message must carry to recall it.
const RECALL: f64 = 0.5;
/// Enough when the message has the point's number right: numbers are strong evidence.
const RECALL_WITH_NUMBER: f64 = 0.3;
/// Share for a near miss.
const NEAR: f64 = 0.25;

impl Context {
    /// The verdict by words alone.
    pub(super) fn lexical(&self, point: &PointBrief) -> Verdict {
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
        // A share spelt out ("a third") that the question asks for, unsaid: a right figure
        // beside it (the year) does not stand for it.
        let mut unsaid_amount = false;
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
        // A question of how many, how much or what share wants the figure, spelt out or not
        // ("how deadly was it?": "about a third to half of the population", not "loads").
        let asked_amount = {
            let asked = crate::text::words_spaced(&self.asked_text);
            [
                " how many ",
                " how much ",
                " how deadly ",
                " what fraction ",
                " what proportion ",
                " what share ",
                " what percentage ",
            ]
            .iter()
            .any(|w| asked.contains(w))
        };
        let passing_years = dated_in_passing(&point.content);
        let compounded = wording::numbered_compounds(&point.content);
        // "One table … the other": "one" of a pair picks one out, it counts nothing.
        let paired = {
            let words = crate::text::words_spaced(&point.content);
            words
                .split_once(" one ")
                .is_some_and(|(_, after)| after.contains(" the other ") || after.contains(" another "))
        };
        for (k, aside) in &judged {
            let weight = self.weight(k) * if *aside { 0.3 } else { 1.0 };
            total += weight;
            if self.message.iter().any(|m| m.negated == k.negated && m.same_as(k)) {
                carried += weight;
                present.push(k.word.clone());
                number_right |= k.quantity.is_some();
            } else if let Some(q) = &k.quantity {
                // "Three-dimensional" names a kind of thing: another count is no answer to it.
                if compounded.iter().any(|(number, _)| *number == k.word) || k.word == "one" && paired {
                    continue;
                }
                missing_numbers.push(q);
                // A year the question neither gives nor asks for dates the point in passing ("the
                // Fresnel lens, developed … in the 1820s, uses…", asked what made it a big deal).
                let in_passing =
                    !self.asked_text.is_empty() && !asked_when && passing_years.contains(&k.word);
                // A figure in brackets is an aside ("In Leviathan (1651) Hobbes…"), not one the
                // learner had to supply, unless the question asks when.
                unsaid_figure |= (!aside || asked_when)
                    && !in_passing
                    && k.word.trim_start_matches(['-', '−', '~']).starts_with(|c: char| c.is_ascii_digit())
                    && !codes_said.iter().any(|code| code.contains(k.word.as_str()));
                unsaid_amount |= asked_amount
                    && !aside
                    && matches!(q.base, Some((crate::text::numbers::Dimension::Share, _)))
                    && k.word.chars().all(|c| c.is_alphabetic() || c == ' ' || c == '-');
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
                    // A decade is vaguer than a year in it ("mid 1880s" for "1884-85"), not wrong.
                    && missing_numbers.iter().any(|n| n.comparable(q) && !q.spans(n.value))
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
        let wrong_compound = wording::another_compound(&point.content, &self.said_text, &self.asked_text)
            // "two-dimensional" for "three-dimensional".
            || self
                .message_compounds
                .iter()
                .any(|theirs| !compounded.contains(theirs) && compounded.iter().any(|ours| ours.1 == theirs.1));
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
            || self.one_side_of_a_contrast(&point.id, &point.content)
            || self.lacks_the_means(&point.content)
            || self.gives_another_reason(&point.id, &point.content)
            // Or gives the word of a point on what a word means, and not the meaning (nor was it
            // asked): "the formal way to say goodbye" for "'Kamsahamnida' means 'thank you'".
            || wording::quoted_meaning(&point.content).is_some_and(|meaning| {
                let meant = tokens(meaning);
                !meant.is_empty()
                    && !meant.iter().any(|k| self.is_given(k) || self.message.iter().any(|m| m.same_as(k)))
            })
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
        // A denial is affirmed by its first word: "a cold's a virus" affirms nothing of "have no
        // effect on viruses, so they can't cure colds".
        let heads = crate::text::denied_heads(&point.content);
        let affirms_denied = !self.message.iter().any(|m| m.negated)
            && heads.iter().any(|head| self.message.iter().any(|m| m.term == head.term))
            || key.iter().any(|k| k.negated && self.message.iter().any(|m| !m.negated && can_be(k, m)));
        // Or it turns what the point says and what it denies round ("when it is received, not
        // when it is posted" for "when it is posted, not when received").
        let only_as = |k: &Token, negated: bool| {
            self.message.iter().any(|m| m.negated == negated && m.term == k.term)
                && !self.message.iter().any(|m| m.negated != negated && m.term == k.term)
        };
        // A word the question names with its opposite ("What separates the North and South
        // Islands?") is the question's, said by the answer to place what it names, not turned.
        let asked_with_its_opposite = |m: &Token| {
            let asked = |t: &Token| self.asked.iter().any(|a| a.same_as(t));
            asked(m)
                && self.asked.iter().any(|a| {
                    crate::text::opposite(&a.term, &m.term)
                        || crate::text::antonyms::opposed(&a.word, &m.word)
                })
        };
        let turned_round = key.iter().any(|k| !k.negated && only_as(k, true))
            && key.iter().any(|k| k.negated && only_as(k, false));
        let opposite = affirms_denied
            || turned_round
            || moves_the_denial(&point.content, &self.said_text)
            || says_the_opposite(
                &point.content,
                &self
                    .for_this_point(&point.id, &key)
                    .into_iter()
                    .filter(|m| !asked_with_its_opposite(m))
                    .collect::<Vec<_>>(),
                &self.said_text,
                &self.message_clauses,
            )
            || reverses(&point.content, self.message_way.as_ref())
            || turns_direction(&self.asked_part(&point.content), &self.said_text)
            || runs_from_the_other_end(&point.content, &self.said_text)
            || crosses_the_threshold(&point.content, &self.said_text)
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
        let another_point = self.names_another_subject(&point.content, &key)
            || self.says_another_instead(&key)
            || self.answers_for_another(&point.id, &point.content, &key);
        let swapped = swapped(&point.content, &self.message_roles)
            || swaps::swapped_numbers(&point.content, &self.message_clauses)
            || swaps::count_of_another_half(&point.content, &self.said_text)
            || swapped_marks(&point.content, &self.said_text)
            || swaps::one_way_of_two(&point.content, &self.said_text)
            || swaps::crowns_another(&point.content, &self.said_text)
            || swaps::counts_from_another_start(&point.content, &self.said_text)
            || compared_the_other_way(&point.content, &self.said_text)
            || swaps::divides_the_other_way(&point.content, &self.said_text)
            || self.crossed_with_another(&point.id, &key)
            || self.out_of_order(&point.content);
        let denied = self.denies_by_name(&key.iter().copied().filter(|k| !both_ways(k)).collect::<Vec<_>>());
        let sibling = self.names_a_sibling(&point.content, &key)
            || wording::another_colour(&point.content, &self.said_text)
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
        let unsaid_number =
            ((unsaid_figure && !number_right) || unsaid_amount || self.says_another_figure(&point.content))
                && !same_orders;
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

    /// Whether the figure the question asks for is unsaid and another of the point's figures is
    /// said in its place: "so nine calories a gram" asked of protein, for "Protein provides 4
    /// kilocalories per gram…, while fat provides 9". Only where the question asks for a figure
    /// and of one clause of the point ([`Context::asked_part`]).
    fn says_another_figure(&self, point: &str) -> bool {
        let question = crate::text::words_spaced(&self.asked_text);
        let asks_a_figure =
            [" how many ", " how much ", " how long ", " how far ", " how fast ", " what year "]
                .iter()
                .any(|w| question.contains(w));
        let asked = self.asked_part(point);
        if !asks_a_figure || asked == point || clauses(&without_asides(point)).len() < 2 {
            return false;
        }
        let figures = |text: &str| -> Vec<Token> {
            tokens(text).into_iter().filter(|t| t.quantity.is_some()).collect()
        };
        let said = |k: &Token| self.message.iter().any(|m| m.negated == k.negated && m.same_as(k));
        let (mut asked, all) = (figures(&asked), figures(point));
        asked.retain(|k| !self.is_given(k));
        !asked.is_empty()
            && !asked.iter().any(said)
            && all.iter().any(|k| said(k) && !asked.iter().any(|a| a.same_as(k)))
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
}

/// The years (and decades) a point dates a thing with in passing: in a phrase between commas
/// that opens on a participle ("…, developed by Augustin-Jean Fresnel in the 1820s, …"), or
/// after a name ("Smeaton's Eddystone Lighthouse of 1759", "the Berlin Conference of 1884-85").
fn dated_in_passing(content: &str) -> Vec<String> {
    let is_a_year = |word: &str| {
        let digits = word.strip_suffix('s').unwrap_or(word);
        digits.len() == 4 && digits.parse::<u32>().is_ok_and(|year| (1000..=2100).contains(&year))
    };
    // A year, or a span of years with the second short ("1884-85"): each as its word.
    let years_of = |word: &str| -> Vec<String> {
        let word = word.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
        match word.split_once(['-', '–']) {
            Some((from, to))
                if is_a_year(from) && to.len() <= 4 && to.chars().all(|c| c.is_ascii_digit()) =>
            {
                vec![from.to_string(), to.to_string()]
            }
            Some(_) => Vec::new(),
            None if is_a_year(&word) => vec![word],
            None => Vec::new(),
        }
    };
    let mut years = Vec::new();
    let phrases: Vec<&str> = content.split(',').collect();
    for phrase in phrases.iter().skip(1).take(phrases.len().saturating_sub(2)) {
        if phrase.split_whitespace().next().is_some_and(|w| w.len() > 4 && w.ends_with("ed")) {
            years.extend(phrase.split_whitespace().flat_map(years_of));
        }
    }
    let words: Vec<&str> = content.split_whitespace().collect();
    for three in words.windows(3) {
        if three[1] == "of" && three[0].starts_with(char::is_uppercase) {
            years.extend(years_of(three[2]));
        }
    }
    years
}

//! The tutor's reply, checked sentence by sentence before the learner sees it. Two rules from
//! the design: no praise or progress talk (the interface does that with events), and no
//! giving away a point the learner has not tried yet (the hint ladder gives points away only
//! after tries). A sentence that breaks a rule is taken out, counted and logged; the rest of
//! the reply streams on, a sentence at a time.

use std::sync::Arc;

use crate::embed::{Embedder, similarity};
use crate::llm::brief::PointBrief;
use crate::text::{coverage, terms};

warren_app::named_enum! {
    /// Why a sentence was taken out of a reply.
    pub enum Rule {
        /// Praise or congratulation ("Great job!").
        Praise = "praise",
        /// Progress or transition talk ("3 out of 5", "let's move to the next point").
        Progress = "progress",
        /// The content of a point the learner has not tried yet.
        Leak = "leak",
    }
}

/// Phrases that praise, matched on whole words of the lower-cased sentence.
const PRAISE: &[&str] = &[
    "great job",
    "good job",
    "nice job",
    "well done",
    "nailed it",
    "great work",
    "nice work",
    "good work",
    "great answer",
    "exactly right",
    "that's right!",
    "that's correct",
    "you're right",
    "you are right",
    "that's perfect",
    "that's excellent",
    "correct!",
    "spot on",
    "bravo",
    "you got it",
    "keep it up",
    "good thinking",
    "great thinking",
];

/// Words that praise when they open a sentence on their own ("Perfect!", "Excellent, …"), but
/// not in "perfect competition" or "Great Britain".
const PRAISE_OPENERS: &[&str] = &[
    "excellent",
    "perfect",
    "brilliant",
    "fantastic",
    "awesome",
    "amazing",
    "impressive",
    "great",
    "wonderful",
    "superb",
    "correct",
    "bravo",
];

/// Phrases that announce progress or move between points.
const PROGRESS: &[&str] = &[
    "points left",
    "points to go",
    "point left",
    "one more to go",
    "almost there",
    "halfway",
    "you've covered",
    "we've covered",
    "you have covered",
    "we have covered",
    "you've recalled",
    "you have recalled",
    "your progress",
    "great progress",
    "next point",
    "let's move on",
    "let's move to",
    "moving on to",
    "now let's talk about",
    "now let's turn to",
    "let's turn to",
    "all the points",
    "every point",
];

/// Share of a point's terms that, said by the tutor, gives it away.
const LEAK_COVERAGE: f64 = 0.6;

/// How near in meaning (cosine of the sentence model's vectors) a statement of the tutor's
/// must come to a point to give it away in other words. Paraphrases of a point measure 0.77
/// to 0.92; the point's own cue, hints at it and talk around it 0.50 at most.
const LEAK_MEANING: f32 = 0.7;

/// The rules for one reply: which points it must not give away.
#[derive(Clone, Debug, Default)]
pub struct ReplyCheck {
    /// Points not recalled and not tried yet, with their terms.
    guarded: Vec<(PointBrief, Vec<String>)>,
    /// Those points' cues, in [`plain`] form: asking one gives nothing away, however many of
    /// its point's words it has ("What do plants give off through their leaves?").
    cues: Vec<String>,
    /// What the tutor says when every sentence of its reply was taken out.
    stand_in: String,
    /// The titles of the notes the reply may name (see [`ReplyCheck::naming`]).
    titles: Vec<String>,
    /// The sentence model, when loaded: a point said in other words is given away too.
    meaning: Option<Arc<Embedder>>,
}

impl ReplyCheck {
    /// `untried`: the points the learner has not tried yet (the ladder has given none of them).
    pub fn new(untried: &[PointBrief], stand_in: String) -> Self {
        let guarded = untried
            .iter()
            .map(|p| (p.clone(), terms(&p.content)))
            // A point of one or two words cannot be told from a question about it.
            .filter(|(_, t)| t.len() >= 3)
            .collect();
        // A point without a cue is asked by the question its words make: asking that gives
        // nothing away either.
        let cues = untried
            .iter()
            .filter_map(PointBrief::question)
            .map(|q| plain(&q))
            .filter(|c| !c.is_empty())
            .collect();
        Self { guarded, stand_in, cues, titles: Vec::new(), meaning: None }
    }

    /// The titles of the notes the reply may name: a title in quotes is a name, not a
    /// statement ("Think back to your notes, “The water cycle”" gives nothing away, even
    /// where a point begins "The water cycle is…").
    pub fn naming(mut self, titles: impl IntoIterator<Item = String>) -> Self {
        self.titles = titles.into_iter().map(|t| t.trim().to_string()).filter(|t| !t.is_empty()).collect();
        self
    }

    /// The sentence without the notes' titles it quotes.
    fn unnamed(&self, sentence: &str) -> String {
        let mut out = sentence.to_string();
        for title in &self.titles {
            for (open, close) in [("\"", "\""), ("\u{201c}", "\u{201d}")] {
                out = out.replace(&format!("{open}{title}{close}"), "");
            }
        }
        out
    }

    /// Whether a sentence asks a guarded point's own cue, or is a piece of one.
    fn asks_a_cue(&self, sentence: &str) -> bool {
        let said = plain(sentence);
        !said.is_empty()
            && self.cues.iter().any(|cue| {
                said.contains(cue.as_str()) || (cue.contains(&said) && said.split(' ').count() >= 3)
            })
    }

    /// The same, also catching a point given away in other words, by the sentence model.
    pub fn by_meaning(mut self, embedder: Option<Arc<Embedder>>) -> Self {
        self.meaning = embedder;
        self
    }

    /// Whether a statement (a question gives nothing away: "Where are proteins made?" is the
    /// point's cue) says a guarded point in other words. One pass of the model, off the async
    /// threads; the points come from its cache. False without the model or if it fails.
    pub async fn leaks_in_other_words(&self, sentence: &str) -> bool {
        let Some(embedder) = self.meaning.clone() else { return false };
        let sentence = &self.unnamed(sentence);
        if self.guarded.is_empty()
            || sentence.trim_end().ends_with('?')
            || terms(sentence).len() < 2
            || self.asks_a_cue(sentence)
        {
            return false;
        }
        let mut texts = vec![sentence.to_string()];
        texts.extend(self.guarded.iter().map(|(p, _)| p.content.clone()));
        let judged = tokio::task::spawn_blocking(move || {
            let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
            let readings = embedder.read(&texts).ok()?;
            let (said, points) = readings.split_first()?;
            Some(points.iter().any(|p| similarity(&said.sentence, &p.sentence) >= LEAK_MEANING))
        });
        matches!(judged.await, Ok(Some(true)))
    }

    pub fn stand_in(&self) -> &str {
        &self.stand_in
    }

    /// The rule a sentence breaks, if any.
    pub fn check(&self, sentence: &str) -> Option<Rule> {
        let lower = format!(" {} ", sentence.to_lowercase().replace('’', "'"));
        let has = |phrase: &&str| {
            // Whole words: " excellent " and " excellent," but not " excellently".
            lower.match_indices(phrase).any(|(at, _)| {
                let before = lower[..at].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
                let after = lower[at + phrase.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric());
                before && after
            })
        };
        if PRAISE.iter().any(has) || opens_with_praise(&lower) {
            return Some(Rule::Praise);
        }
        if PROGRESS.iter().any(has) || counts_points(&lower) {
            return Some(Rule::Progress);
        }
        let said = terms(&self.unnamed(sentence));
        let leaks = self.guarded.iter().any(|(_, key)| coverage(key, &said).0 >= LEAK_COVERAGE);
        (leaks && !self.asks_a_cue(sentence)).then_some(Rule::Leak)
    }
}

/// A text's words, lowercase, one space between them: how a cue is found in a sentence
/// whatever its punctuation.
fn plain(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A sentence that opens with a word of praise standing alone: followed by punctuation or by
/// nothing ("Perfect!", "Great, and…"), not by another word ("Great Britain").
fn opens_with_praise(lower: &str) -> bool {
    let text = lower.trim_start();
    let word: String = text.chars().take_while(|c| c.is_alphanumeric()).collect();
    PRAISE_OPENERS.contains(&word.as_str())
        && text[word.len()..].trim_start().chars().next().is_none_or(|c| !c.is_alphanumeric())
}

/// "3 of 5", "3 out of 5", "two of the five points": a count of points done.
fn counts_points(lower: &str) -> bool {
    const NUMBERS: [&str; 11] =
        ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "all"];
    let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let number = |w: &str| w.chars().all(|c| c.is_ascii_digit()) || NUMBERS.contains(&w);
    let counted = (0..words.len()).any(|i| {
        let at = |k: usize| words.get(i + k).copied().unwrap_or_default();
        number(at(0))
            && ((at(1) == "of" && (number(at(2)) || at(2) == "the"))
                || (at(1) == "out" && at(2) == "of" && number(at(3))))
    });
    counted && words.iter().any(|w| w.starts_with("point") || w.starts_with("recall"))
}

/// Streamed text cut into whole sentences (each with the space after it), so each can be
/// checked before it is shown. A sentence ends at `.`, `?` or `!` followed by white space, or
/// at a line break.
#[derive(Debug, Default)]
pub struct Sentences {
    pending: String,
}

impl Sentences {
    /// The sentences that `piece` completes.
    pub fn push(&mut self, piece: &str) -> Vec<String> {
        self.pending.push_str(piece);
        let mut done = Vec::new();
        while let Some(end) = self.boundary() {
            let rest = self.pending.split_off(end);
            done.push(std::mem::replace(&mut self.pending, rest));
        }
        done
    }

    /// What is left when the stream ends.
    pub fn finish(self) -> Option<String> {
        (!self.pending.is_empty()).then_some(self.pending)
    }

    /// Where the first complete sentence (with its trailing white space) ends.
    fn boundary(&self) -> Option<usize> {
        let text = &self.pending;
        let mut chars = text.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            let ends = c == '\n'
                || (matches!(c, '.' | '?' | '!') && chars.peek().is_some_and(|(_, n)| n.is_whitespace()));
            if ends {
                // Take the white space that follows, so the next sentence starts clean.
                let mut end = at + c.len_utf8();
                while let Some(&(next, n)) = chars.peek() {
                    if !n.is_whitespace() {
                        return Some(end);
                    }
                    end = next + n.len_utf8();
                    chars.next();
                }
                // White space up to the end: more may follow; wait for it.
                return None;
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(id: &str, content: &str) -> PointBrief {
        PointBrief { id: id.into(), content: content.into(), ..PointBrief::default() }
    }

    fn check() -> ReplyCheck {
        ReplyCheck::new(
            &[point("r", "Ribosomes translate messenger RNA into proteins.")],
            "What else?".into(),
        )
    }

    #[test]
    fn praise_and_progress_are_caught() {
        let c = check();
        assert_eq!(c.check("Great job!"), Some(Rule::Praise));
        assert_eq!(c.check("Excellent, that's it."), Some(Rule::Praise));
        assert_eq!(c.check("You've recalled 3 out of 5 points."), Some(Rule::Progress));
        assert_eq!(c.check("That's two of the five points."), Some(Rule::Progress));
        assert_eq!(c.check("Let's move to the next point."), Some(Rule::Progress));
        assert_eq!(c.check("Almost there."), Some(Rule::Progress));
        assert_eq!(c.check("Perfect! What else?"), Some(Rule::Praise));
        assert_eq!(c.check("That's 4 out of 6 recalled."), Some(Rule::Progress));
    }

    #[test]
    fn neutral_questions_and_acknowledgements_pass() {
        let c = check();
        for fine in [
            "Right.",
            "Yes.",
            "Mm-hmm.",
            "Where are proteins assembled, and from which instructions?",
            "Which organelle did you mean?",
            "How does the cell read its genes?",
            "Excellently put questions are rare.",
            "What is perfect competition?",
            "When did Great Britain leave?",
            "What comes out of the nucleus?",
        ] {
            assert_eq!(c.check(fine), None, "{fine}");
        }
    }

    #[test]
    fn an_untried_point_is_not_given_away_but_a_recalled_one_may_be_named() {
        let c = check();
        assert_eq!(c.check("Ribosomes translate mRNA into proteins, remember?"), Some(Rule::Leak));
        assert_eq!(c.check("The ribosome translates messenger RNA."), Some(Rule::Leak));
        // Mitochondria were recalled: not guarded.
        assert_eq!(c.check("Mitochondria produce ATP; what builds the proteins?"), None);
    }

    #[test]
    fn a_points_own_cue_is_asked_however_many_of_its_words_it_has() {
        let mut transpiration =
            point("t", "Plants give off water vapour through their leaves: transpiration.");
        transpiration.context =
            "What do we call the water vapour plants give off through their leaves?".into();
        let mut condensing = point("c", "Water vapour rises, cools and condenses into clouds.");
        condensing.context = "Fill the gap: Water vapour rises, cools and ___ into clouds.".into();
        let c = ReplyCheck::new(&[transpiration, condensing], "What else?".into());
        assert_eq!(c.check("What do we call the water vapour plants give off through their leaves?"), None);
        assert_eq!(
            c.check("Again: what do we call the water vapour plants give off through their leaves?"),
            None
        );
        assert_eq!(c.check("Fill the gap: Water vapour rises, cools and ___ into clouds."), None);
        // Said, not asked: still given away.
        assert_eq!(c.check("Plants give off water vapour through their leaves."), Some(Rule::Leak));
        assert_eq!(c.check("Water vapour rises, cools and condenses into clouds."), Some(Rule::Leak));
    }

    #[test]
    fn a_point_without_a_cue_is_asked_by_its_own_words_and_a_quoted_title_names_nothing() {
        let mars = point("m", "Mars looks red because its surface is covered in iron oxide, which is rust.");
        let asked = mars.question().expect("a question its words make");
        let c = ReplyCheck::new(std::slice::from_ref(&mars), "What else?".into());
        assert_eq!(c.check(&asked), None, "{asked}");
        assert_eq!(c.check("Mars looks red because its surface is covered in rust."), Some(Rule::Leak));
        // A note's title, quoted, is a name: its words do not count, though they are the point's.
        let cycle = point("w", "The water cycle moves water between the sea, the air and the land.");
        let named = ReplyCheck::new(std::slice::from_ref(&cycle), "What else?".into())
            .naming(["The water cycle moves water between the sea, the air and the land".to_string()]);
        let hint = "Think back to your notes, \u{201c}The water cycle moves water between the sea, the air and the land\u{201d}: what do they say?";
        assert_eq!(named.check(hint), None);
        assert_eq!(
            named.check("The water cycle moves water between the sea, the air and the land."),
            Some(Rule::Leak)
        );
    }

    #[test]
    fn sentences_come_whole_with_their_spaces() {
        let mut s = Sentences::default();
        assert_eq!(s.push("Right. Wh"), vec!["Right. "]);
        assert_eq!(s.push("at about 3.5 g"), Vec::<String>::new());
        assert_eq!(s.push("rams? And"), vec!["What about 3.5 grams? "]);
        assert_eq!(s.push(" then\nmore"), vec!["And then\n"]);
        assert_eq!(s.finish(), Some("more".into()));
    }

    #[tokio::test]
    async fn a_point_not_yet_tried_said_in_other_words_is_given_away_but_its_cue_is_not() {
        let model = Embedder::load(std::path::Path::new("data/models/all-MiniLM-L6-v2"))
            .expect("the sentence model, which scripts/test installs");
        let c = check().by_meaning(Some(Arc::new(model)));
        let paraphrase = "The little factories that read mRNA and make proteins are the ribosomes.";
        assert_eq!(c.check(paraphrase), None, "too few of the point's words for the word check");
        assert!(c.leaks_in_other_words(paraphrase).await);
        for fine in [
            "Where are proteins assembled, and from which instructions?",
            "Think about which structure reads the genetic message.",
            "Let's come back to the cell's energy.",
        ] {
            assert!(!c.leaks_in_other_words(fine).await, "{fine}");
        }
        assert!(!check().leaks_in_other_words(paraphrase).await, "without the model, words alone");
    }
}

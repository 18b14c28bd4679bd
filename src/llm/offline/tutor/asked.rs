//! A question the learner asks the tutor: what its question means, the question again, or
//! something the notes may answer, and that answer, from the notes nearest in meaning.

use super::ladder::ensure_period;
use crate::embed::Embedder;
use crate::llm::Message;
use crate::llm::brief::{ExplorerBrief, Focus, PointBrief, TutorBrief, TutorMoment};
use crate::text::{sentences, terms};

/// Whether `message` says a word of `point` that `question` does not.
pub(super) fn adds_to_question(message: &str, point: &str, question: &str) -> bool {
    let (point, question) = (crate::text::tokens(point), crate::text::tokens(question));
    // Said as the point says it: "can't be reassigned" adds to "const cannot be reassigned",
    // "not the nucleus" nothing to "the nucleus holds the DNA".
    crate::text::tokens(message).iter().any(|said| {
        point.iter().any(|p| p.same_as(said) && p.negated == said.negated)
            && !question.iter().any(|q| q.same_as(said))
    })
}

/// Whether the learner asks what the question means, not about a word of it ("what do you
/// mean?", "I don't understand the question", but not "what do you mean by wall?").
pub(super) fn asks_what_is_meant(message: &str) -> bool {
    const ASKING: &[&str] = &[
        "what do you mean",
        "what does that mean",
        "what does the question mean",
        "don't understand the question",
        "dont understand the question",
        "don't get the question",
        "dont get the question",
        "can you rephrase",
        "could you rephrase",
        "rephrase that",
        "rephrase the question",
    ];
    let said = crate::text::words_spaced(message);
    ASKING.iter().any(|a| said.contains(&format!(" {a} "))) && !said.contains(" mean by ")
}

/// The words a learner asks the meaning of ("what do you mean by forms?" → "forms"), up to
/// three of them.
pub(super) fn meant_by(message: &str) -> Option<String> {
    let lower = message.to_lowercase();
    let at = lower.find(" mean by ")? + " mean by ".len();
    let words: Vec<&str> = message[at..]
        .split(['?', '.', '!', ',', ';'])
        .next()?
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty() && !matches!(w.to_lowercase().as_str(), "the" | "a" | "an" | "that"))
        .collect();
    (!words.is_empty() && words.len() <= 3).then(|| words.join(" "))
}

/// Whether a question to the tutor asks for its question again ("what was the question
/// again?", "sorry, can you repeat that?").
pub(super) fn asks_for_the_question(message: &str) -> bool {
    const ASKING: &[&str] = &[
        "the question again",
        "what was the question",
        "what's the question",
        "what is the question",
        "repeat the question",
        "repeat that",
        "say that again",
        "ask that again",
        "what was it again",
        "what were you asking",
        "what are you asking",
    ];
    let said = crate::text::words_spaced(message);
    ASKING
        .iter()
        .any(|a| said.contains(&format!(" {a} ")) || said.contains(&format!(" {} ", a.replace('\'', ""))))
}

/// The brief with the point's linked notes ordered by nearness in meaning to the point (ties
/// and a failed pass keep the engine's order).
pub(in crate::llm::offline) fn nearest_notes_first(brief: &TutorBrief, embedder: &Embedder) -> TutorBrief {
    let mut brief = brief.clone();
    if let Some(focus) = brief.focus.as_mut() {
        let texts: Vec<String> = std::iter::once(focus.point.content.clone())
            .chain(focus.notes.iter().map(|n| format!("{}. {}", n.title.trim(), n.body.trim())))
            .collect();
        if let Ok(vectors) = embedder.embed(&texts.iter().map(String::as_str).collect::<Vec<_>>())
            && let Some((point, notes)) = vectors.split_first()
        {
            let mut ranked: Vec<(f32, crate::llm::brief::ResourceBrief)> = notes
                .iter()
                .map(|v| crate::embed::similarity(point, v))
                .zip(std::mem::take(&mut focus.notes))
                .collect();
            ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
            focus.notes = ranked.into_iter().map(|(_, note)| note).collect();
        }
        // The resource shown beside the words is the note they name first.
        let rank = |title: &str| focus.notes.iter().position(|n| n.title == title).unwrap_or(usize::MAX);
        brief.showable.sort_by_key(|r| rank(&r.title));
    }
    brief
}

/// A question asked once every point is recalled, with notes to answer it from (a request for
/// more questions is not one: see [`wants_more`]).
pub(in crate::llm::offline) fn asks_the_notes(brief: &TutorBrief) -> bool {
    brief.moment == TutorMoment::Reply
        && brief.focus.is_none()
        && brief.asked
        && !brief.notes.is_empty()
        && !wants_more(brief.learner_message.as_deref().unwrap_or_default())
}

/// Whether the learner asks for more questions ("Can you ask me more?", "quiz me again").
pub(super) fn wants_more(message: &str) -> bool {
    const MORE: &[&str] = &[
        "ask me more",
        "ask me another",
        "ask me something else",
        "more questions",
        "another question",
        "quiz me",
        "test me",
        "keep going",
        "can we do more",
        "can we keep going",
        "go again",
        "what next",
        "what's next",
        "whats next",
        "what now",
        "go over",
        "got wrong",
        "ones i missed",
        "one more time",
        "do it again",
        "start over",
        "practise more",
        "practice more",
    ];
    let lower = message.to_lowercase().replace('’', "'");
    MORE.iter().any(|m| lower.contains(m))
}

/// The answer to such a question, as the explorer answers inside a rabbit hole: the nearest
/// sentences of one note (by meaning with the sentence model), or a plain word that the notes
/// do not cover it.
pub(in crate::llm::offline) fn from_session_notes(brief: &TutorBrief, embedder: Option<&Embedder>) -> String {
    let asked = brief.learner_message.as_deref().unwrap_or_default().trim().to_string();
    let explorer = ExplorerBrief {
        set_name: brief.set_name.clone(),
        topic: asked.clone(),
        resources: brief.notes.clone(),
        learner_message: Some(asked),
        history: brief.previous_reply.iter().map(|r| Message::assistant(r.clone())).collect(),
        open_points: brief.pending.clone(),
    };
    crate::llm::offline::explorer::explorer(&explorer, embedder)
}

/// An answer to the learner's question from the notes linked to the point under discussion:
/// the sentence sharing most words with the question (two at least), unless it would give the
/// point away; otherwise, for a question that half names the point asked or one of `pending`,
/// that it is theirs to recall; otherwise a plain word that the notes don't say.
pub(in crate::llm::offline) fn from_notes(question: &str, focus: &Focus, pending: &[PointBrief]) -> String {
    let asked = terms(question);
    // A question that half names a point still to recall, and names nothing else, is not for
    // the notes to answer ("is a nephron the same as a glomerulus?" asks about a glomerulus).
    let names = |point: &PointBrief| {
        let said = terms(&point.content);
        half_names(question, point, 1) && asked.iter().all(|t| said.contains(t))
    };
    let point = terms(&focus.point.content);
    let best = focus
        .notes
        .iter()
        .flat_map(|note| sentences(&note.body))
        .map(|sentence| {
            let said = terms(&sentence);
            let shared = said.iter().filter(|t| asked.contains(t)).count();
            let gives_away = said.iter().filter(|t| point.contains(t) && !asked.contains(t)).count() >= 2;
            (shared, gives_away, sentence)
        })
        .filter(|(shared, gives_away, _)| *shared >= 2 && !gives_away)
        .max_by_key(|(shared, _, _)| *shared);
    match best {
        Some((_, _, sentence)) => format!("Your notes say: {}", ensure_period(&sentence)),
        None if names(&focus.point) => "That is part of what I am asking you.".into(),
        None if pending.iter().any(|p| p.id != focus.point.id && names(p)) => {
            "That is one of the points still to come; hold on to it.".into()
        }
        // Nothing about when to take it up: an Explore offer may stand beside these words.
        None => "Your notes on this point don't answer that.".into(),
    }
}

/// Whether half or more of a question's terms, and `least` at the fewest, are `point`'s: the
/// question is about that point.
pub(in crate::llm::offline) fn half_names(question: &str, point: &PointBrief, least: usize) -> bool {
    let (asked, said) = (terms(question), terms(&point.content));
    let shared = asked.iter().filter(|t| said.contains(t)).count();
    shared >= least && shared * 2 >= asked.len()
}

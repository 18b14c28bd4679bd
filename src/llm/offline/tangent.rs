//! The offline detector's judgement: whether a message is curiosity that leaves the points,
//! worth offering as a rabbit hole, rather than an answer, a check, a clarification or talk
//! about the session.

use super::kinds::{FILLERS, YES_NO, is_wh};
use crate::llm::Role;
use crate::llm::brief::DetectorBrief;
use crate::text::{Token, tokens};

/// Phrases of curiosity about something beyond the question.
const CURIOUS: &[&str] = &[
    "why ",
    "how did",
    "how do ",
    "how does",
    "how come",
    "how on earth",
    "how many",
    "how much",
    "what happened",
    "whatever happened",
    "what would",
    "what makes",
    "what if",
    "what about",
    "i wonder",
    "wondered",
    "i'd love to know",
    "i'd like to know",
    "i want to know",
    "is there any",
    "are there any",
    "are there other",
    "is it true",
    "i read",
    "i've heard",
    "i heard",
    "i saw",
    "funny",
    "interesting",
    "speaking of",
    "by the way",
    "who came up",
    "who was",
    "who decided",
    "who invented",
    "who discovered",
    "ever ",
    "actually",
    "still ",
    "do other",
    "does any",
    "do any",
    "is any",
];

/// What says a message is not a tangent: a clarification, talk about the session, checking
/// an answer, or asking about a point again.
const NOT_TANGENT: &[&str] = &[
    "do you mean",
    "what do you mean",
    "when you say",
    "you mean",
    "can we",
    "could we",
    "can i have",
    "hint",
    "come back",
    "faster",
    "slow down",
    "skip",
    "points left",
    "points are left",
    "how many points",
    "brb",
    "break",
    "later",
    ", right?",
    "or the other way",
    "the one",
    "again",
    "is that right",
    "is that correct",
    "is that it",
    "is that the",
    "is that what",
    "isn't it",
    "correct?",
    "rephrase",
    "repeat the question",
    "say that again",
    "what was the question",
    "the question?",
    "all of this",
    "all this",
    "all these",
];

/// Whether a message is curiosity that leaves the points: a question or musing that brings
/// in something the points, the set's name and the tutor's words do not hold.
pub fn is_tangent(brief: &DetectorBrief) -> bool {
    let message = brief.learner_message.trim();
    let lower = format!(" {}", message.to_lowercase().replace('’', "'"));
    if crate::text::is_dont_know(message) || NOT_TANGENT.iter().any(|p| lower.contains(p)) {
        return false;
    }
    let words: Vec<&str> =
        lower.split(|c: char| !(c.is_alphanumeric() || c == '\'')).filter(|w| !w.is_empty()).collect();
    let opening: Vec<&str> = words.iter().copied().skip_while(|w| FILLERS.contains(w)).collect();
    // "So is it the ribosomes…", "hmm, so kneading…": a learner restating, not wondering.
    if words.iter().take_while(|w| FILLERS.contains(w)).any(|w| *w == "so") {
        return false;
    }
    // "Is it like missing someone?": a guess at the answer, not curiosity.
    if matches!(opening.first().copied(), Some("is" | "was"))
        && matches!(opening.get(1).copied(), Some("it" | "that"))
        && !lower.contains("is it true")
    {
        return false;
    }
    let mut known: Vec<Token> =
        brief.points.iter().flat_map(|p| tokens(&format!("{} {}", p.content, p.context))).collect();
    known.extend(tokens(&brief.set_name));
    if let Some(tutor) = brief.recent.iter().rev().find(|m| m.role == Role::Assistant) {
        known.extend(tokens(&tutor.content));
    }
    let said = tokens(message);
    if said.len() < 2 {
        return false;
    }
    let new = said.iter().filter(|t| !known.iter().any(|k| k.same_as(t))).count();
    let share = new as f64 / said.len() as f64;
    let curious = CURIOUS.iter().any(|p| lower.contains(p));
    let asks = message.contains('?');
    let yes_no = opening.first().is_some_and(|w| YES_NO.contains(w));
    if yes_no {
        // "Is it Mercury or Venus?" checks an answer; "Is absolute zero actually reachable?" wonders.
        return asks && (curious || share >= 0.6) && !lower.contains(" or ") || (curious && share >= 0.5);
    }
    (curious && share >= 0.25) || (asks && share >= 0.6 && opening.first().is_some_and(|w| is_wh(w)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::brief::PointBrief;

    fn point(id: &str, content: &str) -> PointBrief {
        PointBrief { id: id.into(), content: content.into(), ..PointBrief::default() }
    }

    fn tangent(message: &str) -> bool {
        is_tangent(&DetectorBrief {
            set_name: "The heart".into(),
            points: vec![point(
                "v",
                "The left ventricle has the thickest wall because it pumps blood to the whole body.",
            )],
            learner_message: message.into(),
            recent: vec![crate::llm::Message::assistant("Which chamber has the thickest wall?")],
        })
    }

    #[test]
    fn curiosity_beyond_the_points_is_a_tangent() {
        assert!(tangent("Why do hummingbirds have such fast heartbeats?"));
        assert!(tangent("I've always wondered how surgeons first operated on a beating heart."));
        assert!(tangent("Do other animals have four chambers too, or only mammals and birds?"));
        assert!(tangent("I've heard that divers can slow their hearts down, why is that?"));
    }

    #[test]
    fn answers_checks_clarifications_and_session_talk_are_not() {
        for message in [
            "the left ventricle, because it pumps to the whole body",
            "Is it the left ventricle or the right one?",
            "why is the left ventricle wall thicker again?",
            "why is the left ventricle wall thicker?",
            "the left ventricle, right?",
            "what do you mean by wall?",
            "can we go a bit faster?",
            "no idea, sorry",
            "so is it the ventricle that pumps to the body?",
            "could you rephrase the question?",
            "is it like a muscle that never gets tired?",
            "How does all of this fit together?",
        ] {
            assert!(!tangent(message), "{message}");
        }
    }
}

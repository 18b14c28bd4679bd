//! The drafting agent: recall points from one passage of the learner's own material, each
//! with a cue and the exact words of the passage it rests on. Its answer is JSON, validated:
//! a point without content is dropped, a missing cue is made (as the offline drafter makes
//! them), and lengths are held to the forms' caps. A malformed answer is asked for once more;
//! then the passage is reported as not drafted.

use serde::Deserialize;
use warren_app::forms::limits;

use super::{ask_json, json_object, json_request};
use crate::llm::brief::DraftBrief;
use crate::llm::{LlmError, Provider, Purpose, Request, Tier};
use crate::text::cues::cue;

/// A drafted point: what to recall, a cue that asks for it, and the passage's words it rests on.
#[derive(Clone, Debug, PartialEq)]
pub struct Drafted {
    pub content: String,
    pub cue: String,
    pub quote: String,
}

/// Why a passage has no drafts.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum NotDrafted {
    #[error("the model's answer could not be read, twice")]
    Malformed,
    #[error(transparent)]
    Model(#[from] LlmError),
}

pub fn request(brief: DraftBrief) -> Request {
    // The stable part first (what the agent is, its rules, the set), the passage after.
    let system = format!(
        "You draft recall points from a passage of a learner's own study material, for their recall \
         set \"{}\". A recall point is one fact the learner wants to keep; a tutor will later ask \
         for it and check their answer against it.\n\nRules:\n\
         - One fact per point, stated in one short sentence.\n\
         - Self-contained: it makes sense without the passage (no \"it\", \"this\", \"the above\").\n\
         - No two points say the same.\n\
         - Faithful: state only what the passage says, in plain words; add nothing.\n\
         - A cue for each point: a question or a prompt that asks for the point without giving \
         its answer away.\n\
         - A quote for each point: the exact words of the passage it rests on, copied character \
         for character (a sentence, or part of one).\n\
         - Keep what is worth remembering (definitions, causes, numbers and dates, names, key \
         relationships); leave out examples and asides.\n\n\
         Answer with JSON only, in this shape:\n\
         {{\"points\":[{{\"content\":\"…\",\"cue\":\"…\",\"quote\":\"…\"}}]}}",
        brief.set_name
    );
    let user = format!("Source: {}\n\nPassage:\n{}", brief.title, brief.passage);
    // The prompt holds for every passage of the source: a provider's cache serves it.
    let cache_at = vec![system.len()];
    json_request(system, cache_at, user, 3000, Tier::Main, Purpose::Drafter(brief))
}

#[derive(Deserialize)]
struct Answer {
    points: Vec<Point>,
}

#[derive(Deserialize)]
struct Point {
    #[serde(default)]
    content: String,
    #[serde(default)]
    cue: String,
    #[serde(default)]
    quote: String,
}

/// The points of an answer, if it is the expected JSON.
pub fn parse(text: &str) -> Option<Vec<Drafted>> {
    let answer: Answer = serde_json::from_str(json_object(text)?).ok()?;
    let clip = |text: &str, cap: usize| -> String { text.trim().chars().take(cap).collect() };
    Some(
        answer
            .points
            .into_iter()
            .filter(|p| !p.content.trim().is_empty())
            .map(|p| {
                let content = clip(&p.content, limits::POINT);
                let cue = match clip(&p.cue, limits::CUE) {
                    cue if cue.is_empty() => cue_for(&content),
                    cue => cue,
                };
                Drafted { quote: clip(&p.quote, limits::POINT), cue, content }
            })
            .collect(),
    )
}

fn cue_for(content: &str) -> String {
    cue(content).chars().take(limits::CUE).collect()
}

/// Asks for a passage's points; a malformed answer is asked for once more.
pub async fn draft(provider: &dyn Provider, brief: DraftBrief) -> Result<Vec<Drafted>, NotDrafted> {
    ask_json(provider, &request(brief), "drafter", parse).await?.ok_or(NotDrafted::Malformed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_are_read_checked_and_given_cues() {
        let answer = r#"Here you are: {"points":[
            {"content":"Ribosomes build proteins.","cue":"What do ribosomes build?","quote":"Ribosomes build proteins"},
            {"content":"  ","cue":"x","quote":"y"},
            {"content":"The nucleus holds the DNA.","quote":"The nucleus holds the DNA."}]}"#;
        let points = parse(answer).expect("read");
        assert_eq!(points.len(), 2, "a point without content is dropped");
        assert_eq!(points[0].cue, "What do ribosomes build?");
        assert!(!points[1].cue.is_empty(), "a missing cue is made");
        assert_eq!(parse("no json"), None);
        assert_eq!(parse(r#"{"pts":[]}"#), None);
    }
}

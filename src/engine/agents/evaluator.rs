//! The continuous evaluator: one structured call judges the learner's latest message against
//! every unchecked point. Its observation steers the tutor's next reply only and is never
//! stored or shown.

use serde::Deserialize;

use super::{ask_json, json_object, json_request, transcript};
use crate::llm::brief::{EvalMode, EvaluatorBrief, MessageKind, review_lines};
use crate::llm::{Provider, Purpose, Request, Tier};

/// Below this the evaluator's "recalled" is not trusted: no point is marked on a guess.
pub const MIN_CONFIDENCE: f64 = 0.5;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Evaluation {
    /// Point ids with confidence 0..1, each an unchecked point, each once.
    pub recalled: Vec<(String, f64)>,
    pub near_misses: Vec<(String, String)>,
    pub observation: Option<String>,
    /// What the message was; an attempt when the evaluator did not say (or said nonsense).
    pub kind: MessageKind,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Reply {
    #[serde(default)]
    recalled: Vec<RecalledItem>,
    #[serde(default)]
    near_misses: Vec<NearMissItem>,
    #[serde(default)]
    observation: Option<String>,
    #[serde(default)]
    message_kind: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RecalledItem {
    point_id: String,
    confidence: f64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct NearMissItem {
    point_id: String,
    #[serde(default)]
    feedback: String,
}

pub fn request(brief: EvaluatorBrief) -> Request {
    // How to judge and how to answer first (the same for every call), then the set and the
    // points to go (the same until one is recalled), then what holds for this message only: a
    // provider's prompt cache serves the first two (`cache_at`).
    let mut system = String::from(
        "You check which recall points a learner has just shown they remember. You never talk to the learner.\n\n\
         Judge only the learner's latest message; earlier turns are context. A point counts as recalled \
         when the learner's own words carry its substance: paraphrase and informal wording are fine; a vague \
         gesture, a guess among options, or repeating what the tutor just said is not. One message can recall \
         several points. A near miss is an attempt at a point that is close but imprecise or incomplete.\n\n\
         Answer with JSON only, in this shape:\n\
         {\"recalled\":[{\"pointId\":\"...\",\"confidence\":0.9}],\
         \"nearMisses\":[{\"pointId\":\"...\",\"feedback\":\"what was close and what was missing, a short phrase\"}],\
         \"observation\":\"one sentence for the tutor about this message, or empty\",\
         \"messageKind\":\"attempt\"}\n\
         Use only the ids listed below. Use empty arrays when nothing applies. messageKind says what the \
         message is: \"attempt\" (an answer or a guess, right or wrong), \"dont_know\" (the learner says \
         they do not know or remember), \"question\" (a question to the tutor, about the question asked or \
         about something else; a guess phrased as a question is an attempt), \"small_talk\" (anything \
         else: thanks, a pause, talk about the session).\n\n",
    );
    let mut cache_at = vec![system.len()];
    if brief.review.is_empty() {
        system.push_str(&format!("Recall set: \"{}\".\n\n", brief.set_name));
    } else {
        system.push_str(&review_lines(&brief.review));
    }
    system.push_str("Points not yet recalled:\n");
    for p in &brief.unchecked {
        match &p.set {
            Some(set) => {
                system.push_str(&format!("- id \"{}\" [set \"{set}\"]: {}\n", p.id, p.content.trim()))
            }
            None => system.push_str(&format!("- id \"{}\": {}\n", p.id, p.content.trim())),
        }
    }
    cache_at.push(system.len());
    if !brief.guidelines.trim().is_empty() {
        system.push_str(&format!(
            "\nThe learner's own guidelines for the set of the point under discussion (they may say what an \
             answer must hold):\n{}\n",
            brief.guidelines.trim()
        ));
    }
    if brief.mode == EvalMode::Rabbithole {
        system.push_str("\nThe learner is exploring a side topic; leave the observation empty.");
    }
    let user = format!(
        "Recent conversation:\n{}\nLatest learner message:\n{}",
        transcript(&brief.recent, "Tutor"),
        brief.learner_message.trim()
    );
    json_request(system, cache_at, user, 600, Tier::Fast, Purpose::Evaluator(brief))
}

/// Reads and validates an answer; `None` when it is not the JSON asked for.
pub fn parse(text: &str, brief: &EvaluatorBrief) -> Option<Evaluation> {
    let reply: Reply = serde_json::from_str(json_object(text)?).ok()?;
    let known = |id: &str| brief.unchecked.iter().any(|p| p.id == id);
    let mut evaluation = Evaluation::default();
    for item in reply.recalled {
        let confidence = if item.confidence.is_finite() { item.confidence.clamp(0.0, 1.0) } else { 0.0 };
        if known(&item.point_id)
            && confidence >= MIN_CONFIDENCE
            && !evaluation.recalled.iter().any(|(id, _)| *id == item.point_id)
        {
            evaluation.recalled.push((item.point_id, confidence));
        }
    }
    for item in reply.near_misses {
        if known(&item.point_id)
            && !evaluation.recalled.iter().any(|(id, _)| *id == item.point_id)
            && !evaluation.near_misses.iter().any(|(id, _)| *id == item.point_id)
        {
            let feedback: String = item.feedback.trim().chars().take(200).collect();
            evaluation.near_misses.push((item.point_id, feedback));
        }
    }
    // An unknown kind is read as an attempt: the ladder climbs as it did before kinds.
    evaluation.kind = reply.message_kind.and_then(|k| k.parse().ok()).unwrap_or_default();
    evaluation.observation = reply
        .observation
        .map(|o| o.trim().chars().take(400).collect::<String>())
        .filter(|o| !o.is_empty() && brief.mode == EvalMode::Recall);
    Some(evaluation)
}

/// Asks, retries once on a malformed answer, and otherwise degrades to "nothing recalled".
pub async fn evaluate(provider: &dyn Provider, brief: EvaluatorBrief) -> Evaluation {
    if brief.unchecked.is_empty() {
        // Nothing left to check off: whether the message asks something (and is answered) is
        // told by its words, without a model.
        let kind = crate::llm::offline::kinds::kind_of(&brief.learner_message);
        return Evaluation { kind, ..Evaluation::default() };
    }
    match ask_json(provider, &request(brief.clone()), "evaluator", |text| parse(text, &brief)).await {
        Ok(evaluation) => evaluation.unwrap_or_default(),
        Err(err) => {
            tracing::warn!("evaluator unavailable: {err}");
            Evaluation::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::brief::PointBrief;

    fn brief() -> EvaluatorBrief {
        EvaluatorBrief {
            set_name: "Letters".into(),
            review: vec![],
            guidelines: String::new(),
            unchecked: vec![
                PointBrief { id: "a".into(), content: "A".into(), ..PointBrief::default() },
                PointBrief { id: "b".into(), content: "B".into(), ..PointBrief::default() },
            ],
            learner_message: "x".into(),
            mode: EvalMode::Recall,
            recent: vec![],
        }
    }

    #[test]
    fn keeps_only_known_confident_unique_points() {
        let text = r#"```json
        {"recalled":[{"pointId":"a","confidence":0.9},{"pointId":"a","confidence":0.8},
                     {"pointId":"zzz","confidence":1.0},{"pointId":"b","confidence":0.2}],
         "nearMisses":[{"pointId":"a","feedback":"dup"},{"pointId":"b","feedback":"close"}],
         "observation":"  named a  "}
        ```"#;
        let e = parse(text, &brief()).unwrap();
        assert_eq!(e.recalled, vec![("a".to_string(), 0.9)]);
        assert_eq!(e.near_misses, vec![("b".to_string(), "close".to_string())]);
        assert_eq!(e.observation.as_deref(), Some("named a"));
    }

    #[test]
    fn malformed_answers_are_refused() {
        assert!(parse("I think they got A", &brief()).is_none());
        assert!(parse(r#"{"recalled":"a"}"#, &brief()).is_none());
        assert!(parse(r#"{"recalled":[{"pointId":"a","confidence":"high"}]}"#, &brief()).is_none());
    }

    #[test]
    fn observations_are_dropped_inside_rabbit_holes() {
        let mut b = brief();
        b.mode = EvalMode::Rabbithole;
        let e = parse(r#"{"recalled":[],"observation":"steer"}"#, &b).unwrap();
        assert_eq!(e.observation, None);
    }
}

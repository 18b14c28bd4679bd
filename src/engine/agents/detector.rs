//! The rabbit-hole detector: notices when the learner's curiosity leaves the recall points.
//! Detection only; what happens next is the learner's choice.

use serde::{Deserialize, Serialize};

use super::{ask_json, json_object, json_request};
use crate::llm::brief::DetectorBrief;
use crate::llm::{Provider, Purpose, Request, Tier};

/// Below this the detector stays quiet.
pub const MIN_CONFIDENCE: f64 = 0.6;

/// The detector's answer, as the model gives it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Detection {
    pub is_rabbithole: bool,
    #[serde(default)]
    pub topic: String,
    #[serde(default)]
    pub depth: u8,
    #[serde(default)]
    pub related_to_current_point: bool,
    #[serde(default)]
    pub related_recall_point_ids: Vec<String>,
    #[serde(default)]
    pub confidence: f64,
    #[serde(default)]
    pub reasoning: String,
}

pub fn request(brief: DetectorBrief) -> Request {
    let mut system = format!(
        "You watch a recall session on \"{}\" for tangents. A tangent is the learner showing genuine \
         curiosity about something outside the points below: a question or musing that would lead the \
         conversation away from recalling them. Answer attempts, requests for hints, \"I don't know\", \
         and questions about the points themselves are not tangents.\n\nPoints:\n",
        brief.set_name
    );
    for p in &brief.points {
        system.push_str(&format!("- id \"{}\": {}\n", p.id, p.content.trim()));
    }
    system.push_str(
        "\nAnswer with JSON only, in this shape:\n\
         {\"isRabbithole\":false,\"topic\":\"a short noun phrase, at most six words\",\"depth\":1,\
         \"relatedToCurrentPoint\":false,\"relatedRecallPointIds\":[],\"confidence\":0.0,\
         \"reasoning\":\"one sentence\"}",
    );
    let user = format!(
        "Recent conversation:\n{}\nLatest learner message:\n{}",
        super::transcript(&brief.recent, "Tutor"),
        brief.learner_message.trim()
    );
    // The whole prompt holds for the session: a provider's cache serves it (`cache_at`).
    let cache_at = vec![system.len()];
    json_request(system, cache_at, user, 300, Tier::Fast, Purpose::Detector(brief))
}

/// A detection worth offering to the learner, or `None`.
pub fn parse(text: &str) -> Option<Option<Detection>> {
    let mut detection: Detection = serde_json::from_str(json_object(text)?).ok()?;
    detection.topic = detection.topic.trim().chars().take(120).collect();
    let fires = detection.is_rabbithole
        && detection.confidence.is_finite()
        && detection.confidence >= MIN_CONFIDENCE
        && !detection.topic.is_empty();
    Some(fires.then_some(detection))
}

/// Asks, retries once on a malformed answer, and otherwise stays quiet.
pub async fn detect(provider: &dyn Provider, brief: DetectorBrief) -> Option<Detection> {
    match ask_json(provider, &request(brief), "detector", parse).await {
        Ok(found) => found.flatten(),
        Err(err) => {
            tracing::warn!("rabbit-hole detector unavailable: {err}");
            None
        }
    }
}

/// Two to four words for pills and banners, taken from the topic.
pub fn label_for(topic: &str) -> String {
    crate::llm::topic::label_of(topic)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fires_only_when_confident_with_a_topic() {
        let yes = r#"{"isRabbithole":true,"topic":"tidal locking","depth":2,"relatedToCurrentPoint":false,
                      "relatedRecallPointIds":[],"confidence":0.8,"reasoning":"asks why"}"#;
        assert_eq!(parse(yes).unwrap().unwrap().topic, "tidal locking");
        let unsure = yes.replace("0.8", "0.3");
        assert_eq!(parse(&unsure), Some(None));
        let no_topic = yes.replace("tidal locking", " ");
        assert_eq!(parse(&no_topic), Some(None));
        assert_eq!(parse("nope"), None);
    }
}

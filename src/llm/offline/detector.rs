//! The offline detector: curiosity about something the points do not hold.

use serde_json::json;

use crate::llm::brief::DetectorBrief;
use crate::llm::topic::topic_of;

pub(super) fn detector(brief: &DetectorBrief) -> serde_json::Value {
    let message = brief.learner_message.trim();
    let fires = super::tangent::is_tangent(brief);
    let topic = if fires { topic_of(message) } else { String::new() };
    json!({
        "isRabbithole": fires && !topic.is_empty(),
        "topic": topic,
        "depth": 1,
        "relatedToCurrentPoint": false,
        "relatedRecallPointIds": [],
        "confidence": if fires { 0.7 } else { 0.1 },
        "reasoning": if fires { "The learner asks about something outside the recall points." } else { "On topic." },
    })
}

//! The built-in offline provider: no network, no key, deterministic. It answers each agent from
//! the structured brief behind the prompt: the evaluator by term coverage of each point, the
//! tutor with cues and progressively narrower hints, the detector by spotting questions that
//! leave the points, the explorer from the set's own resources. Good enough to study with, and
//! what the tests drive.

mod text;

use std::time::Duration;

use async_trait::async_trait;
use futures_util::StreamExt;
use serde_json::json;
use warren_app::protocol::ProviderInfo;

use super::brief::{
    DetectorBrief, EvaluatorBrief, ExplorerBrief, PointBrief, SummaryBrief, TutorBrief, TutorMoment,
};
use super::{LlmError, Provider, Purpose, Request, Role, TextStream};
use text::{content_words, coverage, is_dont_know, pick, sentences, terms};

pub const MODEL: &str = "warren-offline-1";
/// Share of a point's terms that counts as recalling it.
const RECALL_COVERAGE: f64 = 0.6;
/// Share that counts as a near miss.
const NEAR_COVERAGE: f64 = 0.25;

pub struct Offline {
    /// Pause between streamed pieces, so replies appear to type out. Zero in tests.
    chunk_delay: Duration,
}

impl Offline {
    pub fn new(chunk_delay: Duration) -> Self {
        Self { chunk_delay }
    }
}

#[async_trait]
impl Provider for Offline {
    fn info(&self) -> ProviderInfo {
        ProviderInfo {
            kind: "offline".into(),
            model: MODEL.into(),
            offline: true,
            label: "Offline tutor (built in, no network)".into(),
        }
    }

    async fn stream(&self, request: &Request) -> Result<TextStream, LlmError> {
        let text = answer(request);
        let delay = self.chunk_delay;
        let pieces = chunks(&text);
        let stream = futures_util::stream::iter(pieces).then(move |piece| async move {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            Ok(piece)
        });
        Ok(Box::pin(stream))
    }

    async fn probe(&self) -> Result<(), LlmError> {
        Ok(())
    }
}

/// Splits text into pieces of a few words, keeping every character.
fn chunks(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut words = 0;
    for c in text.chars() {
        current.push(c);
        if c == ' ' {
            words += 1;
            if words == 3 {
                out.push(std::mem::take(&mut current));
                words = 0;
            }
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

fn answer(request: &Request) -> String {
    match &request.purpose {
        Purpose::Tutor(brief) => tutor(brief),
        Purpose::Evaluator(brief) => evaluator(brief).to_string(),
        Purpose::Detector(brief) => detector(brief).to_string(),
        Purpose::Explorer(brief) => explorer(brief),
        Purpose::Summariser(brief) => summary(brief),
        Purpose::Probe => "ok".into(),
    }
}

// --- evaluator --------------------------------------------------------------------------------

fn evaluator(brief: &EvaluatorBrief) -> serde_json::Value {
    let said = terms(&brief.learner_message);
    let mut recalled = Vec::new();
    let mut near = Vec::new();
    for point in &brief.unchecked {
        let key = terms(&point.content);
        let (score, present) = coverage(&key, &said);
        if score >= RECALL_COVERAGE {
            recalled.push(json!({"pointId": point.id, "confidence": (score * 100.0).round() / 100.0}));
        } else if score >= NEAR_COVERAGE && !present.is_empty() {
            let close = content_words(&point.content)
                .into_iter()
                .filter(|w| present.iter().any(|p| terms(w).first() == Some(p)))
                .take(3)
                .collect::<Vec<_>>()
                .join(", ");
            near.push(json!({"pointId": point.id, "feedback": format!("On the right track with {close}.")}));
        }
    }
    let observation = if !recalled.is_empty() {
        "The learner recalled a point in their own words."
    } else if is_dont_know(&brief.learner_message) {
        "The learner does not remember yet; offer a narrower cue."
    } else if !near.is_empty() {
        "The learner is close but has not got the whole point."
    } else {
        ""
    };
    json!({"recalled": recalled, "nearMisses": near, "observation": observation})
}

// --- tutor ------------------------------------------------------------------------------------

fn cue(point: &PointBrief, set_name: &str) -> String {
    if point.context.trim().is_empty() {
        format!("What else do you remember from {set_name}?")
    } else {
        point.context.trim().to_string()
    }
}

fn tutor(brief: &TutorBrief) -> String {
    let set = brief.set_name.as_str();
    let Some(next) = brief.pending.first() else {
        return match brief.moment {
            TutorMoment::Opening | TutorMoment::Resume => {
                format!("Everything in {set} is recalled. What would you like to connect it to?")
            }
            TutorMoment::Reply => "Say more: how does that connect to the rest of what you know here?".into(),
        };
    };
    match brief.moment {
        TutorMoment::Opening => format!("Let's see what you remember about {set}. {}", cue(next, set)),
        TutorMoment::Resume => format!("Back to {set}, where we left off. {}", cue(next, set)),
        TutorMoment::Reply => {
            let message = brief.learner_message.as_deref().unwrap_or_default();
            if !brief.just_recalled.is_empty() {
                let ack = ["Right.", "Yes.", "Mm-hmm."][pick(message, 3)];
                return format!("{ack} {}", cue(next, set));
            }
            let lead = if is_dont_know(message) { "That's all right. " } else { "" };
            format!("{lead}{}", hint(next, set, brief.failed_attempts))
        }
    }
}

/// Hints that narrow with each failed try; the answer itself only after four.
fn hint(point: &PointBrief, set: &str, attempts: u32) -> String {
    let words = content_words(&point.content);
    match attempts {
        0 | 1 => format!("Take another angle. {}", cue(point, set)),
        2 => match words.iter().max_by_key(|w| w.chars().count()) {
            Some(word) => {
                let start: String = word.chars().take(2).collect();
                format!("A nudge: one of the key words starts with \"{start}\". {}", cue(point, set))
            }
            None => cue(point, set),
        },
        3 => format!("Part of it: \"{}\". What fills the gaps?", masked(&point.content)),
        _ => format!(
            "Here it is: {} Put it in your own words, and we'll go on.",
            ensure_period(point.content.trim())
        ),
    }
}

/// The content with every other content word blanked out.
fn masked(content: &str) -> String {
    let key: Vec<String> = content_words(content).into_iter().map(|w| w.to_lowercase()).collect();
    let mut hide = false;
    content
        .split_whitespace()
        .map(|token| {
            let bare =
                token.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-').to_lowercase();
            if key.contains(&bare) {
                hide = !hide;
                if hide {
                    return token
                        .replace(|c: char| c.is_alphanumeric(), "_")
                        .replace("__", "_")
                        .replace("__", "_");
                }
            }
            token.to_string()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn ensure_period(text: &str) -> String {
    if text.ends_with(['.', '!', '?']) { text.to_string() } else { format!("{text}.") }
}

// --- detector ---------------------------------------------------------------------------------

fn detector(brief: &DetectorBrief) -> serde_json::Value {
    let message = brief.learner_message.trim();
    let lower = message.to_lowercase();
    let asks = message.contains('?')
        || ["why ", "how ", "what about", "tell me", "i wonder", "what if"]
            .iter()
            .any(|p| lower.starts_with(p));
    let said = terms(message);
    let known: Vec<String> = brief
        .points
        .iter()
        .flat_map(|p| terms(&p.content).into_iter().chain(terms(&p.context)))
        .chain(terms(&brief.set_name))
        .collect();
    let (overlap, _) = coverage(&said, &known);
    let fires = asks && said.len() >= 2 && overlap < 0.34 && !is_dont_know(message);
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

/// The content words of the question asked: "…, what about the printing press?" gives
/// "printing press".
fn topic_of(message: &str) -> String {
    let question =
        sentences(message).into_iter().find(|s| s.ends_with('?')).unwrap_or_else(|| message.to_string());
    let lower = question.to_lowercase();
    // `get`, not slicing: lower-casing can change byte offsets in non-ASCII text.
    let tail = lower.find("about ").and_then(|i| question.get(i + 6..)).unwrap_or(&question);
    content_words(tail).into_iter().take(5).collect::<Vec<_>>().join(" ")
}

// --- explorer ---------------------------------------------------------------------------------

fn explorer(brief: &ExplorerBrief) -> String {
    let topic = brief.topic.trim();
    let mut wanted = terms(topic);
    if let Some(message) = &brief.learner_message {
        wanted.extend(terms(message));
    }
    let already_said: String =
        brief.history.iter().filter(|m| m.role == Role::Assistant).map(|m| m.content.as_str()).collect();
    let mut scored: Vec<(usize, String)> = brief
        .resources
        .iter()
        .flat_map(|r| sentences(&r.body))
        .filter(|s| !already_said.contains(s.as_str()))
        .map(|s| (terms(&s).iter().filter(|t| wanted.contains(t)).count(), s))
        .filter(|(score, _)| *score > 0)
        .collect();
    scored.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
    let found: Vec<String> = scored.into_iter().take(2).map(|(_, s)| s).collect();
    match (&brief.learner_message, found.is_empty()) {
        (None, false) => {
            format!("Here is what your notes say about {topic}. {} What draws you to it?", found.join(" "))
        }
        (Some(_), false) => format!("{} What do you make of that?", found.join(" ")),
        (None, true) => format!(
            "Working offline, I can only draw on this set's own notes, and they say nothing about {topic}. \
             What do you already know about it? Think it through here, and return to the session whenever you like."
        ),
        (Some(_), true) => "That goes beyond the notes I have here. What makes you curious about it?".into(),
    }
}

// --- summariser -------------------------------------------------------------------------------

fn summary(brief: &SummaryBrief) -> String {
    let list = |points: &[PointBrief]| {
        points.iter().map(|p| p.content.trim().to_string()).collect::<Vec<_>>().join("; ")
    };
    let minutes = (brief.duration_ms / 60_000).max(1);
    let mut parts = vec![format!(
        "In about {minutes} minute{} on {}, you recalled {} point{}.",
        if minutes == 1 { "" } else { "s" },
        brief.set_name,
        brief.recalled.len(),
        if brief.recalled.len() == 1 { "" } else { "s" }
    )];
    if !brief.struggled.is_empty() {
        parts.push(format!("These took some work: {}.", list(&brief.struggled)));
    }
    if !brief.rabbitholes.is_empty() {
        parts.push(format!("You explored {}.", brief.rabbitholes.join(", ")));
    }
    if brief.remaining.is_empty() {
        parts.push("Nothing is left for this round.".into());
    } else {
        parts.push(format!(
            "Still to recall: {} point{}.",
            brief.remaining.len(),
            if brief.remaining.len() == 1 { "" } else { "s" }
        ));
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::brief::{EvalMode, ResourceBrief};

    fn point(id: &str, content: &str, context: &str) -> PointBrief {
        PointBrief { id: id.into(), content: content.into(), context: context.into() }
    }

    #[test]
    fn evaluator_recalls_several_points_and_spots_near_misses() {
        let brief = EvaluatorBrief {
            unchecked: vec![
                point("m", "Mitochondria produce most of the cell's ATP.", ""),
                point("r", "Ribosomes translate messenger RNA into proteins.", ""),
                point("n", "The nucleus stores the cell's DNA and controls gene expression.", ""),
            ],
            learner_message: "The mitochondrion produces ATP for the cell, and ribosomes translate mRNA messenger RNA into proteins. DNA is somewhere.".into(),
            mode: EvalMode::Recall,
        };
        let v = evaluator(&brief);
        let ids: Vec<&str> =
            v["recalled"].as_array().unwrap().iter().map(|r| r["pointId"].as_str().unwrap()).collect();
        assert_eq!(ids, vec!["m", "r"]);
        assert_eq!(v["nearMisses"][0]["pointId"], "n");
    }

    #[test]
    fn tutor_hints_narrow_then_give_the_answer() {
        let mut brief = TutorBrief {
            set_name: "Cells".into(),
            moment: TutorMoment::Reply,
            pending: vec![point("m", "Mitochondria produce ATP", "Which organelle powers the cell?")],
            just_recalled: vec![],
            failed_attempts: 1,
            observation: None,
            learner_message: Some("I don't remember".into()),
        };
        let first = tutor(&brief);
        assert!(first.starts_with("That's all right."), "{first}");
        brief.failed_attempts = 2;
        assert!(tutor(&brief).contains("starts with \"Mi\""));
        brief.failed_attempts = 3;
        let partial = tutor(&brief);
        assert!(partial.contains('_') && !partial.contains("Mitochondria"), "{partial}");
        brief.failed_attempts = 4;
        assert!(tutor(&brief).contains("Here it is: Mitochondria produce ATP."));
        for n in 0..6 {
            brief.failed_attempts = n;
            assert!(!tutor(&brief).contains('!'), "no exclamation marks");
        }
    }

    #[test]
    fn detector_fires_on_questions_outside_the_points() {
        let mut brief = DetectorBrief {
            set_name: "Cells".into(),
            points: vec![point("m", "Mitochondria produce ATP", "")],
            learner_message: "Wait, how did the printing press change Europe?".into(),
        };
        let v = detector(&brief);
        assert_eq!(v["isRabbithole"], true);
        assert_eq!(v["topic"], "printing press change Europe");
        brief.learner_message = "Do mitochondria produce ATP?".into();
        assert_eq!(detector(&brief)["isRabbithole"], false);
        brief.learner_message = "What about the history of printing?".into();
        assert_eq!(detector(&brief)["topic"], "history printing");
        brief.learner_message = "İİİ what about ÅNGSTRÖM units?".into();
        assert_eq!(detector(&brief)["isRabbithole"], true);
    }

    #[test]
    fn explorer_quotes_matching_notes() {
        let brief = ExplorerBrief {
            set_name: "Cells".into(),
            topic: "endosymbiosis".into(),
            resources: vec![ResourceBrief {
                title: "Origins".into(),
                body: "Mitochondria descend from bacteria. Endosymbiosis explains their own DNA.".into(),
            }],
            learner_message: None,
            history: vec![],
        };
        assert!(explorer(&brief).contains("Endosymbiosis explains their own DNA."));
    }

    #[test]
    fn chunks_keep_every_character() {
        let text = "one two three four five six seven";
        assert_eq!(chunks(text).concat(), text);
        assert!(chunks(text).len() > 1);
    }
}

//! The structured facts behind each agent's prompt. Network providers read the prompt; the
//! offline provider reads these.

use super::Message;

#[derive(Clone, Debug)]
pub enum Purpose {
    Tutor(TutorBrief),
    Evaluator(EvaluatorBrief),
    Detector(DetectorBrief),
    Explorer(ExplorerBrief),
    Summariser(SummaryBrief),
    /// A configuration check at start-up.
    Probe,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PointBrief {
    pub id: String,
    pub content: String,
    /// A cue that asks about the point without giving it away (may be empty).
    pub context: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TutorMoment {
    /// The first words of a new session.
    Opening,
    /// Back after a pause: a short recap, then on.
    Resume,
    /// Answering the learner's latest message.
    Reply,
}

#[derive(Clone, Debug)]
pub struct TutorBrief {
    pub set_name: String,
    pub moment: TutorMoment,
    /// Points not yet recalled, in probe order: the first is the one to work towards.
    pub pending: Vec<PointBrief>,
    /// Points recalled in the learner's latest message.
    pub just_recalled: Vec<PointBrief>,
    /// Learner messages since the last recall: how far the hints should have narrowed.
    pub failed_attempts: u32,
    /// The evaluator's observation about the latest message, for this reply only.
    pub observation: Option<String>,
    pub learner_message: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvalMode {
    Recall,
    /// Inside a rabbit hole: check silently, no steering.
    Rabbithole,
}

#[derive(Clone, Debug)]
pub struct EvaluatorBrief {
    pub unchecked: Vec<PointBrief>,
    pub learner_message: String,
    pub mode: EvalMode,
}

#[derive(Clone, Debug)]
pub struct DetectorBrief {
    pub set_name: String,
    pub points: Vec<PointBrief>,
    pub learner_message: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ResourceBrief {
    pub title: String,
    pub body: String,
}

#[derive(Clone, Debug)]
pub struct ExplorerBrief {
    pub set_name: String,
    pub topic: String,
    pub resources: Vec<ResourceBrief>,
    /// The learner's latest message; `None` for the opening.
    pub learner_message: Option<String>,
    /// The conversation so far inside this rabbit hole.
    pub history: Vec<Message>,
}

#[derive(Clone, Debug)]
pub struct SummaryBrief {
    pub set_name: String,
    pub recalled: Vec<PointBrief>,
    pub struggled: Vec<PointBrief>,
    pub remaining: Vec<PointBrief>,
    pub rabbitholes: Vec<String>,
    pub duration_ms: u64,
}

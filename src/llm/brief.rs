//! The structured facts behind each agent's prompt. Network providers read the prompt; the
//! offline provider reads these.

use warren_app::api::ResourceKind;
use warren_app::ladder::Rung;
use warren_app::summary::{OpenPoint, RecalledPoint};

use super::Message;

#[derive(Clone, Debug)]
pub enum Purpose {
    Tutor(Box<TutorBrief>),
    Evaluator(EvaluatorBrief),
    Detector(DetectorBrief),
    Explorer(ExplorerBrief),
    Summariser(SummaryBrief),
    /// Putting a spoken answer's misheard terms right.
    Cleanup(CleanupBrief),
    /// Drafting recall points from a passage of the learner's material.
    Drafter(DraftBrief),
    /// A configuration check at start-up.
    Probe,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct PointBrief {
    pub id: String,
    pub content: String,
    /// A cue that asks about the point without giving it away (may be empty).
    pub context: String,
    /// In today's review across sets, the name of the point's set (`None` in a set session,
    /// whose prompts name the one set once).
    pub set: Option<String>,
}

impl PointBrief {
    /// The question the point is asked by: its cue, or, without one, the question its own
    /// words make ("What is the sinoatrial node?", or the sentence with its key term blanked),
    /// as a drafted cue would ask it. None when its words make none.
    pub fn question(&self) -> Option<String> {
        let cue = self.context.trim();
        if cue.is_empty() { crate::text::cues::asking(&self.content) } else { Some(cue.to_string()) }
    }
}

/// A recall set as the agents read it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SetBrief {
    pub name: String,
    pub description: String,
    /// The learner's extra instructions, which hold while a point of this set is discussed.
    pub guidelines: String,
}

/// The lines that introduce today's review across `sets` in a prompt: each set's name and
/// description, once.
pub fn review_lines(sets: &[SetBrief]) -> String {
    let mut text = String::from("Today's review, across the learner's recall sets:\n");
    for set in sets {
        match set.description.trim() {
            "" => text.push_str(&format!("- \"{}\"\n", set.name)),
            description => text.push_str(&format!("- \"{}\": {}\n", set.name, description)),
        }
    }
    text.push_str("Each point below names its set.\n\n");
    text
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

warren_app::named_enum! {
    /// What a learner's message is, as the evaluator reads it. Only an attempt or "I don't
    /// know" climbs the hint ladder: a question gets an answer and the same rung again.
    #[derive(Default)]
    pub enum MessageKind {
        /// An answer or a guess, right or wrong.
        #[default]
        Attempt = "attempt",
        /// The learner says they do not know or remember.
        DontKnow = "dont_know",
        /// A question to the tutor: about the question asked, or about something else.
        Question = "question",
        /// Anything else: thanks, a pause, talk about the session.
        SmallTalk = "small_talk",
    }
}

impl MessageKind {
    /// Whether the message counts as a try at the point under discussion.
    pub fn climbs(self) -> bool {
        match self {
            MessageKind::Attempt | MessageKind::DontKnow => true,
            MessageKind::Question | MessageKind::SmallTalk => false,
        }
    }
}

warren_app::named_enum! {
    /// The tutor's tools: each shows the learner one of the set's resources.
    pub enum ShowTool {
        /// Shows an image resource.
        Image = "show_image",
        /// Shows a text excerpt.
        Resource = "show_resource",
    }
}

impl ShowTool {
    /// The tool that shows a resource of this kind.
    pub fn for_kind(kind: ResourceKind) -> Self {
        match kind {
            ResourceKind::Image => ShowTool::Image,
            ResourceKind::Text => ShowTool::Resource,
        }
    }

    /// The kind of resource this tool shows.
    pub fn kind(self) -> ResourceKind {
        match self {
            ShowTool::Image => ResourceKind::Image,
            ShowTool::Resource => ResourceKind::Text,
        }
    }
}

/// A resource the tutor may show: one of the set's, not yet shown in this session.
#[derive(Clone, Debug, PartialEq)]
pub struct Showable {
    pub id: String,
    pub tool: ShowTool,
    pub title: String,
    /// Ids of the points it is linked to.
    pub points: Vec<String>,
}

/// The point the tutor asks about now, and where its hint ladder stands.
#[derive(Clone, Debug, PartialEq)]
pub struct Focus {
    pub point: PointBrief,
    pub rung: Rung,
    /// Learner messages about it so far that did not recall it.
    pub attempts: u32,
    /// Its answer was given earlier and it is now asked again, fresh.
    pub revisit: bool,
    /// The learner's notes linked to it, for another angle.
    pub notes: Vec<ResourceBrief>,
    /// The learner's latest message nearly recalled it: the evaluator's word on what was
    /// close and what was off (on the page already, as the near miss's feedback).
    pub close: Option<String>,
}

#[derive(Clone, Debug)]
pub struct TutorBrief {
    pub set_name: String,
    /// In today's review, every set it draws on (empty in a set session).
    pub review: Vec<SetBrief>,
    pub moment: TutorMoment,
    /// Points not yet recalled, in the order they will be asked about.
    pub pending: Vec<PointBrief>,
    /// The point to ask about now (the first of `pending`, if any).
    pub focus: Option<Focus>,
    /// Points recalled in the learner's latest message.
    pub just_recalled: Vec<PointBrief>,
    /// A point whose answer the learner just said back: set aside, to be asked again later.
    pub set_aside: Option<PointBrief>,
    /// The evaluator's observation about the latest message, for this reply only.
    pub observation: Option<String>,
    pub learner_message: Option<String>,
    /// The learner's message asked the tutor something (and recalled nothing): answer it
    /// briefly, then ask about the point under discussion again, on the same rung.
    pub asked: bool,
    /// The tutor's previous words, which this reply must not repeat.
    pub previous_reply: Option<String>,
    /// Resources it may show with its tools.
    pub showable: Vec<Showable>,
    /// On opening, the set's previous session; on resuming, this one before its pause.
    pub recap: Option<Recap>,
    /// Once every point is recalled, the session's notes: the learner may go on asking, and
    /// they are what the answers come from (empty while points are pending).
    pub notes: Vec<ResourceBrief>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvalMode {
    Recall,
    /// Inside a rabbit hole: check silently, no steering.
    Rabbithole,
}

#[derive(Clone, Debug)]
pub struct EvaluatorBrief {
    pub set_name: String,
    /// In today's review, every set it draws on (empty in a set session).
    pub review: Vec<SetBrief>,
    /// The learner's guidelines of the set in play (the set of the point under discussion):
    /// they may say what an answer must hold.
    pub guidelines: String,
    pub unchecked: Vec<PointBrief>,
    pub learner_message: String,
    pub mode: EvalMode,
    /// The turns before the message, oldest first (the tutor's question last, usually).
    pub recent: Vec<Message>,
}

#[derive(Clone, Debug)]
pub struct DetectorBrief {
    pub set_name: String,
    pub points: Vec<PointBrief>,
    pub learner_message: String,
    /// The turns before the message, oldest first.
    pub recent: Vec<Message>,
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
    /// The conversation so far inside this rabbit hole: the opt-in, then every message, ending
    /// with the one to answer.
    pub history: Vec<Message>,
    /// The points still to recall: a question about one is the learner's to answer, not a
    /// silence of the notes.
    pub open_points: Vec<PointBrief>,
}

/// A passage of the learner's material to draft points from.
#[derive(Clone, Debug, PartialEq)]
pub struct DraftBrief {
    /// The set the points are for.
    pub set_name: String,
    /// What the learner called the source.
    pub title: String,
    pub passage: String,
}

/// A transcript of a spoken answer, and the set's terms it may have misheard.
#[derive(Clone, Debug, PartialEq)]
pub struct CleanupBrief {
    pub set_name: String,
    /// The set's own terms, most used first (`text::vocabulary::vocabulary`).
    pub terms: Vec<String>,
    pub transcript: String,
}

#[derive(Clone, Debug)]
pub struct SummaryBrief {
    pub set_name: String,
    pub task: SummaryTask,
}

/// What the summariser is asked to write.
#[derive(Clone, Debug)]
pub enum SummaryTask {
    /// The older part of a long session's main line, condensed for the agents that carry on
    /// (it stands in for those messages in their context).
    Compaction {
        /// The summary the last compaction wrote, which this one replaces.
        previous: Option<String>,
        /// The messages being condensed, oldest first.
        messages: Vec<Message>,
    },
    /// What a rabbit hole explored, for the tutor who carries on on the main line.
    Branch {
        topic: String,
        /// The rabbit hole's conversation: the opt-in, then every message.
        conversation: Vec<Message>,
        /// The points recalled inside it (only these may be named).
        recalled: Vec<String>,
    },
    /// The whole session, for the learner: written when they leave or complete it.
    Session(Box<SessionDigest>),
}

/// What happened in a session, from its stored rows: the facts of its summary. The
/// summariser adds the prose (overview, what came up, what was hard, next steps).
#[derive(Clone, Debug)]
pub struct SessionDigest {
    pub completed: bool,
    /// Today's review across sets, rather than a session of one set.
    pub review: bool,
    /// The session was replaced by a newer one of its set before it ended.
    pub abandoned: bool,
    pub study_ms: i64,
    pub total: u32,
    pub recalled: Vec<RecalledPoint>,
    pub open: Vec<OpenPoint>,
    pub rabbitholes: Vec<BranchDigest>,
    /// The main line as the tutor last saw it (an earlier compaction's summary first).
    pub messages: Vec<Message>,
    /// When the session's next point is due for review.
    pub next_due: Option<i64>,
    pub now: i64,
}

#[derive(Clone, Debug)]
pub struct BranchDigest {
    pub topic: String,
    pub conversation: Vec<Message>,
    pub points_recalled: u32,
}

/// What the tutor may say of an earlier stretch when it opens or resumes a session: whether
/// it was finished, its rabbit holes, and the learner's last words before a pause. Never a
/// point's content (the points may be asked about again now), and no counts (the interface
/// shows progress).
#[derive(Clone, Debug, PartialEq)]
pub struct Recap {
    /// When that stretch ended (ms), and the time now.
    pub at: i64,
    pub now: i64,
    /// Every point of it was recalled.
    pub completed: bool,
    /// Rabbit holes explored.
    pub topics: Vec<String>,
    /// On resuming: the learner's last message before the pause.
    pub last_said: Option<String>,
}

//! The summariser writes three things, each with its own prompt:
//! - a **compaction**: the older part of a long session condensed for the agents that carry
//!   on. It writes for the tutor, from what was said only; it never sees the points.
//! - a **branch summary**: what a finished rabbit hole explored, read by the tutor on the
//!   main line. It may name only the points recalled inside it.
//! - a **session summary**, for the learner, when they leave or complete a session. The
//!   facts (what was recalled and how, what is open, the rabbit holes) come from the stored
//!   rows; the summariser adds the prose around them, as JSON.

use serde::Deserialize;
use warren_app::format::{plural, span};
use warren_app::summary::{ExploredTopic, SUMMARY_VERSION, SessionSummary};

use super::{json_object, transcript};
use crate::llm::brief::{SessionDigest, SummaryBrief, SummaryTask};
use crate::llm::{Format, LlmError, Message, Provider, Purpose, Request, Role, Tier, complete};

/// Characters kept of a compaction or branch summary.
pub const MAX_SUMMARY: usize = 2_000;
/// Characters of any one message shown to the summariser, and the newest messages of a rabbit
/// hole: enough to tell what came up, bounded however long it ran. (The main line is bounded
/// already, by compaction.)
const MESSAGE_CHARS: usize = 600;
const BRANCH_MESSAGES: usize = 24;

pub fn request(brief: SummaryBrief) -> Request {
    let (system, user, format, max_tokens) = match &brief.task {
        SummaryTask::Compaction { previous, messages } => {
            let (system, user) = compaction(&brief.set_name, previous.as_deref(), messages);
            (system, user, Format::Text, 400)
        }
        SummaryTask::Branch { topic, conversation, recalled } => {
            let (system, user) = branch(&brief.set_name, topic, conversation, recalled);
            (system, user, Format::Text, 200)
        }
        SummaryTask::Session(digest) => {
            let (system, user) = session(&brief.set_name, digest);
            (system, user, Format::Json, 700)
        }
    };
    Request {
        system,
        // Written now and then, each to its own prompt: nothing a cache would serve again.
        cache_at: Vec::new(),
        messages: vec![Message::user(user)],
        tools: vec![],
        max_tokens,
        temperature: 0.2,
        format,
        tier: Tier::Fast,
        purpose: Purpose::Summariser(brief),
    }
}

fn compaction(set_name: &str, previous: Option<&str>, messages: &[Message]) -> (String, String) {
    let system = format!(
        "You keep the record of a recall session on \"{set_name}\" for the tutor who carries it on. The \
         tutor will read your summary instead of the conversation it replaces, so keep what \
         matters for the rest of the session: what was asked and how the learner answered, what \
         they reached on their own, where they were unsure or stuck and which hints they already \
         had, side topics they raised, and anything they said about how they like to work.\n\n\
         Write plain prose about \"the learner\", at most 150 words. Use only what was said: add \
         no facts, and do not answer questions the learner left open. If there is an earlier \
         summary, fold it in: yours replaces it."
    );
    let mut user = String::new();
    if let Some(previous) = previous {
        user.push_str("Earlier summary:\n");
        user.push_str(previous.trim());
        user.push_str("\n\n");
    }
    user.push_str("Conversation to summarise:\n");
    user.push_str(&transcript(messages, "Tutor"));
    (system, user)
}

fn branch(set_name: &str, topic: &str, conversation: &[Message], recalled: &[String]) -> (String, String) {
    let system = format!(
        "A learner in a recall session on \"{set_name}\" took a side conversation (a \"rabbit hole\") \
         with an explorer and has come back. Note for the tutor, who carries on with the recall, what \
         the learner explored: what they asked about, what caught their interest, what they were \
         unsure of. One or two sentences about \"the learner\", at most 60 words.\n\n\
         Do not state facts from the explorer's answers, and name no point of the recall set \
         except those listed as recalled in the side conversation: the tutor may still ask about \
         the others."
    );
    let mut user = format!("Topic: {topic}\n");
    if !recalled.is_empty() {
        user.push_str("Recalled in it:\n");
        for point in recalled {
            user.push_str(&format!("- {}\n", point.trim()));
        }
    }
    user.push_str("\nConversation:\n");
    user.push_str(&transcript(&bounded(conversation, BRANCH_MESSAGES), "Explorer"));
    (system, user)
}

fn session(set_name: &str, digest: &SessionDigest) -> (String, String) {
    let system = format!(
        "You write the record of a recall session on \"{set_name}\" for the learner, who reads it on \
         their dashboard and before their next session. The facts (which points were recalled and \
         how, which are still open, the rabbit holes) are listed for you and are shown beside what \
         you write: do not list them again.\n\n\
         Answer with one JSON object and nothing else:\n\
         {{\"overview\": \"two or three sentences to the learner (\\\"you\\\") on how the session went\",\n \
         \"rabbitholes\": [{{\"topic\": \"the topic as given\", \"cameUp\": \"one or two sentences on what came up in it\"}}],\n \
         \"hard\": [\"one line for each thing that was hard: a point that took hints, a near miss, a confusion\"],\n \
         \"nextSteps\": [\"one to three concrete next steps\"]}}\n\n\
         Use only what the facts and the conversation show, and add nothing about the subject \
         itself. Be plain and warm; no praise, no exclamation marks."
    );
    let mut user = String::from("Session facts:\n");
    user.push_str(&if digest.completed {
        format!("- Completed: all {} points recalled.\n", digest.total)
    } else {
        format!("- Left with {} of {} points recalled.\n", digest.recalled.len(), digest.total)
    });
    if digest.abandoned {
        user.push_str("- Ended early: the learner started a new session of this set instead (say so).\n");
    }
    user.push_str(&format!("- Study time: {}.\n", span(digest.study_ms)));
    if !digest.recalled.is_empty() {
        user.push_str("- Recalled, in order:\n");
        for r in &digest.recalled {
            let place = if r.in_rabbithole { ", in a rabbit hole" } else { "" };
            user.push_str(&format!("  - \"{}\" ({}{place})\n", r.point.trim(), r.how.describe()));
        }
    }
    if !digest.open.is_empty() {
        user.push_str("- Still open:\n");
        for p in &digest.open {
            let mut how = vec![plural(i64::from(p.attempts), "try")];
            if p.hints > 0 {
                how.push(plural(i64::from(p.hints), "hint"));
            }
            if p.near_misses > 0 {
                how.push(plural(i64::from(p.near_misses), "near miss"));
            }
            if p.revealed {
                how.push("answer given".into());
            }
            user.push_str(&format!("  - \"{}\" ({})\n", p.point.trim(), how.join(", ")));
        }
    }
    if let Some(due) = digest.next_due {
        let days = ((due - digest.now).max(0) + 43_199_999) / 86_400_000;
        user.push_str(&format!("- Next review due in about {}.\n", plural(days.max(0), "day")));
    }
    for hole in &digest.rabbitholes {
        user.push_str(&format!(
            "\nRabbit hole \"{}\" ({} recalled in it):\n",
            hole.topic,
            plural(i64::from(hole.points_recalled), "point")
        ));
        user.push_str(&transcript(&bounded(&hole.conversation, BRANCH_MESSAGES), "Explorer"));
    }
    user.push_str("\nConversation:\n");
    user.push_str(&transcript(&bounded(&digest.messages, usize::MAX), "Tutor"));
    (system, user)
}

/// The newest `most` messages of a conversation, each cut to a readable length.
fn bounded(messages: &[Message], most: usize) -> Vec<Message> {
    let skip = messages.len().saturating_sub(most);
    messages[skip..]
        .iter()
        .map(|m| Message { role: m.role, content: cut(&m.content, MESSAGE_CHARS) })
        .collect()
}

fn cut(text: &str, chars: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= chars {
        return text.to_string();
    }
    format!("{}…", text.chars().take(chars).collect::<String>().trim_end())
}

/// A compaction or branch summary as it will be kept: trimmed and bounded; `None` when there
/// is none.
pub fn parse(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty()).then(|| text.chars().take(MAX_SUMMARY).collect())
}

/// Asks for a compaction or a branch summary, once more on an empty answer.
pub async fn summarise(provider: &dyn Provider, brief: SummaryBrief) -> Result<String, LlmError> {
    let request = request(brief);
    let mut last = LlmError::Protocol("the summary was empty".into());
    for _ in 0..2 {
        match complete(provider, &request).await {
            Ok(text) => match parse(&text) {
                Some(summary) => return Ok(summary),
                None => last = LlmError::Protocol("the summary was empty".into()),
            },
            Err(err) => last = err,
        }
    }
    Err(last)
}

/// The prose the session summariser is asked for.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct Prose {
    overview: String,
    rabbitholes: Vec<TopicProse>,
    hard: Vec<String>,
    next_steps: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct TopicProse {
    topic: String,
    came_up: String,
}

/// Reads the session summariser's answer and puts it beside the facts; `None` when it is not
/// the JSON asked for or says nothing.
pub fn parse_session(text: &str, set_name: &str, digest: &SessionDigest) -> Option<SessionSummary> {
    let prose: Prose = serde_json::from_str(json_object(text)?).ok()?;
    let lines = |items: Vec<String>, most: usize| -> Vec<String> {
        items.iter().map(|l| cut(l, 240)).filter(|l| !l.is_empty()).take(most).collect()
    };
    let overview = cut(&prose.overview, 800);
    let hard = lines(prose.hard, 5);
    let next_steps = lines(prose.next_steps, 3);
    if overview.is_empty() && next_steps.is_empty() {
        return None;
    }
    let rabbitholes = digest
        .rabbitholes
        .iter()
        .map(|hole| {
            let came_up = prose
                .rabbitholes
                .iter()
                .find(|t| t.topic.trim().eq_ignore_ascii_case(hole.topic.trim()))
                .map(|t| cut(&t.came_up, 400))
                .unwrap_or_default();
            ExploredTopic {
                topic: hole.topic.clone(),
                messages: count(hole.conversation.iter().filter(|m| m.role == Role::User).count()),
                points_recalled: hole.points_recalled,
                came_up,
            }
        })
        .collect();
    Some(SessionSummary {
        version: SUMMARY_VERSION,
        set_name: set_name.to_string(),
        completed: digest.completed,
        abandoned: digest.abandoned,
        written_at: digest.now,
        study_ms: digest.study_ms,
        total: digest.total,
        overview,
        recalled: digest.recalled.clone(),
        open: digest.open.clone(),
        rabbitholes,
        hard,
        next_steps,
    })
}

/// Asks for a session summary, once more on an answer that is not the JSON asked for.
pub async fn summarise_session(
    provider: &dyn Provider,
    set_name: &str,
    digest: SessionDigest,
) -> Result<SessionSummary, LlmError> {
    let request = request(SummaryBrief {
        set_name: set_name.to_string(),
        task: SummaryTask::Session(Box::new(digest.clone())),
    });
    let mut last = LlmError::Protocol("the summary was not the JSON asked for".into());
    for _ in 0..2 {
        match complete(provider, &request).await {
            Ok(text) => match parse_session(&text, set_name, &digest) {
                Some(summary) => return Ok(summary),
                None => last = LlmError::Protocol("the summary was not the JSON asked for".into()),
            },
            Err(err) => return Err(err),
        }
    }
    Err(last)
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

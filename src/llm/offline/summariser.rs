//! The offline summariser: a rabbit hole's branch note, a compaction, and the session's
//! summary, from the facts the brief carries.

use serde_json::json;

use crate::llm::Role;
use crate::llm::brief::{SummaryBrief, SummaryTask};

use crate::text::sentences;

pub(super) fn summary(brief: &SummaryBrief) -> String {
    match &brief.task {
        SummaryTask::Compaction { previous, messages } => {
            compaction(&brief.set_name, previous.as_deref(), messages)
        }
        SummaryTask::Branch { topic, conversation, recalled } => {
            branch_summary(topic, conversation, recalled)
        }
        SummaryTask::Session(digest) => session_summary(digest).to_string(),
    }
}

/// An extractive summary: what the learner said, a line each, first sentence only, after the
/// lines the last summary kept; the newest lines are kept when there are too many. The same
/// conversation always gives the same summary.
pub(super) fn compaction(set_name: &str, previous: Option<&str>, messages: &[crate::llm::Message]) -> String {
    const LINES: usize = 12;
    let mut lines: Vec<String> =
        previous.iter().flat_map(|p| p.lines()).filter(|l| l.starts_with("- ")).map(str::to_string).collect();
    for said in learner_lines(messages) {
        lines.push(format!("- The learner said: \u{201c}{said}\u{201d}"));
    }
    let skip = lines.len().saturating_sub(LINES);
    let mut out = format!("Earlier in this session on {set_name}:");
    for line in &lines[skip..] {
        out.push('\n');
        out.push_str(line);
    }
    out
}

/// The first sentence of each learner message, bounded, leaving out stage directions such as
/// "(The learner opens the session.)".
pub(super) fn learner_lines(messages: &[crate::llm::Message]) -> Vec<String> {
    const LINE_CHARS: usize = 120;
    messages
        .iter()
        .filter(|m| m.role == Role::User)
        .map(|m| first_sentence(&m.content))
        .filter(|said| !said.is_empty() && !said.starts_with('('))
        .map(|said| {
            if said.chars().count() > LINE_CHARS {
                format!("{}…", said.chars().take(LINE_CHARS).collect::<String>().trim_end())
            } else {
                said
            }
        })
        .collect()
}

/// What a rabbit hole explored, in the learner's own words: their first question and how
/// many followed. (The conversation starts with the opt-in, which is not a question.)
pub(super) fn branch_summary(
    topic: &str,
    conversation: &[crate::llm::Message],
    recalled: &[String],
) -> String {
    let asked = learner_lines(conversation.get(1..).unwrap_or_default());
    let mut out = format!("The learner explored \u{201c}{topic}\u{201d}");
    match asked.split_first() {
        Some((first, rest)) => {
            out.push_str(&format!(", asking \u{201c}{first}\u{201d}"));
            if !rest.is_empty() {
                out.push_str(&format!(" and {} more", plural_of(rest.len(), "question")));
            }
        }
        None => out.push_str(" without asking anything further"),
    }
    if !recalled.is_empty() {
        let named: Vec<String> = recalled.iter().map(|p| format!("\u{201c}{}\u{201d}", p.trim())).collect();
        out.push_str(&format!(", and recalled {} along the way", named.join(" and ")));
    }
    out.push('.');
    out
}

/// The session summariser's JSON, from the facts alone: an overview with the counts, what
/// came up in each rabbit hole (the learner's questions), what took help, and next steps.
pub(super) fn session_summary(d: &crate::llm::brief::SessionDigest) -> serde_json::Value {
    use warren_app::format::{all_of, due, plural, span};
    use warren_app::summary::RecallHow;
    let quoted = |text: &str| format!("\u{201c}{}\u{201d}", text.trim());
    let unprompted = d.recalled.iter().filter(|r| r.how == RecallHow::Unprompted).count();
    let mut overview = if d.completed {
        format!("You recalled {} in {}", all_of(i64::from(d.total), "point"), span(d.study_ms))
    } else {
        format!("You recalled {} of {} points in {}", d.recalled.len(), d.total, span(d.study_ms))
    };
    if !d.recalled.is_empty() {
        overview.push_str(&match unprompted {
            n if n == d.recalled.len() => ", all without help".to_string(),
            0 => ", each with some help".to_string(),
            n => format!(", {n} of them without help"),
        });
    }
    overview.push('.');
    if d.abandoned {
        overview.push_str(" The session ended when you started a new one of this set.");
    }
    if !d.open.is_empty() {
        let open = plural_of(d.open.len(), "point");
        overview.push_str(&format!(" {open} {} still open.", if d.open.len() == 1 { "is" } else { "are" }));
    }
    if !d.rabbitholes.is_empty() {
        let topics: Vec<String> = d.rabbitholes.iter().map(|h| quoted(&h.topic)).collect();
        overview.push_str(&format!(" You also explored {}.", topics.join(" and ")));
    }
    let rabbitholes: Vec<serde_json::Value> = d
        .rabbitholes
        .iter()
        .map(|h| {
            let asked = learner_lines(h.conversation.get(1..).unwrap_or_default());
            let mut came_up = match asked.split_first() {
                Some((first, [])) => format!("You asked {}.", quoted(first)),
                Some((first, rest)) => {
                    format!("You asked {} and {} more.", quoted(first), plural_of(rest.len(), "question"))
                }
                None => "You looked into it without asking further.".to_string(),
            };
            if h.points_recalled > 0 {
                came_up.push_str(&format!(
                    " You recalled {} along the way.",
                    plural(i64::from(h.points_recalled), "point")
                ));
            }
            json!({"topic": h.topic, "cameUp": came_up})
        })
        .collect();
    let mut hard: Vec<String> = d
        .recalled
        .iter()
        .filter(|r| r.how != RecallHow::Unprompted)
        .map(|r| format!("{} came back {}.", quoted(&r.point), r.how.describe()))
        .collect();
    for p in d.open.iter().filter(|p| p.attempts > 0 || p.near_misses > 0 || p.revealed) {
        let mut took = vec![plural(i64::from(p.attempts), "try")];
        if p.near_misses > 0 {
            took.push(plural(i64::from(p.near_misses), "near miss"));
        }
        if p.revealed {
            took.push("the answer given".into());
        }
        hard.push(format!("{} is not recalled yet ({}).", quoted(&p.point), took.join(", ")));
    }
    let mut next_steps = Vec::new();
    if !d.open.is_empty() {
        let open = plural_of(d.open.len(), "point");
        next_steps.push(if d.review {
            format!("Resume today's review: the {open} still open come first.")
        } else {
            format!("Start the next session of this set: the {open} still open come first.")
        });
    }
    if let Some(r) = d.recalled.iter().find(|r| r.how != RecallHow::Unprompted) {
        next_steps.push(format!("Go over {} again before its next review.", quoted(&r.point)));
    }
    if let Some(h) = d.rabbitholes.first() {
        next_steps.push(format!("Follow up {} if it still interests you.", quoted(&h.topic)));
    }
    if next_steps.is_empty()
        && let Some(at) = d.next_due
    {
        next_steps.push(format!("Come back for the next review, {}.", due(d.now, at)));
    }
    next_steps.truncate(3);
    json!({"overview": overview, "rabbitholes": rabbitholes, "hard": hard, "nextSteps": next_steps})
}

pub(super) fn plural_of(n: usize, word: &str) -> String {
    warren_app::format::plural(i64::try_from(n).unwrap_or(i64::MAX), word)
}

/// A text's first sentence, on one line.
pub(super) fn first_sentence(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    sentences(&text).into_iter().next().unwrap_or_default()
}

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
    lines_by(messages, first_sentence)
}

/// What each learner message asked, in a rabbit hole: its first sentence that asks ("What are
/// the rings made of?" of "I heard the ice falls into Saturn. What are the rings made of?"),
/// else its first.
fn asked_lines(messages: &[crate::llm::Message]) -> Vec<String> {
    lines_by(messages, |text| {
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let all = sentences(&text);
        all.iter().find(|s| s.ends_with('?')).or(all.first()).cloned().unwrap_or_default()
    })
}

fn lines_by(messages: &[crate::llm::Message], line: impl Fn(&str) -> String) -> Vec<String> {
    const LINE_CHARS: usize = 120;
    messages
        .iter()
        .filter(|m| m.role == Role::User)
        .map(|m| line(&m.content))
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
    let asked = asked_lines(conversation.get(1..).unwrap_or_default());
    let mut out = format!("The learner explored \u{201c}{topic}\u{201d}");
    match asked.split_first() {
        Some((first, rest)) => {
            out.push_str(&format!(", asking \u{201c}{first}\u{201d}"));
            if !rest.is_empty() {
                out.push_str(&format!(" and {}", more_questions(rest.len())));
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
    let count = |how: &[RecallHow]| d.recalled.iter().filter(|r| how.contains(&r.how)).count();
    let unprompted = count(&[RecallHow::Unprompted]);
    let helped = count(&[RecallHow::AfterNearMiss, RecallHow::AfterHints]);
    let told = count(&[RecallHow::AfterAnswer]);
    // A point said back after being given the answer was gone through, not recalled.
    let mut overview = match (d.completed, told) {
        (true, 0) => format!("You recalled {} in {}", all_of(i64::from(d.total), "point"), span(d.study_ms)),
        (true, _) => {
            format!("You went through {} in {}", all_of(i64::from(d.total), "point"), span(d.study_ms))
        }
        (false, _) => {
            format!("You recalled {} of {} points in {}", d.recalled.len(), d.total, span(d.study_ms))
        }
    };
    let one = d.recalled.len() == 1;
    if !d.recalled.is_empty() {
        if unprompted == d.recalled.len() {
            overview.push_str(if one { ", without help" } else { ", all without help" });
        } else if told == 0 && unprompted == 0 {
            overview.push_str(if one { ", with some help" } else { ", each with some help" });
        } else if told == 0 {
            overview.push_str(&format!(", {unprompted} of them without help"));
        } else {
            let parts: Vec<String> = [
                (unprompted, "without help"),
                (helped, "with some help"),
                (told, "only after being given the answer"),
            ]
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, how)| format!("{n} {how}"))
            .collect();
            overview.push_str(&format!(": {}", parts.join(", ")));
        }
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
            let asked = asked_lines(h.conversation.get(1..).unwrap_or_default());
            let mut came_up = match asked.split_first() {
                Some((first, [])) => format!("You asked {}.", quoted(first)),
                Some((first, rest)) => {
                    format!("You asked {} and {}.", quoted(first), more_questions(rest.len()))
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
        let come = if d.open.len() == 1 { "comes" } else { "come" };
        next_steps.push(if d.review {
            format!("Resume today's review: the {open} still open {come} first.")
        } else {
            // Said of a paused session (Resume) and an ended one (the next session) alike.
            format!("Carry on with this set: the {open} still open {come} first.")
        });
    }
    // The point that took the most help: given the answer, then hints, then a near miss.
    let hardest = [RecallHow::AfterAnswer, RecallHow::AfterHints, RecallHow::AfterNearMiss]
        .iter()
        .find_map(|how| d.recalled.iter().find(|r| r.how == *how));
    if let Some(r) = hardest {
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

/// "1 more question", "3 more questions".
fn more_questions(n: usize) -> String {
    format!("{n} more {}", if n == 1 { "question" } else { "questions" })
}

pub(super) fn plural_of(n: usize, word: &str) -> String {
    warren_app::format::plural(i64::try_from(n).unwrap_or(i64::MAX), word)
}

/// A text's first sentence, on one line.
pub(super) fn first_sentence(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    sentences(&text).into_iter().next().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::brief::SessionDigest;
    use warren_app::summary::{OpenPoint, RecallHow, RecalledPoint};

    fn digest(hows: &[RecallHow], still_open: usize) -> SessionDigest {
        let recalled = hows
            .iter()
            .enumerate()
            .map(|(i, how)| RecalledPoint {
                point_id: format!("r{i}"),
                point: format!("Recalled point {i}"),
                how: *how,
                in_rabbithole: false,
            })
            .collect();
        let open: Vec<OpenPoint> = (0..still_open)
            .map(|i| OpenPoint {
                point_id: format!("o{i}"),
                point: format!("Open point {i}"),
                ..Default::default()
            })
            .collect();
        SessionDigest {
            completed: still_open == 0,
            review: false,
            abandoned: false,
            study_ms: 120_000,
            total: (hows.len() + still_open) as u32,
            recalled,
            open,
            rabbitholes: vec![],
            messages: vec![],
            next_due: None,
            now: 0,
        }
    }

    fn overview(d: &SessionDigest) -> String {
        session_summary(d)["overview"].as_str().unwrap_or_default().to_string()
    }

    #[test]
    fn a_rabbit_holes_note_quotes_what_the_learner_asked() {
        use crate::llm::Message;
        let conversation = [
            Message::user("(The learner chose to explore.)"),
            Message::user("I heard the ice slowly falls into Saturn. What are the rings made of, mostly?"),
            Message::assistant("Your notes say: mostly water ice."),
            Message::user("Got it."),
        ];
        let note = branch_summary("how long planetary rings last", &conversation, &[]);
        assert!(
            note.contains("asking \u{201c}What are the rings made of, mostly?\u{201d} and 1 more question"),
            "{note}"
        );
    }

    #[test]
    fn the_overview_says_what_came_only_after_the_answer_and_next_steps_start_from_it() {
        use RecallHow::*;
        assert_eq!(
            overview(&digest(&[Unprompted, Unprompted], 0)),
            "You recalled both points in 2 min, all without help."
        );
        assert_eq!(
            overview(&digest(&[Unprompted, AfterHints, Unprompted], 0)),
            "You recalled all 3 points in 2 min, 2 of them without help."
        );
        let told = digest(&[Unprompted, AfterNearMiss, AfterAnswer, AfterHints, Unprompted], 0);
        assert_eq!(
            overview(&told),
            "You went through all 5 points in 2 min: 2 without help, 2 with some help, 1 only after being given the answer."
        );
        let next = session_summary(&told)["nextSteps"].to_string();
        assert!(next.contains("Recalled point 2"), "the point given away comes first: {next}");
        let one_open = session_summary(&digest(&[Unprompted], 1))["nextSteps"].to_string();
        assert!(one_open.contains("the 1 point still open comes first"), "{one_open}");
    }
}

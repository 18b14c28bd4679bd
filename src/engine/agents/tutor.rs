//! The recall facilitator: asks, never tells; narrows hints; no praise (the UI reinforces).

use serde_json::json;

use warren_app::format::ago;

use warren_app::ladder::Rung;

use crate::llm::brief::{
    Focus, PointBrief, Recap, ShowTool, Showable, TutorBrief, TutorMoment, review_lines,
};
use crate::llm::{Format, Message, Purpose, Request, Tier, Tool, alternating};

/// In the tutor's prompt, after its role: what the UI says through events, the tutor must not.
pub const UI_HANDLED_CONTENT: &str = "## CRITICAL: UI-Handled Content — Do NOT Generate

The following types of content are handled by the application's UI through structured events.
You must NEVER include any of this in your text responses:

- Progress updates: \"You've recalled 3 out of 5 points!\" or \"Great progress!\" or \"Almost there!\"
- Congratulatory text: \"Great job!\", \"Well done!\", \"Excellent!\", \"Perfect!\", \"Correct!\"
- Praise or encouragement: \"That's exactly right!\", \"You nailed it!\", \"Brilliant answer!\"
- Meta-commentary about the session: \"Let's move to the next point\", \"We've covered X, now let's discuss Y\"
- Numbered lists summarizing what's been covered vs what remains
- Explicit point transitions: \"Now let's talk about [next topic]\"

Your text should ONLY contain:
- Questions probing recall (\"What happens when...\" / \"Can you explain how...\" / \"Why does...\")
- Hints when the user is stuck (\"Think about what happens at the cellular level...\")
- Brief, neutral acknowledgments before moving on (\"Right.\" / \"Yes.\" / \"Mm-hmm.\")
- Explanations or clarifications when the user asks for them
- Conversational responses during rabbit holes

The system will handle all feedback, progress tracking, praise, and transitions through visual and audio UI elements.";

const ROLE: &str = "You are a recall facilitator. The learner has already learned this material; \
this session is retrieval practice, not teaching. Your job is to help them bring each point back \
from their own memory.

How you work:
- Ask, don't tell. Start broad and narrow only as needed. Follow the learner's lead: if they bring \
up a point out of order, go with it.
- Once a point has been recalled, move on; do not explain it again.
- When the learner is stuck, give hints that narrow step by step: first a different angle on the \
question, then a more specific cue, then part of the structure. Give a partial answer only after \
three or four failed tries.
- \"I don't remember\" is a valid answer. Meet it with a narrower cue, never with talk about the \
session, the learner's performance or your own role.
- If the learner asks you something directly, answer briefly, then return to recall.
- Be direct and warm. One to three sentences. No exclamation marks. No lists. No praise.";

/// What the learner is taken to have said before the tutor's opening.
const OPENER: &str = "(The learner opens the session.)";

/// The tutor's request. `guidelines` are those of the set whose point is under discussion.
pub fn request(brief: TutorBrief, guidelines: &str, context: Vec<Message>) -> Request {
    // First what stays the same all session (the role, the set or sets, a set's guidelines,
    // the safety block), then what stays until a point is recalled (the points to go), then
    // this reply's own: a provider's prompt cache serves the first two (`cache_at`).
    let review = !brief.review.is_empty();
    let mut system = if review {
        format!("{ROLE}\n\n{}", review_lines(&brief.review))
    } else {
        format!("{ROLE}\n\nRecall set: \"{}\".\n\n", brief.set_name)
    };
    if !review && !guidelines.trim().is_empty() {
        system.push_str(&format!("Guidelines for this recall set:\n{}\n\n", guidelines.trim()));
    }
    system.push_str(UI_HANDLED_CONTENT);
    system.push_str("\n\n");
    let mut cache_at = vec![system.len()];
    if brief.pending.is_empty() {
        system.push_str(
            "Every point has been recalled. The learner chose to keep talking: discuss, connect \
             and deepen what they said, still briefly, still without lecturing.\n\n",
        );
    } else {
        system.push_str(
            "Points not yet recalled, in the order to ask about them. Work towards the first unless \
             the learner leads elsewhere. Never read them out or quote them; the cue after each is a \
             way to ask without giving it away.\n",
        );
        for (i, p) in brief.pending.iter().enumerate() {
            system.push_str(&point_line(i, p));
        }
        system.push('\n');
    }
    cache_at.push(system.len());
    if let Some(focus) = &brief.focus {
        system.push_str(&focus_lines(focus));
    }
    match brief.moment {
        TutorMoment::Opening => {
            if let Some(recap) = &brief.recap {
                system.push_str(&format!(
                    "The learner's previous session of this set ended {}: {}. Begin with one short \
                     sentence that refers to it, starting \"Last time\", without naming or hinting at \
                     any point and without counting points.\n",
                    ago(recap.now, recap.at),
                    recap_facts(recap)
                ));
            }
            system.push_str(
                "This is the start of the session. Open with one broad question that leads towards the first point.\n\n",
            );
        }
        TutorMoment::Resume => {
            if let Some(recap) = &brief.recap {
                system.push_str(&format!(
                    "Before the pause {}{}. Recap where you stopped in one short sentence, without \
                     naming any point and without counting points.\n",
                    recap_facts(recap),
                    recap
                        .last_said
                        .as_deref()
                        .map(|s| format!("; the learner's last words were \"{}\"", s.trim()))
                        .unwrap_or_default()
                ));
            }
            system.push_str(
                "The learner is back after a pause. In one sentence, pick up where you left off, then ask the next question.\n\n",
            );
        }
        TutorMoment::Reply => {
            if !brief.just_recalled.is_empty() {
                system.push_str("The learner's latest message recalled a point; acknowledge it neutrally at most, then move on.\n");
            }
            if let Some(aside) = &brief.set_aside {
                system.push_str(&format!(
                    "The learner has just said back a point you gave them (\"{}\"). That is not recall yet: \
                     leave it for now (it will be asked again later) and go on to the point under discussion.\n",
                    aside.content.trim()
                ));
            }
            match (brief.asked, &brief.focus) {
                (true, Some(_)) => system.push_str(
                    "The learner's latest message asks you something rather than answering. Answer it \
                     briefly, in a sentence or two, without giving away any point not yet recalled; then \
                     ask about the point under discussion again, at the same level of hint as before.\n",
                ),
                (true, None) => system.push_str(
                    "The learner's latest message asks you something: answer it briefly, from their notes \
                     below where they say, and say so where they do not.\n",
                ),
                (false, _) => {}
            }
            if let Some(observation) = brief.observation.as_deref().filter(|o| !o.trim().is_empty()) {
                system.push_str(&format!(
                    "Observation about the latest message, for this reply only (do not quote or mention it): {}\n",
                    observation.trim()
                ));
            }
            if let Some(previous) = brief.previous_reply.as_deref().filter(|p| !p.trim().is_empty()) {
                system.push_str(&format!(
                    "Your previous words were: \"{}\". Do not repeat any sentence of them.\n",
                    previous.trim()
                ));
            }
            system.push('\n');
        }
    }
    if !brief.showable.is_empty() {
        system.push_str(&showable_lines(&brief.showable, &brief.pending));
    }
    if !brief.notes.is_empty() {
        system.push_str("The learner's notes, for what they ask now:\n");
        for note in &brief.notes {
            system.push_str(&format!("- \"{}\": {}\n", note.title.trim(), note.body.trim()));
        }
        system.push('\n');
    }
    // In a review the guidelines are those of the set whose point is under discussion.
    if review && !guidelines.trim().is_empty() {
        let set = brief.focus.as_ref().and_then(|f| f.point.set.as_deref()).unwrap_or_default();
        system.push_str(&format!(
            "Guidelines for the recall set \"{set}\", while its point is under discussion:\n{}\n\n",
            guidelines.trim()
        ));
    }
    let system = system.trim_end().to_string();

    let mut messages = context;
    match brief.moment {
        TutorMoment::Opening if messages.is_empty() => messages.push(Message::user(OPENER)),
        TutorMoment::Resume => messages.push(Message::user("(The learner is back.)")),
        TutorMoment::Opening | TutorMoment::Reply => {}
    }
    // The main line starts with the tutor's opening, and a rabbit hole's summary can follow a
    // learner message: the providers want the learner first and turns alternating.
    let messages = alternating(messages, OPENER);
    Request {
        system,
        cache_at,
        messages,
        tools: tools(&brief.showable),
        max_tokens: 400,
        temperature: 0.6,
        format: Format::Text,
        tier: Tier::Main,
        purpose: Purpose::Tutor(Box::new(brief)),
    }
}

/// The point under discussion and the rung of the hint ladder this reply stands on.
fn focus_lines(focus: &Focus) -> String {
    let rungs = [Rung::Cue, Rung::Angle, Rung::Nudge, Rung::Gaps, Rung::Answer];
    let rung = rungs.iter().position(|r| *r == focus.rung).unwrap_or_default() + 1;
    let mut text = format!(
        "Point under discussion: \"{}\". The learner has tried {} time{} without recalling it. Hint \
         ladder (cue, another angle, nudge, gaps, answer): this reply is rung {rung} of 5, {}: {}.\n",
        focus.point.content.trim(),
        focus.attempts,
        if focus.attempts == 1 { "" } else { "s" },
        focus.rung,
        instruction(focus.rung),
    );
    if let Some(close) = &focus.close {
        text.push_str(&format!(
            "The learner's latest message nearly recalled it ({}): say what was right, and ask for what is \
             off or missing without giving it.\n",
            close.trim()
        ));
    }
    if focus.revisit {
        text.push_str("Its answer was given earlier in the session; ask for it again, fresh, as if new.\n");
    }
    for note in &focus.notes {
        text.push_str(&format!(
            "The learner's notes on it, \"{}\": {}\n",
            note.title.trim(),
            note.body.trim()
        ));
    }
    text.push('\n');
    text
}

/// The resources the tutor may show, and when.
fn showable_lines(showable: &[Showable], pending: &[PointBrief]) -> String {
    let mut text = String::from(
        "Resources from the learner's material that you can show with your tools (show_image, \
         show_resource, with the resource's id). The learner sees it beside your words, so still \
         write your reply; show at most one per reply. Show one only as a hint for the point under \
         discussion once the learner has tried it without recalling it, or when the learner asks to \
         see it; never name ids in your text.\n",
    );
    for resource in showable {
        let kind = resource.tool.kind().as_str();
        let linked: Vec<String> = resource
            .points
            .iter()
            .filter_map(|id| pending.iter().position(|p| &p.id == id))
            .map(|i| format!("point {}", i + 1))
            .collect();
        let linked =
            if linked.is_empty() { String::new() } else { format!(", for {}", linked.join(" and ")) };
        text.push_str(&format!("- id {} ({kind}) \"{}\"{linked}\n", resource.id, resource.title.trim()));
    }
    text.push('\n');
    text
}

/// The tools for the resources the tutor may show: one per kind present, each naming only
/// the ids of its kind.
fn tools(showable: &[Showable]) -> Vec<Tool> {
    ShowTool::ALL
        .iter()
        .filter_map(|&tool| {
            let ids: Vec<&str> =
                showable.iter().filter(|r| r.tool == tool).map(|r| r.id.as_str()).collect();
            if ids.is_empty() {
                return None;
            }
            let description = match tool {
                ShowTool::Image => "Show the learner one of the images from their own material, beside your reply.",
                ShowTool::Resource => {
                    "Show the learner an excerpt from one of the texts in their own material, beside your reply."
                }
            };
            Some(Tool {
                name: tool.as_str(),
                description,
                input_schema: json!({
                    "type": "object",
                    "properties": {"resource_id": {
                        "type": "string",
                        "enum": ids,
                        "description": "The resource's id, from the list in the instructions.",
                    }},
                    "required": ["resource_id"],
                    "additionalProperties": false,
                }),
            })
        })
        .collect()
}

/// An earlier stretch in words the tutor may echo: finished or not, and its rabbit holes.
fn recap_facts(recap: &Recap) -> String {
    let mut facts = if recap.completed {
        "the learner recalled every point that session asked"
    } else {
        "the learner stopped partway"
    }
    .to_string();
    if !recap.topics.is_empty() {
        let topics: Vec<String> = recap.topics.iter().map(|t| format!("\"{}\"", t.trim())).collect();
        facts.push_str(&format!(", and explored {} in rabbit holes", topics.join(", ")));
    }
    facts
}

fn point_line(index: usize, p: &PointBrief) -> String {
    let set = p.set.as_deref().map(|s| format!(" [set \"{s}\"]")).unwrap_or_default();
    if p.context.trim().is_empty() {
        format!("{}. {}{set}\n", index + 1, p.content.trim())
    } else {
        format!("{}. {} (cue: {}){set}\n", index + 1, p.content.trim(), p.context.trim())
    }
}

/// What the tutor is asked to do on a rung.
fn instruction(rung: Rung) -> &'static str {
    match rung {
        Rung::Cue => "ask about it with its cue, broadly, without giving anything away",
        Rung::Angle => {
            "ask about it from a different angle than before (another aspect of the point or of \
             the learner's notes), without giving the answer"
        }
        Rung::Nudge => "give a small nudge (for example the first letters of a key word), then ask again",
        Rung::Gaps => "give the point with its key words left as gaps, and ask the learner to fill them",
        Rung::Answer => {
            "give the point plainly, then ask the learner to say it back in their own words; it will \
             be asked again later in the session"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::brief::ResourceBrief;

    fn brief(moment: TutorMoment) -> TutorBrief {
        let point = PointBrief {
            id: "p1".into(),
            content: "Mitochondria make ATP".into(),
            context: "Energy?".into(),
            set: None,
        };
        TutorBrief {
            set_name: "Cells".into(),
            review: vec![],
            moment,
            pending: vec![point.clone()],
            focus: Some(Focus {
                point,
                rung: Rung::Nudge,
                attempts: 2,
                revisit: false,
                notes: vec![],
                close: None,
            }),
            just_recalled: vec![],
            set_aside: None,
            observation: Some("They named the organelle but not the molecule.".into()),
            learner_message: Some("mitochondria".into()),
            asked: false,
            previous_reply: Some("Which organelle powers the cell?".into()),
            showable: vec![],
            recap: None,
            notes: vec![],
        }
    }

    #[test]
    fn past_the_last_point_a_question_is_answered_from_the_notes_in_the_prompt() {
        let mut done = brief(TutorMoment::Reply);
        done.focus = None;
        done.pending.clear();
        done.asked = true;
        done.notes =
            vec![ResourceBrief { title: "Origins".into(), body: "Mitochondria were bacteria.".into() }];
        let r = request(done, "", vec![Message::user("Where did mitochondria come from?")]);
        assert!(r.system.contains("from their notes below"), "{}", r.system);
        assert!(r.system.contains("- \"Origins\": Mitochondria were bacteria."), "{}", r.system);
        assert!(!r.system.contains("ask about the point under discussion again"), "{}", r.system);
        // While points are pending, no notes but the focus's own.
        let asking = request(brief(TutorMoment::Reply), "", vec![]);
        assert!(!asking.system.contains("for what they ask now"), "{}", asking.system);
    }

    #[test]
    fn the_ladder_and_the_attempts_are_in_the_prompt() {
        let r = request(brief(TutorMoment::Reply), "", vec![Message::user("mitochondria")]);
        assert!(r.system.contains("tried 2 times"), "{}", r.system);
        assert!(r.system.contains("rung 3 of 5, nudge"), "{}", r.system);
        assert!(r.system.contains("Do not repeat any sentence"), "{}", r.system);
    }

    #[test]
    fn the_safety_instruction_follows_the_guidelines_and_closes_what_stays_the_same() {
        let r =
            request(brief(TutorMoment::Reply), "Use British spelling.", vec![Message::user("mitochondria")]);
        let guidelines = r.system.find("Use British spelling.").unwrap();
        let safety = r.system.find("## CRITICAL: UI-Handled Content").unwrap();
        assert!(guidelines < safety);
        // The first cache breakpoint ends the session-long part, the safety block its last.
        let first = r.cache_at.first().copied().unwrap_or_default();
        assert!(r.system[..first].trim_end().ends_with("through visual and audio UI elements."));
        // This reply's own (the point under discussion, the observation) comes after the points.
        let points = r.cache_at.get(1).copied().unwrap_or_default();
        assert!(first < points && points < r.system.len(), "{:?} of {}", r.cache_at, r.system.len());
        assert!(
            r.system[points..].contains("not the molecule")
                && !r.system[..points].contains("not the molecule")
        );
        for banned in
            ["Great job!", "Well done!", "Excellent!", "Perfect!", "Correct!", "Let's move to the next point"]
        {
            assert!(r.system.contains(banned), "the instruction must name {banned}");
        }
    }

    #[test]
    fn observation_is_for_this_reply_only() {
        let r = request(brief(TutorMoment::Reply), "", vec![Message::user("mitochondria")]);
        assert!(r.system.contains("not the molecule"));
        // It is in the system prompt of this one request, never in the conversation.
        assert!(r.messages.iter().all(|m| !m.content.contains("not the molecule")));
    }

    #[test]
    fn resources_come_as_tools_of_their_kind_only() {
        let mut b = brief(TutorMoment::Reply);
        assert!(request(b.clone(), "", vec![]).tools.is_empty(), "nothing to show, no tools");
        b.showable = vec![Showable {
            id: "r9".into(),
            tool: ShowTool::Image,
            title: "Cell diagram".into(),
            points: vec!["p1".into()],
        }];
        let r = request(b, "", vec![]);
        assert_eq!(r.tools.len(), 1);
        assert_eq!(r.tools[0].name, "show_image");
        assert_eq!(r.tools[0].input_schema["properties"]["resource_id"]["enum"], json!(["r9"]));
        assert!(r.system.contains("- id r9 (image) \"Cell diagram\", for point 1"), "{}", r.system);
    }

    #[test]
    fn opening_without_context_starts_with_a_user_turn() {
        let r = request(brief(TutorMoment::Opening), "", vec![]);
        assert_eq!(r.messages.len(), 1);
        assert_eq!(r.messages[0].role, crate::llm::Role::User);
    }
}

//! The offline tutor: a cue for each point, then narrower hints up the ladder, another
//! angle from a linked note, and what it says on resuming. The question at each rung of the
//! ladder is in `ladder`; a question the learner asks back, and its answer from the notes, in
//! `asked`.

mod asked;
mod ladder;

use serde_json::json;

use warren_app::ladder::Rung;

use crate::llm::brief::{MessageKind, PointBrief, Recap, Showable, TutorBrief, TutorMoment};
use crate::llm::{Output, ToolCall};

use super::summariser::first_sentence;
use crate::text::{content_words, is_dont_know, pick, sentences};
use asked::{adds_to_question, asks_for_the_question, asks_what_is_meant, from_notes, meant_by, wants_more};
pub(super) use asked::{asks_the_notes, from_session_notes, half_names, nearest_notes_first};
use ladder::ask;
#[cfg(test)]
pub(super) use ladder::masked;

/// The point's cue; for a point without one, the question its words make, as a drafted cue
/// would ask it ("What is the sinoatrial node?"), else a broad question about its set (in
/// today's review, its own set).
pub(super) fn cue(point: &PointBrief, set_name: &str) -> String {
    let set_name = point.set.as_deref().unwrap_or(set_name);
    point.question().unwrap_or_else(|| format!("What else do you remember from {set_name}?"))
}

/// A set's name inside a sentence: a leading "The" of a name written as a sentence ("The
/// water cycle") is lower-cased there; one of a title in capitals ("The Beatles") is not.
pub(super) fn mid_sentence(name: &str) -> String {
    let name = name.trim();
    match name.strip_prefix("The ") {
        Some(rest) if rest.starts_with(|c: char| c.is_lowercase()) => format!("the {rest}"),
        Some(_) | None => name.to_string(),
    }
}

/// "Last time (2 days ago) we stopped partway through Cells. You also went down a rabbit hole
/// on “tides”." Counts are left to the interface.
pub(super) fn last_time(recap: &Recap, set: &str) -> String {
    use warren_app::format::ago;
    let ago = ago(recap.now, recap.at);
    let mut out = if recap.completed {
        // "Everything you studied": a session takes the points that were due, not always all.
        format!("Last time ({ago}) you recalled everything you studied in {set}.")
    } else {
        format!("Last time ({ago}) we stopped partway through {set}.")
    };
    push_topics(&mut out, &recap.topics, "You also went down a rabbit hole on");
    out
}

/// "Welcome back to Cells. Where we stopped, you had said: “…”." The learner's last words are
/// quoted only when they were a try at the question still open (`tried`): words that answered
/// an earlier question would read as an answer to this one.
pub(super) fn so_far(recap: &Recap, set: &str, tried: bool) -> String {
    let mut out = format!("Welcome back to {set}.");
    if let Some(said) = recap.last_said.as_deref().map(first_sentence).filter(|s| tried && !s.is_empty()) {
        // One full stop, after the quote: “…Cleopatra.”. read as a slip.
        let said = said.trim_end_matches('.');
        out.push_str(&format!(" Where we stopped, you had said \u{201c}{said}\u{201d}."));
    }
    push_topics(&mut out, &recap.topics, "Before the break you explored");
    out
}

/// The rabbit holes, in a sentence of their own: the reply check may take it out (a topic can
/// name an untried point) without the rest.
pub(super) fn push_topics(out: &mut String, topics: &[String], lead: &str) {
    if !topics.is_empty() {
        let quoted: Vec<String> = topics.iter().map(|t| format!("\u{201c}{}\u{201d}", t.trim())).collect();
        out.push_str(&format!(" {lead} {}.", quoted.join(" and ")));
    }
}

/// The resource linked to the point under discussion, shown as its second hint ("another
/// angle"): after the learner has tried once, never before, so it does not do their
/// recalling for them. Showable resources are those not yet shown, so it comes once.
/// The tutor's call to show the resource its words point to, if any.
pub(super) fn show(brief: &TutorBrief) -> Option<Output> {
    to_show(brief)
        .map(|r| Output::Tool(ToolCall { name: r.tool.as_str().into(), input: json!({"resource_id": r.id}) }))
}

pub(super) fn to_show(brief: &TutorBrief) -> Option<&Showable> {
    let focus = brief.focus.as_ref().filter(|f| f.rung == Rung::Angle && !f.revisit)?;
    // A note that states the point whole (a drafted set's source, say) would be the answer,
    // not a hint: it comes when the point is recalled instead.
    let states_it = |r: &Showable| {
        focus.notes.iter().find(|n| n.title == r.title).is_some_and(|n| states(&n.body, &focus.point.content))
    };
    brief.showable.iter().find(|r| r.points.contains(&focus.point.id) && !states_it(r))
}

/// Whether `text` holds nearly every content word of `point` (by their first five letters).
fn states(text: &str, point: &str) -> bool {
    let stem = |w: &str| w.to_lowercase().chars().take(5).collect::<String>();
    let held: Vec<String> = content_words(text).iter().map(|w| stem(w)).collect();
    let words = content_words(point);
    let found = words.iter().filter(|w| held.contains(&stem(w))).count();
    words.len() >= 3 && found * 10 >= words.len() * 8
}

pub(super) fn tutor(brief: &TutorBrief) -> String {
    // The session as a whole: its set, or today's review across several.
    let named = mid_sentence(&brief.set_name);
    let set = if brief.review.is_empty() { named.as_str() } else { "today's review" };
    let message = brief.learner_message.as_deref().unwrap_or_default();
    let previous = brief.previous_reply.as_deref().map(sentences).unwrap_or_default();
    // The first wording that shares no sentence with the previous reply.
    let fresh = |candidates: Vec<String>| {
        let first = candidates.first().cloned().unwrap_or_default();
        candidates.into_iter().find(|c| sentences(c).iter().all(|s| !previous.contains(s))).unwrap_or(first)
    };
    let Some(focus) = &brief.focus else {
        return match brief.moment {
            TutorMoment::Opening | TutorMoment::Resume => {
                format!("Everything in {set} is recalled. What would you like to connect it to?")
            }
            // "Can you ask me more?": there is no more this session; where more practice is.
            TutorMoment::Reply if wants_more(message) && !brief.review.is_empty() => "That was every point due today; each comes back when it is due. To go over a set again now, start a session from its page, or ask me about anything in your notes.".into(),
            TutorMoment::Reply if wants_more(message) => format!(
                "That was every point due in {set} this session; each comes back when it is due. To go over them all again now, start a session from the set's page (\"Study all anyway\"), or ask me about anything in your notes."
            ),
            TutorMoment::Reply if asks_the_notes(brief) => from_session_notes(brief, None),
            // A question, and no notes to answer it from: said plainly, as the explorer does.
            TutorMoment::Reply if brief.asked => fresh(vec![
                "A fair question. Your notes don't cover that. What do you already know about it?".into(),
                "Worth asking, but it isn't in your notes. What do you think?".into(),
            ]),
            // Past the last point the learner may go on talking: say so once, then vary.
            TutorMoment::Reply => fresh(vec![
                "Say more: how does that connect to the rest of what you know here?".into(),
                format!(
                    "Everything in {set} is recalled for now; it comes back when it is due. End the session whenever you like."
                ),
                "What else does it remind you of?".into(),
            ]),
        };
    };
    // "What do you mean?": the question put plainly, and what an answer looks like. "What do
    // you mean by forms?", of a word of the question: what it means is what the learner is to
    // recall, so the question stands, said again.
    let question = cue(&focus.point, set);
    let meant_word = meant_by(message)
        .filter(|w| crate::text::words_spaced(&question).contains(&format!(" {} ", w.to_lowercase())));
    let plainly = if !brief.asked {
        None
    } else if asks_what_is_meant(message) {
        Some([
            format!(
                "I mean: {question} Say what you remember of it in your own words; part of it is a start."
            ),
            format!("Put simply: {question} Whatever you recall of it, in your own words, is an answer."),
        ])
    } else {
        meant_word.map(|word| {
            [
                format!(
                    "By \u{201c}{word}\u{201d} I mean what the word says in the question; more would give the answer away. {question} Say what you remember, in your own words."
                ),
                format!("\u{201c}{word}\u{201d} as the question uses it: {question} Part of an answer is a start."),
            ]
        })
    };
    if let Some(replies) = plainly {
        return fresh(replies.into());
    }
    // "What was the question again?": the question, and the hint it had reached.
    if brief.asked && asks_for_the_question(message) {
        let again = format!("The question was: {}", cue(&focus.point, set));
        return match focus.rung {
            Rung::Cue => again,
            Rung::Angle | Rung::Nudge | Rung::Gaps | Rung::Answer => fresh(
                (0..3).map(|variant| format!("{again} {}", ask(focus, set, variant, message))).collect(),
            ),
        };
    }
    // A near miss is "close" to the learner only when it said some of the point beyond the
    // question: "Saturn" for the biggest planet is near in kind, but nothing of it is right.
    let close =
        focus.close.is_some() && adds_to_question(message, &focus.point.content, &cue(&focus.point, set));
    // Close but swapped: which way round they go is what to ask, not what else belongs.
    let swapped = close && focus.close.as_deref().is_some_and(|said| said.contains(super::WRONG_WAY_ROUND));
    // Close with a detail wrong: which one is off is what to ask, not what else belongs.
    let off = close && focus.close.as_deref().is_some_and(|said| said.contains(super::IS_OFF));
    let leads: Vec<String> = match brief.moment {
        TutorMoment::Opening => vec![match &brief.recap {
            Some(recap) => format!("{} Let's see what has stayed with you.", last_time(recap, set)),
            None if !brief.review.is_empty() => {
                // Quoted: a set's name may hold commas, colons or "and" of its own.
                let names: Vec<String> =
                    brief.review.iter().map(|s| format!("\u{201c}{}\u{201d}", s.name.trim())).collect();
                let list = match names.split_last() {
                    Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
                    Some((only, _)) => only.clone(),
                    None => String::new(),
                };
                format!("Today's review takes in {list}. Let's see what has stayed with you.")
            }
            None => format!("Let's see what you remember about {set}."),
        }],
        TutorMoment::Resume => {
            let tried = focus.rung != Rung::Cue;
            let back = match &brief.recap {
                Some(recap) => so_far(recap, set, tried),
                None => format!("Back to {set}, where we left off."),
            };
            // A hint makes sense only beside the question it narrows.
            vec![match focus.rung {
                Rung::Cue => back,
                Rung::Angle | Rung::Nudge | Rung::Gaps | Rung::Answer => {
                    format!("{back} The question was: {}", cue(&focus.point, set))
                }
            }]
        }
        TutorMoment::Reply if !brief.just_recalled.is_empty() => {
            // The question asked is still open: the answer recalled another point.
            let still_open = brief.previous_reply.as_deref().is_some_and(|r| r.contains(&question));
            let acks = if still_open {
                [
                    "That counts, for another point.",
                    "That's another point, and it counts.",
                    "Another point, counted.",
                ]
            } else {
                ["Right.", "Yes.", "Mm-hmm."]
            };
            let first = pick(message, acks.len());
            // Back to a point already struggled with: say which, before its next hint.
            let back = match focus.rung {
                Rung::Cue => String::new(),
                Rung::Angle | Rung::Nudge | Rung::Gaps | Rung::Answer => {
                    format!(" Back to the earlier question: {}", cue(&focus.point, set))
                }
            };
            (0..acks.len()).map(|i| format!("{}{back}", acks[(first + i) % acks.len()])).collect()
        }
        TutorMoment::Reply if brief.asked => {
            let answer = from_notes(message, focus, &brief.pending);
            // Which opening comes first turns with the message, so a run of questions is not
            // met by the same words each time.
            let acks = ["A fair question.", "Worth asking.", "Good question."];
            let first = pick(message, acks.len());
            (0..acks.len()).map(|i| format!("{} {answer}", acks[(first + i) % acks.len()])).collect()
        }
        TutorMoment::Reply if brief.set_aside.is_some() => {
            vec![
                "Keep that in mind; we'll come back to it.".into(),
                "Hold on to that; it comes back later.".into(),
            ]
        }
        TutorMoment::Reply if is_dont_know(message) => {
            vec!["That's all right.".into(), "No matter.".into(), String::new()]
        }
        // Nearly there (what was right is on the page, in the near miss's words): ask for the rest.
        TutorMoment::Reply if close => vec!["Close.".into(), "Partly, yes.".into()],
        // A try that recalled nothing is told so; small talk is not a try.
        TutorMoment::Reply
            if super::kinds::kind_of(message) == MessageKind::Attempt && focus.attempts > 0 =>
        {
            vec!["Not quite.".into(), "Not yet.".into()]
        }
        TutorMoment::Reply => vec![String::new()],
    };
    let look = to_show(brief).map(|r| format!("Have a look at \"{}\".", r.title.trim()));
    // A hint that speaks of "it" comes after the question it narrows: the page shows the
    // latest reply alone, so the question is said again (unless the lead says it already).
    let restate = brief.moment == TutorMoment::Reply
        && brief.just_recalled.is_empty()
        && matches!(focus.rung, Rung::Angle | Rung::Nudge);
    let candidates = (0..3).flat_map(|variant| {
        // At the second rung, after a near miss the rest is asked for, and beside a note on
        // show the question is about that note (not another naming of it).
        let rest = ["What else belongs with it?", "What is still missing?", "Can you add the rest?"];
        let on_show = [
            "What do these notes say that bears on this?",
            "What in these notes fits here?",
            "Which part of these notes answers the question?",
        ];
        let round = [
            "Which way round do they go?",
            "Which goes with which?",
            "Can you put them the right way round?",
        ];
        let amend = [
            "Which part of that would you change?",
            "One part of that is not right yet. Which?",
            "What would you put right in it?",
        ];
        let question = match (focus.rung, close, &look) {
            (Rung::Angle, true, _) if swapped => round[variant % 3].to_string(),
            (Rung::Angle, true, _) if off => amend[variant % 3].to_string(),
            (Rung::Angle, true, _) => rest[variant % 3].to_string(),
            (Rung::Angle, false, Some(_)) => on_show[variant % 3].to_string(),
            _ => ask(focus, set, variant, message),
        };
        let question = if restate {
            // Worded by rung as well, so the next rung's reply does not repeat this sentence.
            let offset = usize::from(focus.rung == Rung::Nudge);
            let again =
                ["The question was:", "Still the question:", "Again, the question:"][(variant + offset) % 3];
            format!("{again} {} {question}", cue(&focus.point, set))
        } else {
            question
        };
        let body = match &look {
            Some(look) => format!("{look} {question}"),
            None => question,
        };
        leads.iter().map(move |lead| if lead.is_empty() { body.clone() } else { format!("{lead} {body}") })
    });
    fresh(candidates.collect())
}

//! The offline tutor: a cue for each point, then narrower hints up the ladder, another
//! angle from a linked note, and what it says on resuming.

use serde_json::json;

use warren_app::ladder::Rung;

use crate::llm::brief::{
    ExplorerBrief, Focus, MessageKind, PointBrief, Recap, Showable, TutorBrief, TutorMoment,
};
use crate::llm::{Message, Output, ToolCall};

use super::summariser::first_sentence;
use crate::embed::Embedder;
use crate::text::{content_words, is_dont_know, pick, sentences, terms};

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

/// Whether `message` says a word of `point` that `question` does not.
fn adds_to_question(message: &str, point: &str, question: &str) -> bool {
    let (point, question) = (crate::text::tokens(point), crate::text::tokens(question));
    // Said as the point says it: "can't be reassigned" adds to "const cannot be reassigned",
    // "not the nucleus" nothing to "the nucleus holds the DNA".
    crate::text::tokens(message).iter().any(|said| {
        point.iter().any(|p| p.same_as(said) && p.negated == said.negated)
            && !question.iter().any(|q| q.same_as(said))
    })
}

/// Whether the learner asks what the question means, not about a word of it ("what do you
/// mean?", "I don't understand the question", but not "what do you mean by wall?").
fn asks_what_is_meant(message: &str) -> bool {
    const ASKING: &[&str] = &[
        "what do you mean",
        "what does that mean",
        "what does the question mean",
        "don't understand the question",
        "dont understand the question",
        "don't get the question",
        "dont get the question",
        "can you rephrase",
        "could you rephrase",
        "rephrase that",
        "rephrase the question",
    ];
    let said = crate::text::words_spaced(message);
    ASKING.iter().any(|a| said.contains(&format!(" {a} "))) && !said.contains(" mean by ")
}

/// The words a learner asks the meaning of ("what do you mean by forms?" → "forms"), up to
/// three of them.
fn meant_by(message: &str) -> Option<String> {
    let lower = message.to_lowercase();
    let at = lower.find(" mean by ")? + " mean by ".len();
    let words: Vec<&str> = message[at..]
        .split(['?', '.', '!', ',', ';'])
        .next()?
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty() && !matches!(w.to_lowercase().as_str(), "the" | "a" | "an" | "that"))
        .collect();
    (!words.is_empty() && words.len() <= 3).then(|| words.join(" "))
}

/// Whether a question to the tutor asks for its question again ("what was the question
/// again?", "sorry, can you repeat that?").
fn asks_for_the_question(message: &str) -> bool {
    const ASKING: &[&str] = &[
        "the question again",
        "what was the question",
        "what's the question",
        "what is the question",
        "repeat the question",
        "repeat that",
        "say that again",
        "ask that again",
        "what was it again",
        "what were you asking",
        "what are you asking",
    ];
    let said = crate::text::words_spaced(message);
    ASKING
        .iter()
        .any(|a| said.contains(&format!(" {a} ")) || said.contains(&format!(" {} ", a.replace('\'', ""))))
}

/// The brief with the point's linked notes ordered by nearness in meaning to the point (ties
/// and a failed pass keep the engine's order).
pub(super) fn nearest_notes_first(brief: &TutorBrief, embedder: &Embedder) -> TutorBrief {
    let mut brief = brief.clone();
    if let Some(focus) = brief.focus.as_mut() {
        let texts: Vec<String> = std::iter::once(focus.point.content.clone())
            .chain(focus.notes.iter().map(|n| format!("{}. {}", n.title.trim(), n.body.trim())))
            .collect();
        if let Ok(vectors) = embedder.embed(&texts.iter().map(String::as_str).collect::<Vec<_>>())
            && let Some((point, notes)) = vectors.split_first()
        {
            let mut ranked: Vec<(f32, crate::llm::brief::ResourceBrief)> = notes
                .iter()
                .map(|v| crate::embed::similarity(point, v))
                .zip(std::mem::take(&mut focus.notes))
                .collect();
            ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
            focus.notes = ranked.into_iter().map(|(_, note)| note).collect();
        }
        // The resource shown beside the words is the note they name first.
        let rank = |title: &str| focus.notes.iter().position(|n| n.title == title).unwrap_or(usize::MAX);
        brief.showable.sort_by_key(|r| rank(&r.title));
    }
    brief
}

/// A question asked once every point is recalled, with notes to answer it from (a request for
/// more questions is not one: see [`wants_more`]).
pub(super) fn asks_the_notes(brief: &TutorBrief) -> bool {
    brief.moment == TutorMoment::Reply
        && brief.focus.is_none()
        && brief.asked
        && !brief.notes.is_empty()
        && !wants_more(brief.learner_message.as_deref().unwrap_or_default())
}

/// Whether the learner asks for more questions ("Can you ask me more?", "quiz me again").
fn wants_more(message: &str) -> bool {
    const MORE: &[&str] = &[
        "ask me more",
        "ask me another",
        "ask me something else",
        "more questions",
        "another question",
        "quiz me",
        "test me",
        "keep going",
        "can we do more",
        "can we keep going",
        "go again",
        "what next",
        "what's next",
        "whats next",
        "what now",
        "go over",
        "got wrong",
        "ones i missed",
        "one more time",
        "do it again",
        "start over",
        "practise more",
        "practice more",
    ];
    let lower = message.to_lowercase().replace('’', "'");
    MORE.iter().any(|m| lower.contains(m))
}

/// The answer to such a question, as the explorer answers inside a rabbit hole: the nearest
/// sentences of one note (by meaning with the sentence model), or a plain word that the notes
/// do not cover it.
pub(super) fn from_session_notes(brief: &TutorBrief, embedder: Option<&Embedder>) -> String {
    let asked = brief.learner_message.as_deref().unwrap_or_default().trim().to_string();
    let explorer = ExplorerBrief {
        set_name: brief.set_name.clone(),
        topic: asked.clone(),
        resources: brief.notes.clone(),
        learner_message: Some(asked),
        history: brief.previous_reply.iter().map(|r| Message::assistant(r.clone())).collect(),
        open_points: brief.pending.clone(),
    };
    super::explorer::explorer(&explorer, embedder)
}

/// An answer to the learner's question from the notes linked to the point under discussion:
/// the sentence sharing most words with the question (two at least), unless it would give the
/// point away; otherwise, for a question that half names the point asked or one of `pending`,
/// that it is theirs to recall; otherwise a plain word that the notes don't say.
pub(super) fn from_notes(question: &str, focus: &Focus, pending: &[PointBrief]) -> String {
    let asked = terms(question);
    // A question that half names a point still to recall, and names nothing else, is not for
    // the notes to answer ("is a nephron the same as a glomerulus?" asks about a glomerulus).
    let names = |point: &PointBrief| {
        let said = terms(&point.content);
        half_names(question, point, 1) && asked.iter().all(|t| said.contains(t))
    };
    let point = terms(&focus.point.content);
    let best = focus
        .notes
        .iter()
        .flat_map(|note| sentences(&note.body))
        .map(|sentence| {
            let said = terms(&sentence);
            let shared = said.iter().filter(|t| asked.contains(t)).count();
            let gives_away = said.iter().filter(|t| point.contains(t) && !asked.contains(t)).count() >= 2;
            (shared, gives_away, sentence)
        })
        .filter(|(shared, gives_away, _)| *shared >= 2 && !gives_away)
        .max_by_key(|(shared, _, _)| *shared);
    match best {
        Some((_, _, sentence)) => format!("Your notes say: {}", ensure_period(&sentence)),
        None if names(&focus.point) => "That is part of what I am asking you.".into(),
        None if pending.iter().any(|p| p.id != focus.point.id && names(p)) => {
            "That is one of the points still to come; hold on to it.".into()
        }
        // Nothing about when to take it up: an Explore offer may stand beside these words.
        None => "Your notes on this point don't answer that.".into(),
    }
}

/// Whether half or more of a question's terms, and `least` at the fewest, are `point`'s: the
/// question is about that point.
pub(super) fn half_names(question: &str, point: &PointBrief, least: usize) -> bool {
    let (asked, said) = (terms(question), terms(&point.content));
    let shared = asked.iter().filter(|t| said.contains(t)).count();
    shared >= least && shared * 2 >= asked.len()
}

/// The question for the point under discussion at its rung of the hint ladder; `variant`
/// words it differently (to never say the same sentence twice in a row). `said` is the
/// learner's latest message: a nudge is towards a word neither they nor the question have
/// said, and the gaps leave both in view.
pub(super) fn ask(focus: &Focus, set: &str, variant: usize, said: &str) -> String {
    let point = &focus.point;
    let learner: Vec<String> = content_words(said).iter().map(|w| w.to_lowercase()).collect();
    let said = &format!("{said} {}", cue(point, set));
    match focus.rung {
        Rung::Cue if focus.revisit => {
            ["One from earlier, asked fresh:", "Back to one from before:", "Once more, fresh:"][variant % 3]
                .to_string()
                + " "
                + &cue(point, set)
        }
        Rung::Cue => match variant % 3 {
            0 => cue(point, set),
            1 => format!("Again: {}", cue(point, set)),
            _ => format!("Let's stay with this one. {}", cue(point, set)),
        },
        Rung::Angle => angle(focus, variant),
        Rung::Nudge => {
            let words = content_words(&point.content);
            // A word counts as said when the learner used one sharing its first five letters
            // ("mitochondrion" for "Mitochondria").
            let stem = |w: &str| w.to_lowercase().chars().take(5).collect::<String>();
            let said: Vec<String> = content_words(said).iter().map(|w| stem(w)).collect();
            let unsaid: Vec<&String> = words.iter().filter(|w| !said.contains(&stem(w))).collect();
            let start = |w: &str| w.to_lowercase().chars().take(2).collect::<String>();
            // A key word is no adverb ("eventually"), nor a figure (its first digit would be
            // most of the answer), and its first letters are none the learner's words begin
            // with: "ev" after "evaporation?" reads as that answer.
            let telling = |w: &&&String| {
                !w.to_lowercase().ends_with("ly")
                    && !w.chars().any(|c| c.is_ascii_digit())
                    && !learner.iter().any(|s| s.starts_with(&start(w)))
            };
            // A name first: what a "which" or "who" question is after ("Jupiter", not
            // "largest" beside the question's "biggest").
            let named =
                |w: &&&String| w.chars().next().is_some_and(char::is_uppercase) && w.chars().count() >= 5;
            let figure = |w: &&&String| w.chars().any(|c| c.is_ascii_digit());
            let number = unsaid.iter().find(figure);
            match unsaid
                .iter()
                .filter(telling)
                .max_by_key(|w| (named(w), w.chars().count()))
                .or_else(|| unsaid.iter().filter(|w| !figure(w)).max_by_key(|w| w.chars().count()))
                .copied()
            {
                // Only a figure is left unsaid: its first digits would be most of it, so the
                // nudge says how long it is.
                None if let Some(number) = number => {
                    let digits = number.chars().filter(char::is_ascii_digit).count();
                    let long = if digits == 1 { "a single digit".to_string() } else { format!("{digits} digits") };
                    [
                        format!("A nudge: what is missing is a number of {long}. Which is it?"),
                        format!("Here is a start: it comes down to a figure of {long}. Which one?"),
                        format!("Think of the number it needs, {long} long. What is it?"),
                    ][variant % 3]
                        .clone()
                }
                Some(word) => {
                    let start: String = word.chars().take(2).collect();
                    [
                        format!("A nudge: one of the key words starts with \"{start}\". What is it?"),
                        format!("Here is a start: a key word begins \"{start}\". Which word is that?"),
                        format!("Think of a word beginning \"{start}\". Where does it lead?"),
                    ][variant % 3]
                        .clone()
                }
                // Every word said ("energy? they step the voltage down…"): a first letter of
                // one would point at a word the learner has; the slip is in how they join.
                None if !words.is_empty() => [
                    "Every word of it is in what you said; one detail is the wrong way round or on the wrong thing. Which?",
                    "You have all its words. Look again at how they fit together: one detail is off.",
                    "The words are right; one detail is not. Which one would you change?",
                ][variant % 3]
                    .to_string(),
                None => format!("A nudge: {}", cue(point, set)),
            }
        }
        Rung::Gaps => {
            let masked = masked(point.content.trim().trim_end_matches('.'), said);
            let (gaps, blanks) = match masked.split_whitespace().filter(|t| t.contains("\\_")).count() {
                1 => ("gap", "blank"),
                _ => ("gaps", "blanks"),
            };
            [
                format!("Part of it: \"{masked}\". What fills the {gaps}?"),
                format!("Fill in the {gaps}: \"{masked}\""),
                format!("Here is its shape: \"{masked}\". What goes in the {blanks}?"),
            ][variant % 3]
                .clone()
        }
        Rung::Answer => {
            let answer = ensure_period(point.content.trim());
            [
                format!("Here it is: {answer} Say it back in your own words."),
                format!("This is the one: {answer} How would you put it yourself?"),
                format!("The answer: {answer} Now say it your way."),
            ][variant % 3]
                .clone()
        }
    }
}

/// Another side of the point: the learner's notes on it if there are any, else a question
/// shaped by what the point holds (a date, a name, or a function).
pub(super) fn angle(focus: &Focus, variant: usize) -> String {
    let point = &focus.point;
    let notes = focus.notes.iter().map(|n| n.title.trim()).filter(|t| !t.is_empty()).collect::<Vec<_>>();
    if let Some(title) = notes.get(variant % notes.len().max(1)) {
        return [
            format!("Think back to your notes, \"{title}\": what do they say that bears on this?"),
            format!("Your notes \"{title}\" touch on it: what do you remember from them?"),
            format!("Come at it through \"{title}\": what fits here?"),
        ][variant % 3]
            .clone();
    }
    let content = point.content.trim();
    // A figure, in digits or words ("about a million nephrons"); not "one" as a word for a thing.
    let has_number = content.chars().any(|c| c.is_ascii_digit())
        || crate::text::tokens(content)
            .iter()
            .any(|t| t.quantity.is_some() && !matches!(t.word.as_str(), "one" | "a" | "an"));
    // A capitalised word after the first one: a person, place or named thing ("Caesar",
    // "ATP"), not a letter of notation ("O(n log n)").
    // "Which planet…?", "Who…?": the answer is a name, whichever word of the point it is.
    let asked = point.question().unwrap_or_default().to_lowercase();
    let first =
        content.split_whitespace().next().unwrap_or_default().trim_matches(|c: char| !c.is_alphanumeric());
    let asks_a_name = asked.starts_with("who ")
        || (asked.starts_with("which ")
            && crate::text::kinship::nouns().is_some_and(|n| n.names_one(&first.to_lowercase())));
    let has_name = content.split_whitespace().skip(1).any(|w| {
        let letters: Vec<char> = w.chars().take_while(|c| c.is_alphabetic()).collect();
        letters.len() >= 2 && letters[0].is_uppercase()
    });
    // "Runoff: water that…": a term and what it means; the term is half the answer.
    let termed = content.split_whitespace().next().is_some_and(|w| w.ends_with(':'));
    let questions: [&str; 3] = if asks_a_name {
        [
            "Think of who or what is named in it. What part do they play?",
            "Start from the names involved: who or what comes to mind?",
            "Which person, place or thing is at the centre of it?",
        ]
    } else if asked.starts_with("why ") {
        [
            "Think of the cause: what makes it so?",
            "Start from what lies behind it: what brings it about?",
            "What would have to be true for it to happen?",
        ]
    } else if has_date(content) {
        [
            "Come at it from the time: when was it, and what happened then?",
            "Think of the date first. What happened around it?",
            "Place it in time: what came before, and what followed?",
        ]
    } else if has_number {
        [
            "Think of the amount in it: how much, or how many, of what?",
            "There is a number in it. What does it measure?",
            "Start from the figure: what is counted or measured?",
        ]
    } else if termed {
        [
            "It has a name of its own: what is it called, and what happens in it?",
            "Start from the word for it. What does that word describe?",
            "Name it first, then say what it covers.",
        ]
    } else if asked.starts_with("where ") {
        [
            "Think of the place: where does it happen, and what is found there?",
            "Start from where it is: which part or place comes to mind?",
            "Picture the route: where does it start, and where does it lead?",
        ]
    } else if has_name {
        [
            "Think of who or what is named in it. What part do they play?",
            "Start from the names involved: who or what comes to mind?",
            "Which person, place or thing is at the centre of it?",
        ]
    } else {
        [
            "Think of what it does, or what it is for, rather than what it is called.",
            "What job does it do? Start from there.",
            "Picture it at work: what happens, and what comes of it?",
        ]
    };
    questions[variant % 3].to_string()
}

/// Whether a text has a date: a year ("1066", "44 BC"), a century, or a month.
fn has_date(text: &str) -> bool {
    const MARKS: &[&str] = &[
        "bc",
        "bce",
        "ad",
        "ce",
        "century",
        "centuries",
        "january",
        "february",
        "april",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    let words: Vec<String> =
        text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect();
    words.iter().any(|w| {
        MARKS.contains(&w.as_str())
            || (w.len() == 4 && w.parse::<u32>().is_ok_and(|y| (1000..=2100).contains(&y)))
    })
}

/// The content with every other content word blanked out, a blank as long as its word; a word
/// the learner has just said (`said`) stays in view, so the gaps ask for what they have not.
/// The blanks are escaped underscores: the reply is Markdown, and bare ones beside punctuation
/// ("in ___, where … (___ red") would open and close emphasis and vanish from the page.
pub(super) fn masked(content: &str, said: &str) -> String {
    let stem = |w: &str| w.to_lowercase().chars().take(5).collect::<String>();
    let said: Vec<String> = content_words(said).iter().map(|w| stem(w)).collect();
    let kept = gapped(content, &said);
    // Everything said already (in the wrong order, or wrongly joined): gaps as if nothing was.
    if kept.contains("\\_") { kept } else { gapped(content, &[]) }
}

fn gapped(content: &str, said: &[String]) -> String {
    let stem = |w: &str| w.to_lowercase().chars().take(5).collect::<String>();
    let key: Vec<String> = content_words(content)
        .into_iter()
        .map(|w| w.to_lowercase())
        .filter(|w| !said.contains(&stem(w)))
        .collect();
    let mut hide = false;
    content
        .split_whitespace()
        .map(|token| {
            let word = |c: char| c.is_alphanumeric() || c == '\'' || c == '-';
            let core = token.trim_matches(|c: char| !word(c));
            // A letter alone ("n" of "O(n log n)") or notation ("O(n") is left whole: a blank
            // there reads as a stray bracket, not a gap.
            let notation = core.chars().count() < 2 || core.contains(['(', ')']);
            if core.is_empty() || notation || !key.contains(&core.to_lowercase()) {
                return token.to_string();
            }
            hide = !hide;
            if !hide {
                return token.to_string();
            }
            let (start, end) = token.find(core).map_or((0, token.len()), |at| (at, at + core.len()));
            let blank = "\\_".repeat(core.chars().count().clamp(3, 12));
            format!("{}{blank}{}", &token[..start], &token[end..])
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) fn ensure_period(text: &str) -> String {
    if text.ends_with(['.', '!', '?']) { text.to_string() } else { format!("{text}.") }
}

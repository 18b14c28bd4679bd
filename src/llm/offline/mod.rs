//! The built-in offline provider: no network, no key, deterministic. It answers each agent from
//! the structured brief behind the prompt: the evaluator by term coverage of each point, the
//! tutor with cues and progressively narrower hints, the detector by spotting questions that
//! leave the points, the explorer from the set's own resources. Good enough to study with, and
//! what the tests drive.

mod judge;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use futures_util::StreamExt;
use serde_json::json;
use warren_app::protocol::ProviderInfo;

use super::brief::{
    DetectorBrief, EvaluatorBrief, ExplorerBrief, Focus, MessageKind, PointBrief, Recap, Rung, Showable,
    SummaryBrief, SummaryTask, TutorBrief, TutorMoment,
};
use super::topic::topic_of;
use super::{LlmError, Output, Provider, Purpose, ReplyStream, Request, Role, ToolCall};

use crate::embed::Embedder;
use crate::text::{content_words, is_dont_know, pick, sentences, terms};

pub const MODEL: &str = "warren-offline-1";

pub struct Offline {
    /// Pause between streamed pieces, so replies appear to type out. Zero in tests.
    chunk_delay: Duration,
    /// The sentence model the judges compare meaning with; words alone without it.
    embedder: Option<Arc<Embedder>>,
    /// Passes of the model under way, and the cores they share.
    passes: Arc<AtomicUsize>,
    cores: usize,
}

impl Offline {
    pub fn new(chunk_delay: Duration, embedder: Option<Arc<Embedder>>) -> Self {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        Self { chunk_delay, embedder, passes: Arc::new(AtomicUsize::new(0)), cores }
    }

    /// Runs `work` with the model on a blocking thread; None when `MODEL_PASSES` passes per
    /// core are already under way (the server is overloaded: the caller judges by words rather
    /// than keep a learner waiting behind a crowd of passes).
    async fn with_model<T: Send + 'static>(
        &self,
        embedder: &Arc<Embedder>,
        work: impl FnOnce(&Embedder) -> T + Send + 'static,
    ) -> Result<Option<T>, LlmError> {
        let Some(pass) = Pass::start(&self.passes, self.cores * MODEL_PASSES) else {
            tracing::debug!("the sentence model is busy: this message is judged by words");
            return Ok(None);
        };
        let embedder = embedder.clone();
        let out = tokio::task::spawn_blocking(move || {
            let out = work(&embedder);
            drop(pass);
            out
        })
        .await
        .map_err(|e| LlmError::Interrupted(format!("the sentence model stopped: {e}")))?;
        Ok(Some(out))
    }
}

/// Passes of the model under way at once, per core, beyond which a message is judged by words.
/// A pass takes about 10 ms of one core (release build); at a steady 100 turns/s on two cores
/// three or four are under way, so only a burst far beyond a study group's reaches this.
const MODEL_PASSES: usize = 8;

/// One pass of the model under way, counted until dropped.
struct Pass(Arc<AtomicUsize>);

impl Pass {
    fn start(passes: &Arc<AtomicUsize>, limit: usize) -> Option<Self> {
        let before = passes.fetch_add(1, Ordering::AcqRel);
        let pass = Pass(passes.clone());
        (before < limit).then_some(pass)
    }
}

impl Drop for Pass {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
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

    async fn prepare(&self, texts: Vec<String>) {
        let Some(embedder) = &self.embedder else { return };
        let read = self.with_model(embedder, move |e| {
            let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
            e.read(&texts).map(|_| ())
        });
        match read.await {
            Ok(Some(Err(err))) => tracing::warn!(error = %err, "the sentence model could not read ahead"),
            Ok(Some(Ok(()))) | Ok(None) => {}
            Err(err) => tracing::warn!(error = %err, "the sentence model could not read ahead"),
        }
    }

    async fn stream(&self, request: &Request) -> Result<ReplyStream, LlmError> {
        let (text, shown) = match (&self.embedder, &request.purpose) {
            // A pass of the sentence model takes milliseconds of CPU: off the async threads.
            (Some(embedder), Purpose::Explorer(brief)) => {
                let brief = brief.clone();
                let text = self.with_model(embedder, move |e| explorer(&brief, Some(e))).await?;
                (text.unwrap_or_else(|| answer(request)), None)
            }
            // Another angle from one of several linked notes: the one nearest the point in meaning
            // (named in the words and shown beside them).
            (Some(embedder), Purpose::Tutor(brief))
                if brief.focus.as_ref().is_some_and(|f| f.rung == Rung::Angle && f.notes.len() > 1) =>
            {
                let owned = brief.clone();
                let ordered = self.with_model(embedder, move |e| nearest_notes_first(&owned, e)).await?;
                match ordered {
                    Some(ordered) => (tutor(&ordered), show(&ordered)),
                    None => (answer(request), show(brief)),
                }
            }
            (Some(embedder), Purpose::Evaluator(brief)) => {
                let brief = brief.clone();
                let text = self.with_model(embedder, move |e| evaluator(&brief, Some(e)).to_string()).await?;
                (text.unwrap_or_else(|| answer(request)), None)
            }
            (None, Purpose::Tutor(brief)) | (Some(_), Purpose::Tutor(brief)) => {
                (answer(request), show(brief))
            }
            (
                None,
                Purpose::Evaluator(_)
                | Purpose::Detector(_)
                | Purpose::Explorer(_)
                | Purpose::Summariser(_)
                | Purpose::Probe,
            )
            | (Some(_), Purpose::Detector(_) | Purpose::Summariser(_) | Purpose::Probe) => {
                (answer(request), None)
            }
        };
        let delay = self.chunk_delay;
        // A resource to show goes first, so it is there as the words arrive.
        let pieces = shown.into_iter().chain(chunks(&text).into_iter().map(Output::Text));
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
        Purpose::Evaluator(brief) => evaluator(brief, None).to_string(),
        Purpose::Detector(brief) => detector(brief).to_string(),
        Purpose::Explorer(brief) => explorer(brief, None),
        Purpose::Summariser(brief) => summary(brief),
        Purpose::Probe => "ok".into(),
    }
}

// --- evaluator --------------------------------------------------------------------------------

fn evaluator(brief: &EvaluatorBrief, embedder: Option<&Embedder>) -> serde_json::Value {
    let meaning = embedder.and_then(|embedder| meaning(embedder, brief));
    let context = judge::Context::new(brief, meaning);
    // A question or small talk is no attempt, so it nearly recalls nothing (it may still say a
    // point outright).
    let form = judge::kind_of(&brief.learner_message);
    let tries = form.climbs();
    let mut recalled = Vec::new();
    // Near misses, each with whether the message shares words with the point.
    let mut near: Vec<(serde_json::Value, bool)> = Vec::new();
    for point in &brief.unchecked {
        let verdict = context.judge(point);
        if verdict.recalled {
            let confidence = (0.5 + verdict.score / 2.0).min(1.0);
            recalled.push(json!({"pointId": point.id, "confidence": (confidence * 100.0).round() / 100.0}));
        } else if verdict.near && tries {
            let close = verdict.present.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
            let feedback = if close.is_empty() {
                "On the right track.".to_string()
            } else {
                format!("On the right track with {close}.")
            };
            near.push((json!({"pointId": point.id, "feedback": feedback}), !verdict.present.is_empty()));
        }
    }
    // A message that says one point whole is about that point: nearness in meaning alone to
    // another is the kinship of neighbouring facts, not a try at it.
    let near: Vec<serde_json::Value> =
        near.into_iter().filter(|(_, worded)| *worded || recalled.is_empty()).map(|(n, _)| n).collect();
    let observation = if !recalled.is_empty() {
        "The learner recalled a point in their own words."
    } else if is_dont_know(&brief.learner_message) {
        "The learner does not remember yet; offer a narrower cue."
    } else if !near.is_empty() {
        "The learner is close but has not got the whole point."
    } else {
        ""
    };
    // A message that recalls or nearly recalls something is an attempt, whatever its form
    // ("I don't know, something about…" stays a "don't know": both climb the ladder).
    let kind = match form {
        _ if !recalled.is_empty() => MessageKind::Attempt,
        MessageKind::DontKnow => MessageKind::DontKnow,
        MessageKind::Attempt | MessageKind::Question | MessageKind::SmallTalk if near.is_empty() => form,
        MessageKind::Attempt | MessageKind::Question | MessageKind::SmallTalk => MessageKind::Attempt,
    };
    json!({"recalled": recalled, "nearMisses": near, "observation": observation, "messageKind": kind.as_str()})
}

/// What the sentence model reads of the message, the tutor's question and each point (points
/// and questions come from its cache after their first turn). None for a message with no
/// content word, where words alone decide, or if the model fails (said in the log).
fn meaning(embedder: &Embedder, brief: &EvaluatorBrief) -> Option<judge::Meaning> {
    if crate::text::tokens(&brief.learner_message).is_empty() {
        return None;
    }
    let question = judge::question(brief);
    let mut texts = vec![brief.learner_message.as_str()];
    texts.extend(question);
    texts.extend(brief.unchecked.iter().map(|p| p.content.as_str()));
    let readings = match embedder.read(&texts) {
        Ok(readings) => readings,
        Err(err) => {
            tracing::warn!(error = %err, "the evaluator judges this message by words alone");
            return None;
        }
    };
    let mut readings = readings.into_iter();
    let message = readings.next()?;
    let question = if question.is_some() { readings.next() } else { None };
    let points = brief.unchecked.iter().map(|p| p.id.clone()).zip(readings).collect();
    Some(judge::Meaning { message, question, points })
}

// --- tutor ------------------------------------------------------------------------------------

fn cue(point: &PointBrief, set_name: &str) -> String {
    if point.context.trim().is_empty() {
        format!("What else do you remember from {set_name}?")
    } else {
        point.context.trim().to_string()
    }
}

/// "Last time (2 days ago) we stopped partway through Cells. You also went down a rabbit hole
/// on “tides”." Counts are left to the interface.
fn last_time(recap: &Recap, set: &str) -> String {
    use warren_app::format::ago;
    let ago = ago(recap.now, recap.at);
    let mut out = if recap.completed {
        format!("Last time ({ago}) you went through the whole of {set}.")
    } else {
        format!("Last time ({ago}) we stopped partway through {set}.")
    };
    push_topics(&mut out, &recap.topics, "You also went down a rabbit hole on");
    out
}

/// "Welcome back to Cells. Where we stopped, you had said: “…”."
fn so_far(recap: &Recap, set: &str) -> String {
    let mut out = format!("Welcome back to {set}.");
    if let Some(said) = recap.last_said.as_deref().map(first_sentence).filter(|s| !s.is_empty()) {
        out.push_str(&format!(" Where we stopped, you had said: \u{201c}{said}\u{201d}"));
    }
    push_topics(&mut out, &recap.topics, "Before the break you explored");
    out
}

/// The rabbit holes, in a sentence of their own: the reply check may take it out (a topic can
/// name an untried point) without the rest.
fn push_topics(out: &mut String, topics: &[String], lead: &str) {
    if !topics.is_empty() {
        let quoted: Vec<String> = topics.iter().map(|t| format!("\u{201c}{}\u{201d}", t.trim())).collect();
        out.push_str(&format!(" {lead} {}.", quoted.join(" and ")));
    }
}

/// The resource linked to the point under discussion, shown as its second hint ("another
/// angle"): after the learner has tried once, never before, so it does not do their
/// recalling for them. Showable resources are those not yet shown, so it comes once.
/// The tutor's call to show the resource its words point to, if any.
fn show(brief: &TutorBrief) -> Option<Output> {
    to_show(brief)
        .map(|r| Output::Tool(ToolCall { name: r.tool.as_str().into(), input: json!({"resource_id": r.id}) }))
}

fn to_show(brief: &TutorBrief) -> Option<&Showable> {
    let focus = brief.focus.as_ref().filter(|f| f.rung == Rung::Angle && !f.revisit)?;
    brief.showable.iter().find(|r| r.points.contains(&focus.point.id))
}

fn tutor(brief: &TutorBrief) -> String {
    let set = brief.set_name.as_str();
    let Some(focus) = &brief.focus else {
        return match brief.moment {
            TutorMoment::Opening | TutorMoment::Resume => {
                format!("Everything in {set} is recalled. What would you like to connect it to?")
            }
            TutorMoment::Reply => "Say more: how does that connect to the rest of what you know here?".into(),
        };
    };
    let message = brief.learner_message.as_deref().unwrap_or_default();
    let leads: Vec<String> = match brief.moment {
        TutorMoment::Opening => vec![match &brief.recap {
            Some(recap) => format!("{} Let's see what has stayed with you.", last_time(recap, set)),
            None => format!("Let's see what you remember about {set}."),
        }],
        TutorMoment::Resume => vec![match &brief.recap {
            Some(recap) => so_far(recap, set),
            None => format!("Back to {set}, where we left off."),
        }],
        TutorMoment::Reply if !brief.just_recalled.is_empty() => {
            let acks = ["Right.", "Yes.", "Mm-hmm."];
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
            let answer = from_notes(message, focus);
            vec![format!("A fair question. {answer}"), format!("Worth asking. {answer}")]
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
        TutorMoment::Reply => vec![String::new()],
    };
    // The first wording that shares no sentence with the previous reply.
    let previous = brief.previous_reply.as_deref().map(sentences).unwrap_or_default();
    let look = to_show(brief).map(|r| format!("Have a look at \"{}\".", r.title.trim()));
    let mut candidates = (0..3).flat_map(|variant| {
        let body = match &look {
            Some(look) => format!("{look} {}", ask(focus, set, variant)),
            None => ask(focus, set, variant),
        };
        leads.iter().map(move |lead| if lead.is_empty() { body.clone() } else { format!("{lead} {body}") })
    });
    let first = candidates.next().unwrap_or_default();
    std::iter::once(first.clone())
        .chain(candidates)
        .find(|c| sentences(c).iter().all(|s| !previous.contains(s)))
        .unwrap_or(first)
}

/// The brief with the point's linked notes ordered by nearness in meaning to the point (ties
/// and a failed pass keep the engine's order).
fn nearest_notes_first(brief: &TutorBrief, embedder: &Embedder) -> TutorBrief {
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

/// An answer to the learner's question from the notes linked to the point under discussion:
/// the sentence sharing most words with the question (two at least), unless it would give the
/// point away; otherwise a plain word that the notes don't say.
fn from_notes(question: &str, focus: &Focus) -> String {
    let asked = terms(question);
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
        None => "Your notes don't say; keep it for when this point is done.".into(),
    }
}

/// The question for the point under discussion at its rung of the hint ladder; `variant`
/// words it differently (to never say the same sentence twice in a row).
fn ask(focus: &Focus, set: &str, variant: usize) -> String {
    let point = &focus.point;
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
            match words.iter().max_by_key(|w| w.chars().count()) {
                Some(word) => {
                    let start: String = word.chars().take(2).collect();
                    [
                        format!("A nudge: one of the key words starts with \"{start}\". What is it?"),
                        format!("Here is a start: a key word begins \"{start}\". Which word is that?"),
                        format!("Think of a word beginning \"{start}\". Where does it lead?"),
                    ][variant % 3]
                        .clone()
                }
                None => format!("A nudge: {}", cue(point, set)),
            }
        }
        Rung::Gaps => {
            let masked = masked(point.content.trim().trim_end_matches('.'));
            [
                format!("Part of it: \"{masked}\". What fills the gaps?"),
                format!("Fill in the gaps: \"{masked}\""),
                format!("Here is its shape: \"{masked}\". What goes in the blanks?"),
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
fn angle(focus: &Focus, variant: usize) -> String {
    let point = &focus.point;
    let notes = focus.notes.iter().map(|n| n.title.trim()).filter(|t| !t.is_empty()).collect::<Vec<_>>();
    if let Some(title) = notes.get(variant % notes.len().max(1)) {
        return [
            format!("Think back to your notes, \"{title}\". What do they say that bears on this?"),
            format!("Your notes \"{title}\" touch on it. What do you remember from them?"),
            format!("Come at it through \"{title}\": what fits here?"),
        ][variant % 3]
            .clone();
    }
    let content = point.content.trim();
    let has_number = content.chars().any(|c| c.is_ascii_digit());
    // A capitalised word after the first one: a person, place or named thing.
    let has_name =
        content.split_whitespace().skip(1).any(|w| w.chars().next().is_some_and(char::is_uppercase));
    let questions: [&str; 3] = if has_number {
        [
            "Come at it from the time: when was it, and what happened then?",
            "Think of the date first. What happened around it?",
            "Place it in time: what came before, and what followed?",
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
    let fires = judge::is_tangent(brief);
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

// --- explorer ---------------------------------------------------------------------------------

/// How near in meaning (cosine) a note's sentence must come to the learner's question to be
/// quoted as an answer to it.
const NOTE_NEAR: f32 = 0.45;

/// The explorer answers from the set's own notes: the sentence nearest the learner's question
/// (by meaning with the sentence model, by shared words without), and the next nearest of the
/// same note if it is near too, in the note's order. Sentences of different notes are never
/// joined; when nothing is near, it says the notes do not cover it.
fn explorer(brief: &ExplorerBrief, embedder: Option<&Embedder>) -> String {
    let topic = brief.topic.trim();
    let asked = brief.learner_message.as_deref().map(str::trim).unwrap_or(topic);
    let already_said: String =
        brief.history.iter().filter(|m| m.role == Role::Assistant).map(|m| m.content.as_str()).collect();
    // Every sentence of every note not yet quoted: (note, place in it, sentence).
    let sentences: Vec<(usize, usize, String)> = brief
        .resources
        .iter()
        .enumerate()
        .flat_map(|(note, r)| sentences(&r.body).into_iter().enumerate().map(move |(i, s)| (note, i, s)))
        .filter(|(_, _, s)| !already_said.contains(s.as_str()))
        .collect();
    let near = nearness(asked, topic, &sentences, embedder);
    let best = (0..sentences.len())
        .filter(|i| near[*i].1)
        .max_by(|a, b| near[*a].0.total_cmp(&near[*b].0).then(b.cmp(a)));
    let found: Vec<&str> = match best {
        None => Vec::new(),
        Some(best) => {
            let note = sentences[best].0;
            let second = (0..sentences.len())
                .filter(|i| *i != best && sentences[*i].0 == note && near[*i].1)
                .max_by(|a, b| near[*a].0.total_cmp(&near[*b].0).then(b.cmp(a)));
            let mut chosen: Vec<usize> = std::iter::once(best).chain(second).collect();
            chosen.sort_by_key(|i| sentences[*i].1);
            chosen.into_iter().map(|i| sentences[i].2.as_str()).collect()
        }
    };
    match (&brief.learner_message, found.is_empty()) {
        (None, false) => {
            format!("Here is what your notes say about {topic}. {} What draws you to it?", found.join(" "))
        }
        (Some(_), false) => format!("{} What do you make of that?", found.join(" ")),
        (None, true) => format!(
            "Working offline, I can only draw on this set's own notes, and they say nothing about {topic}. \
             What do you already know about it? Think it through here, and return to the session whenever you like."
        ),
        (Some(_), true) => "Your notes don't cover that. What do you already know about it?".into(),
    }
}

/// For each sentence, how near it comes to what was asked, and whether that is near enough
/// to quote. By meaning with the sentence model; without it (or if it fails), by the words it
/// shares with the question and the topic.
fn nearness(
    asked: &str,
    topic: &str,
    sentences: &[(usize, usize, String)],
    embedder: Option<&Embedder>,
) -> Vec<(f32, bool)> {
    let texts: Vec<&str> =
        std::iter::once(asked).chain(sentences.iter().map(|(_, _, s)| s.as_str())).collect();
    if let Some(vectors) = embedder.and_then(|e| e.embed(&texts).ok())
        && let Some((question, notes)) = vectors.split_first()
    {
        return notes
            .iter()
            .map(|v| {
                let near = crate::embed::similarity(question, v);
                (near, near >= NOTE_NEAR)
            })
            .collect();
    }
    let mut wanted = terms(topic);
    wanted.extend(terms(asked));
    sentences
        .iter()
        .map(|(_, _, s)| {
            let shared = terms(s).iter().filter(|t| wanted.contains(t)).count();
            (shared as f32, shared > 0)
        })
        .collect()
}

// --- summariser -------------------------------------------------------------------------------

fn summary(brief: &SummaryBrief) -> String {
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
fn compaction(set_name: &str, previous: Option<&str>, messages: &[super::Message]) -> String {
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
fn learner_lines(messages: &[super::Message]) -> Vec<String> {
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
fn branch_summary(topic: &str, conversation: &[super::Message], recalled: &[String]) -> String {
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
fn session_summary(d: &super::brief::SessionDigest) -> serde_json::Value {
    use warren_app::format::{due, plural, span};
    use warren_app::summary::RecallHow;
    let quoted = |text: &str| format!("\u{201c}{}\u{201d}", text.trim());
    let unprompted = d.recalled.iter().filter(|r| r.how == RecallHow::Unprompted).count();
    let mut overview = if d.completed {
        format!("You recalled all {} points in {}", d.total, span(d.study_ms))
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
        next_steps.push(format!(
            "Start the next session of this set: the {} still open come first.",
            plural_of(d.open.len(), "point")
        ));
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

fn plural_of(n: usize, word: &str) -> String {
    warren_app::format::plural(i64::try_from(n).unwrap_or(i64::MAX), word)
}

/// A text's first sentence, on one line.
fn first_sentence(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    sentences(&text).into_iter().next().unwrap_or_default()
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
            set_name: "Cells".into(),
            unchecked: vec![
                point("m", "Mitochondria produce most of the cell's ATP.", ""),
                point("r", "Ribosomes translate messenger RNA into proteins.", ""),
                point("n", "The nucleus stores the cell's DNA and controls gene expression.", ""),
            ],
            learner_message: "The mitochondrion produces ATP for the cell, and ribosomes translate mRNA messenger RNA into proteins. DNA is kept somewhere.".into(),
            mode: EvalMode::Recall,
            recent: vec![],
        };
        let v = evaluator(&brief, None);
        let ids: Vec<&str> =
            v["recalled"].as_array().unwrap().iter().map(|r| r["pointId"].as_str().unwrap()).collect();
        assert_eq!(ids, vec!["m", "r"]);
        assert_eq!(v["nearMisses"][0]["pointId"], "n");
    }

    fn reply_at(rung: Rung, message: &str, previous: Option<&str>) -> String {
        let point = point("m", "Mitochondria produce ATP", "Which organelle powers the cell?");
        tutor(&TutorBrief {
            set_name: "Cells".into(),
            moment: TutorMoment::Reply,
            pending: vec![point.clone()],
            focus: Some(Focus { point, rung, attempts: 1, revisit: false, notes: vec![] }),
            just_recalled: vec![],
            set_aside: None,
            observation: None,
            learner_message: Some(message.into()),
            asked: false,
            previous_reply: previous.map(str::to_string),
            showable: vec![],
            recap: None,
        })
    }

    #[test]
    fn the_ladder_narrows_then_gives_the_answer() {
        let angle = reply_at(Rung::Angle, "I don't remember", None);
        assert!(angle.starts_with("That's all right."), "{angle}");
        assert!(!angle.contains("Which organelle powers the cell?"), "another angle, not the cue: {angle}");
        assert!(reply_at(Rung::Nudge, "no", None).contains("starts with \"Mi\""));
        let gaps = reply_at(Rung::Gaps, "no", None);
        assert!(gaps.contains('_') && !gaps.contains("Mitochondria"), "{gaps}");
        let answer = reply_at(Rung::Answer, "no", None);
        assert!(answer.contains("Mitochondria produce ATP.") && answer.contains("own words"), "{answer}");
        for rung in [Rung::Cue, Rung::Angle, Rung::Nudge, Rung::Gaps, Rung::Answer] {
            assert!(!reply_at(rung, "no", None).contains('!'), "no exclamation marks");
        }
    }

    #[test]
    fn a_reply_never_shares_a_sentence_with_the_previous_one() {
        for rung in [Rung::Cue, Rung::Angle, Rung::Nudge, Rung::Gaps, Rung::Answer] {
            let first = reply_at(rung, "hmm", None);
            let second = reply_at(rung, "hmm", Some(&first));
            let before = sentences(&first);
            assert!(sentences(&second).iter().all(|s| !before.contains(s)), "{first} / {second}");
        }
    }

    #[test]
    fn detector_fires_on_questions_outside_the_points() {
        let mut brief = DetectorBrief {
            set_name: "Cells".into(),
            points: vec![point("m", "Mitochondria produce ATP", "")],
            learner_message: "Wait, how did the printing press change Europe?".into(),
            recent: vec![],
        };
        let v = detector(&brief);
        assert_eq!(v["isRabbithole"], true);
        assert_eq!(v["topic"], "how the printing press changed Europe");
        brief.learner_message = "Do mitochondria produce ATP?".into();
        assert_eq!(detector(&brief)["isRabbithole"], false);
        brief.learner_message = "What about the history of printing?".into();
        assert_eq!(detector(&brief)["topic"], "the history of printing");
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
        assert!(explorer(&brief, None).contains("Endosymbiosis explains their own DNA."));
    }

    #[test]
    fn explorer_never_joins_two_notes_and_says_when_none_is_near() {
        let note = |title: &str, body: &str| ResourceBrief { title: title.into(), body: body.into() };
        let mut brief = ExplorerBrief {
            set_name: "Cells".into(),
            topic: "endosymbiosis".into(),
            resources: vec![
                note("Origins", "Mitochondria descend from bacteria. This idea is called endosymbiosis."),
                note("Energy", "When a cell needs energy it splits off one phosphate. Cells recycle ATP."),
            ],
            learner_message: Some(
                "Which bacteria did mitochondria descend from, and how much energy?".into(),
            ),
            history: vec![],
        };
        let reply = explorer(&brief, None);
        let from_origins = reply.contains("Mitochondria descend from bacteria.");
        let from_energy = reply.contains("phosphate") || reply.contains("recycle");
        assert!(from_origins != from_energy, "one note, never both: {reply}");
        brief.learner_message = Some("How do volcanoes erupt?".into());
        brief.topic = "volcanoes".into();
        assert_eq!(explorer(&brief, None), "Your notes don't cover that. What do you already know about it?");
    }

    #[test]
    fn chunks_keep_every_character() {
        let text = "one two three four five six seven";
        assert_eq!(chunks(text).concat(), text);
        assert!(chunks(text).len() > 1);
    }
}

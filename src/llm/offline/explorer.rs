//! The offline explorer: answers from the set's own notes, the ones nearest the question.

use crate::llm::Role;
use crate::llm::brief::ExplorerBrief;

use crate::embed::Embedder;
use crate::text::{sentences, terms};

/// How near in meaning (cosine) a note's sentence must come to the learner's question to be
/// quoted as an answer to it.
pub(super) const NOTE_NEAR: f32 = 0.45;

/// The explorer answers from the set's own notes: the sentence nearest the learner's question
/// (by meaning with the sentence model, by shared words without), and the next nearest of the
/// same note if it is near too, in the note's order. A sentence is read with the one before it
/// as well ("It explains why…" speaks of what the sentence before named), and quoted with it
/// when that reading is the nearer. Sentences of different notes, or of different paragraphs
/// of one note (pasted notes come as one, on many things), are never joined. What was
/// quoted already is not quoted again, but a question it answers is told so; when nothing is
/// near, it says the notes do not cover it.
pub(super) fn explorer(brief: &ExplorerBrief, embedder: Option<&Embedder>) -> String {
    let topic = brief.topic.trim();
    let asked = brief.learner_message.as_deref().map(str::trim).unwrap_or(topic);
    let already_said: String =
        brief.history.iter().filter(|m| m.role == Role::Assistant).map(|m| m.content.as_str()).collect();
    // Every sentence of every paragraph of every note: (paragraph, place in it, sentence).
    let sentences: Vec<(usize, usize, String)> = brief
        .resources
        .iter()
        .flat_map(|r| paragraphs(&r.body))
        .enumerate()
        .flat_map(|(note, p)| sentences(p).into_iter().enumerate().map(move |(i, s)| (note, i, s)))
        .collect();
    let quoted = |i: usize| already_said.contains(sentences[i].2.as_str());
    // The sentence before `i` in its note.
    let before = |i: usize| i.checked_sub(1).filter(|b| sentences[*b].0 == sentences[i].0);
    let near = nearness(asked, topic, &sentences, embedder);
    let nearest = |pick: &dyn Fn(usize) -> bool| {
        (0..sentences.len())
            .filter(|i| near[*i].near && pick(*i))
            .max_by(|a, b| near[*a].score.total_cmp(&near[*b].score).then(b.cmp(a)))
    };
    // The nearest sentence. One a reply quoted already answers again only a question it has
    // every word of ("does it explain their own DNA?"); one it lacks words of ("what is the
    // evidence for endosymbiosis?", after "This idea is called endosymbiosis.") asks for more,
    // which the rest of its note may say.
    let top = nearest(&|_| true);
    let more = top.is_some_and(|top| {
        let said = terms(&sentences[top].2);
        terms(asked).iter().any(|t| !said.contains(t))
    });
    let best = match top {
        Some(top) if quoted(top) => nearest(&|i| more && !quoted(i) && sentences[i].0 == sentences[top].0),
        other => other,
    };
    let Some(best) = best else {
        return match (top, &brief.learner_message) {
            // Asked for more than the notes said already, and they say no more.
            (Some(said), Some(_)) if more => format!(
                "That is as far as your notes go: {} They say nothing more on it. What do you think, and why?",
                sentences[said].2
            ),
            (Some(said), Some(_)) => {
                format!("Your notes say so, as above: {} What would you add to it?", sentences[said].2)
            }
            (Some(said), None) => {
                format!(
                    "Here is what your notes say about {topic}. {} What draws you to it?",
                    sentences[said].2
                )
            }
            (None, None) => format!(
                "Working offline, I can only draw on this set's own notes, and they say nothing about {topic}. \
                 What do you already know about it? Think it through here, and return to the session whenever you like."
            ),
            // A question about a point still to recall: the learner's to answer, back in the
            // session; the notes are not silent on it.
            (None, Some(message)) if brief.open_points.iter().any(|p| super::tutor::half_names(message, p, 2)) => {
                "That is one of the points you are recalling in this session: say what you remember of it when you return. What else would you like to know here?".into()
            }
            // Never the same question twice running: the opening may have asked it already.
            (None, Some(_)) => [
                "Your notes don't cover that. What do you already know about it?",
                "That isn't in your notes either. What would you guess, and why?",
                "Your notes are silent on that too. How would you find out?",
            ]
            .into_iter()
            .find(|reply| !already_said.contains(reply.split(". ").nth(1).unwrap_or(reply)))
            .unwrap_or("Your notes don't cover that. What do you already know about it?")
            .into(),
        };
    };
    let note = sentences[best].0;
    let second = nearest(&|i| i != best && sentences[i].0 == note && !quoted(i));
    let mut chosen: Vec<usize> = std::iter::once(best).chain(second).collect();
    // A sentence nearer with the one before it is quoted with it.
    for i in chosen.clone() {
        if near[i].with_before
            && let Some(b) = before(i)
            && !quoted(b)
            && !chosen.contains(&b)
        {
            chosen.push(b);
        }
    }
    chosen.sort_by_key(|i| sentences[*i].1);
    let found: Vec<&str> = chosen.into_iter().map(|i| sentences[i].2.as_str()).collect();
    match &brief.learner_message {
        None => {
            format!("Here is what your notes say about {topic}. {} What draws you to it?", found.join(" "))
        }
        Some(_) => format!("{} What do you make of that?", found.join(" ")),
    }
}

/// A note's paragraphs: its text between blank lines.
pub(super) fn paragraphs(body: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    let mut end = 0;
    let mut at = 0;
    for line in body.split_inclusive('\n') {
        if line.trim().is_empty() {
            if let Some(s) = start.take() {
                out.push(&body[s..end]);
            }
        } else {
            start.get_or_insert(at);
            end = at + line.len();
        }
        at += line.len();
    }
    if let Some(s) = start {
        out.push(&body[s..end]);
    }
    out
}

/// Whether a sentence opens by pointing back at the one before it ("It explains why…", "This
/// idea…"): alone, it does not say what it speaks of.
fn refers_back(sentence: &str) -> bool {
    let first = sentence.split_whitespace().next().unwrap_or_default().to_lowercase();
    matches!(
        first.trim_matches(|c: char| !c.is_alphanumeric()),
        "it" | "its"
            | "this"
            | "these"
            | "that"
            | "those"
            | "they"
            | "their"
            | "such"
            | "he"
            | "she"
            | "his"
            | "her"
    )
}

/// How near a note's sentence comes to what was asked.
pub(super) struct Nearness {
    pub score: f32,
    /// Near enough to quote.
    pub near: bool,
    /// Nearer read after the sentence before it.
    pub with_before: bool,
}

/// For each sentence, how near it comes to what was asked, and whether that is near enough
/// to quote. By meaning with the sentence model (each sentence alone, and after the one
/// before it in its note); without it (or if it fails), by the words it shares with the
/// question and the topic.
pub(super) fn nearness(
    asked: &str,
    topic: &str,
    sentences: &[(usize, usize, String)],
    embedder: Option<&Embedder>,
) -> Vec<Nearness> {
    let pairs: Vec<String> = sentences
        .iter()
        .enumerate()
        .map(|(i, (note, _, s))| match i.checked_sub(1).map(|b| &sentences[b]) {
            Some((before_note, _, before)) if before_note == note && refers_back(s) => {
                format!("{before} {s}")
            }
            Some(_) | None => s.clone(),
        })
        .collect();
    let texts: Vec<&str> = std::iter::once(asked)
        .chain(sentences.iter().map(|(_, _, s)| s.as_str()))
        .chain(pairs.iter().map(String::as_str))
        .collect();
    // Two of the question's own words in a sentence, or all of them, make it near whatever the
    // model reads: "why do they divide on their own?" reads far from anything alone.
    let asked_terms = terms(asked);
    let shares_words = |s: &str| {
        let said = terms(s);
        let shared = asked_terms.iter().filter(|t| said.contains(t)).count();
        shared >= 2 || (shared > 0 && shared == asked_terms.len())
    };
    if let Some(vectors) = embedder.and_then(|e| e.embed(&texts).ok())
        && let Some((question, rest)) = vectors.split_first()
    {
        let (alone, paired) = rest.split_at(sentences.len());
        return alone
            .iter()
            .zip(paired)
            .zip(sentences)
            .map(|((a, p), (_, _, s))| {
                let (a, p) = (crate::embed::similarity(question, a), crate::embed::similarity(question, p));
                let score = a.max(p);
                Nearness { score, near: score >= NOTE_NEAR || shares_words(s), with_before: p > a }
            })
            .collect();
    }
    let mut wanted = terms(topic);
    wanted.extend(terms(asked));
    sentences
        .iter()
        .map(|(_, _, s)| {
            let shared = terms(s).iter().filter(|t| wanted.contains(t)).count();
            Nearness { score: shared as f32, near: shared > 0, with_before: false }
        })
        .collect()
}

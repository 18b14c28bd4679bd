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
/// same note if it is near too, in the note's order. Sentences of different notes are never
/// joined; when nothing is near, it says the notes do not cover it.
pub(super) fn explorer(brief: &ExplorerBrief, embedder: Option<&Embedder>) -> String {
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
pub(super) fn nearness(
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

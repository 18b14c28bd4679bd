//! Points from the learner's own material. A source (pasted text or Markdown, or an uploaded
//! `.txt`, `.md`, `.html` or `.pdf`, read by `read.rs`) is cut into passages; each passage
//! is drafted by the drafting agent (`engine::agents::drafter`; offline, the extractive
//! drafter), a few at a time, in the background; near repeats across passages are dropped
//! by meaning; the drafts wait for the learner's review, each with the checks that flag what
//! to look at (`checks.rs`). Nothing is kept before the learner confirms.

mod checks;
mod read;

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use futures_util::StreamExt;

use crate::embed::{Embedder, Vector, similarity};
use crate::engine::agents::drafter::{self, Drafted, NotDrafted};
use crate::llm::brief::DraftBrief;
use crate::llm::offline::drafter::{repeat_of, stems};
use crate::llm::{Provider, SharedProvider};
use crate::store::{NewDraft, SOURCE_BEAT_MS, Source, SourceDraft, Store, StoreError};
use warren_app::api::DraftCheck;
use warren_app::learner::LearnerId;

pub use checks::checks;
pub use read::{SourceError, read};

/// A passage is cut at paragraphs once it holds about this many characters, and never holds
/// much more: a model drafts a page of text well, and the learner reviews it as one.
const PASSAGE_CHARS: usize = 1_800;
/// Passages drafted at once: enough to keep a network model busy, few enough to stay within
/// its rate limits.
const AT_ONCE: usize = 3;
/// Two drafts this near in meaning say the same; the later goes.
const SAME_MEANING: f32 = 0.9;

/// Everything a drafting needs: where drafts are kept, who drafts them, and the sentence
/// model (when installed) that finds repeats by meaning.
#[derive(Clone)]
pub struct Drafting {
    pub store: Store,
    pub provider: SharedProvider,
    pub embedder: Option<Arc<Embedder>>,
    /// Meters each learner's drafting against their allowance (`None` from a shell).
    pub meter: Option<crate::engine::usage::Meter>,
}

/// The text cut into passages: paragraphs (blank-line separated, or lines for a page's
/// blocks) gathered up to [`PASSAGE_CHARS`]; a paragraph longer than that is cut at its
/// sentences.
pub fn passages(text: &str) -> Vec<String> {
    let paragraphs: Vec<&str> = text.split("\n\n").map(str::trim).filter(|p| !p.is_empty()).collect();
    let mut pieces: Vec<String> = Vec::new();
    for paragraph in paragraphs {
        if paragraph.chars().count() <= PASSAGE_CHARS {
            pieces.push(paragraph.to_string());
            continue;
        }
        // Cut a long paragraph at its lines, then at its sentences.
        let mut current = String::new();
        for sentence in paragraph.split_inclusive(['\n', '.', '?', '!']) {
            if current.chars().count() + sentence.chars().count() > PASSAGE_CHARS
                && !current.trim().is_empty()
            {
                pieces.push(current.trim().to_string());
                current.clear();
            }
            current.push_str(sentence);
        }
        if !current.trim().is_empty() {
            pieces.push(current.trim().to_string());
        }
    }
    let mut passages: Vec<String> = Vec::new();
    for piece in pieces {
        match passages.last_mut() {
            Some(last) if last.chars().count() + piece.chars().count() + 2 <= PASSAGE_CHARS => {
                last.push_str("\n\n");
                last.push_str(&piece);
            }
            Some(_) | None => passages.push(piece),
        }
    }
    passages
}

/// A source's drafts, in order, and the passages that could not be drafted.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Drafts {
    pub drafts: Vec<NewDraft>,
    pub not_drafted: Vec<usize>,
}

/// Drafts `passages` with `provider`, a few at a time, telling `on_passage` how many are done
/// as each finishes; then drops each draft that says what an earlier one said, by meaning with
/// the sentence model, by words without it.
pub async fn draft_passages<F, Fut>(
    provider: &dyn Provider,
    embedder: Option<&Arc<Embedder>>,
    set_name: &str,
    title: &str,
    passages: &[String],
    mut on_passage: F,
) -> Drafts
where
    F: FnMut(usize) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut results = futures_util::stream::iter(passages.iter().cloned().enumerate())
        .map(|(index, passage)| {
            let brief = DraftBrief { set_name: set_name.to_string(), title: title.to_string(), passage };
            async move { (index, drafter::draft(provider, brief).await) }
        })
        .buffer_unordered(AT_ONCE);
    let mut drafted: Vec<(usize, Vec<Drafted>)> = Vec::new();
    let mut not_drafted: Vec<usize> = Vec::new();
    let mut done = 0;
    while let Some((index, result)) = results.next().await {
        match result {
            Ok(points) => drafted.push((index, points)),
            Err(err @ (NotDrafted::Malformed | NotDrafted::Model(_))) => {
                tracing::warn!(passage = index, "a passage was not drafted: {err}");
                not_drafted.push(index);
            }
        }
        done += 1;
        on_passage(done).await;
    }
    drafted.sort_by_key(|(index, _)| *index);
    not_drafted.sort_unstable();
    Drafts { drafts: without_repeats(embedder, drafted).await, not_drafted }
}

/// The drafts in order, each that says what an earlier one said left out: by meaning with the
/// sentence model, by words without it.
async fn without_repeats(
    embedder: Option<&Arc<Embedder>>,
    drafted: Vec<(usize, Vec<Drafted>)>,
) -> Vec<NewDraft> {
    let all: Vec<NewDraft> = drafted
        .into_iter()
        .flat_map(|(passage, points)| {
            points.into_iter().map(move |d| NewDraft {
                passage,
                content: d.content,
                cue: d.cue,
                quote: d.quote,
            })
        })
        .collect();
    let vectors = match embedder {
        Some(embedder) => {
            let embedder = embedder.clone();
            let texts: Vec<String> = all.iter().map(|d| d.content.clone()).collect();
            tokio::task::spawn_blocking(move || {
                let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
                embedder.embed(&texts).ok()
            })
            .await
            .ok()
            .flatten()
        }
        None => None,
    };
    let words: Vec<Vec<String>> = match &vectors {
        Some(_) => Vec::new(),
        None => all.iter().map(|d| stems(&d.content)).collect(),
    };
    let mut kept: Vec<usize> = Vec::new();
    for i in 0..all.len() {
        let same = kept.iter().any(|&k| match &vectors {
            Some(v) => similarity(&v[i], &v[k]) >= SAME_MEANING,
            None => repeat_of(&words[i], &words[k]),
        });
        if !same {
            kept.push(i);
        }
    }
    all.into_iter().enumerate().filter(|(i, _)| kept.contains(i)).map(|(_, d)| d).collect()
}

/// A source's drafts, each with the checks it fails against the source and the set's points.
pub async fn reviewed(
    store: &Store,
    embedder: Option<&Arc<Embedder>>,
    learner: &LearnerId,
    source: &Source,
) -> Result<Vec<(SourceDraft, Vec<DraftCheck>)>, StoreError> {
    let drafts = store.source_drafts(learner, &source.id).await?;
    let existing: Vec<String> = match &source.set_id {
        Some(set_id) => store.points(learner, set_id).await?.into_iter().map(|p| p.content).collect(),
        None => Vec::new(),
    };
    // The drafts and the set's points read by the sentence model at once, when it is here.
    let vectors: Option<Vec<Vector>> = match (embedder, drafts.is_empty()) {
        (Some(embedder), false) => {
            let embedder = embedder.clone();
            let texts: Vec<String> =
                drafts.iter().map(|d| d.content.clone()).chain(existing.clone()).collect();
            tokio::task::spawn_blocking(move || {
                let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
                embedder.embed(&texts).ok()
            })
            .await
            .ok()
            .flatten()
        }
        (Some(_), true) | (None, _) => None,
    };
    let existing: Vec<(String, Option<Vector>)> = existing
        .into_iter()
        .enumerate()
        .map(|(i, point)| (point, vectors.as_ref().and_then(|v| v.get(drafts.len() + i).cloned())))
        .collect();
    let text = source.passages.join("\n\n");
    Ok(drafts
        .into_iter()
        .enumerate()
        .map(|(i, d)| {
            let found = checks(
                &d.content,
                &d.cue,
                &d.quote,
                &text,
                &existing,
                vectors.as_ref().and_then(|v| v.get(i)),
            );
            (d, found)
        })
        .collect())
}

impl Drafting {
    /// Drafts a source's passages as its `run` (0 for the first, then as `claim_source` says),
    /// recording progress as each finishes and beating its heartbeat meanwhile, and keeps the
    /// drafts for review, unless a newer run has taken the source over. A passage the agent
    /// could not draft is named, not fatal.
    pub async fn run(&self, learner: &LearnerId, source_id: &str, run: i64) -> Result<(), StoreError> {
        let Some(source) = self.store.source(learner, source_id).await? else { return Ok(()) };
        let progress = |done: Option<usize>| {
            let store = self.store.clone();
            let (learner, id) = (learner.clone(), source_id.to_string());
            async move {
                if let Err(err) = store.source_progress(&learner, &id, run, done).await {
                    tracing::warn!(source = id, "cannot record a drafting's progress: {err}");
                }
            }
        };
        // A slow model may take longer than the lapse over one passage: the heartbeat goes on
        // beating meanwhile, so the page never shows a drafting under way as stopped. (A
        // `JoinSet` aborts its task when dropped, however this function ends.)
        let mut beating = tokio::task::JoinSet::new();
        beating.spawn({
            let (store, learner, id) = (self.store.clone(), learner.clone(), source_id.to_string());
            async move {
                let period = Duration::from_millis(SOURCE_BEAT_MS.unsigned_abs());
                let mut tick = tokio::time::interval_at(Instant::now() + period, period);
                loop {
                    tick.tick().await;
                    if let Err(err) = store.source_progress(&learner, &id, run, None).await {
                        tracing::warn!(source = id, "cannot beat a drafting's heartbeat: {err}");
                    }
                }
            }
        });
        let provider = match &self.meter {
            Some(meter) => meter.wrap(self.provider.clone(), learner, None) as SharedProvider,
            None => self.provider.clone(),
        };
        let drafts = draft_passages(
            provider.as_ref(),
            self.embedder.as_ref(),
            &source.set_name,
            &source.title,
            &source.passages,
            |done| progress(Some(done)),
        )
        .await;
        drop(beating);
        self.store.finish_source(learner, source_id, run, &drafts.drafts, &drafts.not_drafted).await
    }

    /// Starts drafting a source in the background, as its `run`.
    pub fn spawn(&self, learner: LearnerId, source_id: String, run: i64) {
        let drafting = self.clone();
        tokio::spawn(async move {
            if let Err(err) = drafting.run(&learner, &source_id, run).await {
                tracing::error!(source = source_id, "drafting failed: {err}");
                let _ = drafting
                    .store
                    .fail_source(&learner, &source_id, run, "Warren could not keep the drafts.")
                    .await;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drafted(content: &str) -> Drafted {
        Drafted { content: content.into(), cue: String::new(), quote: content.into() }
    }

    #[tokio::test]
    async fn a_draft_that_says_an_earlier_one_again_in_other_words_is_dropped() {
        let model = Embedder::load(std::path::Path::new("data/models/all-MiniLM-L6-v2"))
            .expect("the sentence model, which scripts/test installs");
        let drafts = vec![
            (0, vec![drafted("The mitochondria produce most of the cell's ATP.")]),
            (
                1,
                vec![
                    drafted("Most of a cell's ATP is produced by the mitochondria."),
                    drafted("Ribosomes translate messenger RNA into proteins."),
                ],
            ),
        ];
        let by_meaning = without_repeats(Some(&Arc::new(model)), drafts.clone()).await;
        let kept: Vec<&str> = by_meaning.iter().map(|d| d.content.as_str()).collect();
        assert_eq!(
            kept,
            [
                "The mitochondria produce most of the cell's ATP.",
                "Ribosomes translate messenger RNA into proteins."
            ]
        );
        assert_eq!(by_meaning[1].passage, 1, "each keeps its passage");
        // Without the model, the same words in another order are a repeat too.
        assert_eq!(without_repeats(None, drafts).await.len(), 2);
    }

    #[test]
    fn passages_gather_paragraphs_and_cut_long_ones_at_sentences() {
        let short = "One.\n\nTwo.\n\n\nThree.";
        assert_eq!(passages(short), ["One.\n\nTwo.\n\nThree."]);
        let long = "A sentence of some length here. ".repeat(120);
        let cut = passages(&format!("Intro.\n\n{long}"));
        assert!(cut.len() >= 2, "{}", cut.len());
        assert!(
            cut.iter().all(|p| p.chars().count() <= PASSAGE_CHARS + 40),
            "{:?}",
            cut.iter().map(|p| p.len()).collect::<Vec<_>>()
        );
        let joined: String = cut.iter().map(|p| p.split_whitespace().collect::<String>()).collect();
        assert_eq!(joined, format!("Intro.{long}").split_whitespace().collect::<String>(), "nothing lost");
    }
}

//! The built-in offline provider: no network, no key, deterministic. It answers each agent from
//! the structured brief behind the prompt: the evaluator by term coverage of each point, the
//! tutor with cues and progressively narrower hints, the detector by spotting questions that
//! leave the points, the explorer from the set's own resources. Good enough to study with, and
//! what the tests drive.

mod detector;
pub mod drafter;
mod evaluator;
mod explorer;
mod judge;
pub(crate) mod kinds;
mod summariser;
mod tangent;
mod tutor;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use futures_util::StreamExt;
use warren_app::protocol::{ProviderInfo, ProviderKind};

use super::{LlmError, Output, Provider, Purpose, ReplyStream, Request};
use warren_app::ladder::Rung;

use crate::embed::Embedder;
use crate::llm::brief::EvaluatorBrief;
use detector::detector;
use evaluator::evaluator;
use explorer::explorer;
pub use judge::Features;
use summariser::summary;
use tutor::{asks_the_notes, from_session_notes, nearest_notes_first, show, tutor};

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

/// The in-process judges the speculative tutor guesses with, quickest first: words alone (about
/// a millisecond), then the sentence model when there is one (tens of milliseconds, surer).
pub fn judges(embedder: Option<&Arc<Embedder>>) -> Vec<super::SharedProvider> {
    let words: super::SharedProvider = Arc::new(Offline::new(Duration::ZERO, None));
    let meaning =
        embedder.map(|e| Arc::new(Offline::new(Duration::ZERO, Some(e.clone()))) as super::SharedProvider);
    std::iter::once(words).chain(meaning).collect()
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

/// How the evaluator's feedback says that two things were swapped, and how the tutor knows it
/// ("Right about ligaments, tendons, but they are the wrong way round.").
const WRONG_WAY_ROUND: &str = "they are the wrong way round";

/// How the evaluator's feedback says that a detail or a number is wrong, and how the tutor
/// knows to ask which rather than for more ("Right about 1917, but a detail is off.").
const IS_OFF: &str = "is off";

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
            kind: ProviderKind::Offline,
            model: MODEL.into(),
            offline: true,
            label: "Offline tutor (built in, no network)".into(),
        }
    }

    async fn prepare(&self, texts: Vec<String>) {
        let Some(embedder) = &self.embedder else { return };
        // A point's clauses are read too: the evaluator looks for each.
        let parts: Vec<String> = texts.iter().flat_map(|t| judge::parts(t)).collect();
        let read = self.with_model(embedder, move |e| {
            let texts: Vec<&str> = texts.iter().chain(&parts).map(String::as_str).collect();
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
            // A question once every point is recalled: the nearest of the notes, by meaning.
            (Some(embedder), Purpose::Tutor(brief)) if asks_the_notes(brief) => {
                let owned = brief.clone();
                let text = self.with_model(embedder, move |e| from_session_notes(&owned, Some(e))).await?;
                (text.unwrap_or_else(|| answer(request)), show(brief))
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
                | Purpose::Cleanup(_)
                | Purpose::Drafter(_)
                | Purpose::Probe,
            )
            | (
                Some(_),
                Purpose::Detector(_)
                | Purpose::Summariser(_)
                | Purpose::Cleanup(_)
                | Purpose::Drafter(_)
                | Purpose::Probe,
            ) => (answer(request), None),
        };
        let delay = self.chunk_delay;
        // Work that is not conversation (a transcript's clean-up, a passage's drafts) comes
        // whole, nobody watches it stream; the pacing is paid once, as a model's latency.
        if matches!(request.purpose, Purpose::Cleanup(_) | Purpose::Drafter(_)) {
            let whole = futures_util::stream::once(async move {
                if !delay.is_zero() {
                    tokio::time::sleep(delay).await;
                }
                Ok(Output::Text(text))
            });
            return Ok(Box::pin(whole));
        }
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

/// What the offline evaluator's formula weighs of each unchecked point against the message,
/// by point id (none without the sentence model): for measuring and refitting it.
pub fn features(brief: &EvaluatorBrief, embedder: Option<&Embedder>) -> Vec<(String, Features)> {
    let meaning = embedder.and_then(|embedder| evaluator::meaning(embedder, brief));
    let context = judge::Context::new(brief, meaning);
    brief.unchecked.iter().filter_map(|p| Some((p.id.clone(), context.judge_features(p)?))).collect()
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
        Purpose::Cleanup(brief) => cleanup(brief),
        Purpose::Drafter(brief) => drafter::draft(brief),
        Purpose::Probe => "ok".into(),
    }
}

/// A transcript's misheard terms put right by sound and spelling (`text::vocabulary::correct`),
/// in the clean-up agent's JSON.
fn cleanup(brief: &crate::llm::brief::CleanupBrief) -> String {
    let (text, corrections) = crate::text::vocabulary::correct(&brief.transcript, &brief.terms);
    serde_json::json!({ "text": text, "corrections": corrections }).to_string()
}

#[cfg(test)]
mod tests;

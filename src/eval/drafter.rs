//! `warren eval drafter`: how well the drafter drafts. Each case is a passage of study material
//! with the facts a good set must hold. The drafter drafts it as the "from a source" page
//! does; **coverage** is the share of facts some draft states (near in meaning, by the
//! sentence model, or sharing most of its words), **faithfulness** the share of drafts whose
//! quote stands in the source and says what the draft says.

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Deserialize;

use super::EvalError;
use crate::drafting::{draft_passages, passages};
use crate::embed::{Embedder, similarity};
use crate::llm::Provider;
use crate::text::tokens;

/// A fact this near in meaning to a draft is stated by it; a draft this near its quote is
/// what the quote says.
const STATES: f32 = 0.7;
/// Without the model (or as well), by words: the share of the fact's words a draft holds, and
/// of a draft's words its quote holds.
const STATES_BY_WORDS: f64 = 0.7;
const SUPPORTED_BY_WORDS: f64 = 0.6;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    title: String,
    source: String,
    facts: Vec<String>,
}

/// What a run found.
#[derive(Debug, Default)]
pub struct DrafterReport {
    pub cases: usize,
    pub facts: usize,
    pub covered: usize,
    pub drafts: usize,
    pub faithful: usize,
    pub time: Duration,
}

impl DrafterReport {
    pub fn coverage(&self) -> f64 {
        share(self.covered, self.facts)
    }

    pub fn faithfulness(&self) -> f64 {
        share(self.faithful, self.drafts)
    }

    pub fn summary(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "cases {}  drafts {} ({:.1} a case)",
            self.cases,
            self.drafts,
            share(self.drafts, self.cases) * 1.0
        );
        let _ = writeln!(out, "coverage {:.3}  ({} of {} facts)", self.coverage(), self.covered, self.facts);
        let _ = writeln!(
            out,
            "faithfulness {:.3}  ({} of {} drafts)",
            self.faithfulness(),
            self.faithful,
            self.drafts
        );
        let _ = writeln!(
            out,
            "time {:.1} ms a case",
            self.time.as_secs_f64() * 1000.0 / self.cases.max(1) as f64
        );
        out
    }
}

fn share(part: usize, whole: usize) -> f64 {
    if whole == 0 { 0.0 } else { part as f64 / whole as f64 }
}

fn stems(text: &str) -> Vec<String> {
    tokens(text).into_iter().map(|t| t.term).collect()
}

/// The share of `part`'s words that `whole` holds.
fn held(part: &str, whole: &str) -> f64 {
    let (part, whole) = (stems(part), stems(whole));
    if part.is_empty() {
        return 0.0;
    }
    part.iter().filter(|w| whole.contains(w)).count() as f64 / part.len() as f64
}

fn folded(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Runs every case (JSON Lines) and prints a line for each.
pub async fn run(
    provider: &dyn Provider,
    embedder: Option<&Arc<Embedder>>,
    text: &str,
    out: &mut impl std::io::Write,
) -> Result<DrafterReport, EvalError> {
    let mut report = DrafterReport::default();
    for (index, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let case: Case =
            serde_json::from_str(line).map_err(|e| EvalError::BadCase(index + 1, e.to_string()))?;
        let started = Instant::now();
        let cut = passages(&case.source);
        let drafted = draft_passages(provider, embedder, "Evaluation", &case.title, &cut, |_| async {}).await;
        report.time += started.elapsed();
        let contents: Vec<&str> = drafted.drafts.iter().map(|d| d.content.as_str()).collect();
        let vectors = match embedder {
            Some(embedder) => {
                let mut texts: Vec<&str> = case.facts.iter().map(String::as_str).collect();
                texts.extend(contents.iter().copied());
                texts.extend(drafted.drafts.iter().map(|d| d.quote.as_str()));
                embedder.embed(&texts).ok()
            }
            None => None,
        };
        let (facts, drafts) = (case.facts.len(), contents.len());
        let near = |a: usize, b: usize| vectors.as_ref().is_some_and(|v| similarity(&v[a], &v[b]) >= STATES);
        let covered = (0..facts)
            .filter(|&f| {
                (0..drafts)
                    .any(|d| near(f, facts + d) || held(&case.facts[f], contents[d]) >= STATES_BY_WORDS)
            })
            .count();
        let source = folded(&case.source);
        let faithful = (0..drafts)
            .filter(|&d| {
                let draft = &drafted.drafts[d];
                let quoted = !draft.quote.trim().is_empty() && source.contains(&folded(&draft.quote));
                let supported = near(facts + d, facts + drafts + d)
                    || held(&draft.content, &draft.quote) >= SUPPORTED_BY_WORDS;
                quoted && supported
            })
            .count();
        let _ = writeln!(
            out,
            "line {:>3}  {}: {covered} of {facts} facts, {faithful} of {drafts} drafts faithful{}",
            index + 1,
            case.title,
            if drafted.not_drafted.is_empty() {
                String::new()
            } else {
                format!(", {} passages not drafted", drafted.not_drafted.len())
            }
        );
        report.cases += 1;
        report.facts += facts;
        report.covered += covered;
        report.drafts += drafts;
        report.faithful += faithful;
    }
    if report.cases == 0 {
        return Err(EvalError::Empty);
    }
    Ok(report)
}

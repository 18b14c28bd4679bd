//! `warren eval`: how well the judges judge. Runs the evaluator or the detector of the
//! configured provider, through the same prompt builders and parsers as a session, over
//! labelled cases (JSON Lines), and prints each case's result, precision, recall and F1 (and,
//! for the evaluator, near-miss accuracy) and latency percentiles.

pub mod drafter;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

use clap::ValueEnum;
use serde::{Deserialize, Serialize};

use crate::engine::agents::{detector, evaluator};
use crate::llm::brief::{DetectorBrief, EvalMode, EvaluatorBrief, MessageKind, PointBrief};
use crate::llm::{Message, Provider};
use crate::store::DisputedCase;

/// Which judge to evaluate.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judge {
    Evaluator,
    Detector,
}

#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error("cannot read {0}: {1}")]
    Read(String, std::io::Error),
    #[error("line {0} is not a case: {1}")]
    BadCase(usize, String),
    #[error("the file holds no cases")]
    Empty,
    #[error("F1 {f1:.3} is below the minimum {min:.3}")]
    BelowMinimum { f1: f64, min: f64 },
    #[error("{what} {got:.3} is below the minimum {min:.3}")]
    Below { what: &'static str, got: f64, min: f64 },
}

/// An evaluator case: the unchecked points, the conversation before, the learner's message,
/// and which points it recalls or nearly recalls.
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct EvaluatorCase {
    set: String,
    points: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    recent: Vec<String>,
    message: String,
    #[serde(default)]
    recalled: BTreeSet<String>,
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    near_miss: BTreeSet<String>,
    /// What the message is (`attempt`, `dont_know`, `question`, `small_talk`), where labelled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    kind: Option<String>,
}

impl EvaluatorCase {
    /// What the evaluator is asked: the case's message against all its points, in recall mode.
    fn brief(&self) -> EvaluatorBrief {
        EvaluatorBrief {
            set_name: self.set.clone(),
            review: vec![],
            guidelines: String::new(),
            unchecked: briefs(&self.points),
            learner_message: self.message.clone(),
            mode: EvalMode::Recall,
            recent: recent_messages(&self.recent),
        }
    }
}

/// A recall the learner disputed as an evaluator case, one JSON line: the points still open
/// then (named `p1`, `p2`, … in the set's order), the conversation before, the message, and as
/// recalled only what the learner let stand.
pub fn disputed_case(dispute: &DisputedCase) -> Result<String, serde_json::Error> {
    let key = |i: usize| format!("p{}", i + 1);
    let case = EvaluatorCase {
        set: dispute.set_name.clone(),
        points: dispute.open.iter().enumerate().map(|(i, (_, content))| (key(i), content.clone())).collect(),
        recent: dispute.recent.clone(),
        message: dispute.message.clone(),
        recalled: dispute
            .open
            .iter()
            .enumerate()
            .filter(|(_, (id, _))| *id != dispute.disputed && dispute.also_recalled.contains(id))
            .map(|(i, _)| key(i))
            .collect(),
        near_miss: BTreeSet::new(),
        kind: None,
    };
    serde_json::to_string(&case)
}

/// A detector case: is the message a tangent worth offering as a rabbit hole?
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DetectorCase {
    set: String,
    #[serde(default)]
    points: BTreeMap<String, String>,
    #[serde(default)]
    recent: Vec<String>,
    message: String,
    rabbithole: bool,
}

/// Counts of a yes/no judgement against labels.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Scores {
    pub true_positives: u32,
    pub false_positives: u32,
    pub false_negatives: u32,
}

impl Scores {
    fn add(&mut self, predicted: bool, labelled: bool) {
        match (predicted, labelled) {
            (true, true) => self.true_positives += 1,
            (true, false) => self.false_positives += 1,
            (false, true) => self.false_negatives += 1,
            (false, false) => {}
        }
    }

    pub fn precision(&self) -> f64 {
        ratio(self.true_positives, self.true_positives + self.false_positives)
    }

    pub fn recall(&self) -> f64 {
        ratio(self.true_positives, self.true_positives + self.false_negatives)
    }

    pub fn f1(&self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r == 0.0 { 0.0 } else { 2.0 * p * r / (p + r) }
    }
}

/// A share, 1 when there is nothing to share (no positives predicted: no false ones either).
pub fn ratio(part: u32, whole: u32) -> f64 {
    if whole == 0 { 1.0 } else { f64::from(part) / f64::from(whole) }
}

/// What a run found.
#[derive(Debug, Default)]
pub struct Report {
    pub cases: usize,
    pub passed: usize,
    pub scores: Scores,
    /// Evaluator only: labelled near misses the judge called near misses, of all labelled.
    pub near_misses: Option<(u32, u32)>,
    /// Evaluator only: labelled message kinds read as labelled, of all labelled.
    pub kinds: Option<(u32, u32)>,
    pub latencies: Vec<Duration>,
}

impl Report {
    /// The `p`th percentile latency (nearest rank).
    pub fn percentile(&self, p: f64) -> Duration {
        let mut sorted = self.latencies.clone();
        sorted.sort();
        let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
        sorted.get(rank.saturating_sub(1).min(sorted.len().saturating_sub(1))).copied().unwrap_or_default()
    }

    /// The figures, one per line.
    pub fn summary(&self) -> String {
        let s = &self.scores;
        let mut out = format!(
            "cases {}  passed {}\nprecision {:.3}  recall {:.3}  F1 {:.3}  (tp {}, fp {}, fn {})\n",
            self.cases,
            self.passed,
            s.precision(),
            s.recall(),
            s.f1(),
            s.true_positives,
            s.false_positives,
            s.false_negatives,
        );
        if let Some((agreed, labelled)) = self.near_misses {
            let _ =
                writeln!(out, "near-miss accuracy {:.3}  ({agreed} of {labelled})", ratio(agreed, labelled));
        }
        if let Some((agreed, labelled)) = self.kinds.filter(|(_, labelled)| *labelled > 0) {
            let _ = writeln!(out, "message kinds {:.3}  ({agreed} of {labelled})", ratio(agreed, labelled));
        }
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let _ = writeln!(
            out,
            "latency p50 {:.1} ms  p90 {:.1} ms  p99 {:.1} ms  max {:.1} ms",
            ms(self.percentile(50.0)),
            ms(self.percentile(90.0)),
            ms(self.percentile(99.0)),
            ms(self.percentile(100.0)),
        );
        out
    }
}

/// The conversation before a case's message: tutor first, then turns alternating.
fn recent_messages(recent: &[String]) -> Vec<Message> {
    recent
        .iter()
        .enumerate()
        .map(
            |(i, text)| {
                if i % 2 == 0 { Message::assistant(text.clone()) } else { Message::user(text.clone()) }
            },
        )
        .collect()
}

fn briefs(points: &BTreeMap<String, String>) -> Vec<PointBrief> {
    points
        .iter()
        .map(|(id, content)| PointBrief { id: id.clone(), content: content.clone(), ..PointBrief::default() })
        .collect()
}

fn cases<T: for<'de> Deserialize<'de>>(text: &str) -> Result<Vec<(usize, T)>, EvalError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let case = serde_json::from_str(line).map_err(|e| EvalError::BadCase(i + 1, e.to_string()))?;
        out.push((i + 1, case));
    }
    if out.is_empty() {
        return Err(EvalError::Empty);
    }
    Ok(out)
}

fn ids(set: &BTreeSet<String>) -> String {
    format!("[{}]", set.iter().cloned().collect::<Vec<_>>().join(", "))
}

fn shorten(text: &str) -> String {
    let cut: String = text.chars().take(60).collect();
    if cut.len() < text.len() { format!("{cut}…") } else { cut }
}

/// Runs one judge over the cases in `text`, writing a line per case to `out`.
pub async fn run(
    provider: &dyn Provider,
    judge: Judge,
    text: &str,
    out: &mut impl std::io::Write,
) -> Result<Report, EvalError> {
    let mut report = Report::default();
    match judge {
        Judge::Evaluator => {
            let (mut agreed, mut labelled) = (0, 0);
            let (mut kinds_agreed, mut kinds_labelled) = (0, 0);
            for (line, case) in cases::<EvaluatorCase>(text)? {
                let kind: Option<MessageKind> = match &case.kind {
                    Some(kind) => Some(kind.parse().map_err(|e| EvalError::BadCase(line, format!("{e}")))?),
                    None => None,
                };
                let brief = case.brief();
                let started = Instant::now();
                let found = evaluator::evaluate(provider, brief).await;
                report.latencies.push(started.elapsed());
                let kind_ok = kind.is_none_or(|k| k == found.kind);
                if kind.is_some() {
                    kinds_labelled += 1;
                    kinds_agreed += u32::from(kind_ok);
                }
                let recalled: BTreeSet<String> = found.recalled.into_iter().map(|(id, _)| id).collect();
                let near: BTreeSet<String> = found.near_misses.into_iter().map(|(id, _)| id).collect();
                for id in case.points.keys() {
                    report.scores.add(recalled.contains(id), case.recalled.contains(id));
                }
                labelled += count(case.near_miss.len());
                agreed += count(case.near_miss.intersection(&near).count());
                let ok = recalled == case.recalled && kind_ok;
                report.passed += usize::from(ok);
                let _ = writeln!(
                    out,
                    "{} line {line:>3}  {}: \"{}\"  expected {} got {}{}{}",
                    if ok { "ok  " } else { "MISS" },
                    case.set,
                    shorten(&case.message),
                    ids(&case.recalled),
                    ids(&recalled),
                    if near.is_empty() { String::new() } else { format!(" (near {})", ids(&near)) },
                    match kind {
                        Some(kind) if kind != found.kind =>
                            format!(" (labelled {}, read as {})", kind, found.kind),
                        Some(_) | None => String::new(),
                    },
                );
            }
            report.near_misses = Some((agreed, labelled));
            report.kinds = Some((kinds_agreed, kinds_labelled));
        }
        Judge::Detector => {
            for (line, case) in cases::<DetectorCase>(text)? {
                let brief = DetectorBrief {
                    set_name: case.set.clone(),
                    points: briefs(&case.points),
                    learner_message: case.message.clone(),
                    recent: recent_messages(&case.recent),
                };
                let started = Instant::now();
                let found = detector::detect(provider, brief).await;
                report.latencies.push(started.elapsed());
                let fired = found.is_some();
                report.scores.add(fired, case.rabbithole);
                let ok = fired == case.rabbithole;
                report.passed += usize::from(ok);
                let _ = writeln!(
                    out,
                    "{} line {line:>3}  {}: \"{}\"  expected {} got {}",
                    if ok { "ok  " } else { "MISS" },
                    case.set,
                    shorten(&case.message),
                    case.rabbithole,
                    found.map_or_else(|| "false".to_string(), |d| format!("true ({})", d.topic)),
                );
            }
        }
    }
    report.cases = report.latencies.len();
    Ok(report)
}

/// What the offline evaluator's formula weighs of each point of each case, one JSON object a
/// line (`{"line", "point", "recalled", "near", "features"}`), with the case's labels: the rows
/// `scripts/fit-judge` fits the formula to. Returns how many rows.
pub fn features(
    embedder: Option<&crate::embed::Embedder>,
    text: &str,
    out: &mut impl std::io::Write,
) -> Result<usize, EvalError> {
    let mut rows = 0;
    for (line, case) in cases::<EvaluatorCase>(text)? {
        let brief = case.brief();
        for (point, features) in crate::llm::offline::features(&brief, embedder) {
            let row = serde_json::json!({
                "line": line,
                "point": point,
                "recalled": case.recalled.contains(&point),
                "near": case.near_miss.contains(&point),
                "features": features,
            });
            let _ = writeln!(out, "{row}");
            rows += 1;
        }
    }
    Ok(rows)
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_and_percentiles() {
        let mut s = Scores::default();
        for (p, l) in [(true, true), (true, true), (true, false), (false, true), (false, false)] {
            s.add(p, l);
        }
        assert!((s.precision() - 2.0 / 3.0).abs() < 1e-9);
        assert!((s.recall() - 2.0 / 3.0).abs() < 1e-9);
        assert!((s.f1() - 2.0 / 3.0).abs() < 1e-9);
        let report = Report { latencies: (1..=10).map(Duration::from_millis).collect(), ..Report::default() };
        assert_eq!(report.percentile(50.0), Duration::from_millis(5));
        assert_eq!(report.percentile(90.0), Duration::from_millis(9));
        assert_eq!(report.percentile(100.0), Duration::from_millis(10));
    }

    #[test]
    fn bad_lines_are_named() {
        let err = cases::<DetectorCase>("{\"set\":\"s\",\"message\":\"m\",\"rabbithole\":true}\nnot json")
            .err()
            .map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.starts_with("line 2 is not a case")));
        assert!(matches!(cases::<DetectorCase>("\n\n"), Err(EvalError::Empty)));
    }
}

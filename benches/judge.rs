//! The offline judges' sentence model: how long it takes to load, how long one evaluation of a
//! learner message against 10 unchecked points takes (the points read once, as in a session;
//! each message new), and the resident memory it adds. Runs the real path: the offline
//! provider's evaluator request, answered and parsed as in a session, on this thread's core.
//!
//! `cargo bench --bench judge` (release). `WARREN_MODEL_DIR` names the model's folder
//! (default `data/models/all-MiniLM-L6-v2`, which `scripts/install-model` fills).

// A measuring harness: a failure to set up should stop it loudly, like a test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use warren::embed::Embedder;
use warren::engine::agents::evaluator;
use warren::llm::Message;
use warren::llm::brief::{EvalMode, EvaluatorBrief, PointBrief};
use warren::llm::offline::Offline;

/// Evaluations measured (each a new message).
const MESSAGES: usize = 300;

/// Resident memory of this process, in MiB.
fn rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib: f64 = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse().ok())
        .unwrap_or(0.0);
    kib / 1024.0
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.saturating_sub(1).min(sorted.len() - 1)].as_secs_f64() * 1000.0
}

/// Ten points of one set, with the kind of wording learners answer them in.
const POINTS: [&str; 10] = [
    "Mitochondria produce most of the cell's ATP through cellular respiration.",
    "Ribosomes translate messenger RNA into proteins.",
    "The cell membrane is a phospholipid bilayer that controls what enters and leaves the cell.",
    "The nucleus stores the cell's DNA and controls gene expression.",
    "Chloroplasts carry out photosynthesis, turning light energy into chemical energy.",
    "The Golgi apparatus modifies, sorts and packages proteins for secretion.",
    "Lysosomes contain digestive enzymes that break down waste and worn-out organelles.",
    "The rough endoplasmic reticulum is studded with ribosomes and makes proteins for export.",
    "The cytoskeleton gives the cell its shape and moves organelles around.",
    "Plant cells have a cell wall made of cellulose outside the membrane.",
];

const ANSWERS: [&str; 6] = [
    "ribosomes build proteins from the mRNA",
    "I think the mitochondria make energy for the cell, ATP maybe",
    "the nucleus keeps the DNA",
    "something about packaging proteins, the golgi?",
    "no idea honestly",
    "plants have a wall around the membrane, made of cellulose I think",
];

fn main() {
    // As `warren serve` runs it: one pass of the model on one core.
    // SAFETY: no other thread exists yet.
    unsafe { std::env::set_var("RAYON_NUM_THREADS", "1") };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(measure());
}

async fn measure() {
    let dir = PathBuf::from(
        std::env::var("WARREN_MODEL_DIR").unwrap_or_else(|_| "data/models/all-MiniLM-L6-v2".into()),
    );
    let before = rss_mib();
    let started = Instant::now();
    let embedder = Arc::new(Embedder::load(&dir).unwrap_or_else(|e| panic!("{e}")));
    let mut loads = vec![started.elapsed()];
    let loaded = rss_mib();
    // WordNet's nouns and antonyms, as `warren serve` reads them beside the model.
    let started = Instant::now();
    let wordnet = std::env::var("WARREN_WORDNET_DIR").unwrap_or_else(|_| "data/models/wordnet".into());
    let lemmas =
        warren::text::kinship::install(std::path::Path::new(&wordnet)).unwrap_or_else(|e| panic!("{e}"));
    let antonyms =
        warren::text::antonyms::install(std::path::Path::new(&wordnet)).unwrap_or_else(|e| panic!("{e}"));
    println!(
        "WordNet: {lemmas} nouns and {antonyms} antonym pairs read in {:.0} ms, +{:.0} MiB resident",
        started.elapsed().as_secs_f64() * 1000.0,
        rss_mib() - loaded
    );
    let loaded = rss_mib();

    // The model's pass over one new message alone, the larger part of an evaluation.
    let mut passes = Vec::with_capacity(MESSAGES);
    for i in 0..MESSAGES {
        let message = format!("{} [{i}]", ANSWERS[i % ANSWERS.len()]);
        let started = Instant::now();
        embedder.read(&[message.as_str()]).unwrap();
        passes.push(started.elapsed());
    }
    passes.sort();
    let provider = Offline::new(Duration::ZERO, Some(embedder));
    let points: Vec<PointBrief> = POINTS
        .iter()
        .enumerate()
        .map(|(i, content)| PointBrief {
            id: format!("p{i}"),
            content: (*content).into(),
            ..PointBrief::default()
        })
        .collect();
    let brief = |message: String| EvaluatorBrief {
        set_name: "The living cell".into(),
        review: vec![],
        guidelines: String::new(),
        unchecked: points.clone(),
        learner_message: message,
        mode: EvalMode::Recall,
        recent: vec![Message::assistant(
            "Which part of the cell supplies most of its usable energy, and in what form?",
        )],
    };
    // The session's first message reads the points and the question; later ones find them.
    let started = Instant::now();
    evaluator::evaluate(&provider, brief("hello, let's start".into())).await;
    let first = started.elapsed();
    let mut times = Vec::with_capacity(MESSAGES);
    for i in 0..MESSAGES {
        // Every message new, as a learner's are.
        let message = format!("{} ({i})", ANSWERS[i % ANSWERS.len()]);
        let started = Instant::now();
        evaluator::evaluate(&provider, brief(message)).await;
        times.push(started.elapsed());
    }
    times.sort();
    let after = rss_mib();
    // Four more loads for the time it takes, after the memory is measured: a load's freed
    // copies stay in the allocator and would count as the model's.
    for _ in 0..4 {
        let started = Instant::now();
        drop(Embedder::load(&dir).unwrap_or_else(|e| panic!("{e}")));
        loads.push(started.elapsed());
    }
    loads.sort();

    println!("judge: {} from {}", warren::embed::MODEL_NAME, dir.display());
    println!(
        "  model load (five times, memory-mapped): min {:.0} ms, median {:.0} ms, max {:.0} ms",
        loads[0].as_secs_f64() * 1000.0,
        loads[2].as_secs_f64() * 1000.0,
        loads[4].as_secs_f64() * 1000.0
    );
    println!(
        "  first evaluation of a session (10 points and the question read): {:.1} ms",
        first.as_secs_f64() * 1000.0
    );
    println!(
        "  one evaluation against 10 unchecked points ({MESSAGES} new messages): p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        percentile(&times, 50.0),
        percentile(&times, 90.0),
        percentile(&times, 99.0),
        percentile(&times, 100.0)
    );
    println!(
        "  of which the model's pass over the message: p50 {:.1} ms, p99 {:.1} ms",
        percentile(&passes, 50.0),
        percentile(&passes, 99.0)
    );
    println!(
        "  resident memory: {before:.0} MiB before, {loaded:.0} MiB with the model and WordNet loaded (+{:.0}), {after:.0} MiB after the evaluations (+{:.0})",
        loaded - before,
        after - before
    );
}

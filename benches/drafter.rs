//! The offline drafter's time for a source of 200,000 characters (the most a learner can send
//! at once): cut into passages, each drafted by the offline provider (as the "from a source"
//! page drafts them), near repeats dropped by their words; then again with near repeats
//! dropped by meaning, when the sentence model is installed. The source is the evaluation
//! set's passages (`evals/drafter.jsonl`), repeated with their numbers changed until long
//! enough. Each run starts with the sentence model's cache empty. Run with
//! `cargo bench --bench drafter`.

// A measuring harness: a failure to set up should stop it loudly, like a test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use warren::drafting::{draft_passages, passages};
use warren::embed::Judgement;
use warren::llm::Provider;
use warren::llm::offline::Offline;

const CHARS: usize = 200_000;
const RUNS: usize = 5;

fn source() -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let cases = std::fs::read_to_string(root.join("evals/drafter.jsonl")).expect("the evaluation set");
    let texts: Vec<String> = cases
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["source"].as_str().map(str::to_string))
        .collect();
    let mut out = String::new();
    let mut round = 0;
    while out.chars().count() < CHARS {
        for text in &texts {
            // Each round changes the numbers, so a round is not a repeat of the one before.
            let varied: String = text
                .chars()
                .map(|c| match c.to_digit(10) {
                    Some(d) => char::from_digit((d + round) % 10, 10).unwrap(),
                    None => c,
                })
                .collect();
            out.push_str(&varied);
            out.push_str("\n\n");
        }
        round += 1;
    }
    out.chars().take(CHARS).collect()
}

/// The median of [`RUNS`] draftings of `text`; each run's sentence model (from `embedder`) is
/// loaded afresh before its clock starts, so no run reads what an earlier one left in its cache.
async fn time(
    provider: &dyn Provider,
    embedder: impl Fn() -> Option<Arc<warren::embed::Embedder>>,
    text: &str,
) -> (Duration, usize, usize) {
    let mut times = Vec::new();
    let mut counts = (0, 0);
    for _ in 0..RUNS {
        let embedder = embedder();
        let started = Instant::now();
        let cut = passages(text);
        let drafts = draft_passages(provider, embedder.as_ref(), "Bench", "Source", &cut, |_| async {}).await;
        times.push(started.elapsed());
        counts = (cut.len(), drafts.drafts.len());
    }
    times.sort();
    (times[RUNS / 2], counts.0, counts.1)
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let text = source();
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        println!(
            "drafter: a source of {} characters, median of {RUNS} runs, {cores} cores",
            text.chars().count()
        );
        let offline = Offline::new(Duration::ZERO, None);
        let (took, cut, drafts) = time(&offline, || None, &text).await;
        println!("  by words: {cut} passages, {drafts} drafts in {:.0} ms", took.as_secs_f64() * 1000.0);
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let model = root.join(warren::config::DEFAULT_MODEL_DIR);
        match Judgement::load(&model) {
            Judgement::Meaning(_) => {
                let fresh = || Judgement::load(&model).embedder().cloned();
                let (took, cut, drafts) = time(&offline, fresh, &text).await;
                println!(
                    "  repeats by meaning: {cut} passages, {drafts} drafts in {:.0} ms",
                    took.as_secs_f64() * 1000.0
                );
            }
            Judgement::Words(why) => println!("  repeats by meaning: not measured ({why})"),
        }
    });
}

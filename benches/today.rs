//! Time to plan today's review for a learner with 50 sets and 20,000 points (every one due:
//! half reviewed before, at varied stabilities, half new), on SQLite: the due points read,
//! their chance of recall computed, the day's new points counted, the queue ordered and
//! interleaved. Goal: under 50 ms. Run with `cargo bench --bench today` (release build).

// A measuring harness: a failure to set up should stop it loudly, like a test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use warren::engine::today;
use warren::store::{FsrsCard, NewPoint, NewSet, now_ms};
use warren_app::clock::DAY_MS;
use warren_app::schedule::CardState;

mod common;

const SETS: usize = 50;
const POINTS_PER_SET: usize = 400;
const RUNS: usize = 20;

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(run());
}

async fn run() {
    let served = common::serve(|_| {}).await;
    let store = served.engine.store();
    let now = now_ms();
    for s in 0..SETS {
        let points = (0..POINTS_PER_SET)
            .map(|p| {
                let reviewed = p % 2 == 0;
                let days = i64::try_from(1 + (s * 7 + p) % 30).unwrap();
                let card = reviewed.then(|| FsrsCard {
                    state: CardState::Review,
                    due_at: now - DAY_MS,
                    stability: 1.0 + f64::from(u32::try_from(p % 40).unwrap()),
                    difficulty: 5.0,
                    elapsed_days: days,
                    scheduled_days: days,
                    reps: 3,
                    lapses: 0,
                    last_review_at: Some(now - days * DAY_MS),
                });
                NewPoint { content: format!("Set {s}, point {p}."), card, ..NewPoint::default() }
            })
            .collect();
        let set = NewSet { name: format!("Bench set {s}"), points, ..NewSet::default() };
        store.create_set(&served.owner, &set).await.expect("a set");
    }
    let mut times: Vec<Duration> = Vec::with_capacity(RUNS);
    let mut taken = 0;
    for _ in 0..RUNS {
        let started = Instant::now();
        let plan = today::plan(store, &served.owner, now, 0).await.expect("a plan");
        times.push(started.elapsed());
        taken = plan.queue.points.len();
        assert!(taken > 0);
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "today's queue over {} points in {SETS} sets: median {:.1} ms, worst {:.1} ms ({RUNS} runs; {taken} points taken)",
        SETS * POINTS_PER_SET,
        ms(times[RUNS / 2]),
        ms(times[RUNS - 1]),
    );
}

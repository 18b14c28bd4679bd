//! Fitting the schedule to a learner: simulated learners whose memory differs from FSRS-6's
//! defaults study for a year under the default schedule (as Warren schedules before it has
//! fitted anything); their parameters are then fitted on four fifths of their points and
//! both parameter sets are measured on the other fifth: log loss and RMSE over
//! retrievability bins, before and after. It also times one fit of 10,000 reviews.
//!
//! The simulator: each learner has true FSRS-6 parameters. A point is introduced on some day
//! and reviewed whenever the default schedule says it is due. At each review the learner
//! recalls it with the probability their true memory gives after the days elapsed (a first
//! sight is recalled 70 % of the time); a failure is Again, a recall Good, now and then Hard
//! or Easy. Their true memory moves with the true parameters, the schedule's with the
//! defaults.
//!
//! `cargo bench --bench schedule` (release). Seeded: every run simulates the same reviews.

// A measuring harness: a failure to set up should stop it loudly, like a test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use fsrs::{FSRS, MemoryState};
use warren::schedule::fit::{self, History};
use warren_app::schedule::Rating;

/// Reviews simulated per learner for the before-and-after figures.
const REVIEWS: usize = 2_000;
/// Reviews in the timed fit.
const TIMED_REVIEWS: usize = 10_000;
const RETENTION: f32 = 0.9;

struct Learner {
    name: &'static str,
    parameters: Vec<f32>,
}

/// Learners unlike the average: quick to learn, quick to forget, and one whose forgetting
/// curve falls off differently.
fn learners() -> Vec<Learner> {
    let defaults = fsrs::DEFAULT_PARAMETERS.to_vec();
    let scaled = |first: f32, decay: f32| {
        let mut p = defaults.clone();
        for w in &mut p[0..4] {
            *w *= first;
        }
        p[20] = decay;
        p
    };
    vec![
        Learner { name: "learns fast", parameters: scaled(4.0, 0.15) },
        Learner { name: "forgets fast", parameters: scaled(0.25, 0.35) },
        Learner {
            name: "hard material",
            parameters: {
                let mut p = scaled(0.6, 0.2);
                p[4] = 8.5; // starts difficult
                p[8] = 1.2; // recalls raise stability less
                p
            },
        },
    ]
}

/// A year (or more) of study: points introduced ten a day, reviewed when the default schedule
/// has them due, until `reviews` reviews. Returns each point's history.
fn simulate(truth: &[f32], reviews: usize, seed: u64) -> Vec<History> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let true_model = FSRS::new(truth).unwrap();
    let default_model = FSRS::default();
    let decay = truth[20];
    struct Point {
        history: History,
        truth: Option<MemoryState>,
        scheduled: Option<MemoryState>,
        last_day: u32,
        due_day: u32,
    }
    let mut points: Vec<Point> = Vec::new();
    let mut done = 0;
    let mut day = 0u32;
    while done < reviews {
        for _ in 0..10 {
            points.push(Point {
                history: Vec::new(),
                truth: None,
                scheduled: None,
                last_day: day,
                due_day: day,
            });
        }
        for point in points.iter_mut().filter(|p| p.due_day <= day) {
            if done >= reviews {
                break;
            }
            let elapsed = day - point.last_day;
            let chance = match point.truth {
                Some(memory) => fsrs::current_retrievability(memory, elapsed as f32, decay),
                None => 0.7,
            };
            let rating = if rng.f32() >= chance {
                Rating::Again
            } else {
                match rng.u8(0..10) {
                    0 => Rating::Hard,
                    1 => Rating::Easy,
                    _ => Rating::Good,
                }
            };
            let pick = |next: fsrs::NextStates| match rating {
                Rating::Again => next.again,
                Rating::Hard => next.hard,
                Rating::Good => next.good,
                Rating::Easy => next.easy,
            };
            let truth_next = pick(true_model.next_states(point.truth, RETENTION, elapsed).unwrap());
            let scheduled_next =
                pick(default_model.next_states(point.scheduled, RETENTION, elapsed).unwrap());
            point.truth = Some(truth_next.memory);
            point.scheduled = Some(scheduled_next.memory);
            point.history.push((rating, elapsed));
            point.last_day = day;
            point.due_day = day + (scheduled_next.interval.round() as u32).max(1);
            done += 1;
        }
        day += 1;
    }
    points.into_iter().map(|p| p.history).filter(|h| !h.is_empty()).collect()
}

fn main() {
    println!(
        "schedule: {REVIEWS} simulated reviews a learner; fitted on 4/5 of the points, measured on the other 1/5"
    );
    let mut improved = true;
    for (i, learner) in learners().iter().enumerate() {
        let histories = simulate(&learner.parameters, REVIEWS, 7 + i as u64);
        let mut train: Vec<History> = Vec::new();
        let mut held_out: Vec<History> = Vec::new();
        for (n, history) in histories.into_iter().enumerate() {
            if n % 5 == 0 { held_out.push(history) } else { train.push(history) }
        }
        let train_items = fit::items(&train);
        let test_items = fit::items(&held_out);
        let started = Instant::now();
        let fitted = fit::fit(train_items.clone(), None).unwrap();
        let took = started.elapsed();
        let before = fit::accuracy(&[], &test_items).unwrap();
        let after = fit::accuracy(&fitted, &test_items).unwrap();
        improved &= after.log_loss < before.log_loss && after.rmse < before.rmse;
        // Beyond the first reviews' stabilities (which the crate sets before training), what
        // the training itself moved.
        let trained = fitted[4..]
            .iter()
            .zip(&fsrs::DEFAULT_PARAMETERS[4..])
            .filter(|(a, b)| (*a - *b).abs() > 1e-4)
            .count();
        println!(
            "  {:<14} train items {:>5}, held-out items {:>4}: log loss {:.4} → {:.4}, RMSE {:.4} → {:.4} (fit {:.0} ms, {trained} of 17 later parameters moved)",
            learner.name,
            train_items.len(),
            test_items.len(),
            before.log_loss,
            after.log_loss,
            before.rmse,
            after.rmse,
            took.as_secs_f64() * 1000.0
        );
    }
    println!(
        "schedule: fitting improved log loss and RMSE for every learner: {}",
        if improved { "yes" } else { "NO" }
    );

    let histories = simulate(&learners()[1].parameters, TIMED_REVIEWS, 99);
    let items = fit::items(&histories);
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let started = Instant::now();
    fit::fit(items.clone(), None).unwrap();
    println!(
        "schedule: one fit of {TIMED_REVIEWS} reviews ({} items) took {:.0} ms on {cores} cores",
        items.len(),
        started.elapsed().as_secs_f64() * 1000.0
    );
    // A fit that helps no one is a regression: say so in the exit code too.
    if !improved {
        std::process::exit(1);
    }
}

use super::*;
use Rating::{Again, Easy, Good, Hard};

const T0: i64 = 1_700_000_000_000;

/// A log from (rating, day) pairs, each review at noon of its day.
fn log(reviews: &[(Rating, i64)]) -> Vec<Logged> {
    reviews.iter().map(|&(rating, day)| Logged { rating, at: T0 + day * DAY_MS + DAY_MS / 2 }).collect()
}

#[test]
fn the_same_log_replayed_gives_the_same_card_and_steps() {
    let s = Scheduler::default();
    let reviews = log(&[(Good, 0), (Again, 3), (Hard, 4), (Good, 9), (Easy, 30)]);
    let once = s.replay(None, &reviews, T0);
    assert_eq!(once, s.replay(None, &reviews, T0));
    assert_eq!(once.steps.len(), 5);
    assert_eq!(once.steps[0].before, None);
    assert_eq!(once.steps[1].elapsed_days, 3);
    // Each step starts where the one before ended.
    for pair in once.steps.windows(2) {
        assert_eq!(pair[1].before, Some(pair[0].after));
    }
    assert_eq!(once.card.reps, 5);
    assert_eq!(once.card.lapses, 1);
    assert_eq!(once.card.last_review_at, Some(reviews[4].at));
    assert_eq!(once.card.state, CardState::Review);
}

#[test]
fn a_failure_brings_a_point_back_sooner_and_weaker_than_a_success() {
    let s = Scheduler::default();
    let failed = s.replay(None, &log(&[(Good, 0), (Again, 3)]), T0).card;
    let recalled = s.replay(None, &log(&[(Good, 0), (Good, 3)]), T0).card;
    assert!(failed.due_at < recalled.due_at, "failed {} recalled {}", failed.due_at, recalled.due_at);
    assert!(failed.stability < recalled.stability);
    assert!(failed.difficulty > recalled.difficulty);
    assert_eq!(failed.state, CardState::Relearning);
    assert_eq!(failed.lapses, 1);
    // Within about a day, not weeks.
    assert!(failed.due_at - failed.last_review_at.unwrap_or(0) <= 2 * DAY_MS);
}

#[test]
fn a_first_review_that_fails_is_learning_and_recalls_are_whole_days_out() {
    let s = Scheduler::default();
    let first = s.replay(None, &log(&[(Again, 0)]), T0).card;
    assert_eq!(first.state, CardState::Learning);
    assert!(first.due_at - first.last_review_at.unwrap_or(0) < DAY_MS);
    for rating in [Hard, Good, Easy] {
        let card = s.replay(None, &log(&[(rating, 0)]), T0).card;
        let interval = card.due_at - card.last_review_at.unwrap_or(0);
        assert!(interval >= DAY_MS && interval % DAY_MS == 0, "{rating}: {interval}");
    }
}

#[test]
fn asking_for_more_retention_shortens_intervals() {
    let reviews = log(&[(Good, 0), (Good, 3), (Good, 12)]);
    let relaxed = Scheduler::new(&[], 0.80).replay(None, &reviews, T0).card;
    let strict = Scheduler::new(&[], 0.95).replay(None, &reviews, T0).card;
    assert!(strict.due_at < relaxed.due_at);
    // Retention out of range is clamped, not refused.
    let clamped = Scheduler::new(&[], 0.999).replay(None, &reviews, T0).card;
    assert_eq!(clamped, Scheduler::new(&[], 0.97).replay(None, &reviews, T0).card);
}

#[test]
fn a_carried_schedule_is_where_the_replay_starts() {
    let s = Scheduler::default();
    let carried = Carried { memory: Memory { stability: 40.0, difficulty: 5.0 }, at: T0, reps: 3, lapses: 1 };
    let reviews = log(&[(Good, 40)]);
    let from_carried = s.replay(Some(carried), &reviews, T0);
    let from_nothing = s.replay(None, &reviews, T0);
    assert_eq!(from_carried.steps[0].before, Some(carried.memory));
    assert_eq!(from_carried.steps[0].elapsed_days, 40);
    assert!(from_carried.card.stability > from_nothing.card.stability);
    assert_eq!(from_carried.card.state, CardState::Review);
}

#[test]
fn parameters_the_model_refuses_fall_back_to_the_defaults() {
    assert_eq!(Scheduler::new(&[1.0; 5], 0.9).parameters(), &fsrs::DEFAULT_PARAMETERS[..]);
    assert_eq!(Scheduler::new(&[f32::NAN; 21], 0.9).parameters(), &fsrs::DEFAULT_PARAMETERS[..]);
    assert_eq!(Scheduler::default().parameters().len(), 21);
}

#[test]
fn retrievability_is_ninety_percent_at_one_stability_and_falls_after() {
    let s = Scheduler::default();
    assert_eq!(s.retrievability(&FsrsCard::new(T0), T0), None);
    let card = s.replay(None, &log(&[(Good, 0), (Good, 3)]), T0).card;
    let last = card.last_review_at.unwrap_or(0);
    #[allow(clippy::cast_possible_truncation)]
    let at_stability = last + (card.stability * DAY_MS as f64) as i64;
    let r = s.retrievability(&card, at_stability).unwrap_or(0.0);
    assert!((r - 0.9).abs() < 0.01, "{r}");
    assert!(s.retrievability(&card, last).unwrap_or(0.0) > 0.99);
    assert!(s.retrievability(&card, at_stability * 2 - last).unwrap_or(1.0) < r);
}

#[test]
#[allow(clippy::cast_possible_truncation)] // f64 memory back to the crate's f32
fn a_replay_ends_in_the_memory_the_crates_memory_state_computes_from_the_same_log() {
    // The replay steps `next_states` through the log because it needs each step's interval
    // (the due date) as well as the memory; `memory_state` gives the memory alone. Over logs
    // of every shape they agree, so the set page's stability and retrievability are FSRS's own.
    let s = Scheduler::default();
    let ratings = [Again, Hard, Good, Easy];
    let mut worst = 0.0_f32;
    for seed in 0..200_u64 {
        let mut day = 0;
        let reviews: Vec<(Rating, i64)> = (0..2 + seed % 9)
            .map(|k| {
                day += i64::try_from((seed * 7 + k * 13) % 40).unwrap_or(1) + i64::from(k > 0);
                (ratings[usize::try_from((seed + k * 3) % 4).unwrap_or(0)], day)
            })
            .collect();
        let replayed = s.replay(None, &log(&reviews), T0).card;
        let item = fsrs::FSRSItem {
            reviews: reviews
                .iter()
                .enumerate()
                .map(|(i, &(rating, d))| fsrs::FSRSReview {
                    rating: match rating {
                        Again => 1,
                        Hard => 2,
                        Good => 3,
                        Easy => 4,
                    },
                    delta_t: u32::try_from(if i == 0 { 0 } else { d - reviews[i - 1].1 }).unwrap_or(0),
                })
                .collect(),
        };
        let memory = s.fsrs.memory_state(item, None).expect("a valid log");
        let off = |a: f32, b: f32| (a - b).abs() / b.abs().max(1e-6);
        worst = worst.max(off(replayed.stability as f32, memory.stability));
        worst = worst.max(off(replayed.difficulty as f32, memory.difficulty));
    }
    println!("largest relative difference: {worst:e}");
    assert!(worst < 1e-3, "the replay and memory_state differ by {worst}");
}

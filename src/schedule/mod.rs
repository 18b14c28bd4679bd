//! The schedule: a point's FSRS card is the result of replaying its review log with the
//! learner's FSRS-6 parameters (the `fsrs` crate) and desired retention. Pure: the store keeps
//! the log and the cards, and calls [`Scheduler::replay`] whenever a point's log changes.
//! Time between reviews is counted in whole days, as FSRS's training data is.

pub mod fit;
pub mod today;

use fsrs::{FSRS, MemoryState};
use warren_app::clock::DAY_MS;
use warren_app::schedule::{CardState, Rating};

/// The retention a learner gets until they choose one, and the range they may choose from.
pub const DEFAULT_RETENTION: f64 = 0.90;
pub const RETENTION_RANGE: std::ops::RangeInclusive<f64> = 0.70..=0.97;
/// Failures after which a point is flagged as a leech until the learner says otherwise, and
/// the range they may choose from.
pub const DEFAULT_LEECH_LAPSES: u32 = 4;
pub const LEECH_RANGE: std::ops::RangeInclusive<u32> = 2..=20;
/// Longest interval handed out (about a hundred years), so a due date always fits.
const MAX_INTERVAL_DAYS: f32 = 36_500.0;

/// A point's FSRS card as stored: the cache of its replayed log.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct FsrsCard {
    #[sqlx(rename = "fsrs_state", try_from = "String")]
    pub state: CardState,
    pub due_at: i64,
    pub stability: f64,
    pub difficulty: f64,
    /// Whole days between the last two reviews.
    pub elapsed_days: i64,
    /// Whole days from the last review to the due date.
    pub scheduled_days: i64,
    /// Reviews in the log.
    pub reps: i64,
    /// Again reviews in the log.
    pub lapses: i64,
    pub last_review_at: Option<i64>,
}

impl FsrsCard {
    /// A card never reviewed, due at `due_at`.
    pub fn new(due_at: i64) -> Self {
        FsrsCard {
            state: CardState::New,
            due_at,
            stability: 0.0,
            difficulty: 0.0,
            elapsed_days: 0,
            scheduled_days: 0,
            reps: 0,
            lapses: 0,
            last_review_at: None,
        }
    }
}

/// A memory state as stored: how long a memory lasts (stability, in days to fall to 90 %)
/// and how hard it is to raise (difficulty, 1 to 10).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Memory {
    pub stability: f64,
    pub difficulty: f64,
}

impl Memory {
    fn of(state: MemoryState) -> Self {
        Memory { stability: f64::from(state.stability), difficulty: f64::from(state.difficulty) }
    }

    #[allow(clippy::cast_possible_truncation)] // stored from f32 in the first place
    fn state(self) -> MemoryState {
        MemoryState { stability: self.stability as f32, difficulty: self.difficulty as f32 }
    }
}

/// Where a point's memory stood before its log begins: a schedule carried in by an import
/// without the reviews that made it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Carried {
    pub memory: Memory,
    pub at: i64,
    /// The reviews and failures that made it, counted on from by the replay.
    pub reps: i64,
    pub lapses: i64,
}

/// One review in a point's log, as replayed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Logged {
    pub rating: Rating,
    pub at: i64,
}

/// What replaying one review gave: the figures each log row keeps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    pub elapsed_days: i64,
    pub before: Option<Memory>,
    pub after: Memory,
}

/// A replayed log: one step per review, and the card it leaves.
#[derive(Clone, Debug, PartialEq)]
pub struct Replayed {
    pub steps: Vec<Step>,
    pub card: FsrsCard,
}

/// The learner's FSRS model and retention.
#[derive(Clone, Debug)]
pub struct Scheduler {
    fsrs: FSRS,
    parameters: Vec<f32>,
    retention: f64,
}

impl Default for Scheduler {
    fn default() -> Self {
        Scheduler::new(&[], DEFAULT_RETENTION)
    }
}

impl Scheduler {
    /// A scheduler with these parameters (empty: FSRS-6's defaults) and desired retention
    /// (clamped to [`RETENTION_RANGE`]). Parameters the crate refuses fall back to the
    /// defaults: a schedule is always given.
    pub fn new(parameters: &[f32], retention: f64) -> Self {
        let retention = retention.clamp(*RETENTION_RANGE.start(), *RETENTION_RANGE.end());
        match (FSRS::new(parameters), fsrs::check_and_fill_parameters(parameters)) {
            (Ok(fsrs), Ok(parameters)) => Scheduler { fsrs, parameters, retention },
            (Err(err), _) | (_, Err(err)) => {
                tracing::warn!("FSRS parameters refused ({err}); using the defaults");
                Scheduler { fsrs: FSRS::default(), parameters: fsrs::DEFAULT_PARAMETERS.to_vec(), retention }
            }
        }
    }

    /// The share of reviews the learner wants to recall.
    pub fn retention(&self) -> f64 {
        self.retention
    }

    /// The retention as the model takes it.
    #[allow(clippy::cast_possible_truncation)] // a probability
    fn desired(&self) -> f32 {
        self.retention as f32
    }

    /// The parameters in use (all 21 of FSRS-6, defaults filled in).
    pub fn parameters(&self) -> &[f32] {
        &self.parameters
    }

    /// The forgetting curve's decay (FSRS-6's last parameter).
    fn decay(&self) -> f32 {
        self.parameters.last().copied().unwrap_or(fsrs::FSRS6_DEFAULT_DECAY)
    }

    /// Replays a point's log, oldest first, from what it carried in (if anything). A review
    /// the model cannot step (it never happens with valid parameters) keeps the memory as it
    /// was, so one bad row cannot stop a schedule.
    pub fn replay(&self, carried: Option<Carried>, log: &[Logged], created_at: i64) -> Replayed {
        let mut memory = carried.map(|c| c.memory);
        let mut last_at = carried.map(|c| c.at);
        let mut steps = Vec::with_capacity(log.len());
        let mut card = match carried {
            Some(c) => {
                let interval = self.fsrs.next_interval(Some(c.memory.state().stability), self.desired(), 3);
                let interval_ms = interval_ms(Rating::Good, interval);
                FsrsCard {
                    state: CardState::Review,
                    due_at: c.at + interval_ms,
                    stability: c.memory.stability,
                    difficulty: c.memory.difficulty,
                    elapsed_days: 0,
                    scheduled_days: interval_ms / DAY_MS,
                    reps: c.reps,
                    lapses: c.lapses,
                    last_review_at: Some(c.at),
                }
            }
            None => FsrsCard::new(created_at),
        };
        let mut recalled_before = carried.is_some();
        for review in log {
            let elapsed_days = last_at.map_or(0, |last| ((review.at - last) / DAY_MS).max(0));
            let days = u32::try_from(elapsed_days).unwrap_or(u32::MAX);
            let (after, interval) =
                match self.fsrs.next_states(memory.map(Memory::state), self.desired(), days) {
                    Ok(next) => {
                        let state = match review.rating {
                            Rating::Again => next.again,
                            Rating::Hard => next.hard,
                            Rating::Good => next.good,
                            Rating::Easy => next.easy,
                        };
                        (Memory::of(state.memory), state.interval)
                    }
                    Err(err) => {
                        tracing::warn!("cannot replay a review ({err}); the memory is kept as it was");
                        let kept = memory.unwrap_or(Memory { stability: 0.0, difficulty: 0.0 });
                        (kept, 1.0)
                    }
                };
            let interval_ms = interval_ms(review.rating, interval);
            steps.push(Step { elapsed_days, before: memory, after });
            card.state = match review.rating {
                Rating::Again if recalled_before => CardState::Relearning,
                Rating::Again => CardState::Learning,
                Rating::Hard | Rating::Good | Rating::Easy => CardState::Review,
            };
            recalled_before |= review.rating != Rating::Again;
            card.due_at = review.at + interval_ms;
            card.stability = after.stability;
            card.difficulty = after.difficulty;
            card.elapsed_days = elapsed_days;
            card.scheduled_days = interval_ms / DAY_MS;
            card.reps += 1;
            card.lapses += i64::from(review.rating == Rating::Again);
            card.last_review_at = Some(review.at);
            memory = Some(after);
            last_at = Some(review.at);
        }
        Replayed { steps, card }
    }

    /// The chance of recalling a point now: FSRS's forgetting curve at the days since its
    /// last review. `None` for a point never reviewed.
    pub fn retrievability(&self, card: &FsrsCard, now: i64) -> Option<f64> {
        let last = card.last_review_at?;
        if card.stability <= 0.0 {
            return None;
        }
        #[allow(clippy::cast_precision_loss)] // days since a review
        let days = ((now - last).max(0) as f64 / DAY_MS as f64) as f32;
        let memory = Memory { stability: card.stability, difficulty: card.difficulty }.state();
        Some(f64::from(fsrs::current_retrievability(memory, days, self.decay())))
    }
}

/// A failure comes back after the fraction of a day FSRS gives it; anything recalled is
/// scheduled in whole days, at least one.
fn interval_ms(rating: Rating, days: f32) -> i64 {
    let days = match rating {
        Rating::Again => days.clamp(0.0, MAX_INTERVAL_DAYS),
        Rating::Hard | Rating::Good | Rating::Easy => days.round().clamp(1.0, MAX_INTERVAL_DAYS),
    };
    #[allow(clippy::cast_possible_truncation)] // bounded by MAX_INTERVAL_DAYS
    let ms = (f64::from(days) * DAY_MS as f64) as i64;
    ms
}

#[cfg(test)]
mod tests;

//! Spaced repetition: a recall becomes an FSRS review (rs-fsrs), rated from how it went.

use chrono::{DateTime, TimeZone, Utc};
use rs_fsrs::{Card, FSRS, Rating, State};
use warren_app::schedule::CardState;

use crate::store::{FsrsCard, Struggle};

/// How a recall went, from the evaluator's confidence and that point's own struggle in the
/// session: a point whose answer was given is a lapse (Again); two hints or more, or a shaky
/// recall, is Hard; one hint is at best Good; only an unprompted, confident recall is Easy.
pub fn rating(confidence: f64, struggle: &Struggle) -> Rating {
    if struggle.revealed {
        Rating::Again
    } else if struggle.hints >= 2 || confidence < 0.7 {
        Rating::Hard
    } else if struggle.hints == 0 && confidence >= 0.95 {
        Rating::Easy
    } else {
        Rating::Good
    }
}

/// The stored rating of an rs-fsrs one.
pub fn stored_rating(rating: Rating) -> warren_app::schedule::Rating {
    match rating {
        Rating::Again => warren_app::schedule::Rating::Again,
        Rating::Hard => warren_app::schedule::Rating::Hard,
        Rating::Good => warren_app::schedule::Rating::Good,
        Rating::Easy => warren_app::schedule::Rating::Easy,
    }
}

/// The card after a review at `now_ms`.
pub fn review(card: &FsrsCard, rating: Rating, now_ms: i64) -> FsrsCard {
    let now = at(now_ms);
    let before = Card {
        due: at(card.due_at),
        stability: card.stability,
        difficulty: card.difficulty,
        elapsed_days: card.elapsed_days,
        scheduled_days: card.scheduled_days,
        reps: i32::try_from(card.reps).unwrap_or(i32::MAX),
        lapses: i32::try_from(card.lapses).unwrap_or(i32::MAX),
        state: state_from(card.state),
        last_review: card.last_review_at.map_or(now, at),
    };
    let after = FSRS::default().next(before, now, rating).card;
    FsrsCard {
        state: state_name(after.state),
        due_at: after.due.timestamp_millis(),
        stability: after.stability,
        difficulty: after.difficulty,
        elapsed_days: after.elapsed_days,
        scheduled_days: after.scheduled_days,
        reps: i64::from(after.reps),
        lapses: i64::from(after.lapses),
        last_review_at: Some(now_ms),
    }
}

fn at(ms: i64) -> DateTime<Utc> {
    Utc.timestamp_millis_opt(ms).single().unwrap_or_else(Utc::now)
}

fn state_from(state: CardState) -> State {
    match state {
        CardState::New => State::New,
        CardState::Learning => State::Learning,
        CardState::Review => State::Review,
        CardState::Relearning => State::Relearning,
    }
}

fn state_name(state: State) -> CardState {
    match state {
        State::New => CardState::New,
        State::Learning => CardState::Learning,
        State::Review => CardState::Review,
        State::Relearning => CardState::Relearning,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new_card(now: i64) -> FsrsCard {
        FsrsCard::new(now)
    }

    fn hinted(hints: u32) -> Struggle {
        Struggle { attempts: hints, hints, ..Struggle::default() }
    }

    #[test]
    fn ratings_follow_confidence_and_the_points_own_struggle() {
        assert_eq!(rating(1.0, &hinted(0)), Rating::Easy);
        assert_eq!(rating(0.8, &hinted(0)), Rating::Good);
        assert_eq!(rating(1.0, &hinted(1)), Rating::Good);
        assert_eq!(rating(0.6, &hinted(0)), Rating::Hard);
        assert_eq!(rating(1.0, &hinted(2)), Rating::Hard);
        assert_eq!(rating(1.0, &Struggle { revealed: true, ..hinted(3) }), Rating::Again);
    }

    #[test]
    fn a_good_review_schedules_into_the_future_and_easier_is_later() {
        let now = 1_700_000_000_000;
        let good = review(&new_card(now), Rating::Good, now);
        let easy = review(&new_card(now), Rating::Easy, now);
        let again = review(&new_card(now), Rating::Again, now);
        assert!(good.due_at > now);
        assert!(easy.due_at > good.due_at, "easy {} good {}", easy.due_at, good.due_at);
        assert!(again.due_at <= good.due_at);
        assert_eq!(good.reps, 1);
        assert_eq!(good.last_review_at, Some(now));
        assert_ne!(good.state, CardState::New);
        // A second good review a day later pushes the next one further out.
        let later = now + 86_400_000;
        let second = review(&good, Rating::Good, later);
        assert!(second.due_at - later > good.due_at - now);
    }
}

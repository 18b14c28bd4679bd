//! How a recall is rated for the schedule: the one mapping from what happened in the session
//! to Again/Hard/Good/Easy (the table in ARCHITECTURE.md). Failures, points tried and never
//! recalled, are rated Again by the store when the session ends (`store::reviews`).

use warren_app::schedule::Rating;

use crate::store::Struggle;

/// Below this the evaluator was unsure the learner had it all: a shaky recall.
const SURE: f64 = 0.7;

/// A recall's rating, from what can be seen: the point's own struggle in the session, whether
/// the learner brought it up before the tutor asked about it (`volunteered`), and how sure the
/// evaluator was. The answer given is Again; two hints or more, or a shaky recall, is Hard;
/// unprompted and untroubled is Easy; anything else (asked, recalled, one hint at most) Good.
pub fn rating(confidence: f64, struggle: &Struggle, volunteered: bool) -> Rating {
    let untroubled = struggle.attempts == 0 && struggle.hints == 0 && struggle.near_misses == 0;
    if struggle.revealed {
        Rating::Again
    } else if struggle.hints >= 2 || confidence < SURE {
        Rating::Hard
    } else if volunteered && untroubled {
        Rating::Easy
    } else {
        Rating::Good
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hinted(hints: u32) -> Struggle {
        Struggle { attempts: hints, hints, ..Struggle::default() }
    }

    #[test]
    fn ratings_follow_the_points_own_struggle_not_confidence_alone() {
        // Asked and recalled at once, however sure the evaluator: Good.
        assert_eq!(rating(1.0, &hinted(0), false), Rating::Good);
        assert_eq!(rating(0.8, &hinted(0), false), Rating::Good);
        // Brought up before it was asked for: Easy; after a near miss, only Good.
        assert_eq!(rating(0.8, &hinted(0), true), Rating::Easy);
        let near = Struggle { near_misses: 1, ..Struggle::default() };
        assert_eq!(rating(1.0, &near, true), Rating::Good);
        assert_eq!(rating(1.0, &hinted(1), false), Rating::Good);
        assert_eq!(rating(1.0, &hinted(1), true), Rating::Good);
        assert_eq!(rating(0.6, &hinted(0), true), Rating::Hard);
        assert_eq!(rating(1.0, &hinted(2), false), Rating::Hard);
        assert_eq!(rating(1.0, &Struggle { revealed: true, ..hinted(3) }, false), Rating::Again);
    }
}

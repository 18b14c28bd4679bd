//! Today's review as planned for a learner now: their due points across sets, their daily
//! limits and the day's new points so far (in their time zone), and their pace.

use warren_app::clock::{DAY_MS, day_of, start_of_day};
use warren_app::learner::LearnerId;

use crate::schedule::today::{self, Limits, Queue};
use crate::store::{Store, StoreError};

/// How far back the learner's pace is taken from.
const PACE_WINDOW_MS: i64 = 14 * DAY_MS;

#[derive(Clone, Debug, PartialEq)]
pub struct TodayPlan {
    pub queue: Queue,
    /// About how long the session takes.
    pub minutes: u64,
    /// The estimate is the stated default, not yet the learner's own pace.
    pub default_pace: bool,
}

impl TodayPlan {
    /// The sets the session's points come from, each once, in the order they first appear.
    pub fn set_ids(&self) -> Vec<String> {
        let mut sets: Vec<String> = Vec::new();
        for point in &self.queue.points {
            if !sets.contains(&point.set_id) {
                sets.push(point.set_id.clone());
            }
        }
        sets
    }

    pub fn point_ids(&self) -> Vec<String> {
        self.queue.points.iter().map(|p| p.id.clone()).collect()
    }
}

/// Plans today's review for `learner` at `now`, their clock `utc_offset_min` ahead of UTC.
pub async fn plan(
    store: &Store,
    learner: &LearnerId,
    now: i64,
    utc_offset_min: i32,
) -> Result<TodayPlan, StoreError> {
    let day_start = start_of_day(day_of(now, utc_offset_min), utc_offset_min);
    let due = store.due_points(learner, now, day_start).await?;
    let limits = store.daily_limits(learner).await?;
    let introduced = store.new_points_since(learner, day_start).await?;
    let limits = Limits {
        per_session: usize::try_from(limits.points_per_session).unwrap_or(usize::MAX),
        new_left: usize::try_from(limits.new_per_day.saturating_sub(introduced)).unwrap_or(0),
    };
    let queue = today::queue(due.candidates, &due.links, limits);
    let pace = store.ms_per_point(learner, now - PACE_WINDOW_MS).await?;
    Ok(TodayPlan { minutes: today::minutes(queue.points.len(), pace), default_pace: pace.is_none(), queue })
}

//! The dashboard's study statistics: today's sessions and study time, the streak of study
//! days, the last week's recall rate, the last 30 days' reviews and the next 30 days' due
//! points, in the learner's days.

use std::ops::Range;
use warren_app::learner::LearnerId;

use warren_app::api::{DayReviews, HistoryFilter, StudyStats};
use warren_app::clock::{DAY_MS, day_of, start_of_day};

use crate::store::{SessionRow, Store, StoreError};

/// Days in the reviews chart.
pub const CHART_DAYS: i64 = 30;
/// Days the recall rate looks back over.
const RATE_DAYS: i64 = 7;

pub async fn study_stats(
    store: &Store,
    learner: &LearnerId,
    utc_offset_min: i32,
    now: i64,
    sessions: &[SessionRow],
    due_now: u32,
) -> Result<StudyStats, StoreError> {
    let today = day_of(now, utc_offset_min);
    let today_start = start_of_day(today, utc_offset_min);
    let week_start = start_of_day(today - (RATE_DAYS - 1), utc_offset_min);
    let chart_start = start_of_day(today - (CHART_DAYS - 1), utc_offset_min);

    let started_today: Vec<&SessionRow> = sessions.iter().filter(|s| s.started_at >= today_start).collect();
    let study_ms_today = started_today.iter().map(|s| active_ms(s, now)).sum();
    let days = store.study_days(learner, utc_offset_min).await?;
    let per_day = store.reviews_per_day(learner, utc_offset_min, chart_start).await?;
    // Asked: the points reviewed (recalled, or tried and missed), not every point a session
    // held, since one left early never put the rest to the learner.
    let asked_7d: i64 = per_day.iter().filter(|(day, _)| *day > today - RATE_DAYS).map(|(_, n)| *n).sum();
    let recalled_7d = store.recalled_unaided_since(learner, week_start).await?.min(asked_7d);
    let forecast_end = start_of_day(today + CHART_DAYS, utc_offset_min);
    let due_per_day = store.due_per_day(learner, utc_offset_min, today, forecast_end).await?;
    let on = |counts: &[(i64, i64)], day: i64| {
        count(counts.iter().find(|(d, _)| *d == day).map_or(0, |(_, n)| *n))
    };

    Ok(StudyStats {
        sessions_today: count(started_today.len()),
        study_ms_today,
        due_now,
        streak_days: streak(&days, today),
        studied_today: days.first() == Some(&today),
        asked_7d: count(asked_7d),
        recalled_7d: count(recalled_7d),
        reviews: (today - (CHART_DAYS - 1)..=today)
            .map(|day| DayReviews { label: label(day), count: on(&per_day, day) })
            .collect(),
        forecast: (today..today + CHART_DAYS)
            .map(|day| DayReviews { label: label(day), count: on(&due_per_day, day) })
            .collect(),
    })
}

/// The moments a history filter's dates cover (both days included, in the learner's days),
/// and why a date was left out, if one was.
pub fn date_range(filter: &HistoryFilter, utc_offset_min: i32) -> (Range<i64>, Option<String>) {
    let mut problems = Vec::new();
    let mut day = |text: &Option<String>, which: &str| {
        let text = text.as_deref().map(str::trim).filter(|t| !t.is_empty())?;
        match chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d") {
            Ok(date) => Some(date.signed_duration_since(chrono::NaiveDate::default()).num_days()),
            Err(_) => {
                problems.push(format!(
                    "The {which} date \"{text}\" is not a date like 2026-11-22, so it was left out."
                ));
                None
            }
        }
    };
    let from = day(&filter.from, "first");
    let to = day(&filter.to, "last");
    if let (Some(from), Some(to)) = (from, to)
        && from > to
    {
        problems.push("The first date is after the last, so no session can fall between them.".into());
    }
    let start = from.map_or(i64::MIN, |d| start_of_day(d, utc_offset_min));
    let end = to.map_or(i64::MAX, |d| start_of_day(d + 1, utc_offset_min));
    (start..end, (!problems.is_empty()).then(|| problems.join(" ")))
}

/// Study time of a session, counting a stretch still under way.
fn active_ms(session: &SessionRow, now: i64) -> i64 {
    session.state.active_ms + session.state.resumed_at.map_or(0, |start| (now - start).max(0))
}

/// Consecutive study days ending today, or yesterday when today has none yet (the streak is
/// not lost until the day is over). `days` is newest first.
fn streak(days: &[i64], today: i64) -> u32 {
    let Some(&latest) = days.first() else { return 0 };
    if latest < today - 1 {
        return 0;
    }
    let run = days.iter().zip(0..).take_while(|&(&day, i)| day == latest - i).count();
    count(run)
}

/// "Sun 22 Nov" for a day number.
fn label(day: i64) -> String {
    chrono::DateTime::from_timestamp_millis(day * DAY_MS)
        .map(|at| at.format("%a %-d %b").to_string())
        .unwrap_or_default()
}

fn count(n: impl TryInto<u32>) -> u32 {
    n.try_into().unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_streak_runs_back_from_today_or_yesterday() {
        assert_eq!(streak(&[], 100), 0);
        assert_eq!(streak(&[100, 99, 98, 96], 100), 3);
        assert_eq!(streak(&[99, 98], 100), 2, "today is not over yet");
        assert_eq!(streak(&[98, 97], 100), 0, "yesterday was missed");
        assert_eq!(streak(&[100], 100), 1);
    }

    #[test]
    fn date_filters_cover_whole_days_in_the_learners_zone() {
        let filter = |from: &str, to: &str| HistoryFilter {
            from: Some(from.into()),
            to: Some(to.into()),
            ..HistoryFilter::default()
        };
        let at = 1_795_390_200_000; // 2026-11-22 23:30 UTC
        let (range, error) = date_range(&filter("2026-11-22", "2026-11-22"), 0);
        assert!(range.contains(&at) && error.is_none());
        let (range, _) = date_range(&filter("2026-11-22", "2026-11-22"), 60);
        assert!(!range.contains(&at), "already the 23rd an hour east");
        let (range, error) = date_range(&filter("22/11/2026", ""), 0);
        assert_eq!(range, i64::MIN..i64::MAX);
        assert!(error.unwrap().contains("\"22/11/2026\" is not a date"));
        let (range, error) = date_range(&filter("2026-11-23", "2026-11-22"), 0);
        assert!(range.is_empty() && error.is_some());
    }

    #[test]
    fn days_are_labelled_by_their_date() {
        assert_eq!(label(day_of(1_795_390_200_000, 0)), "Sun 22 Nov");
    }
}

//! The dashboard's study statistics, and its charts of a count per day (reviews in the last
//! 30 days, points due in the next 30): SVGs drawn on the server (readable without
//! JavaScript), with their figures also given as tables.

use leptos::prelude::*;

use crate::api::{DayReviews, StudyStats};
use crate::format::{plural, span};

/// `part` of `whole` in whole percent, rounded (6 of 7 is 86 %), but never 100 % short of all
/// nor 0 % above none.
fn share_percent(part: u32, whole: u32) -> u64 {
    let (part, whole) = (u64::from(part), u64::from(whole.max(1)));
    let rounded = (part * 200 + whole) / (whole * 2);
    match part {
        0 => 0,
        p if p >= whole => 100,
        _ => rounded.clamp(1, 99),
    }
}

#[component]
pub fn StudyStatsView(stats: StudyStats) -> impl IntoView {
    let rate = if stats.asked_7d == 0 {
        "no points asked yet".to_string()
    } else {
        let percent = share_percent(stats.recalled_7d, stats.asked_7d);
        format!("{percent}% ({} of {})", stats.recalled_7d, plural(i64::from(stats.asked_7d), "point"))
    };
    let streak = match (stats.streak_days, stats.studied_today) {
        (0, _) => "no streak yet".to_string(),
        (n, true) => plural(i64::from(n), "day"),
        (n, false) => format!("{}, study today to keep it", plural(i64::from(n), "day")),
    };
    view! {
        <section class="stats" aria-labelledby="stats-heading" data-testid="stats">
            <h2 id="stats-heading">"Your study"</h2>
            <dl class="stat-grid">
                <div><dt>"Today"</dt><dd data-testid="stat-today">
                    {format!("{} · {}", plural(i64::from(stats.sessions_today), "session"), span(stats.study_ms_today))}
                </dd></div>
                <div><dt>"Due now"</dt><dd data-testid="stat-due">{plural(i64::from(stats.due_now), "point")}</dd></div>
                <div><dt>"Streak"</dt><dd data-testid="stat-streak">{streak}</dd></div>
                <div><dt>"Recalled, last 7 days"</dt><dd data-testid="stat-rate">{rate}</dd></div>
            </dl>
            <DayChart
                days=stats.reviews
                title="Reviews per day, last 30 days"
                column="Reviews"
                noun="review"
                id="reviews"
                past=true
            />
            <DayChart
                days=stats.forecast
                title="Points due per day, next 30 days"
                column="Due"
                noun="point"
                id="forecast"
                past=false
            />
        </section>
    }
}

/// Bars of a count per day, in the order given: the reviews of the last 30 days, or the
/// points due in the next 30.
#[component]
fn DayChart(
    days: Vec<DayReviews>,
    title: &'static str,
    column: &'static str,
    noun: &'static str,
    id: &'static str,
    /// Days before today (the table then lists them newest first).
    past: bool,
) -> impl IntoView {
    const BAR: usize = 10;
    const GAP: usize = 2;
    const HEIGHT: u32 = 80;
    let width = days.len() * (BAR + GAP);
    let most = days.iter().map(|d| d.count).max().unwrap_or(0).max(1);
    let total: u32 = days.iter().map(|d| d.count).sum();
    let summary = match (days.first(), days.last()) {
        (Some(first), Some(last)) => format!(
            "{} from {} to {}; the most in one day, {}.",
            plural(i64::from(total), noun),
            first.label,
            last.label,
            days.iter().map(|d| d.count).max().unwrap_or(0)
        ),
        (None, _) | (_, None) => "No days to show.".to_string(),
    };
    let bars = days
        .iter()
        .enumerate()
        .map(|(i, day)| {
            // At least a sliver for days with reviews, so one review is visible beside forty.
            let h = if day.count == 0 { 0 } else { (day.count * HEIGHT / most).max(2) };
            view! {
                <rect x=i * (BAR + GAP) y=HEIGHT - h width=BAR height=h rx="1">
                    <title>{format!("{}: {}", day.label, plural(i64::from(day.count), noun))}</title>
                </rect>
            }
        })
        .collect_view();
    // The table starts at today: the past newest first, the future soonest first.
    let mut ordered: Vec<&DayReviews> = days.iter().collect();
    if past {
        ordered.reverse();
    }
    let rows = ordered
        .into_iter()
        .map(|d| view! { <tr><th scope="row">{d.label.clone()}</th><td>{d.count}</td></tr> })
        .collect_view();
    let (title_id, desc_id) = (format!("{id}-title"), format!("{id}-desc"));
    if total == 0 {
        // Empty bars say nothing a sentence cannot.
        let none = if past { "none yet." } else { "nothing due." };
        return view! {
            <figure class="chart" data-testid=format!("{id}-chart")>
                <figcaption>{format!("{title}: {none}")}</figcaption>
            </figure>
        }
        .into_any();
    }
    view! {
        // The caption first: under the bars it read as the caption of the chart before.
        <figure class="chart" data-testid=format!("{id}-chart")>
            <figcaption>{format!("{title}: {summary}")}</figcaption>
            <svg
                viewBox=format!("0 0 {width} {}", HEIGHT + 1)
                role="img"
                aria-labelledby=format!("{id}-title {id}-desc")
                preserveAspectRatio="none"
            >
                <title id=title_id>{title}</title>
                <desc id=desc_id>{summary.clone()}</desc>
                <line class="baseline" x1="0" y1=HEIGHT x2=width y2=HEIGHT />
                {bars}
            </svg>
            <details>
                <summary>"As a table"</summary>
                <table class="chart-table">
                    <thead><tr><th scope="col">"Day"</th><th scope="col">{column}</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </details>
        </figure>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::share_percent;

    #[test]
    fn a_share_is_rounded_but_all_and_none_are_kept_apart() {
        assert_eq!(share_percent(6, 7), 86);
        assert_eq!(share_percent(1, 3), 33);
        assert_eq!(share_percent(1, 2), 50);
        assert_eq!(share_percent(199, 200), 99);
        assert_eq!(share_percent(1, 1000), 1);
        assert_eq!(share_percent(0, 7), 0);
        assert_eq!(share_percent(7, 7), 100);
    }
}

//! Study statistics on the dashboard and the history filters, from real sessions, in the
//! learner's own days.

use serde_json::json;
use warren_app::api::{Dashboard, HistoryList};
use warren_app::protocol::ServerMessage;

use crate::common::{Learner, TestApp};

async fn dashboard(app: &TestApp, who: &Learner, tz: i32) -> Dashboard {
    let res = app
        .http
        .post(app.url("/api/get_dashboard"))
        .header("cookie", format!("{}; tz={tz}", who.cookie))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    res.json().await.unwrap()
}

pub async fn history(app: &TestApp, tz: i32, args: &[(&str, &str)]) -> HistoryList {
    let args: Vec<(String, &str)> = args.iter().map(|(k, v)| (format!("filter[{k}]"), *v)).collect();
    let res = app
        .http
        .post(app.url("/api/get_history"))
        .header("cookie", format!("{}; tz={tz}", app.learner.cookie))
        .form(&args)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    res.json().await.unwrap()
}

/// Today's date for a learner `tz` minutes ahead of UTC.
fn today(tz: i32) -> chrono::NaiveDate {
    (chrono::Utc::now() + chrono::Duration::minutes(i64::from(tz))).date_naive()
}

#[tokio::test]
async fn the_dashboard_counts_todays_study_the_streak_the_recall_rate_and_the_reviews() {
    let app = TestApp::spawn().await;
    let fresh = dashboard(&app, &app.learner, 0).await.stats;
    assert_eq!((fresh.sessions_today, fresh.streak_days, fresh.asked_7d, fresh.recalled_7d), (0, 0, 0, 0));
    assert_eq!(fresh.reviews.len(), 30);
    assert!(fresh.reviews.iter().all(|d| d.count == 0));
    assert!(fresh.due_now > 0, "the demo sets are due");

    let (session, points) = app.start("The living cell").await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    ws.say(&points[0].content).await;
    ws.say(&points[1].content).await;
    ws.send(json!({"type": "leave_session"})).await;
    ws.until(|m| matches!(m, ServerMessage::SessionPaused(_))).await;

    let stats = dashboard(&app, &app.learner, 0).await.stats;
    assert_eq!(stats.sessions_today, 1);
    assert!(stats.study_ms_today > 0, "{stats:?}");
    assert_eq!((stats.streak_days, stats.studied_today), (1, true));
    // Asked: the two points put to the learner before they left, not the three never reached.
    assert_eq!((stats.recalled_7d, stats.asked_7d), (2, 2));
    assert_eq!(stats.reviews.last().unwrap().count, 2, "today is the last bar");
    assert_eq!(stats.reviews.iter().map(|d| d.count).sum::<u32>(), 2);
    assert_eq!(stats.due_now, fresh.due_now - 2, "two points are scheduled ahead now");

    // The page draws it without JavaScript: an SVG with a title and description, a caption,
    // and the figures as a table.
    let (status, html) = app.page("/").await;
    assert_eq!(status, 200);
    assert!(html.contains("role=\"img\"") && html.contains("Reviews per day, last 30 days"), "{html}");
    assert!(html.contains("2 reviews from"), "the text alternative sums it up");
    assert!(html.contains("<table class=\"chart-table\""));
    assert!(html.contains("1 session"));
    // With sets already, a new one is still a click away.
    let more = html
        .split("data-testid=\"more-sets\"")
        .nth(1)
        .and_then(|p| p.split("</p>").next())
        .unwrap_or_default();
    assert!(
        ["/sets/new\"", "/sets/new/source\"", "/import\""].iter().all(|href| more.contains(href)),
        "{html}"
    );

    // Another learner's numbers are their own.
    let other = app.sign_up("another").await;
    let theirs = dashboard(&app, &other, 0).await.stats;
    assert_eq!((theirs.sessions_today, theirs.recalled_7d), (0, 0));
}

#[tokio::test]
async fn history_filters_by_set_and_by_dates_in_the_learners_days() {
    let app = TestApp::spawn().await;
    let (cell, cell_points) = app.start("The living cell").await;
    let (rome, _) = app.start("Rome: from republic to empire").await;
    let cell_set = cell_points[0].set_id.clone();

    let all = history(&app, 0, &[]).await;
    assert_eq!(all.sessions.len(), 2);
    assert_eq!(all.sets.len(), 2, "only sets with sessions are offered");

    let only = history(&app, 0, &[("set", &cell_set)]).await;
    assert_eq!(only.sessions.iter().map(|s| s.card.id.as_str()).collect::<Vec<_>>(), vec![cell.as_str()]);
    assert!(history(&app, 0, &[("set", "not-a-set")]).await.sessions.is_empty());

    // Today, in whatever zone the learner is in, holds both; the day after holds neither.
    for tz in [-600, 0, 330, 780] {
        let day = today(tz).format("%Y-%m-%d").to_string();
        let list = history(&app, tz, &[("from", &day), ("to", &day)]).await;
        assert_eq!(list.sessions.len(), 2, "tz {tz} on {day}");
        let tomorrow = today(tz).succ_opt().unwrap().format("%Y-%m-%d").to_string();
        assert!(history(&app, tz, &[("from", &tomorrow)]).await.sessions.is_empty(), "tz {tz}");
        assert_eq!(history(&app, tz, &[("to", &day)]).await.sessions.len(), 2);
    }

    // A date that is not one is said so, and left out.
    let list = history(&app, 0, &[("from", "yesterday")]).await;
    assert_eq!(list.sessions.len(), 2);
    assert!(list.filter_error.unwrap().contains("\"yesterday\" is not a date"));

    // The page: a plain GET form, with the choice kept.
    let (status, html) = app.page(&format!("/history?set={cell_set}")).await;
    assert_eq!(status, 200);
    assert!(html.contains("method=\"get\"") && html.contains("type=\"date\""), "{html}");
    assert!(html.contains(&format!("/history/{cell}")) && !html.contains(&format!("/history/{rome}")));
}

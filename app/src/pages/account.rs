//! The learner's account: change the password (every other sign-in ends), see every sign-in
//! and end any of them, download everything, delete the account. Plain forms posting to
//! `/account/*`, which come back here with what happened in the query string.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::api::{AccountPage, FitRun, ScheduleFit, SignInRow, get_account};
use crate::components::await_progress::AwaitProgress;
use crate::components::fields::NumberField;
use crate::components::usage::UsageTable;
use crate::components::widgets::loaded;
use crate::format::{ago, plural};
use crate::forms::{PasswordProblem, limits};

/// What a form reports back, by the code in `?done=` or `?error=`.
fn notice(code: &str) -> (String, bool) {
    if let Ok(problem) = code.parse::<PasswordProblem>() {
        return (problem.message(), false);
    }
    let (text, good) = match code {
        "password" => ("Your password is changed. Every other sign-in has ended.", true),
        "ended" => ("That sign-in has ended.", true),
        "others" => ("Every other sign-in has ended.", true),
        "current" => ("That is not your current password.", false),
        "same" => ("The new password is the one you have. Choose another.", false),
        "unknown" => ("There is no such sign-in (it may have ended already).", false),
        "throttled" => ("Too many attempts. Wait a minute, then try again.", false),
        "confirm" => ("Type your username exactly as shown to delete your account.", false),
        "retention" => ("Your schedule now aims for that recall.", true),
        "retention_range" => ("Choose a recall between 70 % and 97 %.", false),
        "leech_range" => ("Choose between 2 and 20 failures.", false),
        "fit_few" => ("There are not enough reviews to fit yet.", false),
        "review_limits" => ("Today's review now keeps to those limits.", true),
        "per_session_range" => ("Choose between 1 and 500 points a session.", false),
        "new_per_day_range" => ("Choose between 0 and 500 new points a day.", false),
        "fit_running" => ("Your schedule is being fitted already.", false),
        "busy" => (
            "One of your sessions is running on another server and did not stop in time. Nothing was deleted; try again in a minute.",
            false,
        ),
        _ => ("Something went wrong on our side. Try again.", false),
    };
    (text.into(), good)
}

/// The section of the page whose form a notice is about (the one the page opens at).
fn section_of(code: &str) -> Option<&'static str> {
    match code {
        "password" | "throttled" => Some("password"),
        "ended" | "others" | "unknown" => Some("sign-ins"),
        "retention" => Some("schedule"),
        "review_limits" => Some("review-limits"),
        "busy" => Some("delete"),
        _ => None,
    }
}

/// Whether a code is about the new password (worded next to its field).
fn about_new_password(code: &str) -> bool {
    code == "same" || code.parse::<PasswordProblem>().is_ok()
}

#[component]
pub fn AccountPage() -> impl IntoView {
    let data = Resource::new(|| (), |_| get_account());
    view! {
        <Title text="Your account" />
        {loaded(data, |page: AccountPage| view! { <AccountView page /> })}
    }
}

#[component]
fn AccountView(page: AccountPage) -> impl IntoView {
    let query = use_query_map();
    let done = query.with_untracked(|q| q.get("done"));
    let error = query.with_untracked(|q| q.get("error"));
    // "Fitting…" is said by the fit's own section while it runs, and stale once it has ended.
    let done = done.filter(|code| code != "fitting");
    let general = done.clone().or_else(|| {
        error.clone().filter(|e| {
            !about_new_password(e)
                && ![
                    "current",
                    "confirm",
                    "retention_range",
                    "leech_range",
                    "per_session_range",
                    "new_per_day_range",
                ]
                .contains(&e.as_str())
        })
    });
    let confirm_error = error.clone().filter(|e| e == "confirm").map(|e| notice(&e).0);
    let current_error = error.clone().filter(|e| e == "current").map(|e| notice(&e).0);
    let new_error = error.filter(|e| about_new_password(e)).map(|e| notice(&e).0);
    let moved = query.with_untracked(|q| q.get("moved")).and_then(|m| m.parse::<i64>().ok());
    // A retention saved says how many due dates it moved, rather than the generic notice.
    // Said in the section its form is in (the page opens there), or at the top.
    let at = general.as_deref().and_then(section_of);
    let general = general.map(|code| match (code.as_str(), moved) {
        ("retention", Some(moved)) if done.is_some() => {
            (format!("Your schedule now aims for that recall. {} moved.", plural(moved, "due date")), true)
        }
        _ => notice(&code),
    });
    let said_in = move |section: Option<&str>| {
        (at == section).then(|| general.clone()).flatten().map(|(text, good)| {
            let class = if good { "form-notice" } else { "form-error" };
            view! { <p class=class role="status" data-testid="account-notice">{text}</p> }
        })
    };
    let field_error =
        |code: &str| query.with_untracked(|q| q.get("error")).filter(|e| e == code).map(|e| notice(&e).0);
    // A form that came back with an error shows what was typed in it, not what is stored.
    let shown = |name: &str, stored: u32| {
        query
            .with_untracked(|q| q.get("error").is_some().then(|| q.get(name)).flatten())
            .unwrap_or_else(|| stored.to_string())
    };
    let retention_error = field_error("retention_range");
    let leech_error = field_error("leech_range");
    let per_session_error = field_error("per_session_range");
    let new_per_day_error = field_error("new_per_day_range");
    let others = page.sign_ins.iter().filter(|s| !s.current).count();
    let now = page.now;
    view! {
        <section class="page narrow account">
            <h1>"Your account"</h1>
            <p class="lede">"Signed in as " <strong data-testid="account-username">{page.username.clone()}</strong>"."</p>
            {said_in(None)}

            <h2 id="password">"Change your password"</h2>
            {said_in(Some("password"))}
            <form method="post" action="/account/password" class="stack" data-testid="password-form">
                <input type="hidden" name="username" value=page.username.clone() autocomplete="username" />
                <label>
                    "Current password"
                    <input
                        name="current"
                        type="password"
                        autocomplete="current-password"
                        required
                        maxlength=limits::PASSWORD.to_string()
                    />
                    {current_error.map(|e| view! { <small class="field-error" role="alert">{e}</small> })}
                </label>
                <label>
                    "New password"
                    <input
                        name="new"
                        type="password"
                        autocomplete="new-password"
                        required
                        minlength=limits::PASSWORD_MIN.to_string()
                        maxlength=limits::PASSWORD.to_string()
                    />
                    <small>
                        {format!("At least {} characters. Every other sign-in of yours ends.", limits::PASSWORD_MIN)}
                    </small>
                    {new_error.map(|e| view! { <small class="field-error" role="alert">{e}</small> })}
                </label>
                <button type="submit" class="button primary">"Change password"</button>
            </form>

            <h2 id="sign-ins">"Where you are signed in"</h2>
            {said_in(Some("sign-ins"))}
            <ul class="sign-ins" data-testid="sign-ins">
                {page.sign_ins.into_iter().map(|s| view! { <SignInItem sign_in=s now /> }).collect_view()}
            </ul>
            {(others > 0).then(|| view! {
                <form method="post" action="/account/sign-ins/end-others">
                    <button type="submit" class="button">
                        {format!("Sign out everywhere else ({})", plural(others as i64, "sign-in"))}
                    </button>
                </form>
            })}

            <h2 id="schedule">"Your schedule"</h2>
            {said_in(Some("schedule"))}
            <form method="post" action="/account/schedule" class="stack" data-testid="schedule-form">
                <NumberField
                    label="Recall to aim for, in percent"
                    name="retention"
                    range=70..=97
                    value=shown("retention", page.retention_percent)
                    testid="retention"
                    hint="The chance of still remembering a point when it comes back. Higher means more reviews and better recall; lower means fewer reviews and more forgetting. 90 % suits most learners."
                    error=retention_error
                />
                <NumberField
                    label="Flag a point that keeps slipping away after this many failures"
                    name="leech_lapses"
                    range=2..=20
                    value=shown("leech_lapses", page.leech_lapses)
                    testid="leech-lapses"
                    hint="The set's page marks such points, with a suggestion to split or reword them."
                    error=leech_error
                />
                <button type="submit" class="button">"Save"</button>
            </form>

            <FitSection fit=page.fit now />

            <h2 id="review-limits">"Today's review"</h2>
            {said_in(Some("review-limits"))}
            <form method="post" action="/account/review-limits" class="stack" data-testid="review-limits-form">
                <NumberField
                    label="Points in one review session, at most"
                    name="points_per_session"
                    range=1..=500
                    value=shown("points_per_session", page.review_points_per_session)
                    testid="points-per-session"
                    hint="When more is due, the dashboard says how many are left for another session today."
                    error=per_session_error
                />
                <NumberField
                    label="New points a day, at most"
                    name="new_per_day"
                    range=0..=500
                    value=shown("new_per_day", page.new_points_per_day)
                    testid="new-per-day"
                    hint="Points never reviewed before. Reviews of points you know come first."
                    error=new_per_day_error
                />
                <button type="submit" class="button">"Save"</button>
            </form>

            <h2 id="usage">"The language model this month"</h2>
            <UsageSection usage=page.month_usage allowance=page.allowance now />

            <h2 id="export">"Take your data with you"</h2>
            <p>
                "One zip file with everything: each recall set (with its schedule and images), each session with every message, and every summary. "
                "Bring it to "<a href="/import">"Import"</a>" (on the Sets page), on this or another Warren, and it all comes back."
            </p>
            <p><a class="button" href="/account/export" download data-testid="export-account">"Download everything"</a></p>

            <h2 id="delete">"Delete your account"</h2>
            {said_in(Some("delete"))}
            <p>
                "This deletes your account and everything in it, at once and for good: every set, session, summary and image. "
                "Every sign-in ends. Download everything first if you may want it back."
            </p>
            <form method="post" action="/account/delete" class="stack" data-testid="delete-form">
                <label>
                    {format!("Type your username, {}, to confirm", page.username)}
                    <input name="username" required autocomplete="off" autocapitalize="none" spellcheck="false" maxlength=limits::USERNAME />
                    {confirm_error.map(|e| view! { <small class="field-error" role="alert">{e}</small> })}
                </label>
                <button type="submit" class="button danger">"Delete my account and everything in it"</button>
            </form>
        </section>
    }
}

/// "Fit my schedule": what a fit learns from, the button (or how many more reviews it needs),
/// and the latest run: its progress while it runs, its figures once done.
#[component]
fn FitSection(fit: ScheduleFit, now: i64) -> impl IntoView {
    let ScheduleFit { items, any_fit, full_fit, run } = fit;
    let running = matches!(run, Some(FitRun::Running { .. }));
    let enough = items >= any_fit;
    let reviews = |n: u32| plural(i64::from(n), "review");
    let readiness = if !enough {
        format!(
            "Fitting needs {} it can learn from: each a day or more after an earlier review of the same point, at a spacing your reviews often have (a one-off spacing is left out). You have {}: {} more are needed. Until then your schedule uses the defaults, which suit most learners.",
            reviews(any_fit),
            items,
            any_fit - items
        )
    } else if items < full_fit {
        format!(
            "With {} to learn from, a fit tunes how long a first recall lasts; {} more and it fits every parameter.",
            reviews(items),
            full_fit - items
        )
    } else {
        format!(
            "A fit learns from {}, each a day or more after an earlier review of the same point.",
            reviews(items)
        )
    };
    let figure = |x: f64| if x.is_finite() { format!("{x:.3}") } else { "–".to_string() };
    let latest = run.map(|run| match run {
        FitRun::Running { done, total } => view! {
            <div class="fit-running" data-testid="fit-running">
                <p role="status">"Fitting your schedule to your reviews…"</p>
                <AwaitProgress
                    url="/account/schedule/fit".to_string()
                    done
                    total
                    unit="steps".to_string()
                    then="/account#fit".to_string()
                    finished="The fit has finished: see its figures.".to_string()
                    test_id="fit-progress".to_string()
                />
            </div>
        }
        .into_any(),
        FitRun::Done { weekly, finished_at, items, before, after, adopted, moved } => {
            let when = format!("{} {}, from {}.", if weekly { "Fitted on its weekly round" } else { "Fitted" }, ago(now, finished_at), plural(i64::from(items), "review"));
            let outcome = if adopted {
                format!("Your fitted parameters are in use. {} moved.", plural(i64::from(moved), "due date"))
            } else {
                "The parameters you had predict your reviews better, so they stay.".to_string()
            };
            view! {
                <div class="fit-result" data-testid="fit-result">
                    <p>{when}</p>
                    <p id="fit-figures-about">"How well each set of parameters predicts your reviews (lower is better):"</p>
                    <table class="fit-figures" data-testid="fit-figures" aria-describedby="fit-figures-about">
                        <thead><tr><th scope="col">""</th><th scope="col">"Before"</th><th scope="col">"After"</th></tr></thead>
                        <tbody>
                            <tr><th scope="row">"Log loss"</th><td>{figure(before.log_loss)}</td><td>{figure(after.log_loss)}</td></tr>
                            <tr><th scope="row">"RMSE"</th><td>{figure(before.rmse)}</td><td>{figure(after.rmse)}</td></tr>
                        </tbody>
                    </table>
                    <p data-testid="fit-outcome">{outcome}</p>
                </div>
            }
            .into_any()
        }
        FitRun::Failed { finished_at } => view! {
            <p class="form-error" data-testid="fit-failed">
                {format!("The fit {} could not finish; your schedule is unchanged. Try again.", ago(now, finished_at))}
            </p>
        }
        .into_any(),
    });
    view! {
        <h2 id="fit">"Fit my schedule"</h2>
        <p>
            "Warren can learn how your memory works from your own reviews and time each point to it. "
            "It fits again on its own each week once you have new reviews."
        </p>
        <p data-testid="fit-readiness">{readiness}</p>
        {latest}
        <form method="post" action="/account/schedule/fit" data-testid="fit-form">
            <button type="submit" class="button" disabled=!enough || running>"Fit my schedule"</button>
        </form>
    }
}

#[component]
fn SignInItem(sign_in: SignInRow, now: i64) -> impl IntoView {
    let browser = if sign_in.user_agent.is_empty() {
        "An unknown browser".to_string()
    } else {
        browser_name(&sign_in.user_agent)
    };
    let address =
        if sign_in.address.is_empty() { "an unknown address".to_string() } else { sign_in.address.clone() };
    let when = if sign_in.signed_in_at > 0 {
        format!("signed in {}", ago(now, sign_in.signed_in_at))
    } else {
        "signed in earlier".to_string()
    };
    view! {
        <li data-testid="sign-in" data-current=sign_in.current.to_string()>
            <span>
                <strong>{browser}</strong>" from "{address}", "{when}
                {sign_in.current.then(|| view! { " · " <em class="badge">"This one"</em> })}
            </span>
            {(!sign_in.current).then(|| view! {
                <form method="post" action=format!("/account/sign-ins/{}/end", sign_in.ref_id)>
                    <button type="submit" class="link-button">"Sign out"</button>
                </form>
            })}
        </li>
    }
}

/// A short name for a browser from what it calls itself ("Firefox on Linux").
fn browser_name(agent: &str) -> String {
    let browser = [
        ("Edg/", "Edge"),
        ("OPR/", "Opera"),
        ("Firefox/", "Firefox"),
        ("Chrome/", "Chrome"),
        ("Safari/", "Safari"),
    ]
    .iter()
    .find(|(mark, _)| agent.contains(mark))
    .map_or("A browser", |(_, name)| name);
    let system = [
        ("Android", "Android"),
        ("iPhone", "iOS"),
        ("iPad", "iPadOS"),
        ("Windows", "Windows"),
        ("Mac OS X", "macOS"),
        ("Linux", "Linux"),
    ]
    .iter()
    .find(|(mark, _)| agent.contains(mark))
    .map(|(_, name)| *name);
    match system {
        Some(system) => format!("{browser} on {system}"),
        None => browser.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::browser_name;

    #[test]
    fn browsers_are_named_from_their_user_agent() {
        let chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36";
        assert_eq!(browser_name(chrome), "Chrome on Linux");
        let safari = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Safari/604.1";
        assert_eq!(browser_name(safari), "Safari on iOS");
        assert_eq!(browser_name("curl/8.0"), "A browser");
    }
}

/// This month's (UTC) use of the language model, and the learner's allowance of it.
#[component]
fn UsageSection(
    usage: Vec<crate::usage::AgentTokens>,
    allowance: crate::api::Allowance,
    now: i64,
) -> impl IntoView {
    let tokens = |n: i64| plural(n, "token");
    let caps = [
        ("today", allowance.daily, allowance.used_today),
        ("this month", allowance.monthly, allowance.used_this_month),
    ]
    .into_iter()
    .filter_map(|(when, cap, used)| cap.map(|cap| format!("{} of {} {when}", tokens(used), cap)))
    .collect::<Vec<_>>();
    let allowance_line = match (allowance.lifted_until, caps.is_empty()) {
        (Some(until), _) => format!("Your allowance is lifted until {}.", crate::format::due(now, until)),
        (None, true) => "This server sets no allowance.".to_string(),
        (None, false) => format!(
            "Your allowance: {}. Past it, the built-in offline tutor answers until it comes round again (days and months in UTC).",
            caps.join("; ")
        ),
    };
    view! {
        <p data-testid="allowance">{allowance_line}</p>
        {if usage.is_empty() {
            view! { <p data-testid="usage-none">"No calls to a language model this month."</p> }.into_any()
        } else {
            view! { <UsageTable lines=usage test_id="month-usage" /> }.into_any()
        }}
    }
}

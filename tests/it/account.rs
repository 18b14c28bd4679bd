//! The account page: changing the password ends every other sign-in, sign-ins are listed
//! with where they began and can be ended one by one or all but this one, and none of it
//! reaches another learner's sign-ins.

use warren_app::protocol::{ErrorCode, ServerMessage};

use crate::common::{PASSWORD, TestApp, session_cookie};

const FIREFOX: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

/// Signs in as `username` with the given browser; its sign-in cookie.
async fn sign_in_with(app: &TestApp, username: &str, password: &str, agent: &str) -> Option<String> {
    let res = app
        .http
        .post(app.url("/auth/signin"))
        .header("user-agent", agent)
        .form(&[("username", username), ("password", password)])
        .send()
        .await
        .unwrap();
    (res.headers()["location"] == "/").then(|| session_cookie(&res)).flatten()
}

/// The account page as `cookie` sees it; `None` when it is sent to sign in.
async fn account(app: &TestApp, cookie: &str) -> Option<String> {
    let res = app.http.get(app.url("/account")).header("cookie", cookie).send().await.unwrap();
    (res.status() == 200).then_some(res.text().await.unwrap())
}

async fn post(app: &TestApp, cookie: &str, path: &str, form: &[(&str, &str)]) -> reqwest::Response {
    app.http.post(app.url(path)).header("cookie", cookie).form(form).send().await.unwrap()
}

fn location(res: &reqwest::Response) -> String {
    res.headers()["location"].to_str().unwrap().to_string()
}

/// The `ref` of each sign-in listed on the page that has a sign-out form (every one but the
/// page's own).
fn other_refs(html: &str) -> Vec<String> {
    html.split("/account/sign-ins/")
        .skip(1)
        .filter_map(|rest| rest.split_once("/end\"").map(|(id, _)| id.to_string()))
        .collect()
}

#[tokio::test]
async fn changing_the_password_ends_every_other_sign_in() {
    let app = TestApp::spawn().await;
    let here = app.learner.cookie.clone();
    let elsewhere = sign_in_with(&app, "learner", PASSWORD, FIREFOX).await.expect("signed in");

    // Both sign-ins are listed; this one is marked and has no sign-out button of its own.
    let page = account(&app, &here).await.unwrap();
    assert_eq!(page.matches("data-testid=\"sign-in\"").count(), 2, "{page}");
    assert_eq!(page.matches("data-current=\"true\"").count(), 1, "{page}");
    assert!(page.contains("Firefox on Linux") && page.contains("127.0.0.1"), "{page}");
    assert_eq!(other_refs(&page).len(), 1);

    // Refusals change nothing and say why.
    let wrong = post(
        &app,
        &here,
        "/account/password",
        &[("current", "not it at all"), ("new", "tea with the analytical engine")],
    )
    .await;
    assert_eq!(location(&wrong), "/account?error=current#password");
    let weak =
        post(&app, &here, "/account/password", &[("current", PASSWORD), ("new", "Password-123")]).await;
    assert_eq!(location(&weak), "/account?error=common#password");
    assert!(account(&app, &elsewhere).await.is_some(), "still signed in elsewhere");

    // A session open in the other browser.
    let (session, _) = app.start("The living cell").await;
    let mut studying = app.connect_as(Some(&elsewhere), &session).await;
    studying.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;

    let changed = post(
        &app,
        &here,
        "/account/password",
        &[("current", PASSWORD), ("new", "tea with the analytical engine")],
    )
    .await;
    assert_eq!(location(&changed), "/account?done=password#password");
    // This sign-in goes on; the other has ended, and its open session is closed at once.
    let page = account(&app, &here).await.expect("still signed in here");
    let told = studying.until(|m| matches!(m, ServerMessage::Error(_))).await;
    let Some(ServerMessage::Error(error)) = told.last() else { unreachable!() };
    assert_eq!(error.code, ErrorCode::Unauthorized);
    assert_eq!(page.matches("data-testid=\"sign-in\"").count(), 1, "{page}");
    assert!(account(&app, &elsewhere).await.is_none(), "signed out elsewhere");
    assert!(sign_in_with(&app, "learner", PASSWORD, FIREFOX).await.is_none(), "the old password is refused");
    assert!(sign_in_with(&app, "learner", "tea with the analytical engine", FIREFOX).await.is_some());
}

#[tokio::test]
async fn sign_ins_end_one_at_a_time_or_all_but_this_one_and_only_the_learners_own() {
    let app = TestApp::spawn().await;
    let here = app.learner.cookie.clone();
    let phone = sign_in_with(&app, "learner", PASSWORD, "Mozilla/5.0 (iPhone) Safari/604.1").await.unwrap();
    let laptop = sign_in_with(&app, "learner", PASSWORD, FIREFOX).await.unwrap();
    let other = app.sign_up("someone").await;

    let refs = other_refs(&account(&app, &here).await.unwrap());
    assert_eq!(refs.len(), 2);
    // Another learner cannot end them: as unknown as a name that does not exist.
    for id in &refs {
        let res = post(&app, &other.cookie, &format!("/account/sign-ins/{id}/end"), &[]).await;
        assert_eq!(location(&res), "/account?error=unknown#sign-ins");
    }
    let res = post(&app, &other.cookie, "/account/sign-ins/end-others", &[]).await;
    assert_eq!(location(&res), "/account?done=others#sign-ins");
    assert!(account(&app, &phone).await.is_some() && account(&app, &laptop).await.is_some());
    let theirs = account(&app, &other.cookie).await.expect("their own sign-in stays");
    assert_eq!(theirs.matches("data-testid=\"sign-in\"").count(), 1, "only their own: {theirs}");
    assert!(refs.iter().all(|r| !theirs.contains(r.as_str())), "{theirs}");
    // Not signed in: sent to sign in, nothing ended.
    let res = app.http.post(app.url("/account/sign-ins/end-others")).send().await.unwrap();
    assert_eq!(location(&res), "/signin?next=/account");

    // One of them ends.
    let phone_page = account(&app, &phone).await.unwrap();
    let laptop_ref =
        refs.iter().find(|r| phone_page.contains(&format!("/account/sign-ins/{r}/end"))).unwrap();
    let res = post(&app, &here, &format!("/account/sign-ins/{laptop_ref}/end"), &[]).await;
    assert_eq!(location(&res), "/account?done=ended#sign-ins");
    assert!(account(&app, &laptop).await.is_none());
    assert!(account(&app, &phone).await.is_some());

    // Then every other one.
    let res = post(&app, &here, "/account/sign-ins/end-others", &[]).await;
    assert_eq!(location(&res), "/account?done=others#sign-ins");
    assert!(account(&app, &phone).await.is_none());
    let page = account(&app, &here).await.unwrap();
    assert_eq!(page.matches("data-testid=\"sign-in\"").count(), 1, "{page}");
    assert!(!page.contains("Sign out everywhere else"), "{page}");
}

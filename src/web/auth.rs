//! Sign-up, sign-in and sign-out: plain HTML form posts that answer with a redirect, so they
//! work before (and without) the WebAssembly client. Failures go back to the form with an
//! error code in the query string; the page words it.

use std::net::IpAddr;
use std::time::Duration;

use axum::Form;
use axum::extract::State;
use axum::http::{HeaderMap, header};
use axum::response::Redirect;
use serde::Deserialize;
use tower_sessions::Session;
use warren_app::forms::limits;

use super::client_ip::ClientIp;
use super::password::{hash, verify};
use super::{AppState, query_value};
use crate::engine::demo;
use crate::store::{Store, StoreError, now_ms};
use warren_app::learner::LearnerId;

/// The key under which a sign-in session holds the learner's id (the store reads it back by
/// this name, and sessions saved under it must keep working).
pub const LEARNER_KEY: &str = "user_id";
/// When and from where (address, browser) the sign-in began.
const SIGNED_IN_KEY: &str = "signed_in";

/// The sign-in and sign-up forms.
#[derive(Deserialize)]
pub struct AuthForm {
    username: String,
    password: String,
    #[serde(default)]
    next: Option<String>,
}

/// Sign-in attempts allowed per account and per address: a burst, then one per interval.
/// The buckets are kept in the database, so every instance sharing it counts the same tries.
#[derive(Clone)]
pub struct Throttle {
    store: Store,
}

const ACCOUNT_BURST: u32 = 10;
const ADDRESS_BURST: u32 = 30;
const REFILL: Duration = Duration::from_secs(60);

impl Throttle {
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// Takes one attempt from the address's allowance, then from the account's. An address
    /// over its allowance touches no account, so it cannot fill the table with names.
    pub(super) async fn allow(&self, username: &str, address: IpAddr) -> Result<bool, StoreError> {
        if !self.allow_address(address).await? {
            return Ok(false);
        }
        // Longer names cannot be accounts; keep keys short all the same.
        let name: String = username.chars().take(warren_app::forms::limits::USERNAME).collect();
        self.store.take_token(&format!("sign-in account {name}"), ACCOUNT_BURST, REFILL).await
    }

    /// Takes one attempt from the address's allowance, which sign-ins and sign-ups share
    /// (sign-ups are limited per address only: each costs a password hash).
    async fn allow_address(&self, address: IpAddr) -> Result<bool, StoreError> {
        self.store.take_token(&format!("address {address}"), ADDRESS_BURST, REFILL).await
    }
}

/// Why an attempt counted by [`Throttle`] may not go on, as the page's error code: over its
/// allowance (`throttled`), or the count could not be kept (`server`, logged). `None`: go on.
pub(super) fn refusal(allowed: Result<bool, StoreError>, attempt: &str) -> Option<&'static str> {
    match allowed {
        Ok(true) => None,
        Ok(false) => Some("throttled"),
        Err(err) => {
            tracing::error!("cannot count {attempt}: {err}");
            Some("server")
        }
    }
}

/// Lower-cased; 3 to 32 letters, digits, dots, dashes or underscores.
fn normalise_username(raw: &str) -> Option<String> {
    let name = raw.trim().to_lowercase();
    let ok = (limits::USERNAME_MIN..=limits::USERNAME).contains(&name.chars().count())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
    ok.then_some(name)
}

/// Only paths on this site, in plain characters: `/sets?x=1`, never `//host`, `/\\host`, or a
/// path with whitespace or control characters that a browser might strip into `//host`.
fn safe_next(next: Option<&str>) -> &str {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/-_.~?=&%".contains(c);
    match next {
        Some(path) if path.starts_with('/') && !path.starts_with("//") && path.chars().all(plain) => path,
        _ => "/",
    }
}

fn back_to(page: &str, error: &str, username: &str, next: Option<&str>) -> Redirect {
    let mut url = format!("{page}?error={error}&username={}", query_value(username));
    if let Some(next) = next.filter(|n| *n != "/") {
        url.push_str(&format!("&next={}", query_value(next)));
    }
    Redirect::to(&url)
}

/// Binds the browser's session to the learner under a new session id (no fixation), noting
/// when and from where for the account page's list of sign-ins.
async fn sign_in_as(session: &Session, learner: &LearnerId, address: IpAddr, headers: &HeaderMap) -> bool {
    let agent: String = headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .chars()
        .take(300)
        .collect();
    let from = serde_json::json!({ "at": now_ms(), "address": address.to_string(), "agent": agent });
    session.cycle_id().await.is_ok()
        && session.insert(LEARNER_KEY, learner).await.is_ok()
        && session.insert(SIGNED_IN_KEY, from).await.is_ok()
}

pub async fn sign_up(
    State(state): State<AppState>,
    ClientIp(client): ClientIp,
    session: Session,
    headers: HeaderMap,
    Form(form): Form<AuthForm>,
) -> Redirect {
    let next = form.next.as_deref();
    if let Some(code) = refusal(state.throttle.allow_address(client).await, "a sign-up attempt") {
        return back_to("/signup", code, &form.username, next);
    }
    let Some(username) = normalise_username(&form.username) else {
        return back_to("/signup", "username", &form.username, next);
    };
    if let Some(reason) = super::password::weakness(&form.password, &username) {
        return back_to("/signup", reason.as_str(), &username, next);
    }
    let Some(password_hash) = hash(form.password).await else {
        return back_to("/signup", "server", &username, next);
    };
    let learner = match state.store.create_account(&username, &password_hash).await {
        Ok(Some(id)) => id,
        Ok(None) => return back_to("/signup", "taken", &username, next),
        Err(err) => {
            tracing::error!("cannot create account: {err}");
            return back_to("/signup", "server", &username, next);
        }
    };
    if let Err(err) = demo::ensure_demo_sets(&state.store, &learner).await {
        tracing::error!("cannot add demo sets for a new account: {err}");
    }
    if !sign_in_as(&session, &learner, client, &headers).await {
        return back_to("/signin", "server", &username, next);
    }
    tracing::info!(username, "account created");
    Redirect::to(safe_next(next))
}

pub async fn sign_in(
    State(state): State<AppState>,
    ClientIp(client): ClientIp,
    session: Session,
    headers: HeaderMap,
    Form(form): Form<AuthForm>,
) -> Redirect {
    let next = form.next.as_deref();
    let username = form.username.trim().to_lowercase();
    if let Some(code) = refusal(state.throttle.allow(&username, client).await, "a sign-in attempt") {
        return back_to("/signin", code, &username, next);
    }
    let credentials = match state.store.credentials(&username).await {
        Ok(credentials) => credentials,
        Err(err) => {
            tracing::error!("cannot look up account: {err}");
            return back_to("/signin", "server", &username, next);
        }
    };
    let learner = credentials.as_ref().map(|c| c.learner.clone());
    // One answer for an unknown name and a wrong password, after the same amount of work.
    if !verify(form.password, credentials.map(|c| c.password_hash)).await {
        return back_to("/signin", "invalid", &username, next);
    }
    let Some(learner) = learner else { return back_to("/signin", "invalid", &username, next) };
    if !sign_in_as(&session, &learner, client, &headers).await {
        return back_to("/signin", "server", &username, next);
    }
    Redirect::to(safe_next(next))
}

pub async fn sign_out(State(state): State<AppState>, session: Session) -> Redirect {
    let learner = session.get::<LearnerId>(LEARNER_KEY).await.ok().flatten();
    // `flush` (not `delete`): the record goes, and the emptied session makes the browser drop
    // its cookie too.
    if let Err(err) = session.flush().await {
        tracing::warn!("cannot delete sign-in session: {err}");
    }
    // This browser's open sessions close now, not at their next check.
    if let Some(learner) = learner {
        state.engine.sign_ins_ended(&learner);
    }
    Redirect::to("/signin")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Reads;

    #[test]
    fn usernames_are_normalised_and_checked() {
        assert_eq!(normalise_username("  Ada.L "), Some("ada.l".into()));
        assert_eq!(normalise_username("ab"), None);
        assert_eq!(normalise_username("no spaces"), None);
        assert_eq!(normalise_username("ünïcode"), None);
        assert_eq!(normalise_username(&"a".repeat(33)), None);
    }

    #[test]
    fn only_local_paths_are_followed() {
        assert_eq!(safe_next(Some("/sets")), "/sets");
        assert_eq!(safe_next(Some("//evil.example")), "/");
        assert_eq!(safe_next(Some("https://evil.example")), "/");
        assert_eq!(safe_next(Some("/\\evil")), "/");
        assert_eq!(safe_next(Some("/\t/evil.example")), "/");
        assert_eq!(safe_next(Some("/ /evil.example")), "/");
        assert_eq!(safe_next(Some("/sets?tab=due")), "/sets?tab=due");
        assert_eq!(safe_next(None), "/");
    }

    async fn throttle() -> (Throttle, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&format!("sqlite://{}/t.db", dir.path().display())).await.unwrap();
        store.migrate().await.unwrap();
        (Throttle::new(store), dir)
    }

    #[tokio::test]
    async fn the_throttle_limits_per_account_and_per_address() {
        let (t, _dir) = throttle().await;
        let ip: IpAddr = [10, 0, 0, 1].into();
        for _ in 0..ACCOUNT_BURST {
            assert!(t.allow("ada", ip).await.unwrap());
        }
        assert!(!t.allow("ada", ip).await.unwrap(), "the account's allowance is spent");
        assert!(t.allow("bob", ip).await.unwrap(), "another account from the same address still may");
        assert!(
            !t.allow("ada", [10, 0, 0, 2].into()).await.unwrap(),
            "the account stays limited from elsewhere"
        );
    }

    #[tokio::test]
    async fn the_throttle_limits_one_address_across_accounts() {
        let (t, _dir) = throttle().await;
        let ip: IpAddr = [10, 0, 0, 9].into();
        for i in 0..ADDRESS_BURST {
            assert!(t.allow(&format!("user{i}"), ip).await.unwrap(), "attempt {i}");
        }
        assert!(!t.allow("yet-another", ip).await.unwrap(), "the address's allowance is spent");
        assert!(
            t.allow("yet-another", [10, 0, 0, 10].into()).await.unwrap(),
            "other addresses are unaffected"
        );
        let names: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM rate_limits WHERE key LIKE 'sign-in account %'")
                .one(t.store.read())
                .await
                .unwrap();
        assert_eq!(names, i64::from(ADDRESS_BURST) + 1, "refused attempts add no names");
    }

    #[tokio::test]
    async fn a_spent_allowance_comes_back_with_time() {
        let (t, _dir) = throttle().await;
        let key = "test bucket";
        assert!(t.store.take_token(key, 2, Duration::from_millis(200)).await.unwrap());
        assert!(t.store.take_token(key, 2, Duration::from_millis(200)).await.unwrap());
        assert!(!t.store.take_token(key, 2, Duration::from_millis(200)).await.unwrap());
        tokio::time::sleep(Duration::from_millis(450)).await;
        assert!(t.store.take_token(key, 2, Duration::from_millis(200)).await.unwrap(), "refilled");
        assert!(t.store.take_token(key, 2, Duration::from_millis(200)).await.unwrap(), "up to the burst");
        assert!(!t.store.take_token(key, 2, Duration::from_millis(200)).await.unwrap(), "never beyond it");
    }
}

//! Sign-up, sign-in and sign-out: plain HTML form posts that answer with a redirect, so they
//! work before (and without) the WebAssembly client. Failures go back to the form with an
//! error code in the query string; the page words it.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Duration;

use axum::Form;
use axum::extract::State;
use axum::response::Redirect;
use serde::Deserialize;
use tower_sessions::Session;

use super::client_ip::ClientIp;
use super::password::{hash, verify};
use super::{AppState, query_value};
use crate::engine::demo;
use crate::engine::rate::TokenBucket;

/// The key under which a sign-in session holds the learner's id.
pub const USER_KEY: &str = "user_id";
pub const MIN_PASSWORD: usize = 10;
pub const MAX_PASSWORD: usize = 200;

#[derive(Deserialize)]
pub struct Credentials {
    username: String,
    password: String,
    #[serde(default)]
    next: Option<String>,
}

/// Sign-in attempts allowed per account and per address: a burst, then one per interval.
#[derive(Default)]
pub struct Throttle {
    accounts: Mutex<HashMap<String, TokenBucket>>,
    addresses: Mutex<HashMap<IpAddr, TokenBucket>>,
}

const ACCOUNT_BURST: u32 = 10;
const ADDRESS_BURST: u32 = 30;
const REFILL: Duration = Duration::from_secs(60);
/// Past this many tracked keys, full (idle) buckets are forgotten.
const MAX_TRACKED: usize = 10_000;

impl Throttle {
    /// Takes one attempt from the address's allowance, then from the account's. An address
    /// over its allowance touches no account, so it cannot fill the table with names.
    fn allow(&self, username: &str, address: IpAddr) -> bool {
        if !take(&self.addresses, address, ADDRESS_BURST) {
            return false;
        }
        // Longer names cannot be accounts; keep keys short all the same.
        let key: String = username.chars().take(32).collect();
        take(&self.accounts, key, ACCOUNT_BURST)
    }

    /// Sign-ups are limited per address only (each costs a password hash).
    fn allow_sign_up(&self, address: IpAddr) -> bool {
        take(&self.addresses, address, ADDRESS_BURST)
    }
}

fn take<K: std::hash::Hash + Eq>(map: &Mutex<HashMap<K, TokenBucket>>, key: K, burst: u32) -> bool {
    let mut map = map.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if map.len() >= MAX_TRACKED {
        map.retain(|_, bucket| !bucket.is_full());
        // Still full of live entries: refuse newcomers rather than grow without bound.
        if map.len() >= MAX_TRACKED && !map.contains_key(&key) {
            return false;
        }
    }
    map.entry(key).or_insert_with(|| TokenBucket::new(burst, REFILL)).try_take()
}

/// Lower-cased; 3 to 32 letters, digits, dots, dashes or underscores.
fn normalise_username(raw: &str) -> Option<String> {
    let name = raw.trim().to_lowercase();
    let ok = (3..=32).contains(&name.chars().count())
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

/// Binds the browser's session to the learner under a new session id (no fixation).
async fn sign_in_as(session: &Session, user_id: &str) -> bool {
    session.cycle_id().await.is_ok() && session.insert(USER_KEY, user_id).await.is_ok()
}

pub async fn sign_up(
    State(state): State<AppState>,
    ClientIp(client): ClientIp,
    session: Session,
    Form(form): Form<Credentials>,
) -> Redirect {
    let next = form.next.as_deref();
    if !state.throttle.allow_sign_up(client) {
        return back_to("/signup", "throttled", &form.username, next);
    }
    let Some(username) = normalise_username(&form.username) else {
        return back_to("/signup", "username", &form.username, next);
    };
    let length = form.password.chars().count();
    if length < MIN_PASSWORD {
        return back_to("/signup", "short", &username, next);
    }
    if length > MAX_PASSWORD {
        return back_to("/signup", "long", &username, next);
    }
    let Some(password_hash) = hash(form.password).await else {
        return back_to("/signup", "server", &username, next);
    };
    let user_id = match state.store.create_account(&username, &password_hash).await {
        Ok(Some(id)) => id,
        Ok(None) => return back_to("/signup", "taken", &username, next),
        Err(err) => {
            tracing::error!("cannot create account: {err}");
            return back_to("/signup", "server", &username, next);
        }
    };
    if let Err(err) = demo::ensure_demo_sets(&state.store, &user_id).await {
        tracing::error!("cannot add demo sets for a new account: {err}");
    }
    if !sign_in_as(&session, &user_id).await {
        return back_to("/signin", "server", &username, next);
    }
    tracing::info!(username, "account created");
    Redirect::to(safe_next(next))
}

pub async fn sign_in(
    State(state): State<AppState>,
    ClientIp(client): ClientIp,
    session: Session,
    Form(form): Form<Credentials>,
) -> Redirect {
    let next = form.next.as_deref();
    let username = form.username.trim().to_lowercase();
    if !state.throttle.allow(&username, client) {
        return back_to("/signin", "throttled", &username, next);
    }
    let account = match state.store.account_by_username(&username).await {
        Ok(account) => account,
        Err(err) => {
            tracing::error!("cannot look up account: {err}");
            return back_to("/signin", "server", &username, next);
        }
    };
    let user_id = account.as_ref().map(|a| a.id.clone());
    // One answer for an unknown name and a wrong password, after the same amount of work.
    if !verify(form.password, account.map(|a| a.password_hash)).await {
        return back_to("/signin", "invalid", &username, next);
    }
    let Some(user_id) = user_id else { return back_to("/signin", "invalid", &username, next) };
    if !sign_in_as(&session, &user_id).await {
        return back_to("/signin", "server", &username, next);
    }
    Redirect::to(safe_next(next))
}

pub async fn sign_out(session: Session) -> Redirect {
    // `flush` (not `delete`): the record goes, and the emptied session makes the browser drop
    // its cookie too.
    if let Err(err) = session.flush().await {
        tracing::warn!("cannot delete sign-in session: {err}");
    }
    Redirect::to("/signin")
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn the_throttle_limits_per_account_and_per_address() {
        let t = Throttle::default();
        let ip: IpAddr = [10, 0, 0, 1].into();
        for _ in 0..ACCOUNT_BURST {
            assert!(t.allow("ada", ip));
        }
        assert!(!t.allow("ada", ip), "the account's allowance is spent");
        assert!(t.allow("bob", ip), "another account from the same address still may");
        assert!(!t.allow("ada", [10, 0, 0, 2].into()), "the account stays limited from elsewhere");
    }

    #[test]
    fn the_throttle_limits_one_address_across_accounts() {
        let t = Throttle::default();
        let ip: IpAddr = [10, 0, 0, 9].into();
        for i in 0..ADDRESS_BURST {
            assert!(t.allow(&format!("user{i}"), ip), "attempt {i}");
        }
        assert!(!t.allow("yet-another", ip), "the address's allowance is spent");
        assert!(t.allow("yet-another", [10, 0, 0, 10].into()), "other addresses are unaffected");
        assert_eq!(
            t.accounts.lock().unwrap().len(),
            ADDRESS_BURST as usize + 1,
            "refused attempts add no names"
        );
    }
}

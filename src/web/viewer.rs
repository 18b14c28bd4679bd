//! Who is asking. A middleware reads the sign-in session once per request and puts the
//! learner (`warren_app::api::Viewer`) into the request, where pages, server functions and the
//! socket find it. Pages need a signed-in learner; other paths decide for themselves.

use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use tower_sessions::Session;
use warren_app::api::Viewer;
use warren_app::learner::LearnerId;

use super::auth::LEARNER_KEY;
use super::query_value;
use crate::store::Store;
use warren_app::clock::TZ_COOKIE;

/// Paths that never need a learner: the sign-in pages, static files, health checks, and the
/// server functions and socket, which answer 401 themselves.
fn is_public(path: &str) -> bool {
    const PREFIXES: [&str; 8] =
        ["/pkg/", "/katex/", "/auth/", "/api/", "/ws/", "/demo/", "/signin", "/signup"];
    const EXACT: [&str; 8] =
        ["/healthz", "/readyz", "/metrics", "/favicon.ico", "/login", "/sign-in", "/register", "/sign-up"];
    EXACT.contains(&path) || PREFIXES.iter().any(|p| path.starts_with(p))
}

pub async fn resolve(
    State(store): State<Store>,
    session: Session,
    mut request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path();
    let static_file = ["/pkg/", "/katex/", "/demo/"].iter().any(|p| path.starts_with(p));
    if !static_file {
        match lookup(&store, &session).await {
            Ok(Some(mut viewer)) => {
                viewer.utc_offset_min = utc_offset(request.headers());
                request.extensions_mut().insert(viewer);
                if let Some(id) = session.id() {
                    request.extensions_mut().insert(warren_app::api::CurrentSignIn(id.to_string()));
                }
            }
            Ok(None) => {}
            // Not signed out: the database cannot say who this is just now.
            Err(()) => {
                request.extensions_mut().insert(StorageAway);
            }
        }
    }
    next.run(request).await
}

/// Set on a request whose sign-in could not be read because the database is out of reach: the
/// visitor may well be signed in, so they are told to try again rather than to sign in.
#[derive(Clone, Copy, Debug)]
pub struct StorageAway;

/// The signed-in learner, nobody, or `Err` when the database could not say.
async fn lookup(store: &Store, session: &Session) -> Result<Option<Viewer>, ()> {
    let id = match session.get::<LearnerId>(LEARNER_KEY).await {
        Ok(Some(id)) => id,
        Ok(None) => return Ok(None),
        // The store could not be asked: the database is away.
        Err(tower_sessions::session::Error::Store(tower_sessions::session_store::Error::Backend(err))) => {
            tracing::warn!("cannot read a sign-in: {err}");
            return Err(());
        }
        // A sign-in that cannot be read (not one this Warren wrote) is no sign-in.
        Err(err) => {
            tracing::warn!("a sign-in that cannot be read is taken as none: {err}");
            return Ok(None);
        }
    };
    match store.learner(&id).await {
        Ok(Some(learner)) => {
            Ok(Some(Viewer { learner: learner.id, username: learner.username, utc_offset_min: 0 }))
        }
        Ok(None) => Ok(None),
        Err(err) if err.is_unavailable() => {
            tracing::warn!("cannot load the signed-in learner: {err}");
            Err(())
        }
        Err(err) => {
            tracing::error!("cannot load the signed-in learner: {err}");
            Ok(None)
        }
    }
}

/// The learner's clock, from the `tz` cookie (minutes ahead of UTC) that every page sets; UTC
/// when it is missing or makes no sense.
fn utc_offset(headers: &HeaderMap) -> i32 {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(cookie::Cookie::split_parse)
        .filter_map(Result::ok)
        .find(|c| c.name() == TZ_COOKIE)
        .and_then(|c| c.value().parse::<i32>().ok())
        .filter(|minutes| minutes.abs() <= 14 * 60)
        .unwrap_or(0)
}

/// Pages without a learner go to sign-in (or to sign-up while nobody has an account).
pub async fn require_for_pages(State(store): State<Store>, request: Request, next: Next) -> Response {
    let path = request.uri().path();
    if request.extensions().get::<Viewer>().is_some() || is_public(path) || request.method() != Method::GET {
        return next.run(request).await;
    }
    if request.extensions().get::<StorageAway>().is_some() {
        let why = "Warren cannot reach its database just now; nothing is lost. Try again in a moment.";
        return (StatusCode::SERVICE_UNAVAILABLE, [(header::RETRY_AFTER, "5")], why).into_response();
    }
    let page = match store.account_count().await {
        Ok(0) => "/signup",
        _ => "/signin",
    };
    let target = request.uri().path_and_query().map(|p| p.as_str()).unwrap_or("/");
    if target == "/" {
        Redirect::to(page).into_response()
    } else {
        Redirect::to(&format!("{page}?next={}", query_value(target))).into_response()
    }
}

/// Refuses state-changing requests (and socket upgrades) sent from another site. Session
/// cookies are SameSite=Lax already; this is the second lock.
pub async fn same_origin(request: Request, next: Next) -> Response {
    let upgrade = request.headers().contains_key(header::UPGRADE);
    let unsafe_method = !matches!(*request.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if (upgrade || unsafe_method) && !origin_matches(request.headers()) {
        return (StatusCode::FORBIDDEN, "Cross-site request refused.").into_response();
    }
    next.run(request).await
}

fn origin_matches(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        // Non-browser clients send no Origin; browsers always do on these requests.
        return true;
    };
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or_default();
    origin.split_once("://").is_some_and(|(_, rest)| rest == host)
}

/// The signed-in learner, if any, for handlers that answer "not signed in" their own way.
pub struct CurrentViewer(pub Option<Viewer>);

impl<S: Send + Sync> FromRequestParts<S> for CurrentViewer {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(CurrentViewer(parts.extensions.get::<Viewer>().cloned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_must_match_the_host() {
        let mut h = HeaderMap::new();
        assert!(origin_matches(&h), "no Origin: not a browser");
        h.insert(header::HOST, "127.0.0.1:3000".parse().unwrap());
        h.insert(header::ORIGIN, "http://127.0.0.1:3000".parse().unwrap());
        assert!(origin_matches(&h));
        h.insert(header::ORIGIN, "http://evil.example".parse().unwrap());
        assert!(!origin_matches(&h));
    }

    #[test]
    fn the_clock_cookie_is_read_and_bounded() {
        let mut h = HeaderMap::new();
        assert_eq!(utc_offset(&h), 0);
        h.insert(header::COOKIE, "id=abc; tz=-300".parse().unwrap());
        assert_eq!(utc_offset(&h), -300);
        h.insert(header::COOKIE, "tz=99999".parse().unwrap());
        assert_eq!(utc_offset(&h), 0);
        h.insert(header::COOKIE, "tz=soon".parse().unwrap());
        assert_eq!(utc_offset(&h), 0);
    }

    #[test]
    fn public_paths() {
        assert!(is_public("/pkg/warren.js") && is_public("/signin") && is_public("/api/get_viewer"));
        assert!(!is_public("/") && !is_public("/sets") && !is_public("/sessions/abc"));
    }
}

//! How long browsers keep what they are sent. The client's files carry a hash of their
//! content in their names (`pkg/warren.<16 hex digits>.js`, `_bg.wasm`, `.css`; see
//! `scripts/lib.sh`), so a name never comes back with other bytes: they are kept for a year
//! without asking. Everything else is asked for again each time unless its handler says
//! otherwise (pages carry a nonce of their own and the learner's data; a file the browser
//! already has is answered with 304 Not Modified). Pages are not kept at all: a page kept
//! would come back on Back as it was (a session "2 of 4 recalled" that has moved on, or the
//! learner's dashboard after they signed out), and each page is made anew with its own nonce.

use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;

const FOR_GOOD: &str = "public, max-age=31536000, immutable";

pub async fn cache_control(request: Request, next: Next) -> Response {
    let hashed = content_hashed(request.uri().path());
    let mut response = next.run(request).await;
    let ok = response.status().is_success();
    let headers = response.headers_mut();
    if hashed && ok {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(FOR_GOOD));
    } else if !headers.contains_key(header::CACHE_CONTROL) {
        let page = headers
            .get(header::CONTENT_TYPE)
            .and_then(|t| t.to_str().ok())
            .is_some_and(|t| t.starts_with("text/html"));
        let policy = if page { "no-store" } else { "no-cache" };
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(policy));
    }
    response
}

/// Whether `path` names one of the client's files by its content hash.
fn content_hashed(path: &str) -> bool {
    let Some(rest) = path.strip_prefix("/pkg/warren.") else { return false };
    let (Some(hash), Some(kind)) = (rest.get(..16), rest.get(16..)) else { return false };
    hash.bytes().all(|b| b.is_ascii_hexdigit()) && matches!(kind, ".js" | "_bg.wasm" | ".css")
}

#[cfg(test)]
mod tests {
    use super::content_hashed;

    #[test]
    fn only_the_client_files_named_by_their_hash_are_kept_for_good() {
        for path in [
            "/pkg/warren.0123456789abcdef.js",
            "/pkg/warren.0123456789abcdef_bg.wasm",
            "/pkg/warren.0123456789abcdef.css",
        ] {
            assert!(content_hashed(path), "{path}");
        }
        for path in [
            "/pkg/warren.js",
            "/pkg/warren.css",
            "/pkg/warren_bg.wasm",
            "/pkg/warren.0123456789abcdeg.js",
            "/pkg/warren.0123456789abcde.js",
            "/pkg/warren.0123456789abcdef.html",
            "/pkg/bundle.json",
            "/katex/katex.min.js",
            "/",
        ] {
            assert!(!content_hashed(path), "{path}");
        }
    }
}

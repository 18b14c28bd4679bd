//! Headers every response carries, whatever made it (a page, a server function, a static
//! file, an image, a refused socket upgrade, an error page):
//! - a Content-Security-Policy whose scripts are this site's files and the inline scripts of
//!   this very response, which carry a nonce made for it (`CspNonce`, read by the app's
//!   shell); no `unsafe-inline` for scripts, no framing, no plugins, no foreign `<base>`;
//! - `X-Content-Type-Options: nosniff`, `Referrer-Policy: same-origin`, a `Permissions-Policy`
//!   denying what the app does not use (the microphone is this site's own), `Cross-Origin-Opener-Policy: same-origin`, and
//!   `Strict-Transport-Security` when served over HTTPS (`WARREN_PUBLIC_URL`).

use axum::extract::{Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;
use warren_app::csp::CspNonce;

/// Features the app never uses, denied to it and to anything it might embed; the microphone
/// to this site alone (answering by voice).
const PERMISSIONS: &str = "accelerometer=(), autoplay=(), camera=(), display-capture=(), geolocation=(), \
     gyroscope=(), hid=(), magnetometer=(), microphone=(self), midi=(), payment=(), serial=(), usb=(), \
     xr-spatial-tracking=()";

/// Whether responses ask browsers to use HTTPS only (the site is served over it).
#[derive(Clone, Copy)]
pub struct Https(pub bool);

pub async fn headers(State(Https(https)): State<Https>, mut request: Request, next: Next) -> Response {
    let nonce = uuid::Uuid::new_v4().simple().to_string();
    request.extensions_mut().insert(CspNonce(nonce.clone()));
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    // A handler's own policy stands: an uploaded image's forbids everything.
    if !headers.contains_key(header::CONTENT_SECURITY_POLICY)
        && let Ok(policy) = HeaderValue::from_str(&policy(&nonce))
    {
        headers.insert(header::CONTENT_SECURITY_POLICY, policy);
    }
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert("permissions-policy", HeaderValue::from_static(PERMISSIONS));
    // A window this page opens (a link in a message, with target=_blank) gets no handle back to
    // it, and no other site's window can reach into Warren's.
    headers.insert("cross-origin-opener-policy", HeaderValue::from_static("same-origin"));
    if https {
        headers.insert(header::STRICT_TRANSPORT_SECURITY, HeaderValue::from_static("max-age=31536000"));
    }
    response
}

/// The policy for a response whose inline scripts carry `nonce`. WebAssembly needs
/// `wasm-unsafe-eval` (it compiles the client; it allows no `eval` of script text). KaTeX
/// and the app set `style` attributes, so styles may be inline; they cannot run code.
/// `connect-src 'self'` covers the app's own WebSocket (ws: and wss: of this host).
fn policy(nonce: &str) -> String {
    format!(
        "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; \
         style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; \
         connect-src 'self'; media-src 'self'; object-src 'none'; base-uri 'self'; \
         form-action 'self'; frame-ancestors 'none'"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_run_only_from_this_site_or_with_the_nonce() {
        let policy = policy("abc123");
        assert!(policy.contains("script-src 'self' 'nonce-abc123' 'wasm-unsafe-eval';"), "{policy}");
        let scripts = policy.split(';').find(|d| d.trim().starts_with("script-src")).unwrap();
        assert!(!scripts.contains("unsafe-inline"), "{policy}");
        for directive in ["frame-ancestors 'none'", "object-src 'none'", "base-uri 'self'"] {
            assert!(policy.contains(directive), "{directive} missing: {policy}");
        }
    }
}

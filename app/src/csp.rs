//! The nonce of a response's Content-Security-Policy. The server's security layer makes one
//! per response and puts it in the request's extensions; the shell gives it to Leptos, which
//! puts it on the hydration script, and to the shell's own inline scripts.

/// The nonce the response's policy allows inline scripts with.
#[derive(Clone, Debug)]
pub struct CspNonce(pub String);

/// The nonce for the page being rendered, provided to Leptos (`use_nonce`); on the client,
/// where nothing inline is rendered, none.
pub fn provide_response_nonce() {
    #[cfg(feature = "ssr")]
    {
        use leptos::prelude::{provide_context, use_context};
        let nonce = use_context::<http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<CspNonce>().cloned());
        if let Some(CspNonce(nonce)) = nonce {
            provide_context(leptos::nonce::Nonce::from_value(nonce));
        }
    }
}

//! What the network providers share: sending with retries and reading server-sent events.

use std::time::{Duration, SystemTime};

use eventsource_stream::{Event, Eventsource};
use futures_util::{Stream, StreamExt};
use reqwest::header::HeaderMap;
use reqwest::{RequestBuilder, Response, StatusCode};

use std::collections::VecDeque;

use super::{LlmError, NetPolicy, Output, ReplyStream, Tier, ToolCall};

/// Where a network provider sends its requests, and how: the HTTP client it keeps for its
/// lifetime (connection pool, connect timeout), the models for each tier and the policy for
/// timeouts and retries.
pub(crate) struct Endpoint {
    pub client: reqwest::Client,
    /// Without a trailing slash.
    pub base_url: String,
    pub model: String,
    pub fast_model: String,
    pub policy: NetPolicy,
}

impl Endpoint {
    pub fn new(base_url: &str, model: String, fast_model: String, policy: NetPolicy) -> Self {
        let client =
            reqwest::Client::builder().connect_timeout(policy.connect_timeout).build().unwrap_or_default();
        Self { client, base_url: base_url.trim_end_matches('/').to_string(), model, fast_model, policy }
    }

    /// The model that answers requests of a tier.
    pub fn model(&self, tier: Tier) -> &str {
        match tier {
            Tier::Main => &self.model,
            Tier::Fast => &self.fast_model,
        }
    }
}

/// Sends a request, retrying connection failures and retryable statuses (429, 5xx, 529
/// "overloaded") with exponential backoff, or after the server's `retry-after` when it gives
/// one. Returns the first successful response; its body has not been read yet.
pub(crate) async fn send_with_retries(
    policy: &NetPolicy,
    build: impl Fn() -> RequestBuilder,
) -> Result<Response, LlmError> {
    let mut attempt = 0u32;
    loop {
        let failure = match tokio::time::timeout(policy.first_byte_timeout, build().send()).await {
            Err(_) => Failure::retry(LlmError::Timeout, None),
            Ok(Err(err)) if err.is_connect() || err.is_timeout() || err.is_request() => {
                Failure::retry(LlmError::Unreachable(describe(&err)), None)
            }
            Ok(Err(err)) => return Err(LlmError::Unreachable(describe(&err))),
            Ok(Ok(response)) if response.status().is_success() => return Ok(response),
            Ok(Ok(response)) => {
                let status = response.status();
                let wait = retry_after(response.headers());
                let message = error_message(&response.text().await.unwrap_or_default());
                if is_retryable(status) {
                    Failure::retry(LlmError::Exhausted { status: status.as_u16(), message }, wait)
                } else {
                    return Err(LlmError::Rejected { status: status.as_u16(), message });
                }
            }
        };
        if attempt >= policy.max_retries {
            return Err(failure.error);
        }
        let wait = failure.wait.unwrap_or_else(|| backoff(policy, attempt)).min(policy.max_backoff);
        tracing::warn!(
            attempt = attempt + 1,
            wait_ms = wait.as_millis() as u64,
            "retrying: {}",
            failure.error
        );
        tokio::time::sleep(wait).await;
        attempt += 1;
    }
}

struct Failure {
    error: LlmError,
    wait: Option<Duration>,
}

impl Failure {
    fn retry(error: LlmError, wait: Option<Duration>) -> Self {
        Self { error, wait }
    }
}

fn is_retryable(status: StatusCode) -> bool {
    status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error() || status.as_u16() == 529
}

fn backoff(policy: &NetPolicy, attempt: u32) -> Duration {
    let exp = policy.base_backoff.saturating_mul(2u32.saturating_pow(attempt));
    // Up to a quarter more, so that many clients do not retry in lockstep.
    let jitter = exp.mul_f64(fastrand::f64() * 0.25);
    exp + jitter
}

/// `retry-after-ms` (milliseconds), or `retry-after` as seconds or an HTTP date.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    // `try_from`: a server may send `inf` or `1e30`; such a wait is capped by the caller.
    let seconds =
        |secs: f64| Duration::try_from_secs_f64(secs).ok().or((secs > 0.0).then_some(Duration::MAX));
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.parse::<f64>().ok()).filter(|v| *v >= 0.0) {
        return seconds(ms / 1000.0);
    }
    let value = text("retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return if secs >= 0.0 { seconds(secs) } else { None };
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(when.duration_since(SystemTime::now()).unwrap_or(Duration::ZERO))
}

/// The human part of a provider's JSON error body (`{"error": {"message": ...}}`), or the body.
fn error_message(body: &str) -> String {
    let parsed: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let message = parsed.as_ref().and_then(|v| {
        v.pointer("/error/message")
            .or_else(|| v.get("error"))
            .or_else(|| v.get("message"))
            .and_then(|m| m.as_str())
    });
    let text = message.unwrap_or(body).trim();
    text.chars().take(300).collect()
}

fn describe(err: &reqwest::Error) -> String {
    // reqwest's top-level message omits the cause ("error sending request"); add it.
    let mut text = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The events of a `text/event-stream` body. A gap longer than `idle` between two events, or
/// a broken connection, ends the stream with an error.
pub(crate) fn sse_events(response: Response, idle: Duration) -> impl Stream<Item = Result<Event, LlmError>> {
    let events = response.bytes_stream().eventsource();
    futures_util::stream::unfold(Some(Box::pin(events)), move |state| async move {
        let mut events = state?;
        match tokio::time::timeout(idle, events.next()).await {
            Err(_) => Some((Err(LlmError::Interrupted("no data for too long".into())), None)),
            Ok(None) => None,
            Ok(Some(Ok(event))) => Some((Ok(event), Some(events))),
            Ok(Some(Err(err))) => Some((Err(LlmError::Interrupted(err.to_string())), None)),
        }
    })
}

/// What one server-sent event means to a provider's decoder: what it yields (text, finished
/// tool calls; often nothing, for pings and event types this client does not know), and
/// whether the reply is complete.
#[derive(Default)]
pub(crate) struct Decoded {
    pub outputs: Vec<Output>,
    pub done: bool,
}

impl Decoded {
    pub fn text(text: String) -> Self {
        Self { outputs: vec![Output::Text(text)], done: false }
    }

    pub fn skip() -> Self {
        Self::default()
    }
}

/// A tool call whose streamed input is complete, if that input is a JSON object (empty counts
/// as `{}`). A malformed input is the model's mistake, not the stream's: the call is dropped
/// and logged, and the reply goes on.
pub(crate) fn tool_call(name: String, input: &str) -> Option<Output> {
    let input = if input.trim().is_empty() { "{}" } else { input };
    match serde_json::from_str::<serde_json::Value>(input) {
        Ok(input) if input.is_object() => Some(Output::Tool(ToolCall { name, input })),
        Ok(_) | Err(_) => {
            tracing::warn!(tool = %name, "dropped a tool call whose input is not a JSON object");
            None
        }
    }
}

/// Turns a provider's events into a streamed reply. A stream that closes before the decoder
/// says it is done was cut off, and ends with [`LlmError::Interrupted`].
pub(crate) fn decode_stream<S, D>(events: S, decode: D) -> ReplyStream
where
    S: Stream<Item = Result<Event, LlmError>> + Send + 'static,
    D: FnMut(&Event) -> Result<Decoded, LlmError> + Send + 'static,
{
    let state = Some((Box::pin(events), decode, VecDeque::<Output>::new(), false));
    Box::pin(futures_util::stream::unfold(state, |state| async move {
        let (mut events, mut decode, mut ready, mut done) = state?;
        loop {
            if let Some(output) = ready.pop_front() {
                return Some((Ok(output), Some((events, decode, ready, done))));
            }
            if done {
                return None;
            }
            let error = match events.next().await {
                None => LlmError::Interrupted("the reply ended before it was complete".into()),
                Some(Err(err)) => err,
                Some(Ok(event)) => match decode(&event) {
                    Ok(decoded) => {
                        ready.extend(
                            decoded
                                .outputs
                                .into_iter()
                                .filter(|o| !matches!(o, Output::Text(t) if t.is_empty())),
                        );
                        done = decoded.done;
                        continue;
                    }
                    Err(err) => err,
                },
            };
            return Some((Err(error), None));
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn retry_after_forms() {
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", HeaderValue::from_static("150"));
        assert_eq!(retry_after(&h), Some(Duration::from_millis(150)));
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"));
        assert_eq!(retry_after(&h), Some(Duration::ZERO));
        h.insert("retry-after", HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&h), None);
        // Absurd values do not panic; the caller caps them.
        h.insert("retry-after", HeaderValue::from_static("1e30"));
        assert_eq!(retry_after(&h), Some(Duration::MAX));
        h.insert("retry-after-ms", HeaderValue::from_static("inf"));
        assert_eq!(retry_after(&h), Some(Duration::MAX));
        h.insert("retry-after-ms", HeaderValue::from_static("NaN"));
        assert_eq!(retry_after(&h), Some(Duration::MAX), "NaN ms falls back to retry-after");
    }

    #[test]
    fn error_messages_are_extracted() {
        assert_eq!(
            error_message(r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#),
            "Overloaded"
        );
        assert_eq!(error_message("plain text"), "plain text");
    }

    #[test]
    fn retryable_statuses() {
        for s in [429u16, 500, 502, 503, 529] {
            assert!(is_retryable(StatusCode::from_u16(s).unwrap()), "{s}");
        }
        for s in [400u16, 401, 403, 404, 422] {
            assert!(!is_retryable(StatusCode::from_u16(s).unwrap()), "{s}");
        }
    }
}

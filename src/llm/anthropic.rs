//! Anthropic Messages API, streamed (`POST /v1/messages` with `"stream": true`).

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;
use warren_app::protocol::ProviderInfo;

use super::http::{Endpoint, Piece, decode_text, send_with_retries, sse_events};
use super::{Format, LlmError, NetPolicy, Provider, Request, TextStream};

pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
pub const DEFAULT_MODEL: &str = "claude-sonnet-4-5-20250929";
pub const DEFAULT_FAST_MODEL: &str = "claude-haiku-4-5-20251001";
const API_VERSION: &str = "2023-06-01";

pub struct Anthropic {
    endpoint: Endpoint,
    api_key: String,
}

impl Anthropic {
    pub fn new(
        base_url: &str,
        api_key: String,
        model: String,
        fast_model: String,
        policy: NetPolicy,
    ) -> Self {
        Self { endpoint: Endpoint::new(base_url, model, fast_model, policy), api_key }
    }

    fn authorised(&self, builder: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        builder.header("x-api-key", &self.api_key).header("anthropic-version", API_VERSION)
    }
}

#[derive(Deserialize)]
struct Delta {
    delta: DeltaBody,
}

#[derive(Deserialize)]
struct DeltaBody {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    text: String,
}

#[derive(Deserialize)]
struct StreamError {
    error: StreamErrorBody,
}

#[derive(Deserialize)]
struct StreamErrorBody {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    message: String,
}

#[async_trait]
impl Provider for Anthropic {
    fn info(&self) -> ProviderInfo {
        ProviderInfo {
            kind: "anthropic".into(),
            model: self.endpoint.model.clone(),
            offline: false,
            label: format!("Anthropic · {}", self.endpoint.model),
        }
    }

    async fn stream(&self, request: &Request) -> Result<TextStream, LlmError> {
        let model = self.endpoint.model(request.tier);
        let mut system = request.system.clone();
        if request.format == Format::Json {
            system.push_str("\n\nAnswer with one JSON object and nothing else.");
        }
        let messages: Vec<_> =
            request.messages.iter().map(|m| json!({"role": m.role.as_str(), "content": m.content})).collect();
        let body = json!({
            "model": model,
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "system": system,
            "messages": messages,
            "stream": true,
        });
        let url = format!("{}/v1/messages", self.endpoint.base_url);
        let response = send_with_retries(&self.endpoint.policy, || {
            self.authorised(self.endpoint.client.post(&url)).json(&body)
        })
        .await?;

        // Text arrives in `content_block_delta` events; `message_stop` ends a complete reply.
        // Event types this client does not know are skipped, as the API's versioning asks.
        let events = sse_events(response, self.endpoint.policy.idle_timeout);
        Ok(decode_text(events, |event| match event.event.as_str() {
            "content_block_delta" => {
                let delta: Delta = serde_json::from_str(&event.data)
                    .map_err(|e| LlmError::Protocol(format!("bad content_block_delta: {e}")))?;
                Ok(if delta.delta.kind == "text_delta" { Piece::Text(delta.delta.text) } else { Piece::Skip })
            }
            "message_stop" => Ok(Piece::Done),
            "error" => {
                let message = serde_json::from_str::<StreamError>(&event.data)
                    .map(|e| format!("{}: {}", e.error.kind, e.error.message))
                    .unwrap_or_else(|_| event.data.clone());
                Err(LlmError::Interrupted(message))
            }
            _ => Ok(Piece::Skip),
        }))
    }

    async fn probe(&self) -> Result<(), LlmError> {
        let url = format!("{}/v1/models?limit=1", self.endpoint.base_url);
        send_with_retries(&self.endpoint.policy, || self.authorised(self.endpoint.client.get(&url)))
            .await
            .map(drop)
    }
}

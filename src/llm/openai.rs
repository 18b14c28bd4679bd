//! OpenAI-compatible Chat Completions, streamed (`POST {base}/chat/completions`). Works with
//! OpenAI and with local servers speaking the same API: Ollama (`http://localhost:11434/v1`),
//! llama.cpp's server, vLLM.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;
use warren_app::protocol::ProviderInfo;

use super::http::{Endpoint, Piece, decode_text, send_with_retries, sse_events};
use super::{Format, LlmError, NetPolicy, Provider, Request, TextStream};

pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
pub const DEFAULT_MODEL: &str = "gpt-4.1-mini";

pub struct OpenAi {
    endpoint: Endpoint,
    api_key: Option<String>,
}

impl OpenAi {
    pub fn new(
        base_url: &str,
        api_key: Option<String>,
        model: String,
        fast_model: String,
        policy: NetPolicy,
    ) -> Self {
        Self { endpoint: Endpoint::new(base_url, model, fast_model, policy), api_key }
    }

    fn authorised(&self, builder: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.api_key {
            Some(key) => builder.bearer_auth(key),
            // Local servers (Ollama, llama.cpp) need no key.
            None => builder,
        }
    }
}

#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<Choice>,
    error: Option<ChunkError>,
}

#[derive(Deserialize)]
struct Choice {
    #[serde(default)]
    delta: ChoiceDelta,
}

#[derive(Deserialize, Default)]
struct ChoiceDelta {
    content: Option<String>,
}

#[derive(Deserialize)]
struct ChunkError {
    #[serde(default)]
    message: String,
}

#[async_trait]
impl Provider for OpenAi {
    fn info(&self) -> ProviderInfo {
        ProviderInfo {
            kind: "openai".into(),
            model: self.endpoint.model.clone(),
            offline: false,
            label: format!("{} · {}", host_of(&self.endpoint.base_url), self.endpoint.model),
        }
    }

    async fn stream(&self, request: &Request) -> Result<TextStream, LlmError> {
        let model = self.endpoint.model(request.tier);
        let mut messages = vec![json!({"role": "system", "content": request.system})];
        messages
            .extend(request.messages.iter().map(|m| json!({"role": m.role.as_str(), "content": m.content})));
        let mut body = json!({
            "model": model,
            "messages": messages,
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "stream": true,
        });
        if request.format == Format::Json {
            body["response_format"] = json!({"type": "json_object"});
        }
        let url = format!("{}/chat/completions", self.endpoint.base_url);
        let response = send_with_retries(&self.endpoint.policy, || {
            self.authorised(self.endpoint.client.post(&url)).json(&body)
        })
        .await?;

        // Each event's data is a JSON chunk; the literal `[DONE]` ends a complete reply.
        let events = sse_events(response, self.endpoint.policy.idle_timeout);
        Ok(decode_text(events, |event| {
            let data = event.data.trim();
            if data == "[DONE]" {
                return Ok(Piece::Done);
            }
            if data.is_empty() {
                return Ok(Piece::Skip);
            }
            let chunk: Chunk = serde_json::from_str(data)
                .map_err(|e| LlmError::Protocol(format!("bad stream chunk: {e}")))?;
            if let Some(error) = chunk.error {
                return Err(LlmError::Interrupted(error.message));
            }
            let text: String = chunk.choices.into_iter().filter_map(|c| c.delta.content).collect();
            Ok(Piece::Text(text))
        }))
    }

    async fn probe(&self) -> Result<(), LlmError> {
        let url = format!("{}/models", self.endpoint.base_url);
        send_with_retries(&self.endpoint.policy, || self.authorised(self.endpoint.client.get(&url)))
            .await
            .map(drop)
    }
}

fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split('/').next().unwrap_or(rest);
    match host {
        "api.openai.com" => "OpenAI".into(),
        other => other.to_string(),
    }
}

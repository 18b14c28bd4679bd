//! OpenAI-compatible Chat Completions, streamed (`POST {base}/chat/completions`). Works with
//! OpenAI and with local servers speaking the same API: Ollama (`http://localhost:11434/v1`),
//! llama.cpp's server, vLLM.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;
use warren_app::protocol::{ProviderInfo, ProviderKind};

use std::collections::BTreeMap;

use super::http::{Decoded, Endpoint, decode_stream, send_with_retries, sse_events, tool_call};
use super::{Format, LlmError, NetPolicy, Output, Provider, ReplyStream, Request, Tier, Usage};

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
    /// Only on the last chunk (with no choices), as `stream_options.include_usage` asks;
    /// `null` on the others.
    #[serde(default)]
    usage: Option<ChunkUsage>,
}

#[derive(Deserialize)]
struct ChunkUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
}

#[derive(Deserialize)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: u64,
}

impl From<ChunkUsage> for Usage {
    fn from(u: ChunkUsage) -> Self {
        let cached_input = u.prompt_tokens_details.map_or(0, |d| d.cached_tokens);
        Usage { input: u.prompt_tokens, cached_input, output: u.completion_tokens }
    }
}

#[derive(Deserialize)]
struct Choice {
    #[serde(default)]
    delta: ChoiceDelta,
    finish_reason: Option<String>,
}

#[derive(Deserialize, Default)]
struct ChoiceDelta {
    content: Option<String>,
    #[serde(default)]
    tool_calls: Vec<ToolCallDelta>,
}

/// A piece of a streamed tool call: the first names the function, the rest add to its
/// arguments (a JSON object, as text).
#[derive(Deserialize)]
struct ToolCallDelta {
    #[serde(default)]
    index: u64,
    #[serde(default)]
    function: FunctionDelta,
}

#[derive(Deserialize, Default)]
struct FunctionDelta {
    name: Option<String>,
    #[serde(default)]
    arguments: String,
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
            kind: ProviderKind::Openai,
            model: self.endpoint.model.clone(),
            offline: false,
            label: format!("{} · {}", host_of(&self.endpoint.base_url), self.endpoint.model),
        }
    }

    fn model(&self, tier: Tier) -> String {
        self.endpoint.model(tier).to_string()
    }

    async fn stream(&self, request: &Request) -> Result<ReplyStream, LlmError> {
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
            // The last chunk then says what the request used.
            "stream_options": {"include_usage": true},
        });
        if request.format == Format::Json {
            body["response_format"] = json!({"type": "json_object"});
        }
        if !request.tools.is_empty() {
            let tools: Vec<_> = request
                .tools
                .iter()
                .map(|t| {
                    json!({"type": "function", "function": {
                        "name": t.name, "description": t.description, "parameters": t.input_schema,
                    }})
                })
                .collect();
            body["tools"] = json!(tools);
        }
        let url = format!("{}/chat/completions", self.endpoint.base_url);
        let response = send_with_retries(&self.endpoint.policy, || {
            self.authorised(self.endpoint.client.post(&url)).json(&body)
        })
        .await?;

        // Each event's data is a JSON chunk; the literal `[DONE]` ends a complete reply, after
        // a chunk with the usage and no choices. Tool
        // calls stream in pieces keyed by index and are complete once the choice has a finish
        // reason (or, from servers that send none, at `[DONE]`).
        let events = sse_events(response, self.endpoint.policy.idle_timeout);
        let mut calls = BTreeMap::<u64, (String, String)>::new();
        Ok(decode_stream(events, move |event| {
            let data = event.data.trim();
            if data == "[DONE]" {
                return Ok(Decoded { outputs: finished(&mut calls), done: true });
            }
            if data.is_empty() {
                return Ok(Decoded::skip());
            }
            let chunk: Chunk = serde_json::from_str(data)
                .map_err(|e| LlmError::Protocol(format!("bad stream chunk: {e}")))?;
            if let Some(error) = chunk.error {
                return Err(LlmError::Interrupted(error.message));
            }
            let mut decoded = Decoded::skip();
            if let Some(usage) = chunk.usage {
                decoded.outputs.push(Output::Usage(usage.into()));
            }
            for choice in chunk.choices {
                if let Some(text) = choice.delta.content {
                    decoded.outputs.push(Output::Text(text));
                }
                for piece in choice.delta.tool_calls {
                    let (name, input) = calls.entry(piece.index).or_default();
                    if let Some(part) = piece.function.name {
                        name.push_str(&part);
                    }
                    input.push_str(&piece.function.arguments);
                }
                if choice.finish_reason.is_some() {
                    decoded.outputs.extend(finished(&mut calls));
                }
            }
            Ok(decoded)
        }))
    }

    async fn probe(&self) -> Result<(), LlmError> {
        let url = format!("{}/models", self.endpoint.base_url);
        send_with_retries(&self.endpoint.policy, || self.authorised(self.endpoint.client.get(&url)))
            .await
            .map(drop)
    }
}

/// The tool calls gathered so far, now complete.
fn finished(calls: &mut BTreeMap<u64, (String, String)>) -> Vec<Output> {
    std::mem::take(calls).into_values().filter_map(|(name, input)| tool_call(name, &input)).collect()
}

fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split('/').next().unwrap_or(rest);
    match host {
        "api.openai.com" => "OpenAI".into(),
        other => other.to_string(),
    }
}

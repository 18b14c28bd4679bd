//! Anthropic Messages API, streamed (`POST /v1/messages` with `"stream": true`).

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};
use warren_app::protocol::{ProviderInfo, ProviderKind};

use std::collections::BTreeMap;

use super::http::{Decoded, Endpoint, decode_stream, send_with_retries, sse_events, tool_call};
use super::{Format, LlmError, NetPolicy, Output, Provider, ReplyStream, Request, Tier, Usage};

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
struct BlockStart {
    index: u64,
    content_block: Block,
}

#[derive(Deserialize)]
struct Block {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    name: String,
}

#[derive(Deserialize)]
struct Delta {
    #[serde(default)]
    index: u64,
    delta: DeltaBody,
}

#[derive(Deserialize)]
struct DeltaBody {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    text: String,
    #[serde(default)]
    partial_json: String,
}

#[derive(Deserialize)]
struct BlockStop {
    index: u64,
}

/// `message_start`: the input's usage (`input_tokens` leaves out what the prompt cache read
/// or was written with).
#[derive(Deserialize)]
struct MessageStart {
    message: MessageStartBody,
}

#[derive(Deserialize)]
struct MessageStartBody {
    #[serde(default)]
    usage: Option<AnthropicUsage>,
}

/// `message_delta`: the output's usage so far (the last one has the total).
#[derive(Deserialize)]
struct MessageDelta {
    #[serde(default)]
    usage: Option<AnthropicUsage>,
}

#[derive(Deserialize)]
struct AnthropicUsage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
}

impl AnthropicUsage {
    /// Adds what this event reports to `usage`; a later figure replaces an earlier one.
    fn update(&self, usage: &mut Option<Usage>) {
        let usage = usage.get_or_insert_default();
        if let Some(input) = self.input_tokens {
            let cached = self.cache_read_input_tokens.unwrap_or(0);
            usage.input = input + self.cache_creation_input_tokens.unwrap_or(0) + cached;
            usage.cached_input = cached;
        }
        if let Some(output) = self.output_tokens {
            usage.output = output;
        }
    }
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
            kind: ProviderKind::Anthropic,
            model: self.endpoint.model.clone(),
            offline: false,
            label: format!("Anthropic · {}", self.endpoint.model),
        }
    }

    fn model(&self, tier: Tier) -> String {
        self.endpoint.model(tier).to_string()
    }

    async fn stream(&self, request: &Request) -> Result<ReplyStream, LlmError> {
        let model = self.endpoint.model(request.tier);
        let json_only =
            (request.format == Format::Json).then_some("\n\nAnswer with one JSON object and nothing else.");
        // The stable pieces of the prompt end in cache breakpoints (see `Request::cache_at`);
        // without any, the prompt is one string, as it always was.
        let system = if request.cache_at.is_empty() {
            json!(format!("{}{}", request.system, json_only.unwrap_or_default()))
        } else {
            let mut blocks: Vec<Value> = request
                .system_pieces()
                .into_iter()
                .map(|(text, cached)| match cached {
                    true => json!({"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}),
                    false => json!({"type": "text", "text": text}),
                })
                .collect();
            if let Some(json_only) = json_only {
                blocks.push(json!({"type": "text", "text": json_only.trim_start()}));
            }
            Value::Array(blocks)
        };
        let messages: Vec<_> =
            request.messages.iter().map(|m| json!({"role": m.role.as_str(), "content": m.content})).collect();
        let mut body = json!({
            "model": model,
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "system": system,
            "messages": messages,
            "stream": true,
        });
        if !request.tools.is_empty() {
            let tools: Vec<_> = request
                .tools
                .iter()
                .map(
                    |t| json!({"name": t.name, "description": t.description, "input_schema": t.input_schema}),
                )
                .collect();
            body["tools"] = json!(tools);
        }
        let url = format!("{}/v1/messages", self.endpoint.base_url);
        let response = send_with_retries(&self.endpoint.policy, || {
            self.authorised(self.endpoint.client.post(&url)).json(&body)
        })
        .await?;

        // Text arrives in `content_block_delta` events; a tool call is a `tool_use` block whose
        // input streams as pieces of JSON until its `content_block_stop`; `message_start` and
        // `message_delta` carry the usage, passed on at `message_stop`, which ends a complete
        // reply. Event types this client does not know are skipped, as the API's
        // versioning asks.
        let events = sse_events(response, self.endpoint.policy.idle_timeout);
        let mut tools = ToolBlocks::default();
        let mut usage = None;
        Ok(decode_stream(events, move |event| match event.event.as_str() {
            "message_start" => {
                let start: MessageStart = parse(&event.data, "message_start")?;
                if let Some(reported) = start.message.usage {
                    reported.update(&mut usage);
                }
                Ok(Decoded::skip())
            }
            "message_delta" => {
                let delta: MessageDelta = parse(&event.data, "message_delta")?;
                if let Some(reported) = delta.usage {
                    reported.update(&mut usage);
                }
                Ok(Decoded::skip())
            }
            "content_block_start" => {
                let start: BlockStart = parse(&event.data, "content_block_start")?;
                if start.content_block.kind == "tool_use" {
                    tools.0.insert(start.index, (start.content_block.name, String::new()));
                }
                Ok(Decoded::skip())
            }
            "content_block_delta" => {
                let delta: Delta = parse(&event.data, "content_block_delta")?;
                Ok(match delta.delta.kind.as_str() {
                    "text_delta" => Decoded::text(delta.delta.text),
                    "input_json_delta" => {
                        if let Some((_, input)) = tools.0.get_mut(&delta.index) {
                            input.push_str(&delta.delta.partial_json);
                        }
                        Decoded::skip()
                    }
                    _ => Decoded::skip(),
                })
            }
            "content_block_stop" => {
                let stop: BlockStop = parse(&event.data, "content_block_stop")?;
                Ok(Decoded { outputs: tools.finish(stop.index).into_iter().collect(), done: false })
            }
            "message_stop" => {
                Ok(Decoded { outputs: usage.take().map(Output::Usage).into_iter().collect(), done: true })
            }
            "error" => {
                let message = serde_json::from_str::<StreamError>(&event.data)
                    .map(|e| format!("{}: {}", e.error.kind, e.error.message))
                    .unwrap_or_else(|_| event.data.clone());
                Err(LlmError::Interrupted(message))
            }
            _ => Ok(Decoded::skip()),
        }))
    }

    async fn probe(&self) -> Result<(), LlmError> {
        let url = format!("{}/v1/models?limit=1", self.endpoint.base_url);
        send_with_retries(&self.endpoint.policy, || self.authorised(self.endpoint.client.get(&url)))
            .await
            .map(drop)
    }
}

fn parse<'a, T: Deserialize<'a>>(data: &'a str, what: &str) -> Result<T, LlmError> {
    serde_json::from_str(data).map_err(|e| LlmError::Protocol(format!("bad {what}: {e}")))
}

/// Tool calls whose input is still streaming, by content block index.
#[derive(Default)]
struct ToolBlocks(BTreeMap<u64, (String, String)>);

impl ToolBlocks {
    /// The finished call of a block, if it was a tool call.
    fn finish(&mut self, index: u64) -> Option<Output> {
        let (name, input) = self.0.remove(&index)?;
        tool_call(name, &input)
    }
}

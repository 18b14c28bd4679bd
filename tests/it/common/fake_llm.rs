//! A local HTTP server speaking the Anthropic Messages and OpenAI Chat Completions streaming
//! formats, answering from a script, and recording what it was sent.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures_util::StreamExt;

/// One scripted answer.
#[derive(Clone, Debug)]
pub enum Reply {
    /// A complete streamed reply, in these pieces.
    Text(Vec<&'static str>),
    /// A complete streamed reply made up as the request came in.
    Said(String),
    /// A complete reply in these pieces, one every `delay`: slow enough to be cut off.
    Slow { pieces: Vec<String>, delay: std::time::Duration },
    /// An error status with headers and a JSON body.
    Status { status: u16, headers: Vec<(&'static str, &'static str)>, body: &'static str },
    /// Some pieces, then the body ends without the provider's end marker.
    EndsEarly(Vec<&'static str>),
    /// Some pieces, then the connection breaks mid-body.
    Breaks(Vec<&'static str>),
    /// Anthropic only: an `error` event mid-stream (e.g. overloaded).
    ErrorEvent(Vec<&'static str>),
    /// `then`, its answer (the status line and headers) held back for `wait`, as a hosted
    /// model's is while it reads the prompt.
    Late { wait: std::time::Duration, then: Box<Reply> },
    /// A complete reply: text in these pieces, then a tool call whose JSON input streams in
    /// a few pieces (Anthropic `tool_use` block, OpenAI `tool_calls` deltas).
    Tool { text: Vec<&'static str>, name: String, input: String },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    Anthropic,
    OpenAi,
}

#[derive(Clone, Debug)]
pub struct Received {
    pub headers: HeaderMap,
    pub body: serde_json::Value,
}

/// Answers a request by looking at it, once the script has run out.
pub type Answerer = Arc<dyn Fn(&serde_json::Value) -> Reply + Send + Sync>;

#[derive(Clone)]
struct Shared {
    wire: Wire,
    script: Arc<Mutex<VecDeque<Reply>>>,
    /// Used when the script runs out; `None` answers 500.
    fallback: Option<Answerer>,
    received: Arc<Mutex<Vec<Received>>>,
    /// Replies whose connection the client closed before their end.
    cancelled: Arc<std::sync::atomic::AtomicUsize>,
    /// Refusing every request, the key check included, as a provider that is down does.
    down: Arc<std::sync::atomic::AtomicBool>,
    /// With a prompt cache, usage is worked out from each request as the real APIs count it;
    /// without, every reply reports [`INPUT_TOKENS`] and [`CACHED_TOKENS`].
    cache: Option<Arc<Mutex<PromptCache>>>,
}

/// Input tokens as a reply reports them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Figures {
    /// Every input token of the request.
    pub input: u64,
    /// Of them, read from the prompt cache.
    pub cache_read: u64,
    /// Of them, written to it (Anthropic bills these at 1.25 times).
    pub cache_write: u64,
}

/// A provider's prompt cache, as the APIs describe theirs, counting four characters a token.
/// Anthropic: the prompt up to each `cache_control` breakpoint (tools, then system blocks) is
/// written on first sight and read after, when it is at least 1,024 tokens. OpenAI: the longest
/// prefix shared with an earlier request is read, in steps of 128 tokens from 1,024.
#[derive(Default)]
pub struct PromptCache {
    seen: std::collections::HashSet<String>,
    prompts: Vec<String>,
    /// What each reply reported, in order.
    pub reported: Vec<Figures>,
}

/// The shortest prefix a provider caches.
const CACHE_MIN_TOKENS: u64 = 1024;

fn tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

impl PromptCache {
    fn figures(&mut self, wire: Wire, body: &serde_json::Value) -> Figures {
        let tools = body.get("tools").map(|t| t.to_string()).unwrap_or_default();
        let messages = body["messages"].to_string();
        let figures = match wire {
            Wire::Anthropic => {
                let blocks: Vec<(String, bool)> = match &body["system"] {
                    serde_json::Value::Array(blocks) => blocks
                        .iter()
                        .map(|b| {
                            (
                                b["text"].as_str().unwrap_or_default().to_string(),
                                b.get("cache_control").is_some(),
                            )
                        })
                        .collect(),
                    other => vec![(other.as_str().unwrap_or_default().to_string(), false)],
                };
                let system: String = blocks.iter().map(|(t, _)| t.as_str()).collect();
                let input = tokens(&tools) + tokens(&system) + tokens(&messages);
                let mut prefix = tools.clone();
                let (mut read, mut longest) = (0, 0);
                let mut written = Vec::new();
                for (text, breakpoint) in &blocks {
                    prefix.push_str(text);
                    if !breakpoint || tokens(&prefix) < CACHE_MIN_TOKENS {
                        continue;
                    }
                    longest = tokens(&prefix);
                    if self.seen.contains(&prefix) {
                        read = tokens(&prefix);
                    } else {
                        written.push(prefix.clone());
                    }
                }
                self.seen.extend(written);
                Figures { input, cache_read: read, cache_write: longest.saturating_sub(read) }
            }
            Wire::OpenAi => {
                let prompt = format!("{tools}{messages}");
                let shared = self
                    .prompts
                    .iter()
                    .map(|p| p.chars().zip(prompt.chars()).take_while(|(a, b)| a == b).count() as u64 / 4)
                    .max()
                    .unwrap_or(0);
                let cache_read = if shared >= CACHE_MIN_TOKENS { shared / 128 * 128 } else { 0 };
                self.prompts.push(prompt.clone());
                Figures { input: tokens(&prompt), cache_read, cache_write: 0 }
            }
        };
        self.reported.push(figures);
        figures
    }
}

pub struct FakeLlm {
    pub addr: SocketAddr,
    shared: Shared,
}

impl FakeLlm {
    pub async fn start(wire: Wire, script: Vec<Reply>) -> Self {
        Self::start_with(wire, script, None).await
    }

    /// With a fallback that answers by looking at each request (for whole sessions).
    pub async fn start_with(wire: Wire, script: Vec<Reply>, fallback: Option<Answerer>) -> Self {
        let shared = Shared {
            wire,
            script: Arc::new(Mutex::new(script.into())),
            fallback,
            received: Arc::default(),
            cancelled: Arc::default(),
            down: Arc::default(),
            cache: None,
        };
        Self::serve(shared).await
    }

    /// With a fallback answerer, reporting usage as a provider with a prompt cache does.
    pub async fn start_caching(wire: Wire, fallback: Answerer) -> Self {
        let shared = Shared {
            wire,
            script: Arc::default(),
            fallback: Some(fallback),
            received: Arc::default(),
            cancelled: Arc::default(),
            down: Arc::default(),
            cache: Some(Arc::default()),
        };
        Self::serve(shared).await
    }

    async fn serve(shared: Shared) -> Self {
        let app = Router::new()
            .route("/v1/messages", post(answer))
            .route("/v1/chat/completions", post(answer))
            .route("/v1/models", get(models))
            .route("/models", get(models))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self { addr, shared }
    }

    /// Makes every request fail (401), the key check included, or answer again.
    pub fn set_down(&self, down: bool) {
        self.shared.down.store(down, std::sync::atomic::Ordering::SeqCst);
    }

    /// The Anthropic base URL (`…` + `/v1/messages`) or the OpenAI one (`…/v1`).
    pub fn base_url(&self) -> String {
        match self.shared.wire {
            Wire::Anthropic => format!("http://{}", self.addr),
            Wire::OpenAi => format!("http://{}/v1", self.addr),
        }
    }

    pub fn received(&self) -> Vec<Received> {
        self.shared.received.lock().unwrap().clone()
    }

    /// What each reply reported of its input, with a prompt cache.
    pub fn reported(&self) -> Vec<Figures> {
        self.shared.cache.as_ref().map(|c| c.lock().unwrap().reported.clone()).unwrap_or_default()
    }

    /// How many replies the client stopped reading before their end (closing the connection).
    pub fn cancelled(&self) -> usize {
        self.shared.cancelled.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// The key check's answer: the (empty) list of models, or 503 while down.
async fn models(State(shared): State<Shared>) -> Response {
    if shared.down.load(std::sync::atomic::Ordering::SeqCst) {
        return unavailable();
    }
    "{\"data\":[]}".into_response()
}

fn unavailable() -> Response {
    Response::builder()
        .status(401)
        .header("content-type", "application/json")
        .body(Body::from(
            r#"{"type":"error","error":{"type":"authentication_error","message":"the provider is down"}}"#,
        ))
        .unwrap()
}

async fn answer(State(shared): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    if shared.down.load(std::sync::atomic::Ordering::SeqCst) {
        return unavailable();
    }
    let body: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let usage = Usage {
        sent: shared.wire == Wire::Anthropic || body["stream_options"]["include_usage"] == true,
        figures: match &shared.cache {
            Some(cache) => cache.lock().unwrap().figures(shared.wire, &body),
            None => Figures { input: INPUT_TOKENS, cache_read: CACHED_TOKENS, cache_write: 0 },
        },
    };
    shared.received.lock().unwrap().push(Received { headers, body: body.clone() });
    let next = shared.script.lock().unwrap().pop_front();
    let reply = match (next, &shared.fallback) {
        (Some(reply), _) => reply,
        (None, Some(fallback)) => fallback(&body),
        (None, None) => {
            Reply::Status { status: 500, headers: vec![], body: r#"{"error":{"message":"script ran out"}}"# }
        }
    };
    let reply = match reply {
        Reply::Late { wait, then } => {
            tokio::time::sleep(wait).await;
            *then
        }
        reply => reply,
    };
    match reply {
        Reply::Late { then, .. } => panic!("one wait at a time: {then:?}"),
        Reply::Status { status, headers, body } => {
            let mut response = Response::builder().status(StatusCode::from_u16(status).unwrap());
            for (k, v) in headers {
                response = response.header(k, v);
            }
            response.header("content-type", "application/json").body(Body::from(body)).unwrap()
        }
        Reply::Text(pieces) => sse(events(shared.wire, &pieces, End::Complete, usage), false),
        Reply::Said(text) => sse(events(shared.wire, &[text.as_str()], End::Complete, usage), false),
        Reply::Slow { pieces, delay } => {
            let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
            watched(events(shared.wire, &pieces, End::Complete, usage), delay, shared.cancelled.clone())
        }
        Reply::EndsEarly(pieces) => sse(events(shared.wire, &pieces, End::None, usage), false),
        Reply::Breaks(pieces) => sse(events(shared.wire, &pieces, End::None, usage), true),
        Reply::ErrorEvent(pieces) => sse(events(shared.wire, &pieces, End::Error, usage), false),
        Reply::Tool { text, name, input } => {
            sse(events(shared.wire, &text, End::Tool { name: &name, input: &input }, usage), false)
        }
    }
}

enum End<'a> {
    Complete,
    None,
    Error,
    Tool { name: &'a str, input: &'a str },
}

/// A tool call's input, as the three pieces it streams in.
fn thirds(input: &str) -> Vec<String> {
    let chars: Vec<char> = input.chars().collect();
    let step = chars.len().div_ceil(3).max(1);
    chars.chunks(step).map(|c| c.iter().collect()).collect()
}

/// What every complete reply reports using: 42 input tokens, 30 of them read from the prompt
/// cache, and one output token per piece.
pub const INPUT_TOKENS: u64 = 42;
pub const CACHED_TOKENS: u64 = 30;

/// The usage a reply reports: whether it reports any (OpenAI only when asked), and its input.
#[derive(Clone, Copy)]
struct Usage {
    sent: bool,
    figures: Figures,
}

/// A reply's events. OpenAI reports usage only when the request asked for it
/// (`stream_options.include_usage`), in a last chunk with no choices.
fn events(wire: Wire, pieces: &[&str], end: End, usage: Usage) -> Vec<String> {
    let Figures { input, cache_read, cache_write } = usage.figures;
    let mut out = Vec::new();
    match wire {
        Wire::Anthropic => {
            let start = serde_json::json!({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"fake","stop_reason":null,"usage":{"input_tokens":input - cache_read - cache_write,"cache_creation_input_tokens":cache_write,"cache_read_input_tokens":cache_read,"output_tokens":1}}});
            out.push(format!("event: message_start\ndata: {start}\n\n"));
            let delta = |stop: &str| {
                let data = serde_json::json!({"type":"message_delta","delta":{"stop_reason":stop,"stop_sequence":null},"usage":{"output_tokens":pieces.len()}});
                format!("event: message_delta\ndata: {data}\n\n")
            };
            out.push("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n".to_string());
            out.push("event: ping\ndata: {\"type\": \"ping\"}\n\n".to_string());
            for p in pieces {
                let data = serde_json::json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":p}});
                out.push(format!("event: content_block_delta\ndata: {data}\n\n"));
            }
            match end {
                End::Complete => {
                    out.push("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n".to_string());
                    out.push(delta("end_turn"));
                    out.push("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n".to_string());
                }
                End::Error => out.push("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n".to_string()),
                End::Tool { name, input } => {
                    out.push("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n".to_string());
                    let start = serde_json::json!({"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01","name":name,"input":{}}});
                    out.push(format!("event: content_block_start\ndata: {start}\n\n"));
                    for part in thirds(input) {
                        let data = serde_json::json!({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":part}});
                        out.push(format!("event: content_block_delta\ndata: {data}\n\n"));
                    }
                    out.push("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n".to_string());
                    out.push(delta("tool_use"));
                    out.push("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n".to_string());
                }
                End::None => {}
            }
        }
        Wire::OpenAi => {
            let usage_chunk = usage.sent.then(|| {
                let data = serde_json::json!({"id":"c1","object":"chat.completion.chunk","created":1,"model":"fake","choices":[],"usage":{"prompt_tokens":input,"completion_tokens":pieces.len(),"total_tokens":input + pieces.len() as u64,"prompt_tokens_details":{"cached_tokens":cache_read}}});
                format!("data: {data}\n\n")
            });
            out.push("data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"fake\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n".to_string());
            for p in pieces {
                let data = serde_json::json!({"id":"c1","object":"chat.completion.chunk","created":1,"model":"fake","choices":[{"index":0,"delta":{"content":p},"finish_reason":null}]});
                out.push(format!("data: {data}\n\n"));
            }
            match end {
                End::Complete => {
                    out.push("data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"fake\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n".to_string());
                    out.extend(usage_chunk.clone());
                    out.push("data: [DONE]\n\n".to_string());
                }
                End::Error => {
                    out.push("data: {\"error\":{\"message\":\"server had an error\"}}\n\n".to_string())
                }
                End::Tool { name, input } => {
                    let first = serde_json::json!({"id":"c1","object":"chat.completion.chunk","created":1,"model":"fake","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":name,"arguments":""}}]},"finish_reason":null}]});
                    out.push(format!("data: {first}\n\n"));
                    for part in thirds(input) {
                        let data = serde_json::json!({"id":"c1","object":"chat.completion.chunk","created":1,"model":"fake","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":part}}]},"finish_reason":null}]});
                        out.push(format!("data: {data}\n\n"));
                    }
                    out.push("data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"fake\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n".to_string());
                    out.extend(usage_chunk.clone());
                    out.push("data: [DONE]\n\n".to_string());
                }
                End::None => {}
            }
        }
    }
    out
}

/// A `text/event-stream` body, sent one event at a time; `breaks` ends it with an I/O error.
fn sse(events: Vec<String>, breaks: bool) -> Response {
    let items: Vec<Result<Bytes, std::io::Error>> = events
        .into_iter()
        .map(|e| Ok(Bytes::from(e)))
        .chain(breaks.then(|| Err(std::io::Error::other("connection lost"))))
        .collect();
    let stream = futures_util::stream::iter(items).then(|item| async move {
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        item
    });
    Response::builder()
        .header("content-type", "text/event-stream")
        .header("cache-control", "no-cache")
        .body(Body::from_stream(stream))
        .unwrap()
}

/// Counts a reply as cancelled when its body is dropped before its last event was sent.
struct Watch {
    done: bool,
    cancelled: Arc<std::sync::atomic::AtomicUsize>,
}

impl Watch {
    fn finish(&mut self) {
        self.done = true;
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        if !self.done {
            self.cancelled.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }
}

/// A `text/event-stream` body sent one event every `delay`, noting whether the client read it
/// to the end.
fn watched(
    events: Vec<String>,
    delay: std::time::Duration,
    cancelled: Arc<std::sync::atomic::AtomicUsize>,
) -> Response {
    let watch = Watch { done: false, cancelled };
    let stream = futures_util::stream::unfold(
        (events.into_iter(), watch),
        move |(mut events, mut watch)| async move {
            match events.next() {
                Some(event) => {
                    tokio::time::sleep(delay).await;
                    Some((Ok::<_, std::io::Error>(Bytes::from(event)), (events, watch)))
                }
                None => {
                    watch.finish();
                    None
                }
            }
        },
    );
    Response::builder()
        .header("content-type", "text/event-stream")
        .header("cache-control", "no-cache")
        .body(Body::from_stream(stream))
        .unwrap()
}

/// A request's system prompt, wherever the wire format puts it: Anthropic's `system` (a
/// string, or text blocks with cache breakpoints, joined), or OpenAI's first message.
pub fn system_of(body: &serde_json::Value) -> String {
    anthropic_system(body)
        .or_else(|| body["messages"][0]["content"].as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The request's last message's content, as JSON text (quotes and escapes kept), or "".
pub fn last_message(body: &serde_json::Value) -> String {
    body["messages"].as_array().and_then(|m| m.last()).map(|m| m["content"].to_string()).unwrap_or_default()
}

/// Anthropic's `system`, joined, if the request has one.
pub fn anthropic_system(body: &serde_json::Value) -> Option<String> {
    match &body["system"] {
        serde_json::Value::String(text) => Some(text.clone()),
        serde_json::Value::Array(blocks) => {
            Some(blocks.iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>().join(""))
        }
        _ => None,
    }
}

/// The evaluator's answer for a learner who paraphrases: a message with "mRNA" recalls the
/// listed point on ribosomes, which words alone read as only near it.
pub fn ribosomes_on_mrna(body: &serde_json::Value) -> String {
    let said = last_message(body);
    let said = said.rsplit("Latest learner message:").next().unwrap_or_default();
    let recalled: Vec<serde_json::Value> = system_of(body)
        .lines()
        .filter_map(|l| l.strip_prefix("- id \""))
        .filter_map(|l| l.split_once('"'))
        .filter(|(_, rest)| rest.contains("Ribosomes") && said.contains("mRNA"))
        .map(|(id, _)| serde_json::json!({"pointId": id, "confidence": 0.9}))
        .collect();
    serde_json::json!({"recalled": recalled, "nearMisses": [], "observation": ""}).to_string()
}

/// Whether a request is the tutor's, not told that the latest message recalled a point.
pub fn tutor_told_of_no_recall(body: &serde_json::Value) -> bool {
    system_of(body).contains("recall facilitator")
        && !body.to_string().contains("latest message recalled a point")
}

/// A scripted evaluator's finding: each point listed in its system prompt (`- id "…": text`,
/// or in today's review `- id "…" [set "…"]: text`) whose whole text the message holds, at
/// confidence 0.9.
pub fn recalls_in(system: &str, message: &str) -> Vec<serde_json::Value> {
    system
        .lines()
        .filter_map(|l| l.strip_prefix("- id \""))
        .filter_map(|l| match l.split_once("\" [set \"") {
            Some((id, rest)) => rest.split_once("\"]: ").map(|(_, content)| (id, content)),
            None => l.split_once("\": "),
        })
        .filter(|(_, content)| message.contains(content.trim()))
        .map(|(id, _)| serde_json::json!({"pointId": id, "confidence": 0.9}))
        .collect()
}

/// The id of the first point an evaluator's system prompt lists (`- id "…"`).
pub fn first_point_id(system: &str) -> Option<String> {
    system
        .lines()
        .find_map(|l| l.strip_prefix("- id \""))
        .and_then(|l| l.split_once('"'))
        .map(|(id, _)| id.to_string())
}

/// A scripted detector's finding: a tangent on `topic`.
pub fn tangent_found(topic: &str) -> Reply {
    Reply::Said(
        serde_json::json!({"isRabbithole": true, "topic": topic, "depth": 1,
               "relatedToCurrentPoint": false, "relatedRecallPointIds": [],
               "confidence": 0.9, "reasoning": "scripted"})
        .to_string(),
    )
}

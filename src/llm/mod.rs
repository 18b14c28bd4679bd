//! Language-model providers behind one trait.
//!
//! A request carries its own system prompt and messages: no provider holds a prompt, so one
//! agent can never overwrite another's. Each request also names its [`Purpose`] with the
//! structured facts behind the prompt; network providers ignore it, and the built-in
//! [`offline`] provider answers from it without a network.

pub mod anthropic;
pub mod brief;
pub mod health;
pub(crate) mod http;
pub mod offline;
pub mod openai;
pub mod select;
pub mod settings;
pub mod topic;

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use futures_util::{Stream, StreamExt};
use warren_app::protocol::ProviderInfo;

pub use brief::Purpose;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn user(content: impl Into<String>) -> Self {
        Self { role: Role::User, content: content.into() }
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Self { role: Role::Assistant, content: content.into() }
    }
}

/// A conversation as the providers require it: the learner's turn first (`opener` stands in
/// when the model spoke first) and turns alternating, a speaker's consecutive messages joined
/// into one. Empty messages are dropped.
pub fn alternating(messages: Vec<Message>, opener: &str) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::with_capacity(messages.len() + 1);
    for message in messages.into_iter().filter(|m| !m.content.trim().is_empty()) {
        match out.last_mut() {
            Some(last) if last.role == message.role => {
                last.content.push_str("\n\n");
                last.content.push_str(&message.content);
            }
            Some(_) => out.push(message),
            None if message.role == Role::Assistant => {
                out.push(Message::user(opener));
                out.push(message);
            }
            None => out.push(message),
        }
    }
    out
}

/// Which model tier answers: the main one for conversation, a fast one for structured checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    Main,
    Fast,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    /// A single JSON object; the caller validates it into a Rust type.
    Json,
}

/// A tool a model may call while it answers: the tutor's `show_image` and `show_resource`.
#[derive(Clone, Debug, PartialEq)]
pub struct Tool {
    pub name: &'static str,
    pub description: &'static str,
    /// JSON Schema of its input.
    pub input_schema: serde_json::Value,
}

/// A tool call from a model, once its input is complete.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    pub name: String,
    pub input: serde_json::Value,
}

/// What a streamed reply yields: text as it comes, tool calls as they complete, and, from
/// providers that report it, what the request used (once, before the stream ends).
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    Text(String),
    Tool(ToolCall),
    Usage(Usage),
}

/// The tokens one request used, as the provider counted them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Every input token, those read from the provider's prompt cache included.
    pub input: u64,
    /// Of `input`, those read from the prompt cache.
    pub cached_input: u64,
    pub output: u64,
}

#[derive(Clone, Debug)]
pub struct Request {
    pub system: String,
    /// Where stretches of `system` that stay the same from one call of a session to the next
    /// end (byte offsets, ascending). Each agent writes what is stable first (its role, the
    /// set, the points) and what changes each turn after, so a provider's prompt cache can
    /// serve the prefix: Anthropic is sent a `cache_control` breakpoint at each offset;
    /// OpenAI caches the longest prefix it has seen by itself.
    pub cache_at: Vec<usize>,
    pub messages: Vec<Message>,
    /// Tools the model may call (none for most agents).
    pub tools: Vec<Tool>,
    pub max_tokens: u32,
    pub temperature: f32,
    pub format: Format,
    pub tier: Tier,
    pub purpose: Purpose,
}

#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum LlmError {
    #[error("the language model could not be reached: {0}")]
    Unreachable(String),
    #[error("the language model refused the request ({status}): {message}")]
    Rejected { status: u16, message: String },
    #[error("the language model is busy or failing ({status}) and retries ran out: {message}")]
    Exhausted { status: u16, message: String },
    #[error("the language model's reply was cut off: {0}")]
    Interrupted(String),
    #[error("the language model did not answer in time")]
    Timeout,
    #[error("the language model's reply could not be read: {0}")]
    Protocol(String),
}

pub type ReplyStream = Pin<Box<dyn Stream<Item = Result<Output, LlmError>> + Send>>;

#[async_trait]
pub trait Provider: Send + Sync {
    fn info(&self) -> ProviderInfo;

    /// The model that answers requests of `tier` (what a call's usage is priced as).
    fn model(&self, _tier: Tier) -> String {
        self.info().model
    }

    /// Starts a reply. Connection failures and retryable statuses are retried before this
    /// returns; once text flows, a failure arrives as an `Err` item and ends the stream.
    async fn stream(&self, request: &Request) -> Result<ReplyStream, LlmError>;

    /// A cheap request proving the configuration works (key accepted, server reachable).
    async fn probe(&self) -> Result<(), LlmError>;

    /// Reads ahead texts the judges will soon compare messages with (a session's points, the
    /// tutor's latest question), where that makes the next evaluation faster: the offline
    /// judges' sentence model keeps what it read. Nothing for a network provider.
    async fn prepare(&self, _texts: Vec<String>) {}
}

pub type SharedProvider = Arc<dyn Provider>;

impl Request {
    /// `system` cut at its cache breakpoints: each piece, and whether a breakpoint ends it
    /// (empty pieces left out).
    pub fn system_pieces(&self) -> Vec<(&str, bool)> {
        let mut pieces = Vec::new();
        let mut from = 0;
        for &at in &self.cache_at {
            let at = at.min(self.system.len());
            if at > from
                && let Some(piece) = self.system.get(from..at)
            {
                pieces.push((piece, true));
                from = at;
            }
        }
        if let Some(rest) = self.system.get(from..).filter(|r| !r.is_empty()) {
            pieces.push((rest, false));
        }
        pieces
    }
}

/// The whole reply's text as one string (tool calls are for streamed replies only).
pub async fn complete(provider: &dyn Provider, request: &Request) -> Result<String, LlmError> {
    let mut stream = provider.stream(request).await?;
    let mut text = String::new();
    while let Some(piece) = stream.next().await {
        match piece? {
            Output::Text(piece) => text.push_str(&piece),
            Output::Tool(_) | Output::Usage(_) => {}
        }
    }
    Ok(text)
}

/// Timeouts and retry policy shared by the network providers.
#[derive(Clone, Debug)]
pub struct NetPolicy {
    /// Until the response headers arrive.
    pub connect_timeout: Duration,
    pub first_byte_timeout: Duration,
    /// Longest silence between two pieces of a streamed reply.
    pub idle_timeout: Duration,
    pub max_retries: u32,
    pub base_backoff: Duration,
    /// Upper bound for any single wait, including a server's `retry-after`.
    pub max_backoff: Duration,
}

impl Default for NetPolicy {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(10),
            first_byte_timeout: Duration::from_secs(60),
            idle_timeout: Duration::from_secs(45),
            max_retries: 3,
            base_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(20),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Message, Role, alternating};

    #[test]
    fn conversations_start_with_the_learner_and_alternate() {
        let got = alternating(
            vec![
                Message::assistant("Hello?"),
                Message::user("(Side note.)"),
                Message::user("Hi."),
                Message::user(" "),
                Message::assistant("What else?"),
            ],
            "(Opens.)",
        );
        let roles: Vec<Role> = got.iter().map(|m| m.role).collect();
        assert_eq!(roles, [Role::User, Role::Assistant, Role::User, Role::Assistant]);
        assert_eq!(got[0].content, "(Opens.)");
        assert_eq!(got[2].content, "(Side note.)\n\nHi.");
    }
}

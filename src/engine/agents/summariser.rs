//! The summariser: condenses the older part of a long session so the agents that carry on
//! read a summary instead of every message (compaction). It writes for the tutor, from what
//! was said only; it never sees the points, so it cannot give one away.

use super::transcript;
use crate::llm::brief::{SummaryBrief, SummaryTask};
use crate::llm::{Format, LlmError, Message, Provider, Purpose, Request, Tier, complete};

/// Characters kept of a summary.
pub const MAX_SUMMARY: usize = 2_000;

pub fn request(brief: SummaryBrief) -> Request {
    let SummaryTask::Compaction { previous, messages } = &brief.task;
    let system = format!(
        "You keep the record of a recall session on \"{}\" for the tutor who carries it on. The \
         tutor will read your summary instead of the conversation it replaces, so keep what \
         matters for the rest of the session: what was asked and how the learner answered, what \
         they reached on their own, where they were unsure or stuck and which hints they already \
         had, side topics they raised, and anything they said about how they like to work.\n\n\
         Write plain prose about \"the learner\", at most 150 words. Use only what was said: add \
         no facts, and do not answer questions the learner left open. If there is an earlier \
         summary, fold it in: yours replaces it.",
        brief.set_name
    );
    let mut user = String::new();
    if let Some(previous) = previous {
        user.push_str("Earlier summary:\n");
        user.push_str(previous.trim());
        user.push_str("\n\n");
    }
    user.push_str("Conversation to summarise:\n");
    user.push_str(&transcript(messages, "Tutor"));
    Request {
        system,
        messages: vec![Message::user(user)],
        tools: vec![],
        max_tokens: 400,
        temperature: 0.2,
        format: Format::Text,
        tier: Tier::Fast,
        purpose: Purpose::Summariser(brief),
    }
}

/// The summary as it will be kept: trimmed and bounded; `None` when there is none.
pub fn parse(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty()).then(|| text.chars().take(MAX_SUMMARY).collect())
}

/// Asks, once more on an empty answer.
pub async fn summarise(provider: &dyn Provider, brief: SummaryBrief) -> Result<String, LlmError> {
    let request = request(brief);
    let mut last = LlmError::Protocol("the summary was empty".into());
    for _ in 0..2 {
        match complete(provider, &request).await {
            Ok(text) => match parse(&text) {
                Some(summary) => return Ok(summary),
                None => last = LlmError::Protocol("the summary was empty".into()),
            },
            Err(err) => last = err,
        }
    }
    Err(last)
}

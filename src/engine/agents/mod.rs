//! The agents. Each builds its own request (system prompt and messages) and reads its own
//! answers; none shares a prompt or a history with another.

pub mod cleanup;
pub mod detector;
pub mod drafter;
pub mod evaluator;
pub mod explorer;
pub mod summariser;
pub mod tutor;

use crate::llm::{Format, LlmError, Message, Provider, Purpose, Request, Tier, complete};

/// A request for a JSON answer to one message, without tools or sampling: how the agents that
/// judge or extract ask (the tutor, the explorer and the summariser converse or write).
pub(crate) fn json_request(
    system: String,
    cache_at: Vec<usize>,
    user: String,
    max_tokens: u32,
    tier: Tier,
    purpose: Purpose,
) -> Request {
    Request {
        system,
        cache_at,
        messages: vec![Message::user(user)],
        tools: vec![],
        max_tokens,
        temperature: 0.0,
        format: Format::Json,
        tier,
        purpose,
    }
}

/// Asks and reads the answer with `parse`, asking once more when it is not the JSON asked
/// for: `Ok(None)` after two such answers, `Err` when the provider fails (not retried here:
/// the provider's client has retried what is worth retrying).
pub(crate) async fn ask_json<T>(
    provider: &dyn Provider,
    request: &Request,
    agent: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> Result<Option<T>, LlmError> {
    for attempt in 1..=2 {
        match parse(&complete(provider, request).await?) {
            Some(read) => return Ok(Some(read)),
            None => tracing::warn!(attempt, "the {agent}'s answer was not the expected JSON"),
        }
    }
    Ok(None)
}

/// The JSON object inside a model's answer: tolerates code fences and words around it.
pub(crate) fn json_object(text: &str) -> Option<&str> {
    let start = text.find('{')?;
    let end = text.rfind('}')?;
    (start < end).then(|| &text[start..=end])
}

/// A plain transcript of recent turns, for agents that judge rather than converse.
pub(crate) fn transcript(messages: &[Message], tutor_name: &str) -> String {
    let mut out = String::new();
    for m in messages {
        let who = match m.role {
            crate::llm::Role::User => "Learner",
            crate::llm::Role::Assistant => tutor_name,
        };
        out.push_str(who);
        out.push_str(": ");
        out.push_str(m.content.trim());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_object_in_fenced_or_chatty_answers() {
        assert_eq!(json_object("```json\n{\"a\":1}\n```"), Some("{\"a\":1}"));
        assert_eq!(json_object("Sure: {\"a\":{\"b\":2}} done"), Some("{\"a\":{\"b\":2}}"));
        assert_eq!(json_object("no json here"), None);
        assert_eq!(json_object("} {"), None);
    }
}

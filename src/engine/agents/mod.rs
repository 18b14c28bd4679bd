//! The agents. Each builds its own request (system prompt and messages) and reads its own
//! answers; none shares a prompt or a history with another.

pub mod cleanup;
pub mod detector;
pub mod drafter;
pub mod evaluator;
pub mod explorer;
pub mod summariser;
pub mod tutor;

use crate::llm::Message;

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

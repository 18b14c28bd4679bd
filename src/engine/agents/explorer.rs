//! The rabbit-hole explorer: a different personality with its own history, sharing freely and
//! following the learner's curiosity. It never sees the tutor's context or the evaluator.

use crate::llm::brief::ExplorerBrief;
use crate::llm::{Format, Purpose, Request, Tier, alternating};

pub fn system_prompt(brief: &ExplorerBrief, description: &str) -> String {
    let topic = &brief.topic;
    let set = &brief.set_name;
    let mut prompt = format!(
        "The user is exploring a tangent about \"{topic}\" that came up during a recall session on \"{set}\".\n\n"
    );
    if !description.trim().is_empty() {
        prompt.push_str(description.trim());
        prompt.push_str("\n\n");
    }
    prompt.push_str(&format!(
        "Be exploratory and conversational. Follow their curiosity. Go deep on whatever interests them.\n\
         You are NOT a Socratic tutor here — you're a curious conversation partner who knows about this topic.\n\n\
         Feel free to:\n\
         - Share interesting facts and connections\n\
         - Ask follow-up questions about what interests them\n\
         - Reference the broader context of {set} when relevant\n\
         - Make connections between {topic} and related ideas\n\n\
         Keep responses concise but information-dense. No bullet lists. Conversational tone.\n\
         Short paragraphs. If they ask a direct question, answer it directly — don't turn it into a Socratic exercise."
    ));
    if !brief.resources.is_empty() {
        prompt.push_str("\n\nNotes from the learner's own materials, if useful:\n");
        for r in &brief.resources {
            prompt.push_str(&format!("- {}: {}\n", r.title, r.body.trim()));
        }
    }
    prompt
}

/// The first words when the learner opts in, or the answer to their latest message. The
/// brief's history is the whole branch so far: the opt-in, then every message, ending with the
/// one to answer (stored before the turn starts).
pub fn request(brief: ExplorerBrief, description: &str) -> Request {
    let system = system_prompt(&brief, description);
    let messages = alternating(brief.history.clone(), &opening_prompt(&brief.topic));
    // The prompt holds for the whole rabbit hole: a provider's cache serves it.
    let cache_at = vec![system.len()];
    Request {
        system,
        cache_at,
        messages,
        tools: vec![],
        max_tokens: 700,
        temperature: 0.8,
        format: Format::Text,
        tier: Tier::Main,
        purpose: Purpose::Explorer(brief),
    }
}

/// What the learner is taken to have said on opting in.
pub fn opening_prompt(topic: &str) -> String {
    format!("I'm curious about {topic}. Tell me more.")
}

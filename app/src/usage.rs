//! What the language models were asked to do for a learner, and what it cost: each agent's
//! calls and tokens, as the providers counted them, priced from the operator's price list.

use serde::{Deserialize, Serialize};

crate::named_enum! {
    /// Who made a call to a language model.
    pub enum Agent {
        /// The facilitator that asks.
        Tutor = "tutor",
        /// Judges each learner message against the unchecked points.
        Evaluator = "evaluator",
        /// Notices tangents worth a rabbit hole.
        Detector = "detector",
        /// Talks inside a rabbit hole.
        Explorer = "explorer",
        /// Condenses a long session, notes a rabbit hole's return, writes the session's summary.
        Summariser = "summariser",
        /// Puts a spoken answer's misheard terms right.
        Cleanup = "cleanup",
        /// Drafts points from the learner's material.
        Drafter = "drafter",
    }
}

impl Agent {
    /// As a page names it.
    pub fn label(self) -> &'static str {
        match self {
            Agent::Tutor => "Tutor",
            Agent::Evaluator => "Evaluator",
            Agent::Detector => "Rabbit-hole detector",
            Agent::Explorer => "Rabbit-hole guide",
            Agent::Summariser => "Summaries",
            Agent::Cleanup => "Voice clean-up",
            Agent::Drafter => "Drafting",
        }
    }
}

/// Tokens an agent used, added up, and what they cost.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tokens {
    pub calls: i64,
    /// Every input token, those read from the provider's prompt cache included.
    pub input: i64,
    /// Of `input`, those read from the cache (billed at a lower price).
    pub cached_input: i64,
    pub output: i64,
    /// In US dollars, when every model involved has a price (`WARREN_PRICES`).
    pub cost_usd: Option<f64>,
}

impl Default for Tokens {
    /// Nothing used, which costs nothing.
    fn default() -> Self {
        Self { calls: 0, input: 0, cached_input: 0, output: 0, cost_usd: Some(0.0) }
    }
}

impl Tokens {
    /// Adds `other` in: a cost is known only while both are.
    pub fn add(&mut self, other: &Tokens) {
        self.calls += other.calls;
        self.input += other.input;
        self.cached_input += other.cached_input;
        self.output += other.output;
        self.cost_usd = self.cost_usd.zip(other.cost_usd).map(|(a, b)| a + b);
    }
}

/// The lines added up.
pub fn total(lines: &[AgentTokens]) -> Tokens {
    let mut total = Tokens::default();
    for line in lines {
        total.add(&line.tokens);
    }
    total
}

/// One agent's line of a usage table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentTokens {
    pub agent: Agent,
    pub tokens: Tokens,
}

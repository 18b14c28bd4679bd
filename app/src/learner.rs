//! Who is studying: the one name for the person using Warren, on both sides of the wire.

use serde::{Deserialize, Serialize};

/// A learner's account id. Store, engine, web and pages all pass this rather than a bare
/// string, so a learner's id cannot be handed where a set's or a session's is expected.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(sqlx::Type), sqlx(transparent))]
#[serde(transparent)]
pub struct LearnerId(String);

impl LearnerId {
    /// Wraps an id read from the store or a signed-in session.
    pub fn new(id: impl Into<String>) -> Self {
        Self(id.into())
    }

    /// The id as stored.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for LearnerId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

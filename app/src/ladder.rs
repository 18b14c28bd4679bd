//! The hint ladder: how far the tutor has gone in helping with the point under discussion.
//! Stored with each point's struggle, read by the tutor's prompt and the offline tutor.

crate::named_enum! {
    /// The hint ladder for the point under discussion, one rung per learner message that
    /// does not recall it (see `engine::struggle`).
    #[derive(Default)]
    pub enum Rung {
        /// Ask with the point's cue.
        #[default]
        Cue = "cue",
        /// Ask from another side, built from the point or its notes.
        Angle = "angle",
        /// Give away a little: the first letters of a key word.
        Nudge = "nudge",
        /// Give the point with gaps to fill.
        Gaps = "gaps",
        /// Give the answer and ask for it in the learner's own words.
        Answer = "answer",
    }
}

impl Rung {
    /// The rung above this one (the answer is the top).
    pub fn next(self) -> Self {
        match self {
            Rung::Cue => Rung::Angle,
            Rung::Angle => Rung::Nudge,
            Rung::Nudge => Rung::Gaps,
            Rung::Gaps | Rung::Answer => Rung::Answer,
        }
    }
}

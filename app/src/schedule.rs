//! The schedule's vocabulary: where a point's FSRS card stands and how a review went, stored
//! by name and shown on the set's page.

crate::named_enum! {
    /// Where a point's card stands in FSRS's cycle.
    #[derive(Default)]
    pub enum CardState {
        /// Never reviewed.
        #[default]
        New = "new",
        /// Reviewed, still being learnt.
        Learning = "learning",
        /// Learnt; reviewed at growing intervals.
        Review = "review",
        /// Forgotten after it was learnt, being learnt again.
        Relearning = "relearning",
    }
}

crate::named_enum! {
    /// How a review went.
    pub enum Rating {
        /// Not recalled (or its answer had to be given).
        Again = "again",
        /// Recalled with effort or help.
        Hard = "hard",
        /// Recalled.
        Good = "good",
        /// Recalled at once, without help.
        Easy = "easy",
    }
}

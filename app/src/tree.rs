//! The session tree's vocabulary, shared by the store (which writes it) and the history pages
//! (which show it): what kind of entry a row is, and who spoke.

crate::named_enum! {
    /// Who wrote a message entry: the learner, the recall tutor (on the main line) or the
    /// rabbit-hole explorer (on a branch).
    #[allow(missing_docs)]
    pub enum Speaker { Learner = "learner", Tutor = "tutor", Explorer = "explorer" }
}

crate::named_enum! {
    /// What an entry of a session's tree records.
    pub enum EntryKind {
        /// A learner or agent message.
        Message = "message",
        /// Entering or leaving a rabbit hole (`data.mode`, `data.rabbitholeId`).
        ModeChange = "mode_change",
        /// What a finished branch explored, written where the main line resumes.
        BranchSummary = "branch_summary",
        /// Stands in for older entries in agent context (`data.firstKeptEntryId`).
        Compaction = "compaction",
        /// A learner's label on another entry (`data.targetId`).
        Label = "label",
        /// The session's summary when the learner left or completed it: readable text, and
        /// the structured summary in `data` (see `summary::SessionSummary`). Like a label, it
        /// hangs off the leaf without moving it.
        Summary = "summary",
        /// Anything else worth keeping in the history (not sent to agents).
        Custom = "custom",
    }
}

-- The dashboard's statistics read a learner's reviews and messages by time.
CREATE INDEX recall_outcomes_owner_time ON recall_outcomes (owner_id, recalled_at);
CREATE INDEX session_entries_owner_time ON session_entries (owner_id, created_at);

-- Labels and compactions of a session are read by kind, in append order.
CREATE INDEX session_entries_kind ON session_entries (session_id, kind, seq);
-- The history list pages through a learner's sessions by start time.
CREATE INDEX sessions_owner_started ON sessions (owner_id, started_at);

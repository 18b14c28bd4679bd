-- Labels and compactions of a session are read by kind, in append order.
CREATE INDEX session_entries_kind ON session_entries (session_id, kind, seq);

-- A session's newest summary (a `summary` entry of its tree) and where writing it stands:
-- NULL (never asked), pending, ready or failed (with the last error, for the operator).
ALTER TABLE sessions ADD COLUMN summary_entry_id TEXT;
ALTER TABLE sessions ADD COLUMN summary_status TEXT;
ALTER TABLE sessions ADD COLUMN summary_error TEXT;
-- Summaries still to write are picked up again at start-up.
CREATE INDEX sessions_summary_status ON sessions (summary_status);
-- Near misses on a point in a session: part of how it was recalled.
ALTER TABLE point_struggles ADD COLUMN near_misses BIGINT NOT NULL DEFAULT 0;

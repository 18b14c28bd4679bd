-- One instance writes each pending summary: the one that claimed it, while its heartbeat
-- (warren_instances) is fresh. A claim by an instance gone quiet may be taken over.
ALTER TABLE sessions ADD COLUMN summary_claimed_by TEXT;
ALTER TABLE sessions ADD COLUMN summary_claimed_at BIGINT;

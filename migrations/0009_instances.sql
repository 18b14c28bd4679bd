-- Several Warren processes may share one PostgreSQL database. Each names itself in
-- `warren_instances` and beats a heartbeat there; a live session is run by one of them at a
-- time, the holder of its lease. A lease whose instance has stopped beating has lapsed.
CREATE TABLE warren_instances (
    id TEXT PRIMARY KEY,
    address TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    heartbeat_at BIGINT NOT NULL
);

CREATE TABLE session_leases (
    session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    instance_id TEXT NOT NULL,
    -- New at every take, so a holder that stopped cannot release its successor's lease.
    lease_id TEXT NOT NULL,
    taken_at BIGINT NOT NULL,
    -- Set by another instance whose socket wants the session: the holder hands it over.
    wanted_at BIGINT
);
CREATE INDEX session_leases_instance ON session_leases (instance_id);

-- Token buckets shared by every instance: sign-in and sign-up attempts per address and per
-- account. `tokens` is what was left at `updated_at` (ms); it refills with time.
CREATE TABLE rate_limits (
    key TEXT PRIMARY KEY,
    tokens DOUBLE PRECISION NOT NULL,
    updated_at BIGINT NOT NULL
);

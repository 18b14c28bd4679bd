-- Recall sets, their points (with FSRS state), resources, sessions and the session tree.
-- Portable across SQLite and PostgreSQL: text ids, BIGINT milliseconds since the epoch,
-- DOUBLE PRECISION for FSRS numbers, JSON kept as TEXT. Every row names its owner.

CREATE TABLE recall_sets (
    id          TEXT PRIMARY KEY,
    owner_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    -- Extra instructions for the tutor, appended last to its prompt.
    guidelines  TEXT NOT NULL DEFAULT '',
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);
CREATE INDEX recall_sets_owner ON recall_sets (owner_id, created_at);

CREATE TABLE recall_points (
    id             TEXT PRIMARY KEY,
    set_id         TEXT NOT NULL REFERENCES recall_sets(id) ON DELETE CASCADE,
    owner_id       TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    position       BIGINT NOT NULL,
    -- The fact to remember, and a cue the tutor may use to ask about it without giving it away.
    content        TEXT NOT NULL,
    context        TEXT NOT NULL DEFAULT '',
    -- FSRS card state.
    fsrs_state     TEXT NOT NULL DEFAULT 'new',
    due_at         BIGINT NOT NULL,
    stability      DOUBLE PRECISION NOT NULL DEFAULT 0,
    difficulty     DOUBLE PRECISION NOT NULL DEFAULT 0,
    elapsed_days   BIGINT NOT NULL DEFAULT 0,
    scheduled_days BIGINT NOT NULL DEFAULT 0,
    reps           BIGINT NOT NULL DEFAULT 0,
    lapses         BIGINT NOT NULL DEFAULT 0,
    last_review_at BIGINT,
    created_at     BIGINT NOT NULL
);
CREATE INDEX recall_points_set ON recall_points (set_id, position);
CREATE INDEX recall_points_due ON recall_points (owner_id, due_at);

CREATE TABLE resources (
    id         TEXT PRIMARY KEY,
    set_id     TEXT NOT NULL REFERENCES recall_sets(id) ON DELETE CASCADE,
    owner_id   TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    -- 'text' (an excerpt in body) or 'image' (url, mime_type, licence).
    kind       TEXT NOT NULL,
    title      TEXT NOT NULL,
    body       TEXT NOT NULL DEFAULT '',
    url        TEXT,
    mime_type  TEXT,
    licence    TEXT,
    created_at BIGINT NOT NULL
);
CREATE INDEX resources_set ON resources (set_id);

CREATE TABLE point_resources (
    point_id    TEXT NOT NULL REFERENCES recall_points(id) ON DELETE CASCADE,
    resource_id TEXT NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
    owner_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    relevance   DOUBLE PRECISION NOT NULL DEFAULT 1,
    PRIMARY KEY (point_id, resource_id)
);

CREATE TABLE sessions (
    id               TEXT PRIMARY KEY,
    owner_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    set_id           TEXT NOT NULL REFERENCES recall_sets(id) ON DELETE CASCADE,
    -- in_progress | paused | completed | abandoned
    status           TEXT NOT NULL,
    -- JSON array of point ids, in probe order.
    target_point_ids TEXT NOT NULL,
    -- The entry the agents' context ends at (NULL before the first entry).
    leaf_id          TEXT,
    -- recall | rabbithole
    mode             TEXT NOT NULL DEFAULT 'recall',
    active_rabbithole_id TEXT,
    -- Learner messages left before the rabbit-hole detector may fire again.
    decline_cooldown BIGINT NOT NULL DEFAULT 0,
    overlay_dismissed BIGINT NOT NULL DEFAULT 0,
    -- Study time accumulated by earlier stretches; the current stretch began at resumed_at.
    active_ms        BIGINT NOT NULL DEFAULT 0,
    resumed_at       BIGINT,
    started_at       BIGINT NOT NULL,
    updated_at       BIGINT NOT NULL,
    ended_at         BIGINT
);
CREATE INDEX sessions_owner ON sessions (owner_id, updated_at);
CREATE INDEX sessions_set ON sessions (set_id, status);

-- Each point checked off in a session, with the FSRS review it caused.
CREATE TABLE recall_outcomes (
    id          TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    point_id    TEXT NOT NULL REFERENCES recall_points(id) ON DELETE CASCADE,
    owner_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    -- again | hard | good | easy
    rating      TEXT NOT NULL,
    confidence  DOUBLE PRECISION NOT NULL,
    -- The learner message that showed the recall.
    entry_id    TEXT,
    in_rabbithole BIGINT NOT NULL DEFAULT 0,
    recalled_at BIGINT NOT NULL,
    UNIQUE (session_id, point_id)
);

-- The session as an append-only tree. Entries are never updated or deleted; branching moves
-- sessions.leaf_id. `data` holds the kind's own fields as JSON.
CREATE TABLE session_entries (
    id                TEXT PRIMARY KEY,
    session_id        TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    owner_id          TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    parent_id         TEXT REFERENCES session_entries(id),
    seq               BIGINT NOT NULL,
    created_at        BIGINT NOT NULL,
    -- message | mode_change | branch_summary | compaction | label | custom
    kind              TEXT NOT NULL,
    -- user | assistant, for messages
    role              TEXT,
    -- tutor | explorer, for assistant messages
    agent             TEXT,
    content           TEXT NOT NULL DEFAULT '',
    data              TEXT,
    client_message_id TEXT,
    UNIQUE (session_id, seq)
);
CREATE UNIQUE INDEX session_entries_client_id ON session_entries (session_id, client_message_id);
CREATE INDEX session_entries_parent ON session_entries (parent_id);

CREATE TABLE rabbithole_events (
    id               TEXT PRIMARY KEY,
    session_id       TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    owner_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    topic            TEXT NOT NULL,
    label            TEXT NOT NULL,
    -- detected | declined | entered | returned
    status           TEXT NOT NULL,
    -- The learner message that set it off, and the entry the branch hangs from.
    trigger_entry_id TEXT,
    branch_from_id   TEXT,
    -- The explorer's conversation as JSON [{role, content}], written on exit.
    conversation     TEXT,
    detection        TEXT,
    points_recalled  BIGINT NOT NULL DEFAULT 0,
    created_at       BIGINT NOT NULL,
    updated_at       BIGINT NOT NULL
);
CREATE INDEX rabbithole_events_session ON rabbithole_events (session_id, created_at);

-- Points drafted from a learner's own material. A source is the text they pasted or uploaded,
-- cut into passages and drafted in the background (on whichever instance started it; one
-- whose heartbeat has gone quiet has stopped); its drafts wait for the learner's review, for
-- a day at most, like import drafts.
CREATE TABLE sources (
    id              TEXT PRIMARY KEY,
    owner_id        TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    -- The set the points go to, or NULL for a new set named `set_name`.
    set_id          TEXT REFERENCES recall_sets(id) ON DELETE CASCADE,
    set_name        TEXT NOT NULL,
    -- What the learner called it (a file's name, or "Pasted text").
    title           TEXT NOT NULL,
    -- Its passages, as a JSON array of strings, in order.
    passages        TEXT NOT NULL,
    -- drafting | ready | failed
    status          TEXT NOT NULL,
    passages_done   BIGINT NOT NULL DEFAULT 0,
    -- Passages not drafted (the model's answer could not be read twice), as a JSON array of
    -- their indices.
    not_drafted     TEXT NOT NULL DEFAULT '[]',
    error           TEXT,
    created_at      BIGINT NOT NULL,
    heartbeat_at    BIGINT NOT NULL
);
CREATE INDEX sources_owner ON sources (owner_id, created_at);

CREATE TABLE source_drafts (
    id          TEXT PRIMARY KEY,
    source_id   TEXT NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    owner_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    -- Its passage (an index into `sources.passages`) and its place among the drafts.
    passage     BIGINT NOT NULL,
    position    BIGINT NOT NULL,
    content     TEXT NOT NULL,
    cue         TEXT NOT NULL,
    -- The exact words of the source it rests on.
    quote       TEXT NOT NULL
);
CREATE INDEX source_drafts_source ON source_drafts (source_id, position);

-- Learners author their own sets: archiving, one name per learner, uploaded images, what a
-- session has shown, and imports waiting for the learner's confirmation.
ALTER TABLE recall_sets ADD COLUMN archived_at BIGINT;
CREATE UNIQUE INDEX recall_sets_owner_name ON recall_sets (owner_id, lower(name));

-- An uploaded image's bytes (BYTEA: a blob in PostgreSQL; SQLite keeps blobs in any column).
CREATE TABLE resource_images (
    resource_id TEXT PRIMARY KEY REFERENCES resources(id) ON DELETE CASCADE,
    owner_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    bytes       BYTEA NOT NULL
);

-- Resources a session has shown, so a reload shows them again.
CREATE TABLE shown_resources (
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    resource_id TEXT NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
    owner_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    shown_at    BIGINT NOT NULL,
    PRIMARY KEY (session_id, resource_id)
);

-- An uploaded file between its preview and the learner's confirmation.
CREATE TABLE import_drafts (
    id         TEXT PRIMARY KEY,
    owner_id   TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    file_name  TEXT NOT NULL,
    bytes      BYTEA NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX import_drafts_owner ON import_drafts (owner_id, created_at);

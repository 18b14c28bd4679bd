-- Sign-in sessions (tower-sessions records, kept here so every instance shares them).
-- Usernames are stored lower-cased; users.username is already UNIQUE.
CREATE TABLE auth_sessions (
    id         TEXT PRIMARY KEY,
    data       TEXT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX auth_sessions_expiry ON auth_sessions (expires_at);

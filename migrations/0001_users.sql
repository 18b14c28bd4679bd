-- Learners. Every table holding learner data refers to a user as its owner.
-- Portable across SQLite and PostgreSQL: text ids, BIGINT milliseconds since the epoch.
CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    username      TEXT NOT NULL UNIQUE,
    password_hash TEXT,
    created_at    BIGINT NOT NULL
);

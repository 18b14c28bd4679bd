-- Today's review: one session over points of several sets.
--
-- A session's `set_id` is now NULL for a review across sets (a set session keeps its set, and
-- goes with it when the set is deleted). SQLite cannot drop NOT NULL in place, so the column is
-- replaced, portably: a nullable copy, filled, then renamed over the old one.
ALTER TABLE sessions ADD COLUMN set_ref TEXT REFERENCES recall_sets(id) ON DELETE CASCADE;
UPDATE sessions SET set_ref = set_id;
DROP INDEX sessions_set;
ALTER TABLE sessions DROP COLUMN set_id;
ALTER TABLE sessions RENAME COLUMN set_ref TO set_id;
CREATE INDEX sessions_set ON sessions (set_id, status);

-- The sets each session draws its points from: one row for a set session, one per set for a
-- review. A deleted set leaves the reviews it was part of (its points drop out of them).
CREATE TABLE session_sets (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    set_id     TEXT NOT NULL REFERENCES recall_sets(id) ON DELETE CASCADE,
    owner_id   TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    PRIMARY KEY (session_id, set_id)
);
CREATE INDEX session_sets_set ON session_sets (set_id);
INSERT INTO session_sets (session_id, set_id, owner_id) SELECT id, set_id, owner_id FROM sessions;

-- The learner's daily limits for today's review.
ALTER TABLE users ADD COLUMN review_points_per_session BIGINT NOT NULL DEFAULT 20;
ALTER TABLE users ADD COLUMN new_points_per_day BIGINT NOT NULL DEFAULT 10;

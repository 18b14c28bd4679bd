-- The review log. One row per review of a point: a recall checked off, or a point the learner
-- tried and did not recall by the end of the session. A point's card (the FSRS columns of
-- recall_points) is the result of replaying its rows in order with the learner's parameters;
-- the memory columns here are that replay's steps, NULL until it has run (the server replays
-- such points when it starts).
CREATE TABLE reviews (
    id                TEXT PRIMARY KEY,
    owner_id          TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    point_id          TEXT NOT NULL REFERENCES recall_points(id) ON DELETE CASCADE,
    -- NULL for reviews carried in from elsewhere.
    session_id        TEXT REFERENCES sessions(id) ON DELETE CASCADE,
    -- again | hard | good | easy
    rating            TEXT NOT NULL,
    -- recall | failure
    kind              TEXT NOT NULL,
    reviewed_at       BIGINT NOT NULL,
    -- Whole days since the point's previous review (0 for its first).
    elapsed_days      BIGINT,
    -- FSRS memory before (NULL: the point's first) and after.
    stability_before  DOUBLE PRECISION,
    difficulty_before DOUBLE PRECISION,
    stability_after   DOUBLE PRECISION,
    difficulty_after  DOUBLE PRECISION,
    -- One review per point and session, however often a session is resumed or replayed.
    UNIQUE (session_id, point_id)
);
CREATE INDEX reviews_point ON reviews (point_id, reviewed_at);
CREATE INDEX reviews_owner ON reviews (owner_id, reviewed_at);
CREATE INDEX reviews_unreplayed ON reviews (point_id) WHERE stability_after IS NULL;

-- Every recall so far is a review.
INSERT INTO reviews (id, owner_id, point_id, session_id, rating, kind, reviewed_at)
SELECT id, owner_id, point_id, session_id, rating, 'recall', recalled_at FROM recall_outcomes;

-- A schedule a point came with but whose reviews are not in the log (a set imported with its
-- schedule): the replay of the log starts from it.
ALTER TABLE recall_points ADD COLUMN carried_stability DOUBLE PRECISION;
ALTER TABLE recall_points ADD COLUMN carried_difficulty DOUBLE PRECISION;
ALTER TABLE recall_points ADD COLUMN carried_at BIGINT;
-- When the learner last reset the point's schedule (its wording changed): reviews before it
-- stay in the log but no longer count.
ALTER TABLE recall_points ADD COLUMN schedule_reset_at BIGINT;
UPDATE recall_points
   SET carried_stability = stability, carried_difficulty = difficulty, carried_at = last_review_at
 WHERE reps > 0 AND stability > 0 AND last_review_at IS NOT NULL
   AND NOT EXISTS (SELECT 1 FROM recall_outcomes o WHERE o.point_id = recall_points.id);

-- Each learner's schedule: the retention they ask for and the FSRS parameters fitted to their
-- reviews (empty: FSRS-6's defaults).
CREATE TABLE learner_schedules (
    owner_id    TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    retention   DOUBLE PRECISION NOT NULL DEFAULT 0.9,
    parameters  TEXT NOT NULL DEFAULT '',
    -- Failures after which the set page flags a point as a leech.
    leech_lapses BIGINT NOT NULL DEFAULT 4,
    updated_at  BIGINT NOT NULL
);

-- How hard each point of a session has been: the hint ladder the tutor climbs for it, and
-- what rates its FSRS review. One row per session and point, written before the tutor speaks.
CREATE TABLE point_struggles (
    session_id       TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    point_id         TEXT NOT NULL REFERENCES recall_points(id) ON DELETE CASCADE,
    owner_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    -- Learner messages about the point that did not recall it.
    attempts         BIGINT NOT NULL DEFAULT 0,
    -- Hints given (rungs past the cue, the answer excluded).
    hints            BIGINT NOT NULL DEFAULT 0,
    -- cue | angle | nudge | gaps | answer: the rung of the next reply about the point.
    rung             TEXT NOT NULL DEFAULT 'cue',
    revealed         BIGINT NOT NULL DEFAULT 0,
    -- Revealed, answered, and set aside until the other points are done.
    parked           BIGINT NOT NULL DEFAULT 0,
    -- The learner message last counted (a message answered again after a restart counts once).
    counted_entry_id TEXT,
    updated_at       BIGINT NOT NULL,
    PRIMARY KEY (session_id, point_id)
);

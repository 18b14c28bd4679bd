-- Fitting a learner's FSRS parameters to their review log: the latest run for each learner,
-- on whichever instance took it. A run whose heartbeat has gone quiet may be taken over.
CREATE TABLE schedule_fits (
    owner_id        TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    -- running | done | failed
    status          TEXT NOT NULL,
    -- asked (the learner pressed "Fit my schedule") | weekly
    reason          TEXT NOT NULL,
    started_at      BIGINT NOT NULL,
    heartbeat_at    BIGINT NOT NULL,
    finished_at     BIGINT,
    -- The optimiser's steps done and to do.
    progress_done   BIGINT NOT NULL DEFAULT 0,
    progress_total  BIGINT NOT NULL DEFAULT 0,
    -- Reviews that follow an earlier review of the same point: what the fit learned from.
    items           BIGINT NOT NULL DEFAULT 0,
    -- How well the parameters in use before and the fitted ones predict those reviews.
    log_loss_before DOUBLE PRECISION,
    rmse_before     DOUBLE PRECISION,
    log_loss_after  DOUBLE PRECISION,
    rmse_after      DOUBLE PRECISION,
    -- 1 when the fitted parameters predicted better and replaced those in use.
    adopted         BIGINT NOT NULL DEFAULT 0,
    -- Due dates the new parameters moved.
    moved           BIGINT NOT NULL DEFAULT 0,
    error           TEXT
);

-- A recall the learner said was not one ("Not a recall" on the history page): its review left
-- the log; what the message was and which point it was taken for stay, as evaluator cases.
CREATE TABLE review_disputes (
    id          TEXT PRIMARY KEY,
    owner_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    point_id    TEXT NOT NULL REFERENCES recall_points(id) ON DELETE CASCADE,
    -- The learner's message the recall was credited to.
    entry_id    TEXT,
    -- The rating the removed review had.
    rating      TEXT NOT NULL,
    disputed_at BIGINT NOT NULL,
    UNIQUE (session_id, point_id)
);
CREATE INDEX review_disputes_owner ON review_disputes (owner_id, disputed_at);

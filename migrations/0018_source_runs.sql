-- Each drafting of a source is a run: "Draft again" starts the next one, and only the run
-- that holds the source may record progress or write its drafts, so a slow run overtaken by a
-- newer one writes nothing when it ends.
ALTER TABLE sources ADD COLUMN drafting_run BIGINT NOT NULL DEFAULT 0;

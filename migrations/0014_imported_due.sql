-- When a point is due where its history came from (an Anki card's due date). The replay of its
-- log keeps that due date until the point is first reviewed here.
ALTER TABLE recall_points ADD COLUMN imported_due_at BIGINT;

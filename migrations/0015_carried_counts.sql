-- How many reviews and failures a carried schedule stood for (a set imported with its
-- schedule but not its reviews): the replay counts on from them, so such a point is not shown
-- as new, nor its lapses forgotten, when its log is replayed. For carried starts from before
-- these columns, they are what the card counts beyond its log here (at least one review).
ALTER TABLE recall_points ADD COLUMN carried_reps BIGINT NOT NULL DEFAULT 0;
ALTER TABLE recall_points ADD COLUMN carried_lapses BIGINT NOT NULL DEFAULT 0;
UPDATE recall_points
   SET carried_reps = CASE
         WHEN reps - (SELECT COUNT(*) FROM reviews r WHERE r.point_id = recall_points.id) > 1
         THEN reps - (SELECT COUNT(*) FROM reviews r WHERE r.point_id = recall_points.id)
         ELSE 1 END,
       carried_lapses = CASE
         WHEN lapses - (SELECT COUNT(*) FROM reviews r WHERE r.point_id = recall_points.id AND r.rating = 'again') > 0
         THEN lapses - (SELECT COUNT(*) FROM reviews r WHERE r.point_id = recall_points.id AND r.rating = 'again')
         ELSE 0 END
 WHERE carried_at IS NOT NULL;

-- Whose each sign-in is, when and from where it began: the account page lists a learner's
-- sign-ins and ends them. Written from the sign-in's own data each time it is saved.
-- `ref_id` names a sign-in in pages and forms; its `id` is the cookie's secret and is never
-- shown.
ALTER TABLE auth_sessions ADD COLUMN user_id TEXT;
ALTER TABLE auth_sessions ADD COLUMN ref_id TEXT;
ALTER TABLE auth_sessions ADD COLUMN signed_in_at BIGINT;
ALTER TABLE auth_sessions ADD COLUMN address TEXT;
ALTER TABLE auth_sessions ADD COLUMN user_agent TEXT;
CREATE INDEX auth_sessions_user ON auth_sessions (user_id);

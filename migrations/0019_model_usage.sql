-- What each call to a language model used, as its provider counted it: the learner it was
-- made for, the session (NULL for drafting and voice clean-up, or once the session is gone:
-- what was spent stays spent), the agent and the model.
CREATE TABLE model_calls (
    id                  TEXT PRIMARY KEY,
    owner_id            TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    session_id          TEXT REFERENCES sessions(id) ON DELETE SET NULL,
    -- tutor | evaluator | detector | explorer | summariser | cleanup | drafter
    agent               TEXT NOT NULL,
    model               TEXT NOT NULL,
    -- Every input token, those read from the provider's prompt cache included.
    input_tokens        BIGINT NOT NULL,
    cached_input_tokens BIGINT NOT NULL,
    output_tokens       BIGINT NOT NULL,
    -- 1 when the reply was read to its end, 0 when it was cut off (a speculative reply the
    -- evaluator overruled, a reply the learner left).
    finished            BIGINT NOT NULL,
    at                  BIGINT NOT NULL
);
CREATE INDEX model_calls_owner ON model_calls (owner_id, at);
CREATE INDEX model_calls_session ON model_calls (session_id);

-- An operator's word on a learner's allowance of model tokens, over the server's defaults
-- (`WARREN_DAILY_TOKENS_PER_LEARNER`, `WARREN_MONTHLY_TOKENS_PER_LEARNER`).
CREATE TABLE learner_budgets (
    owner_id       TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    -- NULL: the server's default.
    daily_tokens   BIGINT,
    monthly_tokens BIGINT,
    -- No cap until then (milliseconds since the epoch).
    lifted_until   BIGINT
);

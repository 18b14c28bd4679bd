//! What the engine has done since start-up, counted from every engine event and every error
//! frame: the listener that gives each [`SessionEvent`] a consumer besides the learner's
//! socket. Each event is also logged (at `debug`, inside the session's span); the counters are
//! served at `/metrics` in Prometheus's text format.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};

use warren_app::protocol::{ErrorCode, SessionEvent};
use warren_app::usage::Agent;

use super::reply_check::Rule;

/// One counter per kind of happening.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Counter {
    SessionsOpened,
    SessionsPaused,
    SessionsCompleted,
    Overlays,
    LearnerMessages,
    Replies,
    RepliesStarted,
    Recalls,
    NearMisses,
    RabbitholesOffered,
    RabbitholesEntered,
    RabbitholesDeclined,
    RabbitholesReturned,
    ResourcesShown,
}

impl Counter {
    const ALL: [Counter; 14] = [
        Counter::SessionsOpened,
        Counter::SessionsPaused,
        Counter::SessionsCompleted,
        Counter::Overlays,
        Counter::LearnerMessages,
        Counter::Replies,
        Counter::RepliesStarted,
        Counter::Recalls,
        Counter::NearMisses,
        Counter::RabbitholesOffered,
        Counter::RabbitholesEntered,
        Counter::RabbitholesDeclined,
        Counter::RabbitholesReturned,
        Counter::ResourcesShown,
    ];

    fn name(self) -> &'static str {
        match self {
            Counter::SessionsOpened => "warren_session_attaches_total",
            Counter::SessionsPaused => "warren_sessions_paused_total",
            Counter::SessionsCompleted => "warren_sessions_completed_total",
            Counter::Overlays => "warren_completion_overlays_total",
            Counter::LearnerMessages => "warren_learner_messages_total",
            Counter::Replies => "warren_replies_total",
            Counter::RepliesStarted => "warren_replies_started_total",
            Counter::Recalls => "warren_recalls_total",
            Counter::NearMisses => "warren_near_misses_total",
            Counter::RabbitholesOffered => "warren_rabbitholes_offered_total",
            Counter::RabbitholesEntered => "warren_rabbitholes_entered_total",
            Counter::RabbitholesDeclined => "warren_rabbitholes_declined_total",
            Counter::RabbitholesReturned => "warren_rabbitholes_returned_total",
            Counter::ResourcesShown => "warren_resources_shown_total",
        }
    }

    /// Which counter an event advances, and the name it is logged under.
    fn of(event: &SessionEvent) -> (&'static str, Option<Counter>) {
        match event {
            SessionEvent::SessionStarted(_) => ("session_started", Some(Counter::SessionsOpened)),
            SessionEvent::SessionPaused(_) => ("session_paused", Some(Counter::SessionsPaused)),
            SessionEvent::SessionCompleteOverlay(_) => ("session_complete_overlay", Some(Counter::Overlays)),
            SessionEvent::SessionCompleted(_) => ("session_completed", Some(Counter::SessionsCompleted)),
            SessionEvent::RecallPointRecalled(_) => ("recall_point_recalled", Some(Counter::Recalls)),
            SessionEvent::RecallPointNearMiss(_) => ("recall_point_near_miss", Some(Counter::NearMisses)),
            SessionEvent::RabbitholeDetected(_) => ("rabbithole_detected", Some(Counter::RabbitholesOffered)),
            SessionEvent::RabbitholeEntered(_) => ("rabbithole_entered", Some(Counter::RabbitholesEntered)),
            SessionEvent::RabbitholeExited(_) => ("rabbithole_exited", Some(Counter::RabbitholesReturned)),
            SessionEvent::RabbitholeDeclined { .. } => {
                ("rabbithole_declined", Some(Counter::RabbitholesDeclined))
            }
            SessionEvent::ShowImage(_) | SessionEvent::ShowResource(_) => {
                ("resource_shown", Some(Counter::ResourcesShown))
            }
            SessionEvent::UserMessage { .. } => ("user_message", Some(Counter::LearnerMessages)),
            SessionEvent::AssistantMessage { .. } => ("assistant_message", Some(Counter::Replies)),
            SessionEvent::AssistantStreamingStart => {
                ("assistant_streaming_start", Some(Counter::RepliesStarted))
            }
            // The reply itself is counted once, as `AssistantMessage`.
            SessionEvent::AssistantStreamingEnd { .. } => ("assistant_streaming_end", None),
            SessionEvent::Notice(_) => ("notice", None),
        }
    }
}

#[derive(Debug, Default)]
pub struct Metrics {
    counters: [AtomicU64; Counter::ALL.len()],
    errors: [AtomicU64; ErrorCode::ALL.len()],
    removed: [AtomicU64; Rule::ALL.len()],
    /// Speculative tutor replies kept and thrown away, and the characters thrown away.
    speculation: [AtomicU64; 3],
    /// Turns by time from the learner's message reaching the session to its reply stored and
    /// sent, one count per bucket of [`TURN_BUCKETS_MS`] (the last: longer).
    turns: [AtomicU64; TURN_BUCKETS_MS.len() + 1],
    /// The tutor's and the explorer's replies' tokens as their providers reported them:
    /// input, output.
    reply_tokens: [AtomicU64; 2],
    /// Every model call by agent: calls, input, cached input and output tokens.
    model_calls: [[AtomicU64; 4]; Agent::ALL.len()],
}

/// Upper bounds of the turn-time buckets, in milliseconds: fine where a turn with the
/// offline tutor falls, coarse where a language model's does.
pub const TURN_BUCKETS_MS: [f64; 22] = [
    0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 15.0, 20.0, 50.0, 100.0, 250.0, 500.0, 1000.0,
    2500.0, 5000.0, 10000.0, 30000.0,
];

impl Metrics {
    /// Counts and logs one engine event.
    pub fn observe(&self, event: &SessionEvent) {
        let (name, counter) = Counter::of(event);
        if let Some(counter) = counter {
            self.bump(counter);
        }
        if let SessionEvent::AssistantMessage { token_count, input_token_count, .. } = event {
            for (i, tokens) in [input_token_count, token_count].into_iter().enumerate() {
                self.reply_tokens[i].fetch_add(tokens.unwrap_or(0), Ordering::Relaxed);
            }
        }
        tracing::debug!(event = name, "session event");
    }

    /// Counts an `error` frame sent to a learner.
    pub fn error(&self, code: ErrorCode) {
        if let Some(i) = ErrorCode::ALL.iter().position(|c| *c == code) {
            self.errors[i].fetch_add(1, Ordering::Relaxed);
        }
        tracing::debug!(code = code.as_str(), "error frame");
    }

    /// Counts a sentence taken out of a tutor reply.
    pub fn removed(&self, rule: Rule) {
        if let Some(i) = Rule::ALL.iter().position(|r| *r == rule) {
            self.removed[i].fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Counts a tutor reply started before the evaluator answered: kept, or thrown away after
    /// `wasted_chars` characters.
    pub fn speculated(&self, kept: bool, wasted_chars: usize) {
        self.speculation[usize::from(!kept)].fetch_add(1, Ordering::Relaxed);
        self.speculation[2].fetch_add(u64::try_from(wasted_chars).unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    /// Counts a turn: a learner message answered, `took` after it reached the session.
    pub fn turn_took(&self, took: std::time::Duration) {
        let ms = took.as_secs_f64() * 1000.0;
        let bucket = TURN_BUCKETS_MS.iter().position(|le| ms <= *le).unwrap_or(TURN_BUCKETS_MS.len());
        self.turns[bucket].fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a call to a language model and the tokens its provider said it used.
    pub fn model_call(&self, agent: Agent, input: u64, cached_input: u64, output: u64) {
        if let Some(i) = Agent::ALL.iter().position(|a| *a == agent) {
            for (counter, n) in self.model_calls[i].iter().zip([1, input, cached_input, output]) {
                counter.fetch_add(n, Ordering::Relaxed);
            }
        }
    }

    /// Speculative tutor replies (kept, thrown away) so far.
    pub fn speculation(&self) -> (u64, u64) {
        (self.speculation[0].load(Ordering::Relaxed), self.speculation[1].load(Ordering::Relaxed))
    }

    fn bump(&self, counter: Counter) {
        if let Some(i) = Counter::ALL.iter().position(|c| *c == counter) {
            self.counters[i].fetch_add(1, Ordering::Relaxed);
        }
    }

    /// A counter's value by its exported name (for tests and tools).
    pub fn value(&self, name: &str) -> Option<u64> {
        Counter::ALL.iter().position(|c| c.name() == name).map(|i| self.counters[i].load(Ordering::Relaxed))
    }

    /// Errors sent with `code` so far.
    pub fn errors(&self, code: ErrorCode) -> u64 {
        ErrorCode::ALL.iter().position(|c| *c == code).map_or(0, |i| self.errors[i].load(Ordering::Relaxed))
    }

    /// Every counter in Prometheus's text exposition format.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for (i, counter) in Counter::ALL.iter().enumerate() {
            let name = counter.name();
            let _ =
                writeln!(out, "# TYPE {name} counter\n{name} {}", self.counters[i].load(Ordering::Relaxed));
        }
        let load =
            |counters: &[AtomicU64]| counters.iter().map(|c| c.load(Ordering::Relaxed)).collect::<Vec<_>>();
        family(
            &mut out,
            "warren_errors_total",
            "code",
            ErrorCode::ALL.iter().map(|c| c.as_str()),
            load(&self.errors),
        );
        family(
            &mut out,
            "warren_speculative_tutor_total",
            "outcome",
            ["kept", "wasted"],
            load(&self.speculation[..2]),
        );
        let _ = writeln!(
            out,
            "# TYPE warren_speculative_tutor_wasted_chars_total counter\nwarren_speculative_tutor_wasted_chars_total {}",
            self.speculation[2].load(Ordering::Relaxed)
        );
        family(
            &mut out,
            "warren_tutor_sentences_removed_total",
            "rule",
            Rule::ALL.iter().map(|r| r.as_str()),
            load(&self.removed),
        );
        family(&mut out, "warren_reply_tokens_total", "kind", ["input", "output"], load(&self.reply_tokens));
        let calls = self.model_calls.iter().map(|agent| agent[0].load(Ordering::Relaxed)).collect();
        family(&mut out, "warren_model_calls_total", "agent", Agent::ALL.iter().map(|a| a.as_str()), calls);
        let _ = writeln!(out, "# TYPE warren_model_tokens_total counter");
        for (i, agent) in Agent::ALL.iter().enumerate() {
            for (k, kind) in ["input", "cached_input", "output"].iter().enumerate() {
                let n = self.model_calls[i][k + 1].load(Ordering::Relaxed);
                let _ = writeln!(
                    out,
                    "warren_model_tokens_total{{agent=\"{}\",kind=\"{kind}\"}} {n}",
                    agent.as_str()
                );
            }
        }
        let _ = writeln!(out, "# TYPE warren_turn_seconds histogram");
        let mut total = 0;
        for (i, count) in self.turns.iter().enumerate() {
            total += count.load(Ordering::Relaxed);
            let le = TURN_BUCKETS_MS.get(i).map_or("+Inf".to_string(), |ms| (ms / 1000.0).to_string());
            let _ = writeln!(out, "warren_turn_seconds_bucket{{le=\"{le}\"}} {total}");
        }
        let _ = writeln!(out, "warren_turn_seconds_count {total}");
        out
    }
}

/// A counter with one label: its type line, then a line a label value.
fn family<'a>(
    out: &mut String,
    name: &str,
    label: &str,
    values: impl IntoIterator<Item = &'a str>,
    counts: Vec<u64>,
) {
    let _ = writeln!(out, "# TYPE {name} counter");
    for (value, count) in values.into_iter().zip(counts) {
        let _ = writeln!(out, "{name}{{{label}=\"{value}\"}} {count}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_and_errors_are_counted_under_their_names() {
        let metrics = Metrics::default();
        metrics.observe(&SessionEvent::UserMessage { content: "x".into() });
        metrics.observe(&SessionEvent::AssistantStreamingStart);
        metrics.observe(&SessionEvent::AssistantStreamingEnd {
            full_content: "y".into(),
            total_chunks: 1,
            html: String::new(),
        });
        metrics.observe(&SessionEvent::AssistantMessage {
            content: "y".into(),
            token_count: Some(7),
            input_token_count: Some(420),
        });
        metrics.observe(&SessionEvent::AssistantMessage {
            content: "z".into(),
            token_count: None,
            input_token_count: None,
        });
        metrics.observe(&SessionEvent::RabbitholeDeclined {
            rabbithole_event_id: "r".into(),
            topic: "t".into(),
        });
        metrics.error(ErrorCode::RateLimited);
        assert_eq!(metrics.value("warren_learner_messages_total"), Some(1));
        assert_eq!(metrics.value("warren_replies_total"), Some(2), "a reply counts once");
        assert_eq!(metrics.value("warren_rabbitholes_declined_total"), Some(1));
        assert_eq!(metrics.errors(ErrorCode::RateLimited), 1);
        let text = metrics.render();
        assert!(text.contains("warren_replies_started_total 1"), "{text}");
        assert!(text.contains("warren_errors_total{code=\"RATE_LIMITED\"} 1"), "{text}");
        assert!(text.contains("warren_reply_tokens_total{kind=\"input\"} 420"), "{text}");
        assert!(text.contains("warren_reply_tokens_total{kind=\"output\"} 7"), "{text}");
    }

    #[test]
    fn turn_times_fill_cumulative_buckets() {
        let metrics = Metrics::default();
        for ms in [0, 2, 4, 4, 60_000] {
            metrics.turn_took(std::time::Duration::from_millis(ms));
        }
        let text = metrics.render();
        assert!(text.contains("warren_turn_seconds_bucket{le=\"0.0005\"} 1\n"), "{text}");
        assert!(text.contains("warren_turn_seconds_bucket{le=\"0.002\"} 2\n"), "{text}");
        assert!(text.contains("warren_turn_seconds_bucket{le=\"0.004\"} 4\n"), "{text}");
        assert!(text.contains("warren_turn_seconds_bucket{le=\"30\"} 4\n"), "{text}");
        assert!(text.contains("warren_turn_seconds_bucket{le=\"+Inf\"} 5\n"), "{text}");
        assert!(text.contains("warren_turn_seconds_count 5\n"), "{text}");
    }
}

//! The session's stream of frames, numbered. Every frame the actor sends gets the next `seq`;
//! frames sent to the whole session are also kept, a bounded window of them, so a socket that
//! reconnects with `?since=N` is sent what it missed instead of a fresh snapshot.
//!
//! Numbers start from the actor's start time (milliseconds × 1000), so a stream begun after a
//! restart counts on from above the last one's and a stale `since` from before it is never
//! mistaken for one of this stream's numbers: it falls outside the window, and the page gets
//! `session_started`.

use std::collections::VecDeque;
use std::sync::Arc;

/// Frames kept, at most, and their total size in bytes: a long reply streamed while the page
/// was away fits; beyond that a snapshot is as good and cheaper to hold.
const MAX_FRAMES: usize = 512;
const MAX_BYTES: usize = 48 * 1024;

pub struct FrameLog {
    /// The first number of this stream.
    first: u64,
    next: u64,
    kept: VecDeque<(u64, Arc<str>)>,
    bytes: usize,
    /// The newest number let go of: a page that saw it (or later) can still be caught up.
    forgotten: u64,
}

impl FrameLog {
    pub fn new(started_ms: i64) -> Self {
        let first = u64::try_from(started_ms).unwrap_or(0).saturating_mul(1000).max(1);
        Self { first, next: first, kept: VecDeque::new(), bytes: 0, forgotten: first }
    }

    /// The number of the next frame.
    pub fn next_seq(&mut self) -> u64 {
        let seq = self.next;
        self.next += 1;
        seq
    }

    /// Keeps a frame sent to the whole session, letting go of the oldest beyond the bounds.
    pub fn keep(&mut self, seq: u64, text: Arc<str>) {
        self.bytes += text.len();
        self.kept.push_back((seq, text));
        while self.kept.len() > MAX_FRAMES || (self.bytes > MAX_BYTES && self.kept.len() > 1) {
            let Some((seq, text)) = self.kept.pop_front() else { break };
            self.bytes -= text.len();
            self.forgotten = seq;
        }
    }

    /// Every kept frame after `since`, in order, when none that a page which saw `since` has
    /// not seen was let go of; `None` when `since` is not of this stream or is too old.
    pub fn after(&self, since: u64) -> Option<Vec<Arc<str>>> {
        if since < self.first || since >= self.next || since < self.forgotten {
            return None;
        }
        let from = self.kept.partition_point(|(seq, _)| *seq <= since);
        Some(self.kept.range(from..).map(|(_, text)| text.clone()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_with(frames: usize, size: usize) -> (FrameLog, Vec<u64>) {
        let mut log = FrameLog::new(1_000);
        let seqs = (0..frames)
            .map(|_| {
                let seq = log.next_seq();
                log.keep(seq, "x".repeat(size).into());
                seq
            })
            .collect();
        (log, seqs)
    }

    #[test]
    fn a_page_gets_exactly_what_came_after_what_it_saw() {
        let (log, seqs) = log_with(5, 10);
        assert_eq!(log.after(seqs[1]).map(|f| f.len()), Some(3));
        assert_eq!(log.after(seqs[4]).map(|f| f.len()), Some(0));
    }

    #[test]
    fn numbers_not_of_this_stream_get_a_snapshot() {
        let (log, seqs) = log_with(3, 10);
        assert_eq!(seqs[0], 1_000_000);
        assert!(log.after(seqs[2] + 1).is_none(), "a number not sent yet");
        assert!(log.after(999_999).is_none(), "a number from an earlier stream");
        assert!(log.after(u64::MAX).is_none());
    }

    #[test]
    fn frames_not_kept_leave_gaps_but_nothing_is_missed() {
        let mut log = FrameLog::new(1);
        let sent_to_one = log.next_seq();
        let kept = log.next_seq();
        log.keep(kept, "all".into());
        assert_eq!(log.after(sent_to_one).map(|f| f.len()), Some(1));
    }

    #[test]
    fn too_old_a_number_gets_a_snapshot_once_its_successor_is_let_go() {
        let (log, seqs) = log_with(MAX_FRAMES + 10, 1);
        assert!(log.after(seqs[0]).is_none());
        assert!(log.after(seqs[8]).is_none());
        assert_eq!(log.after(seqs[9]).map(|f| f.len()), Some(MAX_FRAMES));
        let (log, seqs) = log_with(10, MAX_BYTES / 4);
        assert!(log.bytes <= MAX_BYTES);
        assert!(log.after(seqs[0]).is_none());
        assert_eq!(log.after(seqs[9]).map(|f| f.len()), Some(0));
    }
}

//! Struggle, per point: how many tries a point has taken in this session, which rung of the
//! hint ladder the next reply about it stands on, and whether its answer was given. The
//! ladder: the cue, another angle, a nudge, the point with gaps, then the answer (with a
//! request to say it in the learner's own words). Each learner message that tries and does not
//! recall the point under discussion climbs one rung (an attempt or "I don't know"; a question
//! or small talk is no try); recalling another point leaves it where it is.
//!
//! Which point is under discussion follows one rule ([`ask_order`]): open points before
//! revealed ones, the most overdue first, then the set's order. A revealed point is parked
//! once the learner has answered its reveal, and asked again, fresh, when its turn comes.
//!
//! Everything here is pure: the actor applies it, saves the result, and only then lets the
//! tutor speak.

use std::collections::HashMap;

use crate::store::{Point, Struggle};
use warren_app::ladder::Rung;

pub type Struggles = HashMap<String, Struggle>;

fn of<'a>(struggles: &'a Struggles, point_id: &str) -> Option<&'a Struggle> {
    struggles.get(point_id)
}

/// How open points take turns: a set session asks the most overdue first, then the new ones
/// in the set's order (the learner's, as they arranged it); today's review keeps the order
/// its queue chose (most forgotten first, sets interleaved).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AskOrder {
    Overdue,
    Session,
}

/// The points not yet recalled in the order they are asked about: open points first, then
/// parked ones; within each, as `order` says, then the session's order.
pub fn ask_order<'a>(pending: &[&'a Point], struggles: &Struggles, order: AskOrder) -> Vec<&'a Point> {
    let mut ordered: Vec<(usize, &Point)> = pending.iter().copied().enumerate().collect();
    ordered.sort_by_key(|(index, p)| {
        let parked = of(struggles, &p.id).is_some_and(|s| s.parked);
        // A new point's due time is when it was made, which says nothing of where it stands.
        let new = p.card.reps == 0;
        let due = match order {
            AskOrder::Overdue if !new => p.card.due_at,
            AskOrder::Overdue | AskOrder::Session => 0,
        };
        (parked, new && order == AskOrder::Overdue, due, *index)
    });
    ordered.into_iter().map(|(_, p)| p).collect()
}

/// Whether the evaluator may credit a point now: not while it waits parked, and not in the
/// reply to its own reveal (saying back what was just given is not recall).
pub fn can_be_credited(struggles: &Struggles, point_id: &str) -> bool {
    of(struggles, point_id).is_none_or(|s| !s.parked && s.rung != Rung::Answer)
}

/// What one learner message did to the ladder, as [`after_message`] reports it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Step {
    /// The point whose reveal the learner just answered: set aside for later.
    pub set_aside: Option<String>,
    /// The point to ask about next, and whether it is a parked one asked again, fresh.
    pub next: Option<String>,
    pub revisit: bool,
    /// Points whose struggle changed (to be saved).
    pub changed: Vec<String>,
}

/// Applies a learner message (stored as `entry_id`) that recalled `recalled` while `discussed`
/// was under discussion, then picks the next point from `pending_after` (the points still
/// open after this message, in session order). A message that was no try (`tried` false: a
/// question, small talk) and recalled nothing leaves the ladder where it is.
pub fn after_message(
    struggles: &mut Struggles,
    discussed: Option<&str>,
    recalled: &[String],
    tried: bool,
    entry_id: &str,
    pending_after: &[&Point],
    order: AskOrder,
) -> Step {
    let mut step = Step::default();
    if let Some(id) = discussed
        && !recalled.iter().any(|r| r == id)
        && (tried || !recalled.is_empty())
    {
        let s = struggles.entry(id.to_string()).or_default();
        if s.counted_entry_id.as_deref() != Some(entry_id) {
            s.counted_entry_id = Some(entry_id.to_string());
            if s.rung == Rung::Answer {
                s.parked = true;
                step.set_aside = Some(id.to_string());
            } else if recalled.is_empty() {
                s.attempts += 1;
                s.rung = s.rung.next();
                match s.rung {
                    Rung::Angle | Rung::Nudge | Rung::Gaps => s.hints += 1,
                    Rung::Answer => s.revealed = true,
                    Rung::Cue => {}
                }
            }
            step.changed.push(id.to_string());
        }
    }
    let (next, revisit) = next_point(struggles, pending_after, order);
    if revisit && let Some(id) = &next {
        step.changed.push(id.clone());
    }
    step.next = next;
    step.revisit = revisit;
    step
}

/// The point to ask about now. A parked point whose turn has come is taken out of the car
/// park and asked fresh, from the cue (the second value says so).
pub fn next_point(struggles: &mut Struggles, pending: &[&Point], order: AskOrder) -> (Option<String>, bool) {
    let Some(first) = ask_order(pending, struggles, order).first().map(|p| p.id.clone()) else {
        return (None, false);
    };
    match struggles.get_mut(&first) {
        Some(s) if s.parked => {
            s.parked = false;
            s.rung = Rung::Cue;
            (Some(first), true)
        }
        Some(_) | None => (Some(first), false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::FsrsCard;

    fn point(id: &str, due_at: i64) -> Point {
        Point {
            id: id.into(),
            set_id: "s".into(),
            position: 0,
            content: id.into(),
            context: String::new(),
            card: FsrsCard::new(due_at),
        }
    }

    fn ids(points: &[&Point]) -> Vec<String> {
        points.iter().map(|p| p.id.clone()).collect()
    }

    #[test]
    fn the_most_overdue_open_point_comes_first_then_new_ones_in_set_order_and_parked_ones_last() {
        let reviewed = |id: &str, due_at: i64| {
            let mut p = point(id, due_at);
            p.card.reps = 1;
            p
        };
        let (a, b, c) = (reviewed("a", 30), reviewed("b", 10), reviewed("c", 10));
        // New points made in another order than the learner has since put them in.
        let (n1, n2) = (point("n1", 50), point("n2", 5));
        let pending = [&a, &b, &n1, &n2, &c];
        let mut struggles = Struggles::new();
        assert_eq!(ids(&ask_order(&pending, &struggles, AskOrder::Overdue)), ["b", "c", "a", "n1", "n2"]);
        struggles.insert("b".into(), Struggle { parked: true, ..Struggle::default() });
        assert_eq!(ids(&ask_order(&pending, &struggles, AskOrder::Overdue)), ["c", "a", "n1", "n2", "b"]);
    }

    #[test]
    fn each_miss_climbs_one_rung_to_the_answer_and_counts_hints() {
        let a = point("a", 0);
        let mut struggles = Struggles::new();
        let mut rungs = vec![];
        for (i, entry) in ["e1", "e2", "e3", "e4"].into_iter().enumerate() {
            let step = after_message(&mut struggles, Some("a"), &[], true, entry, &[&a], AskOrder::Overdue);
            assert_eq!(step.next.as_deref(), Some("a"));
            assert_eq!(struggles["a"].attempts, i as u32 + 1);
            rungs.push(struggles["a"].rung);
        }
        assert_eq!(rungs, [Rung::Angle, Rung::Nudge, Rung::Gaps, Rung::Answer]);
        let s = &struggles["a"];
        assert_eq!((s.hints, s.revealed, s.parked), (3, true, false));
        assert!(!can_be_credited(&struggles, "a"), "saying back the answer is not recall");
    }

    #[test]
    fn a_message_counted_once_even_if_answered_again() {
        let a = point("a", 0);
        let mut struggles = Struggles::new();
        after_message(&mut struggles, Some("a"), &[], true, "e1", &[&a], AskOrder::Overdue);
        let again = after_message(&mut struggles, Some("a"), &[], true, "e1", &[&a], AskOrder::Overdue);
        assert_eq!(struggles["a"].attempts, 1);
        assert!(again.changed.is_empty());
    }

    #[test]
    fn a_question_or_small_talk_is_no_try() {
        let a = point("a", 0);
        let mut struggles = Struggles::new();
        let step = after_message(&mut struggles, Some("a"), &[], false, "e1", &[&a], AskOrder::Overdue);
        assert!(step.changed.is_empty());
        assert_eq!(step.next.as_deref(), Some("a"));
        assert!(!struggles.contains_key("a"), "no attempt, no hint, no rung");
        after_message(&mut struggles, Some("a"), &[], true, "e2", &[&a], AskOrder::Overdue);
        assert_eq!((struggles["a"].rung, struggles["a"].attempts), (Rung::Angle, 1));
        // Nor after the answer was given: a question then does not set the point aside.
        for entry in ["e3", "e4", "e5"] {
            after_message(&mut struggles, Some("a"), &[], true, entry, &[&a], AskOrder::Overdue);
        }
        let step = after_message(&mut struggles, Some("a"), &[], false, "e6", &[&a], AskOrder::Overdue);
        assert_eq!((step.set_aside, struggles["a"].parked), (None, false));
    }

    #[test]
    fn recalling_another_point_keeps_the_rung() {
        let (a, b) = (point("a", 0), point("b", 1));
        let mut struggles = Struggles::new();
        after_message(&mut struggles, Some("a"), &[], true, "e1", &[&a, &b], AskOrder::Overdue);
        after_message(&mut struggles, Some("a"), &[], true, "e2", &[&a, &b], AskOrder::Overdue);
        let step =
            after_message(&mut struggles, Some("a"), &["b".into()], true, "e3", &[&a], AskOrder::Overdue);
        assert_eq!(step.next.as_deref(), Some("a"));
        assert_eq!((struggles["a"].rung, struggles["a"].attempts), (Rung::Nudge, 2));
    }

    #[test]
    fn a_revealed_point_waits_for_the_others_then_comes_back_fresh() {
        let (a, b) = (point("a", 0), point("b", 1));
        let mut struggles = Struggles::new();
        for entry in ["e1", "e2", "e3", "e4"] {
            after_message(&mut struggles, Some("a"), &[], true, entry, &[&a, &b], AskOrder::Overdue);
        }
        // The learner says it back: set aside, and b comes next.
        let step = after_message(&mut struggles, Some("a"), &[], true, "e5", &[&a, &b], AskOrder::Overdue);
        assert_eq!(
            (step.set_aside.as_deref(), step.next.as_deref(), step.revisit),
            (Some("a"), Some("b"), false)
        );
        assert!(!can_be_credited(&struggles, "a"));
        // b recalled: a is the only one left, asked fresh and creditable again.
        let step =
            after_message(&mut struggles, Some("b"), &["b".into()], true, "e6", &[&a], AskOrder::Overdue);
        assert_eq!((step.next.as_deref(), step.revisit), (Some("a"), true));
        let s = &struggles["a"];
        assert_eq!((s.rung, s.parked, s.revealed, s.attempts), (Rung::Cue, false, true, 4));
        assert!(can_be_credited(&struggles, "a"));
    }
}

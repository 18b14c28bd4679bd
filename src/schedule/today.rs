//! Today's review: which due points one session takes, across every set, and in what order.
//!
//! Points the learner is closest to forgetting come first, new points after the reviews; each
//! session takes at most the learner's per-session limit, and new points at most what is left
//! of the day's allowance. The order then interleaves sets (consecutive points from different
//! sets where possible, which helps recall more than blocks do), while points of one set that
//! share a resource stay together.

use std::collections::HashMap;

/// A due point as the queue sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub id: String,
    pub set_id: String,
    /// Its place in its set.
    pub position: i64,
    /// The chance of recalling it now; `None` for a point never reviewed (a new one).
    pub retrievability: Option<f64>,
}

impl Candidate {
    pub fn is_new(&self) -> bool {
        self.retrievability.is_none()
    }
}

/// The learner's limits, as the Account page sets them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub per_session: usize,
    /// New points still allowed today.
    pub new_left: usize,
}

/// What is due today and what one session of it takes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Queue {
    /// The session's points, in the order to ask them.
    pub points: Vec<Candidate>,
    /// Due points the limits leave for another session today (new ones beyond the day's
    /// allowance are not counted: they wait for tomorrow).
    pub left: usize,
    /// New points held back by the day's allowance.
    pub new_held: usize,
}

/// Builds today's queue from the due `candidates`; `links` are pairs of points that share a
/// resource (only pairs within one set keep each other near).
pub fn queue(mut candidates: Vec<Candidate>, links: &[(String, String)], limits: Limits) -> Queue {
    // Most at risk first; new points after every review, each set's in its own order, the
    // sets taking turns (first points of every set, then second points, …).
    candidates.sort_by(|a, b| {
        let risk = |c: &Candidate| c.retrievability.unwrap_or(f64::INFINITY);
        risk(a)
            .total_cmp(&risk(b))
            .then_with(|| a.position.cmp(&b.position))
            .then_with(|| a.set_id.cmp(&b.set_id))
            .then_with(|| a.id.cmp(&b.id))
    });
    let new_total = candidates.iter().filter(|c| c.is_new()).count();
    let new_taken = new_total.min(limits.new_left);
    let mut new_seen = 0;
    candidates.retain(|c| {
        if !c.is_new() {
            return true;
        }
        new_seen += 1;
        new_seen <= new_taken
    });
    let available = candidates.len();
    candidates.truncate(limits.per_session);
    let left = available - candidates.len();
    Queue { points: interleave(candidates, links), left, new_held: new_total - new_taken }
}

/// Orders points already in priority order: groups of linked points of one set stay together,
/// and each next group is the most urgent one whose set differs from the last one's.
fn interleave(points: Vec<Candidate>, links: &[(String, String)]) -> Vec<Candidate> {
    let index: HashMap<&str, usize> = points.iter().enumerate().map(|(i, p)| (p.id.as_str(), i)).collect();
    let mut groups = Groups::new(points.len());
    for (a, b) in links {
        if let (Some(&i), Some(&j)) = (index.get(a.as_str()), index.get(b.as_str()))
            && points[i].set_id == points[j].set_id
        {
            groups.join(i, j);
        }
    }
    // Each group in the order of its most urgent member, its members in priority order.
    let mut members: Vec<Vec<usize>> = Vec::new();
    let mut slot: HashMap<usize, usize> = HashMap::new();
    for i in 0..points.len() {
        let root = groups.root(i);
        let at = *slot.entry(root).or_insert_with(|| {
            members.push(Vec::new());
            members.len() - 1
        });
        members[at].push(i);
    }
    let mut order = Vec::with_capacity(points.len());
    let mut waiting: Vec<&Vec<usize>> = members.iter().collect();
    let mut last_set: Option<&str> = None;
    while !waiting.is_empty() {
        // A set holding more than half of what is left must come now, or it ends in a run.
        let mut left: HashMap<&str, usize> = HashMap::new();
        for group in &waiting {
            *left.entry(points[group[0]].set_id.as_str()).or_default() += 1;
        }
        let pressing = left
            .iter()
            .find(|(set, n)| Some(**set) != last_set && **n * 2 > waiting.len())
            .map(|(set, _)| *set);
        let pick = match pressing {
            Some(set) => waiting.iter().position(|g| points[g[0]].set_id == set),
            None => waiting.iter().position(|g| Some(points[g[0]].set_id.as_str()) != last_set),
        }
        .unwrap_or(0);
        let group = waiting.remove(pick);
        last_set = Some(points[group[0]].set_id.as_str());
        order.extend(group.iter().copied());
    }
    let mut slots: Vec<Option<Candidate>> = points.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// Union-find over point indices.
struct Groups(Vec<usize>);

impl Groups {
    fn new(n: usize) -> Self {
        Self((0..n).collect())
    }

    fn root(&mut self, mut i: usize) -> usize {
        while self.0[i] != i {
            self.0[i] = self.0[self.0[i]];
            i = self.0[i];
        }
        i
    }

    fn join(&mut self, a: usize, b: usize) {
        let (a, b) = (self.root(a), self.root(b));
        // The earlier (more urgent) point stays the root, so a group keeps its first place.
        let (low, high) = if a < b { (a, b) } else { (b, a) };
        self.0[high] = low;
    }
}

/// About how long a session of `points` takes, in whole minutes (at least one), from the
/// learner's recent time per point, or `DEFAULT_MS_PER_POINT` when there is none yet.
pub fn minutes(points: usize, ms_per_point: Option<u64>) -> u64 {
    let per = ms_per_point.unwrap_or(DEFAULT_MS_PER_POINT);
    let total = u64::try_from(points).unwrap_or(u64::MAX).saturating_mul(per);
    total.div_ceil(60_000).max(1)
}

/// Forty-five seconds a point: a question, an answer or two, a hint now and then.
pub const DEFAULT_MS_PER_POINT: u64 = 45_000;

#[cfg(test)]
mod tests {
    use super::*;

    fn due(id: &str, set: &str, position: i64, r: Option<f64>) -> Candidate {
        Candidate { id: id.into(), set_id: set.into(), position, retrievability: r }
    }

    fn ids(q: &Queue) -> Vec<&str> {
        q.points.iter().map(|p| p.id.as_str()).collect()
    }

    const OPEN: Limits = Limits { per_session: 100, new_left: 100 };

    #[test]
    fn the_most_forgotten_come_first_and_sets_alternate() {
        let q = queue(
            vec![
                due("a1", "A", 0, Some(0.5)),
                due("a2", "A", 1, Some(0.6)),
                due("b1", "B", 0, Some(0.7)),
                due("c1", "C", 0, Some(0.8)),
                due("a3", "A", 2, Some(0.9)),
            ],
            &[],
            OPEN,
        );
        // a2 is next most at risk, but another A right after a1 would be a block.
        assert_eq!(ids(&q), ["a1", "b1", "a2", "c1", "a3"]);
    }

    #[test]
    fn a_set_with_most_of_what_is_left_goes_first_so_no_two_of_it_meet() {
        let q = queue(
            vec![
                due("a1", "A", 0, Some(0.1)),
                due("b1", "B", 0, Some(0.2)),
                due("b2", "B", 1, Some(0.3)),
                due("b3", "B", 2, Some(0.4)),
                due("a2", "A", 1, Some(0.5)),
            ],
            &[],
            OPEN,
        );
        assert_eq!(ids(&q), ["b1", "a1", "b2", "a2", "b3"]);
    }

    #[test]
    fn one_set_left_comes_in_a_row() {
        let q = queue(vec![due("a1", "A", 0, Some(0.2)), due("a2", "A", 1, Some(0.3))], &[], OPEN);
        assert_eq!(ids(&q), ["a1", "a2"]);
    }

    #[test]
    fn linked_points_of_a_set_stay_together() {
        let q = queue(
            vec![
                due("a1", "A", 0, Some(0.1)),
                due("b1", "B", 0, Some(0.2)),
                due("c1", "C", 0, Some(0.3)),
                due("a2", "A", 1, Some(0.9)),
                due("b2", "B", 1, Some(0.95)),
            ],
            &[("a2".into(), "a1".into()), ("b2".into(), "c1".into())],
            OPEN,
        );
        // a2 follows a1; the link across sets (b2, c1) keeps nothing together.
        assert_eq!(ids(&q), ["a1", "a2", "b1", "c1", "b2"]);
    }

    #[test]
    fn new_points_come_after_reviews_within_the_days_allowance() {
        let q = queue(
            vec![
                due("n1", "A", 0, None),
                due("n2", "A", 1, None),
                due("n3", "B", 0, None),
                due("r1", "B", 5, Some(0.4)),
            ],
            &[],
            Limits { per_session: 100, new_left: 2 },
        );
        // The first new points of each set before the second of any.
        assert_eq!(ids(&q), ["r1", "n1", "n3"]);
        assert_eq!((q.left, q.new_held), (0, 1));
    }

    #[test]
    fn the_session_limit_leaves_the_rest_for_later() {
        let candidates = (0..30).map(|i| due(&format!("p{i}"), "A", i, Some(0.5))).collect();
        let q = queue(candidates, &[], Limits { per_session: 20, new_left: 10 });
        assert_eq!((q.points.len(), q.left), (20, 10));
    }

    #[test]
    fn minutes_come_from_the_learners_pace_or_the_default() {
        assert_eq!(minutes(20, None), 15);
        assert_eq!(minutes(4, Some(30_000)), 2);
        assert_eq!(minutes(1, Some(1_000)), 1);
    }
}

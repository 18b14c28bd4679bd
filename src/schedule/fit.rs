//! Fitting FSRS-6's parameters to one learner's review log with the crate's optimiser (the
//! code Anki runs for "Optimize"), and measuring how well parameters predict a log: log loss
//! and RMSE over retrievability bins, as the srs-benchmark reports them.

use std::sync::{Arc, Mutex};

use fsrs::{CombinedProgressState, ComputeParametersInput, FSRS, FSRSError, FSRSItem, FSRSReview};
use warren_app::clock::DAY_MS;
use warren_app::schedule::Rating;

/// One point's reviews, oldest first: each rating with the whole days since the review
/// before it (ignored for the first).
pub type History = Vec<(Rating, u32)>;

/// Reviews that follow an earlier review of the same point: what fitting learns from. With
/// fewer than [`FULL_FIT`] only the first reviews' stabilities are fitted; with fewer than
/// [`ANY_FIT`] nothing is (the crate's own rules).
pub const ANY_FIT: usize = 8;
pub const FULL_FIT: usize = 64;

/// How well parameters predict a log: lower is better for both.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Accuracy {
    pub log_loss: f64,
    pub rmse: f64,
}

fn grade(rating: Rating) -> u32 {
    match rating {
        Rating::Again => 1,
        Rating::Hard => 2,
        Rating::Good => 3,
        Rating::Easy => 4,
    }
}

/// Each point's history from its reviews, given point by point and oldest first within a
/// point: days between reviews counted as the replay counts them (whole days elapsed).
pub fn histories<P: PartialEq>(reviews: impl IntoIterator<Item = (P, Rating, i64)>) -> Vec<History> {
    let mut histories: Vec<History> = Vec::new();
    let mut last: Option<(P, i64)> = None;
    for (point, rating, at) in reviews {
        match &last {
            Some((previous, last_at)) if *previous == point => {
                let days = u32::try_from(((at - last_at) / DAY_MS).max(0)).unwrap_or(u32::MAX);
                if let Some(history) = histories.last_mut() {
                    history.push((rating, days));
                }
            }
            Some(_) | None => histories.push(vec![(rating, 0)]),
        }
        last = Some((point, at));
    }
    histories
}

/// A fit's result: the parameters found, and how well those in use and the new ones predict
/// the learner's reviews.
#[derive(Clone, Debug, PartialEq)]
pub struct Fitted {
    pub parameters: Vec<f32>,
    pub before: Accuracy,
    pub after: Accuracy,
}

impl Fitted {
    /// Whether the new parameters predict the reviews better than those in use (as Anki
    /// decides: by log loss), and so should replace them.
    pub fn better(&self) -> bool {
        self.after.log_loss < self.before.log_loss
    }
}

/// Fits parameters to `items` and measures them against `current` on the same reviews.
/// `None` when too few items would be left to fit anything ([`ANY_FIT`], [`usable`]).
pub fn fit_against(
    current: &[f32],
    items: Vec<FSRSItem>,
    progress: Option<Arc<Mutex<CombinedProgressState>>>,
) -> Result<Option<Fitted>, FSRSError> {
    if usable(&items) < ANY_FIT {
        return Ok(None);
    }
    let Some(before) = accuracy(current, &items) else { return Ok(None) };
    let parameters = fit(items.clone(), progress)?;
    let Some(after) = accuracy(&parameters, &items) else { return Ok(None) };
    Ok(Some(Fitted { parameters, before, after }))
}

/// The training items of a log: one for each review that follows an earlier one of the same
/// point, holding the point's history up to and including it. An item whose reviews all fall
/// on its first day is left out, as Anki leaves it out: it says nothing of memory over days,
/// and the crate's optimiser cannot take it (it stops on such an item).
pub fn items(histories: &[History]) -> Vec<FSRSItem> {
    let mut items = Vec::new();
    for history in histories {
        let reviews: Vec<FSRSReview> = history
            .iter()
            .enumerate()
            .map(|(i, &(rating, days))| FSRSReview {
                rating: grade(rating),
                delta_t: if i == 0 { 0 } else { days },
            })
            .collect();
        for end in 2..=reviews.len() {
            let item = FSRSItem { reviews: reviews[..end].to_vec() };
            if item.long_term_review_cnt() > 0 {
                items.push(item);
            }
        }
    }
    items
}

/// How many of `items` the optimiser learns from: those its outlier filter keeps (a first
/// rating followed by an interval few other points share is set aside, as in Anki). The
/// thresholds [`ANY_FIT`] and [`FULL_FIT`] apply to this count.
pub fn usable(items: &[FSRSItem]) -> usize {
    let first_intervals: Vec<FSRSItem> =
        items.iter().filter(|item| item.long_term_review_cnt() == 1).cloned().collect();
    fsrs::filter_outlier(first_intervals, items.to_vec()).1.len()
}

/// How well `parameters` (empty: the defaults) predict `items`; `None` when there is nothing
/// to measure.
pub fn accuracy(parameters: &[f32], items: &[FSRSItem]) -> Option<Accuracy> {
    let model = FSRS::new(parameters).ok()?;
    let measured = model.evaluate(items.to_vec(), |_| true).ok()?;
    Some(Accuracy { log_loss: f64::from(measured.log_loss), rmse: f64::from(measured.rmse_bins) })
}

/// Fits parameters to `items`, reporting progress to `progress` if given. Too few items give
/// the defaults back (or only the first stabilities fitted), as the crate decides.
pub fn fit(
    items: Vec<FSRSItem>,
    progress: Option<Arc<Mutex<CombinedProgressState>>>,
) -> Result<Vec<f32>, FSRSError> {
    fsrs::compute_parameters(ComputeParametersInput {
        train_set: items,
        progress,
        ..ComputeParametersInput::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reviews_on_one_day_teach_nothing_and_do_not_stop_a_fit() {
        // Failed in the morning and recalled in the evening, many times over: no item.
        let same_day: Vec<History> = (0..20).map(|_| vec![(Rating::Again, 0), (Rating::Good, 0)]).collect();
        assert!(items(&same_day).is_empty());
        // Mixed with reviews days apart, the fit runs (the crate would stop on a same-day item).
        let mut histories = same_day;
        histories
            .extend((0..30).map(|i| vec![(Rating::Good, 0), (Rating::Good, 0), (Rating::Good, 3 + i % 2)]));
        let items = items(&histories);
        assert_eq!(items.len(), 30, "only the reviews days after another");
        assert!(usable(&items) >= ANY_FIT);
        assert!(fit_against(&[], items, None).is_ok());
    }

    #[test]
    fn each_review_after_the_first_is_an_item_holding_the_history_before_it() {
        let histories =
            vec![vec![(Rating::Good, 0), (Rating::Again, 3), (Rating::Good, 1)], vec![(Rating::Easy, 5)]];
        // (A second review on the first day would be no item; see above.)
        let items = items(&histories);
        assert_eq!(items.len(), 2, "the lone review teaches nothing yet");
        assert_eq!(items[0].reviews.len(), 2);
        assert_eq!(items[1].reviews.len(), 3);
        assert_eq!(items[1].reviews[0], FSRSReview { rating: 3, delta_t: 0 });
        assert_eq!(items[1].reviews[1], FSRSReview { rating: 1, delta_t: 3 });
        assert_eq!(items[1].reviews[2], FSRSReview { rating: 3, delta_t: 1 });
    }

    #[test]
    fn histories_group_a_log_by_point_with_whole_days_between_reviews() {
        let t = 1_700_000_000_000;
        let log = [
            ("a", Rating::Good, t),
            ("a", Rating::Again, t + 3 * DAY_MS + 5),
            ("a", Rating::Good, t + 3 * DAY_MS + DAY_MS / 2),
            ("b", Rating::Easy, t),
        ];
        assert_eq!(
            histories(log),
            vec![vec![(Rating::Good, 0), (Rating::Again, 3), (Rating::Good, 0)], vec![(Rating::Easy, 0)]]
        );
    }

    #[test]
    fn too_few_reviews_fit_the_defaults_and_measure_nothing_when_empty() {
        let few = items(&[vec![(Rating::Good, 0), (Rating::Good, 2)]]);
        assert!(few.len() < ANY_FIT);
        assert_eq!(fit(few, None).ok(), Some(fsrs::DEFAULT_PARAMETERS.to_vec()));
        assert_eq!(accuracy(&[], &[]), None);
        let few = items(&[vec![(Rating::Good, 0), (Rating::Good, 2)]]);
        assert_eq!(fit_against(&[], few, None).ok(), Some(None), "nothing to fit is not a fit");
    }
}

//! Fitting a learner's schedule in the background: asked for on the account page, and weekly
//! for every learner with new reviews. The store claims the run (one per learner across
//! instances), the crate's optimiser runs on a blocking thread, its progress goes to the
//! database for whichever instance serves the account page, and the result is kept only if it
//! predicts the learner's reviews better than the parameters in use.

use std::time::Duration;

use fsrs::CombinedProgressState;
use warren_app::learner::LearnerId;

use crate::schedule::fit;
use crate::store::{FitReason, Store, StoreError};

/// How often a learner's schedule is fitted again on its own, once they have new reviews.
pub const WEEK_MS: i64 = 7 * 24 * 60 * 60 * 1000;
/// How often a running fit writes its progress (and heartbeat).
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// Claims and starts a fit of the learner's schedule in the background; false when one is
/// running already.
pub async fn start(store: &Store, learner: &LearnerId, reason: FitReason) -> Result<bool, StoreError> {
    if !store.claim_fit(learner, reason).await? {
        return Ok(false);
    }
    let (store, learner) = (store.clone(), learner.clone());
    tokio::spawn(async move { run_claimed(&store, &learner).await });
    Ok(true)
}

/// Fits, one after another, the schedule of each learner whose weekly fit is due. A learner
/// whose reviews leave too few the optimiser can learn from (all on one day, say) is passed
/// over, not claimed: a claim would wipe their last fit's figures for a run that cannot fit.
pub async fn weekly(store: &Store) -> Result<usize, StoreError> {
    let mut fitted = 0;
    for learner in store.learners_due_a_fit(WEEK_MS).await? {
        if fit::usable(&fit::items(&store.review_histories(&learner).await?)) < fit::ANY_FIT {
            continue;
        }
        if store.claim_fit(&learner, FitReason::Weekly).await? {
            run_claimed(store, &learner).await;
            fitted += 1;
        }
    }
    Ok(fitted)
}

/// Runs a claimed fit to its end, recording a failure rather than returning it.
async fn run_claimed(store: &Store, learner: &LearnerId) {
    if let Err(err) = fit_claimed(store, learner).await {
        tracing::warn!(%learner, "cannot fit a schedule: {err}");
        if let Err(err) = store.fail_fit(learner, &err.to_string()).await {
            tracing::warn!(%learner, "cannot record a failed fit: {err}");
        }
    }
}

#[derive(Debug, thiserror::Error)]
enum FitError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the optimiser failed: {0}")]
    Optimiser(String),
    #[error("too few reviews to fit")]
    TooFew,
}

async fn fit_claimed(store: &Store, learner: &LearnerId) -> Result<usize, FitError> {
    let items = fit::items(&store.review_histories(learner).await?);
    let count = items.len();
    let current = store.scheduler(learner).await?.parameters().to_vec();
    let progress = CombinedProgressState::new_shared();
    let shared = progress.clone();
    let mut task = tokio::task::spawn_blocking(move || fit::fit_against(&current, items, Some(shared)));
    let fitted = loop {
        tokio::select! {
            joined = &mut task => break joined,
            () = tokio::time::sleep(PROGRESS_EVERY) => {
                let (done, total) = match progress.lock() {
                    Ok(p) => (p.current(), p.total()),
                    Err(_) => (0, 0),
                };
                if let Err(err) = store.fit_progress(learner, count, done, total).await {
                    // The run cannot be kept: the optimiser stops too rather than work unseen.
                    if let Ok(mut p) = progress.lock() {
                        p.want_abort = true;
                    }
                    return Err(err.into());
                }
            }
        }
    };
    let fitted = fitted
        .map_err(|e| FitError::Optimiser(e.to_string()))?
        .map_err(|e| FitError::Optimiser(e.to_string()))?
        .ok_or(FitError::TooFew)?;
    let moved = store.finish_fit(learner, count, &fitted).await?;
    tracing::info!(
        %learner,
        items = count,
        log_loss_before = fitted.before.log_loss,
        log_loss_after = fitted.after.log_loss,
        adopted = fitted.better(),
        moved,
        "schedule fitted"
    );
    Ok(moved)
}

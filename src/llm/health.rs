//! Whether the language model answers, kept true over time: checked at start-up, again in
//! the background at most once every `every` (a minute by default), and again soon after a
//! real turn fails; a turn that succeeds says so at once. `/readyz` and the provider notice on
//! pages read it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use super::SharedProvider;
use super::select::{self, ProviderStatus};
use crate::embed::Judgement;

pub struct ProviderHealth {
    provider: SharedProvider,
    judgement: Judgement,
    status: RwLock<ProviderStatus>,
    /// When the provider was last asked.
    probed: Mutex<Instant>,
    /// A check is under way (another is not started meanwhile).
    probing: AtomicBool,
    /// How long a check may take, and how often at most one is made.
    timeout: Duration,
    every: Duration,
}

impl ProviderHealth {
    /// Checks the provider once, now.
    pub async fn check(
        provider: SharedProvider,
        judgement: Judgement,
        timeout: Duration,
        every: Duration,
    ) -> Arc<Self> {
        let status = select::check(&provider, &judgement, timeout).await;
        Arc::new(Self {
            provider,
            judgement,
            status: RwLock::new(status),
            probed: Mutex::new(Instant::now()),
            probing: AtomicBool::new(false),
            timeout,
            every,
        })
    }

    pub fn status(&self) -> ProviderStatus {
        self.status.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// Checks again every `every`, for as long as the server runs. The offline tutor needs no
    /// checking.
    pub fn watch(self: &Arc<Self>) {
        if self.provider.info().offline {
            return;
        }
        let health = Arc::downgrade(self);
        let every = self.every;
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                let Some(health) = health.upgrade() else { break };
                health.recheck().await;
            }
        });
    }

    /// A real turn failed: check again soon (at most once every `every`), so the notice and
    /// `/readyz` say so if the provider is down, and not if it was one request.
    pub fn turn_failed(self: &Arc<Self>) {
        let health = self.clone();
        tokio::spawn(async move { health.recheck().await });
    }

    /// A real turn succeeded: the provider answers.
    pub fn turn_succeeded(&self) {
        let mut status = self.status.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        if !status.ok {
            let info = self.provider.info();
            tracing::info!(provider = %info.label, "language model answering again");
            status.ok = true;
            status.detail = info.label;
        }
    }

    /// Asks the provider again unless it was asked within `every` or is being asked now.
    async fn recheck(&self) {
        {
            let probed = self.probed.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if probed.elapsed() < self.every {
                return;
            }
        }
        if self.probing.swap(true, Ordering::AcqRel) {
            return;
        }
        let fresh = select::check(&self.provider, &self.judgement, self.timeout).await;
        *self.probed.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Instant::now();
        self.probing.store(false, Ordering::Release);
        let mut status = self.status.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        match (status.ok, fresh.ok) {
            (true, false) => tracing::error!("language model unavailable: {}", fresh.detail),
            (false, true) => tracing::info!(provider = %fresh.detail, "language model answering again"),
            (true, true) | (false, false) => {}
        }
        *status = fresh;
    }
}

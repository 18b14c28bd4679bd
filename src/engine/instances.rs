//! Several Warren instances on one database. Each live session is run by one instance at a
//! time: the holder of its lease (`session_leases`), taken in a transaction before an actor
//! starts and given back when it stops. A socket that reaches an instance not holding the
//! lease asks the holder to hand over and waits: the holder sees the request on its next
//! heartbeat, closes its sockets as taken over (a newer socket wins, as within one instance),
//! drops any reply under way unshown and unstored, and gives the lease back; the waiting
//! instance then runs the session from what is stored, answering a message left unanswered.
//! A holder that died (SIGKILL, a lost machine) stops beating, and its leases lapse.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::actor::Command;
use super::{Engine, EngineError};
use crate::store::{Lease, now_ms};

/// This process among the instances sharing the database.
#[derive(Clone, Debug)]
pub struct Instance {
    pub id: String,
    /// Where it serves, for operators reading `/readyz` or an error.
    pub address: String,
}

impl Instance {
    /// `id` as configured, or this host's name and the port it serves on: unique among live
    /// instances (two cannot serve one port of one host), and the same again when a crashed
    /// process is started again, so it takes its sessions back at once instead of waiting
    /// for its own leases to lapse.
    pub fn named(id: Option<String>, port: u16, address: impl Into<String>) -> Self {
        let id = id
            .map(|id| id.trim().to_string())
            .filter(|id| !id.is_empty())
            .unwrap_or_else(|| format!("{}:{port}", host_name()));
        Self { id, address: address.into() }
    }
}

impl Default for Instance {
    /// For an engine serving no port (tests, tools): the host's name and a random suffix.
    fn default() -> Self {
        // The end of a v7 id is random.
        let id = crate::store::new_id();
        Self { id: format!("{}-{}", host_name(), &id[id.len() - 6..]), address: String::new() }
    }
}

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "warren".to_string())
}

/// Marks a session as being started here until dropped (see `Engine::starting`).
pub(super) struct Starting<'a> {
    map: &'a std::sync::Mutex<HashMap<String, usize>>,
    session: String,
}

impl<'a> Starting<'a> {
    pub(super) fn new(map: &'a std::sync::Mutex<HashMap<String, usize>>, session: &str) -> Self {
        *map.lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .entry(session.to_string())
            .or_default() += 1;
        Self { map, session: session.to_string() }
    }
}

impl Drop for Starting<'_> {
    fn drop(&mut self) {
        let mut map = self.map.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(count) = map.get_mut(&self.session) {
            *count -= 1;
            if *count == 0 {
                map.remove(&self.session);
            }
        }
    }
}

/// Buckets untouched this long are full again, and instances this quiet are gone.
const SWEEP_AFTER: Duration = Duration::from_secs(3600);

impl Engine {
    pub fn instance(&self) -> &super::Instance {
        &self.shared.config.instance
    }

    /// Sessions this instance runs now.
    pub fn sessions_running(&self) -> usize {
        let live = self.live.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        live.values().filter(|c| !c.is_closed()).count()
    }

    /// Beats this instance's heartbeat until the process ends: hands over the sessions other
    /// instances ask for and, if the database could not hear it for long enough that its
    /// leases may have lapsed, stops every session it runs (another instance may run them
    /// now). Also forgets idle rate-limit buckets and long-gone instances, and writes the
    /// summaries a dead instance left pending.
    pub async fn keep_alive(self) {
        let config = &self.shared.config;
        let store = &self.shared.store;
        if let Err(err) = store.register_instance(&config.instance.id, &config.instance.address).await {
            tracing::error!("cannot register this instance: {err}");
        }
        let mut last_heard = Instant::now();
        // Sessions are stopped once an outage: one that opens as the database comes back is
        // not stopped again by a heartbeat that still fails.
        let mut paused = false;
        let mut last_sweep = Instant::now();
        let mut tick = tokio::time::interval(config.heartbeat);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            // Leases taken after this are by starts this loop would see under way.
            let checked = now_ms();
            let beat = store.heartbeat(&config.instance.id, &config.instance.address).await;
            *self.shared.writes.lock().unwrap_or_else(std::sync::PoisonError::into_inner) =
                beat.as_ref().map(drop).map_err(ToString::to_string);
            match beat {
                Ok(wanted) => {
                    last_heard = Instant::now();
                    paused = false;
                    for session in wanted {
                        if let Some(actor) = self.running(&session) {
                            // It gives the lease back as it stops.
                            let _ = actor.send(Command::HandOver).await;
                        } else if !self.is_starting(&session) {
                            // Left behind by an actor that could not give it back: no
                            // session runs on it here, so it goes now.
                            if let Err(err) =
                                store.release_idle_lease(&session, &config.instance.id, checked).await
                            {
                                tracing::warn!(session, "cannot give back a session's lease: {err}");
                            }
                        }
                    }
                }
                Err(err) => {
                    tracing::warn!("cannot beat this instance's heartbeat: {err}");
                    if !paused && last_heard.elapsed() + config.heartbeat >= config.lease_lapse {
                        paused = true;
                        tracing::error!("no heartbeat for too long: stopping every session run here");
                        let running: Vec<_> = {
                            let live = self.live.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                            live.values().cloned().collect()
                        };
                        // Their pages are told saving is paused, and try again.
                        for actor in running {
                            let _ = actor.send(Command::StoragePaused).await;
                        }
                    }
                }
            }
            if last_sweep.elapsed() >= SWEEP_AFTER / 6 {
                last_sweep = Instant::now();
                if let Err(err) = store.sweep_instances_and_limits(SWEEP_AFTER).await {
                    tracing::warn!("cannot sweep rate limits and old instances: {err}");
                }
                if let Err(err) = self.resume_summaries().await {
                    tracing::warn!("cannot pick up summaries left pending: {err}");
                }
            }
        }
    }

    fn is_starting(&self, session_id: &str) -> bool {
        self.starting.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).contains_key(session_id)
    }

    /// The lease on a session for this instance, waiting (and asking the holder to hand over)
    /// while another instance holds it.
    pub(super) async fn lease(&self, session_id: &str) -> Result<String, EngineError> {
        let config = &self.shared.config;
        let store = &self.shared.store;
        // The holder answers within a heartbeat; a dead one lapses within `lease_lapse`.
        let deadline = Instant::now() + config.lease_lapse + config.heartbeat * 3;
        let mut asked = false;
        loop {
            match store.take_lease(session_id, &config.instance.id, config.lease_lapse).await? {
                Lease::Taken(lease) => return Ok(lease),
                Lease::HeldBy { instance, address } => {
                    if Instant::now() >= deadline {
                        return Err(EngineError::Elsewhere { instance, address });
                    }
                    if !asked {
                        tracing::info!(
                            session = session_id,
                            holder = instance,
                            "asking for a session's lease"
                        );
                        store.want_lease(session_id).await?;
                        asked = true;
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
    }

    /// The process is stopping: its sessions' leases are free at once.
    pub async fn retire(&self) {
        let id = &self.shared.config.instance.id;
        if let Err(err) = self.shared.store.retire_instance(id).await {
            tracing::warn!("cannot retire this instance: {err}");
        }
        tracing::debug!(instance = id, at = now_ms(), "retired");
    }
}

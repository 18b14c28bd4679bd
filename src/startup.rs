//! Start-up is synchronous and checked: open the database, migrate, verify, bind; any failure
//! stops the process with one sentence saying what is wrong.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use axum::serve::ListenerExt;
use leptos::config::LeptosOptions;
use tokio::net::TcpListener;

use crate::config::{Config, Switch};
use crate::embed::Judgement;
use crate::engine::usage::{Budgets, Prices, PricesError};
use crate::engine::{Engine, EngineConfig, InProcess, Instance};
use crate::llm::health::ProviderHealth;
use crate::llm::offline::{self, Offline};
use crate::llm::select::{self, ProviderConfigError};
use crate::store::{Store, StoreError};
use crate::voice::Voice;
use crate::web::{self, AppState, ServerBackend, Throttle};

/// How long start-up waits for the language model to answer its check.
const PROVIDER_CHECK_TIMEOUT: Duration = Duration::from_secs(10);

/// The client's name when no build has named it (see [`client_bundle`]).
const UNBUILT_CLIENT: &str = "warren";

#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Provider(#[from] ProviderConfigError),
    #[error("the database is not ready: {0}")]
    NotReady(String),
    #[error("cannot listen on {addr} ({source}); set WARREN_ADDR to a free address, e.g. 127.0.0.1:3001")]
    Bind { addr: SocketAddr, source: std::io::Error },
    #[error("the server stopped: {0}")]
    Serve(std::io::Error),
    #[error(transparent)]
    Prices(#[from] PricesError),
}

/// A started, ready application bound to its address.
pub struct Application {
    listener: TcpListener,
    /// `/metrics` alone, on an address of its own (`WARREN_METRICS_ADDR`).
    metrics_listener: Option<TcpListener>,
    state: AppState,
}

impl Application {
    pub async fn build(config: &Config) -> Result<Self, StartupError> {
        let store = open_and_migrate(config).await?;
        // Loaded once: the offline judges compare meaning with it, or words alone without it
        // (and every notice says so).
        let judgement = config.llm.load_judgement();
        match &judgement {
            Judgement::Meaning(_) => tracing::info!("offline judges: {}", judgement.describe()),
            Judgement::Words(_) => {
                tracing::warn!("offline judges: {}", judgement.describe());
                eprintln!("note: the offline judges {}", judgement.describe().trim_start_matches("judges "));
            }
        }
        let provider = select::build(&config.llm, &judgement)?;
        let prices = match &config.prices {
            Some(path) => Prices::load(path)?,
            None => Prices::default(),
        };
        // A provider that fails its check does not stop Warren: the operator sees why here and
        // on /readyz, and learners see a notice; the offline tutor needs no check.
        let every = Duration::from_secs(config.llm.provider_recheck_secs.max(1));
        let health =
            ProviderHealth::check(provider.clone(), judgement.clone(), PROVIDER_CHECK_TIMEOUT, every).await;
        health.watch();
        let provider_status = health.status();
        if provider_status.ok {
            tracing::info!(provider = %provider_status.detail, "language model ready");
        } else {
            tracing::error!("language model unavailable: {}", provider_status.detail);
            eprintln!("warning: the language model did not answer its check: {}", provider_status.detail);
        }
        // The offline tutor answers at once: speculating would only double its work.
        let speculative_tutor = match config.llm.speculative_tutor {
            Switch::Auto => !provider.info().offline,
            Switch::On => true,
            Switch::Off => false,
        };
        let listener = TcpListener::bind(config.addr)
            .await
            .map_err(|source| StartupError::Bind { addr: config.addr, source })?;
        let addr =
            listener.local_addr().map_err(|source| StartupError::Bind { addr: config.addr, source })?;
        let metrics_listener = match config.metrics_addr {
            Some(at) => {
                Some(TcpListener::bind(at).await.map_err(|source| StartupError::Bind { addr: at, source })?)
            }
            None => None,
        };

        let address = config.public_url.clone().unwrap_or_else(|| format!("http://{addr}"));
        // The speculative tutor guesses with the offline evaluators, which answer in
        // milliseconds, so a turn that recalls a point need not wait two round trips.
        let in_process = InProcess {
            judges: if speculative_tutor { offline::judges(judgement.embedder()) } else { Vec::new() },
            embedder: judgement.embedder().cloned(),
            health: Some(health.clone()),
            offline: Some(Arc::new(Offline::new(
                Duration::from_millis(config.llm.offline_delay_ms),
                judgement.embedder().cloned(),
            ))),
        };
        let engine = Engine::judged(
            store.clone(),
            provider,
            in_process,
            EngineConfig {
                decline_cooldown: config.rabbithole_cooldown,
                context_tokens: config.context_tokens as usize,
                speculative_tutor,
                summary_attempts: config.summary_attempts,
                summary_backoff: Duration::from_millis(config.summary_backoff_ms),
                instance: Instance::named(config.instance_id.clone(), addr.port(), address),
                prices: Arc::new(prices),
                budgets: Budgets {
                    daily: config.daily_tokens_per_learner,
                    monthly: config.monthly_tokens_per_learner,
                },
                ..EngineConfig::default()
            },
        );

        // Summaries a stop left unwritten are written now, in the background.
        match engine.resume_summaries().await {
            Ok(0) => {}
            Ok(n) => tracing::info!(summaries = n, "writing the session summaries left pending"),
            Err(err) => tracing::error!("cannot read the session summaries left pending: {err}"),
        }

        let site_root = config.site_root.display().to_string();
        let client = client_bundle(&config.site_root).unwrap_or_else(|| {
            tracing::warn!(
                "no client bundle under {site_root}/pkg: pages will render but not react; build it with scripts/build"
            );
            UNBUILT_CLIENT.to_string()
        });
        let leptos_options = LeptosOptions::builder()
            .output_name(client)
            .site_root(site_root)
            .site_pkg_dir("pkg")
            .site_addr(addr)
            .build();
        let secure_cookies = config.public_url.as_deref().is_some_and(|u| u.starts_with("https://"));
        let voice = Arc::new(Voice::new(&config.voice));
        match voice.describe() {
            Some(through) => tracing::info!("answers by voice are transcribed by {through}"),
            None => tracing::info!("answering by voice is off (set WARREN_TRANSCRIBE_URL to turn it on)"),
        }
        let backend = Arc::new(ServerBackend {
            store: store.clone(),
            engine: engine.clone(),
            provider_health: health.clone(),
            voice: voice.describe(),
            embedder: judgement.embedder().cloned(),
        });
        let drafting = crate::drafting::Drafting {
            store: store.clone(),
            provider: engine.provider(),
            embedder: judgement.embedder().cloned(),
            meter: Some(engine.meter().clone()),
        };
        let state = AppState {
            leptos_options,
            throttle: Arc::new(Throttle::new(store.clone())),
            store,
            engine,
            provider_health: health,
            secure_cookies,
            trusted_proxies: config.trusted_proxies.clone().into(),
            backend,
            voice,
            drafting,
            metrics_token: web::MetricsToken(config.metrics_token.as_deref().map(Arc::from)),
        };
        Ok(Self { listener, metrics_listener, state })
    }

    /// The engine, for tools and tests that drive sessions without a socket.
    pub fn engine(&self) -> Engine {
        self.state.engine.clone()
    }

    pub fn local_addr(&self) -> SocketAddr {
        // The listener is bound; its address was read successfully in `build`.
        self.state.leptos_options.site_addr
    }

    /// Where `/metrics` is served on its own, if it is.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics_listener.as_ref().and_then(|l| l.local_addr().ok())
    }

    /// Serves until Ctrl-C or SIGTERM, then finishes in-flight requests.
    pub async fn run(self) -> Result<(), StartupError> {
        tokio::spawn(sweep_hourly(self.state.store.clone()));
        let engine = self.state.engine.clone();
        tokio::spawn(engine.clone().keep_alive());
        if let Some(listener) = self.metrics_listener {
            let metrics = web::metrics_router(engine.clone());
            tokio::spawn(async move {
                if let Err(err) = axum::serve(listener, metrics).await {
                    tracing::error!("the metrics address stopped serving: {err}");
                }
            });
        }
        let router = web::router(self.state);
        // Replies stream as many small frames: without TCP_NODELAY, Nagle's algorithm holds
        // the second one until the first is acknowledged, a stall of about 40 ms per reply.
        let listener = self.listener.tap_io(|tcp| {
            if let Err(err) = tcp.set_nodelay(true) {
                tracing::warn!("cannot set TCP_NODELAY: {err}");
            }
        });
        let served = axum::serve(listener, router.into_make_service_with_connect_info::<SocketAddr>())
            .with_graceful_shutdown(shutdown_signal())
            .await
            .map_err(StartupError::Serve);
        // Other instances may take this one's sessions at once.
        engine.retire().await;
        served
    }
}

/// `warren serve`.
pub async fn serve(config: Config) -> Result<(), StartupError> {
    let app = Application::build(&config).await?;
    let addr = app.local_addr();
    tracing::info!(%addr, database = %format!("{:?}", app.state.store.backend()).to_lowercase(), "ready");
    println!("Warren is running at http://{addr}/");
    app.run().await
}

/// `warren migrate`.
pub async fn migrate_only(config: &Config) -> Result<(), StartupError> {
    open_and_migrate(config).await?;
    println!("Database is up to date.");
    Ok(())
}

pub async fn open_and_migrate(config: &Config) -> Result<Store, StartupError> {
    let store = Store::open_with(&config.database_url, &config.pool_settings()).await?;
    store.migrate().await?;
    let failed: Vec<String> = store
        .readiness()
        .await
        .into_iter()
        .filter(|c| !c.ok)
        .map(|c| format!("{}: {}", c.name, c.detail))
        .collect();
    if !failed.is_empty() {
        return Err(StartupError::NotReady(failed.join("; ")));
    }
    Ok(store)
}

/// Every hour: sweeps expired sign-ins, and import drafts and drafted sources nobody kept (none is ever
/// read again; this only keeps the tables small), and fits the schedule of each learner whose
/// weekly fit is due.
async fn sweep_hourly(store: Store) {
    let mut every_hour = tokio::time::interval(Duration::from_secs(3600));
    loop {
        every_hour.tick().await;
        if let Err(err) = store.delete_expired_auth_sessions().await {
            tracing::warn!("cannot sweep expired sign-ins: {err}");
        }
        if let Err(err) = store.sweep_drafts().await {
            tracing::warn!("cannot sweep import drafts: {err}");
        }
        if let Err(err) = store.sweep_sources().await {
            tracing::warn!("cannot sweep drafted sources: {err}");
        }
        if let Err(err) = crate::fitting::weekly(&store).await {
            tracing::warn!("cannot run the weekly schedule fits: {err}");
        }
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(err) = tokio::signal::ctrl_c().await {
            tracing::warn!("cannot listen for Ctrl-C: {err}");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(err) => {
                tracing::warn!("cannot listen for SIGTERM: {err}");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down");
}

/// The client bundle's name under `site_root/pkg` (`<name>.js`, `<name>_bg.wasm` and
/// `<name>.css`), as the build recorded it in `pkg/bundle.json`: the names carry a hash of the
/// files' content, so they may be cached for good. `None` when no client has been built.
fn client_bundle(site_root: &Path) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Bundle {
        name: String,
    }
    let pkg = site_root.join("pkg");
    let text = std::fs::read_to_string(pkg.join("bundle.json")).ok()?;
    let Bundle { name } = serde_json::from_str(&text).ok()?;
    let plain = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_');
    (plain && pkg.join(format!("{name}_bg.wasm")).is_file()).then_some(name)
}

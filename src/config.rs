//! Configuration: command-line flags, each backed by an environment variable (and so by `.env`).
//! `warren --help` lists them; README.md has the same table.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;

pub use crate::llm::settings::{DEFAULT_MODEL_DIR, LlmConfig, ProviderChoice, Switch};
pub use crate::voice::VoiceConfig;

#[derive(Args, Debug, Clone)]
pub struct Config {
    /// Address to listen on. Port 0 picks a free port.
    #[arg(long, env = "WARREN_ADDR", default_value = "127.0.0.1:3000", global = true)]
    pub addr: SocketAddr,

    /// Database: `sqlite://path/to/file.db` (created if missing) or `postgres://user:pass@host/db`.
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite://data/warren.db", global = true)]
    pub database_url: String,

    /// Log filter in `tracing` syntax, e.g. `info` or `warren=debug,info`.
    #[arg(long, env = "WARREN_LOG", default_value = "info", global = true)]
    pub log: String,

    /// Directory holding the built client (`pkg/`) and public assets.
    #[arg(long, env = "WARREN_SITE_ROOT", default_value = "target/site", global = true)]
    pub site_root: PathBuf,

    /// The address learners use, e.g. https://warren.example.org; sign-in cookies are marked
    /// Secure when it is https.
    #[arg(long, env = "WARREN_PUBLIC_URL", global = true)]
    pub public_url: Option<String>,

    /// Reverse proxies whose `X-Forwarded-For` is believed, comma-separated addresses or
    /// networks (`127.0.0.1,10.0.0.0/8`). A request from one of them is counted (sign-in and
    /// sign-up limits, logs) as coming from the address the proxies say; any other
    /// request's header is ignored. Empty: the header is never believed.
    #[arg(long, env = "WARREN_TRUSTED_PROXIES", value_delimiter = ',', value_parser = proxy,
          global = true)]
    pub trusted_proxies: Vec<ipnet::IpNet>,

    /// Connections in the database pool; by default 4 on SQLite and 10 on PostgreSQL.
    #[arg(long, env = "WARREN_DB_POOL_SIZE",
          value_parser = clap::value_parser!(u32).range(1..=1000), global = true)]
    pub db_pool_size: Option<u32>,

    /// Milliseconds a request waits for a free database connection before it fails with an
    /// error saying the pool is exhausted.
    #[arg(long, env = "WARREN_DB_ACQUIRE_TIMEOUT_MS", default_value_t = 5000,
          value_parser = clap::value_parser!(u64).range(1..), global = true)]
    pub db_acquire_timeout_ms: u64,

    /// Milliseconds one database statement may run on PostgreSQL (its `statement_timeout`);
    /// on SQLite, how long a connection waits for the file's lock.
    #[arg(long, env = "WARREN_DB_STATEMENT_TIMEOUT_MS", default_value_t = 10_000,
          value_parser = clap::value_parser!(u64).range(1..), global = true)]
    pub db_statement_timeout_ms: u64,

    /// This process's name among several sharing one database (shown in `/readyz`). By
    /// default the host's name and the port it serves on, the same after a restart.
    #[arg(long, env = "WARREN_INSTANCE_ID", global = true)]
    pub instance_id: Option<String>,

    /// The token `/metrics` asks for, as `Authorization: Bearer …`. Without it (and without
    /// WARREN_METRICS_ADDR), `/metrics` is not served.
    #[arg(long, env = "WARREN_METRICS_TOKEN", hide_env_values = true, global = true)]
    pub metrics_token: Option<String>,

    /// An address of its own that serves `/metrics` alone, with no token: bind it to
    /// loopback or a private network, where only the monitoring can reach it.
    #[arg(long, env = "WARREN_METRICS_ADDR", global = true)]
    pub metrics_addr: Option<SocketAddr>,

    /// A price list for the language models (a JSON file: model name to US dollars per
    /// million `input`, `cached_input` and `output` tokens), for what sessions cost.
    #[arg(long, env = "WARREN_PRICES", global = true)]
    pub prices: Option<PathBuf>,

    /// Tokens (input and output) of a network model one learner may use in a day (UTC); past
    /// it their sessions go on with the offline tutor until the next day.
    #[arg(long, env = "WARREN_DAILY_TOKENS_PER_LEARNER", global = true)]
    pub daily_tokens_per_learner: Option<u64>,

    /// The same for a month (UTC).
    #[arg(long, env = "WARREN_MONTHLY_TOKENS_PER_LEARNER", global = true)]
    pub monthly_tokens_per_learner: Option<u64>,

    #[command(flatten)]
    pub llm: LlmConfig,

    #[command(flatten)]
    pub voice: VoiceConfig,

    /// Learner messages after a declined rabbit hole before another may be offered.
    #[arg(long, env = "WARREN_RABBITHOLE_COOLDOWN", default_value_t = 3, global = true)]
    pub rabbithole_cooldown: u32,

    /// Tokens of conversation the agents are sent (about four characters each). Past three
    /// quarters of it, the summariser condenses the older part of the session.
    #[arg(long, env = "WARREN_CONTEXT_TOKENS", default_value_t = 6000,
          value_parser = clap::value_parser!(u32).range(400..), global = true)]
    pub context_tokens: u32,

    /// Tries at a session's summary before the history page shows it as unavailable (with
    /// Retry).
    #[arg(long, env = "WARREN_SUMMARY_ATTEMPTS", default_value_t = 3,
          value_parser = clap::value_parser!(u32).range(1..=10), global = true)]
    pub summary_attempts: u32,

    /// Milliseconds before a failed summary is tried again; each later wait is four times
    /// longer.
    #[arg(long, env = "WARREN_SUMMARY_BACKOFF_MS", default_value_t = 2000, global = true)]
    pub summary_backoff_ms: u64,
}

impl Config {
    /// A configuration for tests and tools: given database, any free port, defaults elsewhere.
    pub fn for_database(database_url: impl Into<String>) -> Self {
        Self {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            database_url: database_url.into(),
            log: "warn".into(),
            site_root: PathBuf::from("target/site"),
            public_url: None,
            trusted_proxies: Vec::new(),
            db_pool_size: None,
            db_acquire_timeout_ms: 5000,
            db_statement_timeout_ms: 10_000,
            instance_id: None,
            metrics_token: None,
            metrics_addr: None,
            prices: None,
            daily_tokens_per_learner: None,
            monthly_tokens_per_learner: None,
            llm: LlmConfig::offline(),
            voice: VoiceConfig::off(),
            rabbithole_cooldown: 3,
            context_tokens: 6000,
            summary_attempts: 3,
            summary_backoff_ms: 2000,
        }
    }

    /// The database pool as `WARREN_DB_*` set it.
    pub fn pool_settings(&self) -> crate::store::PoolSettings {
        crate::store::PoolSettings {
            size: self.db_pool_size,
            acquire_timeout: std::time::Duration::from_millis(self.db_acquire_timeout_ms),
            statement_timeout: std::time::Duration::from_millis(self.db_statement_timeout_ms),
        }
    }
}

/// A trusted proxy: an address (`10.0.0.7`) or a network (`10.0.0.0/8`).
fn proxy(text: &str) -> Result<ipnet::IpNet, String> {
    let text = text.trim();
    text.parse::<ipnet::IpNet>()
        .or_else(|_| text.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
        .map_err(|_| format!("“{text}” is not an address or a network such as 10.0.0.0/8"))
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use crate::cli::Cli;

    #[test]
    fn trusted_proxies_are_addresses_or_networks() {
        let cli = Cli::try_parse_from(["warren", "--trusted-proxies", "127.0.0.1, 10.0.0.0/8,::1"]).unwrap();
        let shown: Vec<String> = cli.config.trusted_proxies.iter().map(ToString::to_string).collect();
        assert_eq!(shown, ["127.0.0.1/32", "10.0.0.0/8", "::1/128"]);
        let err = Cli::try_parse_from(["warren", "--trusted-proxies", "proxy.local"]).unwrap_err();
        assert!(err.to_string().contains("not an address or a network"), "{err}");
    }
}

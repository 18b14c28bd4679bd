//! Configuration: command-line flags, each backed by an environment variable (and so by `.env`).
//! `warren --help` lists them; README.md has the same table.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::llm::{anthropic, openai};

#[derive(Parser, Debug)]
#[command(name = "warren", version, about = "Warren: a conversational active-recall tutor")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub config: Config,
}

#[derive(Subcommand, Debug, Clone, Default, PartialEq)]
pub enum Command {
    /// Apply pending migrations, check readiness and serve (the default).
    #[default]
    Serve,
    /// Apply pending database migrations and exit.
    Migrate,
    /// Import into a learner's account from a file: a set (Warren JSON, CSV, Markdown or Anki
    /// .apkg) or a whole account archive (.zip from the account page or `export --format archive`).
    Import {
        /// The learner's username.
        #[arg(long)]
        user: String,
        /// The file to import.
        file: PathBuf,
    },
    /// Write one of a learner's sets, or their whole account as an archive, to standard output.
    Export {
        /// The learner's username.
        #[arg(long)]
        user: String,
        /// The set's name (not needed for an archive).
        #[arg(long)]
        set: Option<String>,
        /// `archive`: every set, session, summary and image, as one zip.
        #[arg(long, value_enum, default_value_t = ExportFormat::Json)]
        format: ExportFormat,
    },
    /// Print a learner's newest session summaries, newest first.
    Summaries {
        /// The learner's username.
        #[arg(long)]
        user: String,
        /// Only this set's sessions (by name).
        #[arg(long)]
        set: Option<String>,
        /// How many to print.
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=100))]
        limit: u32,
    },
    /// Measure a judge of the configured provider on labelled cases (JSON Lines; see evals/).
    Eval {
        /// Which judge: evaluator or detector.
        #[arg(value_enum)]
        judge: crate::eval::Judge,
        /// The cases, one JSON object a line.
        cases: PathBuf,
        /// Exit with an error when F1 is below this.
        #[arg(long)]
        min_f1: Option<f64>,
    },
}

/// What `warren export` writes.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    Json,
    Csv,
    Md,
    Archive,
}

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

    #[command(flatten)]
    pub llm: LlmConfig,

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

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProviderChoice {
    /// Anthropic if ANTHROPIC_API_KEY is set, else OpenAI-compatible if OPENAI_API_KEY or
    /// WARREN_OPENAI_BASE_URL is set, else the built-in offline tutor.
    Auto,
    Offline,
    Anthropic,
    Openai,
}

/// Where scripts/run installs the sentence model, relative to the working directory.
pub const DEFAULT_MODEL_DIR: &str = "data/models/all-MiniLM-L6-v2";

/// Which language model answers, and how to reach it.
#[derive(Args, Debug, Clone)]
pub struct LlmConfig {
    /// Language model provider.
    #[arg(long = "llm", env = "WARREN_LLM", value_enum, default_value = "auto", global = true)]
    pub provider: ProviderChoice,

    /// Anthropic API key (prefer the environment variable to the flag).
    #[arg(long, env = "ANTHROPIC_API_KEY", hide_env_values = true, global = true)]
    pub anthropic_api_key: Option<String>,
    #[arg(long, env = "WARREN_ANTHROPIC_BASE_URL", default_value = anthropic::DEFAULT_BASE_URL, global = true)]
    pub anthropic_base_url: String,
    /// Model for conversation (tutor, explorer).
    #[arg(long, env = "WARREN_ANTHROPIC_MODEL", default_value = anthropic::DEFAULT_MODEL, global = true)]
    pub anthropic_model: String,
    /// Model for quick structured checks (evaluator, detector).
    #[arg(long, env = "WARREN_ANTHROPIC_FAST_MODEL", default_value = anthropic::DEFAULT_FAST_MODEL, global = true)]
    pub anthropic_fast_model: String,

    /// OpenAI API key; local servers (Ollama, llama.cpp, vLLM) need none.
    #[arg(long, env = "OPENAI_API_KEY", hide_env_values = true, global = true)]
    pub openai_api_key: Option<String>,
    /// Base URL of an OpenAI-compatible API, e.g. http://localhost:11434/v1 for Ollama.
    #[arg(long, env = "WARREN_OPENAI_BASE_URL", global = true)]
    pub openai_base_url: Option<String>,
    #[arg(long, env = "WARREN_OPENAI_MODEL", default_value = openai::DEFAULT_MODEL, global = true)]
    pub openai_model: String,
    /// Model for quick structured checks; defaults to WARREN_OPENAI_MODEL.
    #[arg(long, env = "WARREN_OPENAI_FAST_MODEL", global = true)]
    pub openai_fast_model: Option<String>,

    /// How often at most the language model is checked again after start-up (in the
    /// background, and soon after a turn fails), in seconds; `/readyz` and the pages' notice
    /// follow it.
    #[arg(long, env = "WARREN_PROVIDER_RECHECK_SECS", default_value_t = 60, global = true)]
    pub provider_recheck_secs: u64,

    /// Pause between the offline tutor's streamed pieces, in milliseconds.
    #[arg(long, env = "WARREN_OFFLINE_DELAY_MS", default_value_t = 25, global = true)]
    pub offline_delay_ms: u64,

    /// Folder of the offline judges' sentence model (all-MiniLM-L6-v2: config.json,
    /// tokenizer.json, model.safetensors), which scripts/run installs. Without it the offline
    /// judges compare words only, and say so.
    #[arg(long, env = "WARREN_MODEL_DIR", default_value = DEFAULT_MODEL_DIR, global = true)]
    pub model_dir: PathBuf,

    /// Milliseconds to wait for a network model's first byte, and then between two pieces of
    /// a streamed reply, before the request counts as failed (and is retried).
    #[arg(long, env = "WARREN_LLM_TIMEOUT_MS", default_value_t = 60_000,
          value_parser = clap::value_parser!(u64).range(100..), global = true)]
    pub llm_timeout_ms: u64,

    /// Start the tutor while the evaluator judges, keeping its reply when nothing was recalled
    /// (one model round trip to the first word). `auto`: on for network providers.
    #[arg(long, env = "WARREN_SPECULATIVE_TUTOR", value_enum, default_value = "auto", global = true)]
    pub speculative_tutor: Switch,
}

/// On, off, or decided by the provider.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Switch {
    Auto,
    On,
    Off,
}

impl LlmConfig {
    /// The offline provider with no streaming delay: what tests use.
    pub fn offline() -> Self {
        Self {
            provider: ProviderChoice::Offline,
            anthropic_api_key: None,
            anthropic_base_url: anthropic::DEFAULT_BASE_URL.into(),
            anthropic_model: anthropic::DEFAULT_MODEL.into(),
            anthropic_fast_model: anthropic::DEFAULT_FAST_MODEL.into(),
            openai_api_key: None,
            openai_base_url: None,
            openai_model: openai::DEFAULT_MODEL.into(),
            openai_fast_model: None,
            provider_recheck_secs: 60,
            offline_delay_ms: 0,
            model_dir: DEFAULT_MODEL_DIR.into(),
            llm_timeout_ms: 60_000,
            speculative_tutor: Switch::Auto,
        }
    }
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
            llm: LlmConfig::offline(),
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

    use super::*;

    #[test]
    fn trusted_proxies_are_addresses_or_networks() {
        let cli = Cli::try_parse_from(["warren", "--trusted-proxies", "127.0.0.1, 10.0.0.0/8,::1"]).unwrap();
        let shown: Vec<String> = cli.config.trusted_proxies.iter().map(ToString::to_string).collect();
        assert_eq!(shown, ["127.0.0.1/32", "10.0.0.0/8", "::1/128"]);
        let err = Cli::try_parse_from(["warren", "--trusted-proxies", "proxy.local"]).unwrap_err();
        assert!(err.to_string().contains("not an address or a network"), "{err}");
    }
}

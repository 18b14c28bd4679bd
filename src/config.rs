//! Configuration: command-line flags, each backed by an environment variable (and so by `.env`).
//! `warren --help` lists them; README.md has the same table.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(name = "warren", version, about = "Warren: a conversational active-recall tutor")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub config: Config,
}

#[derive(Subcommand, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Command {
    /// Apply pending migrations, check readiness and serve (the default).
    #[default]
    Serve,
    /// Apply pending database migrations and exit.
    Migrate,
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
}

impl Config {
    /// A configuration for tests and tools: given database, any free port, defaults elsewhere.
    pub fn for_database(database_url: impl Into<String>) -> Self {
        Self {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            database_url: database_url.into(),
            log: "warn".into(),
            site_root: PathBuf::from("target/site"),
        }
    }
}

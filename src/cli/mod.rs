//! The command line: `warren [serve|migrate|import|export|summaries|disputes|draft|eval|backup|restore|usage|allowance]`, each
//! command's flags, and the one error type every command ends with (printed as one sentence by
//! `main`).

mod backup;
mod draft;
mod eval;
mod transfer;
mod usage;

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::config::Config;
use crate::startup::{self, StartupError};
use crate::store::StoreError;
pub use transfer::TransferError;

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
        /// Also import the points of cards suspended in an Anki package.
        #[arg(long)]
        suspended: bool,
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
    /// Print the recalls a learner disputed ("Not a recall" on a history page) as evaluator
    /// cases, one JSON object a line, ready for `warren eval evaluator`.
    Disputes {
        /// The learner's username.
        #[arg(long)]
        user: String,
    },
    /// Draft recall points from a file (.txt, .md, .html or .pdf) for a learner's set (made if
    /// it does not exist), print them with their quotes and checks, and with --yes keep them.
    Draft {
        /// The learner's username.
        #[arg(long)]
        user: String,
        /// The set's name.
        #[arg(long)]
        set: String,
        /// The source.
        file: PathBuf,
        /// Keep the drafts (all but those the set already has) instead of leaving them for
        /// review on the web.
        #[arg(long)]
        yes: bool,
    },
    /// Copy the SQLite database to a new file while Warren serves, and check the copy.
    Backup {
        /// Where the copy goes (a file that does not exist yet).
        file: PathBuf,
    },
    /// Put a copy made by `warren backup` in place of the SQLite database. Refused while an
    /// instance of Warren holds the database.
    Restore {
        /// The copy.
        file: PathBuf,
    },
    /// Print what the language models were asked to do, by learner, agent and model: calls,
    /// tokens and cost (priced from WARREN_PRICES).
    Usage {
        /// Only this learner's calls.
        #[arg(long)]
        user: Option<String>,
        /// From this day (UTC, e.g. 2026-11-01); the start of this month by default.
        #[arg(long)]
        since: Option<String>,
    },
    /// Set one learner's allowance of model tokens: a cap of their own, the server's defaults
    /// again, or no cap for some hours.
    Allowance {
        /// The learner's username.
        #[arg(long)]
        user: String,
        /// Tokens a day (UTC) for this learner.
        #[arg(long)]
        daily: Option<u64>,
        /// Tokens a month (UTC) for this learner.
        #[arg(long)]
        monthly: Option<u64>,
        /// No cap for this many hours from now.
        #[arg(long, value_name = "HOURS")]
        lift: Option<u64>,
        /// Back to the server's defaults (before any of the above).
        #[arg(long)]
        defaults: bool,
    },
    /// Measure a judge of the configured provider on labelled cases (JSON Lines; see evals/).
    Eval {
        /// What to measure: the evaluator, the detector, or the drafter.
        #[arg(value_enum)]
        what: eval::Measured,
        /// The cases, one JSON object a line.
        cases: PathBuf,
        /// Exit with an error when F1 (the evaluator's, the detector's) is below this.
        #[arg(long)]
        min_f1: Option<f64>,
        /// The evaluator only: exit with an error when the share of labelled message kinds
        /// (attempt, "I don't know", question, small talk) it reads as labelled is below this.
        #[arg(long)]
        min_kinds: Option<f64>,
        /// Exit with an error when the drafter's coverage is below this.
        #[arg(long)]
        min_coverage: Option<f64>,
        /// Exit with an error when the drafter's faithfulness is below this.
        #[arg(long)]
        min_faithfulness: Option<f64>,
        /// The offline evaluator only: also write what its formula weighs of each point, one
        /// JSON object a line, for refitting it (`scripts/fit-judge`).
        #[arg(long, value_name = "FILE")]
        features: Option<PathBuf>,
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

/// Why a command failed, in one sentence an operator can act on.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Startup(#[from] StartupError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Transfer(#[from] TransferError),
    #[error(transparent)]
    Eval(#[from] crate::eval::EvalError),
    #[error(transparent)]
    Provider(#[from] crate::llm::select::ProviderConfigError),
    #[error(transparent)]
    Source(#[from] crate::drafting::SourceError),
    #[error(transparent)]
    Backup(#[from] crate::store::BackupError),
    #[error(transparent)]
    Usage(#[from] usage::UsageError),
}

/// Runs the command the line names (serving when it names none).
pub async fn run(cli: Cli) -> Result<(), CliError> {
    let config = cli.config;
    match cli.command.unwrap_or_default() {
        Command::Serve => Ok(startup::serve(config).await?),
        Command::Migrate => Ok(startup::migrate_only(&config).await?),
        Command::Import { user, file, suspended } => transfer::import(&config, &user, &file, suspended).await,
        Command::Export { user, set, format } => {
            transfer::export(&config, &user, set.as_deref(), format).await
        }
        Command::Summaries { user, set, limit } => {
            transfer::summaries(&config, &user, set.as_deref(), limit).await
        }
        Command::Disputes { user } => transfer::disputes(&config, &user).await,
        Command::Draft { user, set, file, yes } => draft::command(&config, &user, &set, &file, yes).await,
        Command::Backup { file } => backup::backup(&config, &file).await,
        Command::Restore { file } => backup::restore_from(&config, &file).await,
        Command::Usage { user, since } => usage::usage(&config, user.as_deref(), since.as_deref()).await,
        Command::Allowance { user, daily, monthly, lift, defaults } => {
            let change = usage::AllowanceChange { daily, monthly, lift_hours: lift, defaults };
            usage::allowance(&config, &user, change).await
        }
        Command::Eval { what, cases, min_f1, min_kinds, min_coverage, min_faithfulness, features } => {
            eval::command(
                &config,
                what,
                &cases,
                eval::Minimums {
                    f1: min_f1,
                    kinds: min_kinds,
                    coverage: min_coverage,
                    faithfulness: min_faithfulness,
                },
                features.as_deref(),
            )
            .await
        }
    }
}

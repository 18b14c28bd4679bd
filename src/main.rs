use std::process::ExitCode;

use clap::Parser;
use warren::config::{Cli, Command};
use warren::{cli_transfer, eval, startup, telemetry};

#[tokio::main]
async fn main() -> ExitCode {
    // A missing .env is normal; a malformed one is worth a word but not a refusal to start.
    if let Err(err) = dotenvy::dotenv()
        && !err.not_found()
    {
        eprintln!("warning: ignoring .env: {err}");
    }
    let cli = Cli::parse();
    telemetry::init(&cli.config.log);

    let result = match cli.command.unwrap_or_default() {
        Command::Serve => startup::serve(cli.config).await,
        Command::Migrate => startup::migrate_only(&cli.config).await,
        Command::Import { user, file } => cli_transfer::import(&cli.config, &user, &file).await,
        Command::Export { user, set, format } => {
            cli_transfer::export(&cli.config, &user, set.as_deref(), format).await
        }
        Command::Summaries { user, set, limit } => {
            cli_transfer::summaries(&cli.config, &user, set.as_deref(), limit).await
        }
        Command::Eval { judge, cases, min_f1 } => eval::command(&cli.config, judge, &cases, min_f1).await,
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // One sentence for the operator: what is wrong and how to fix it. No backtrace.
            eprintln!("warren: {err}");
            ExitCode::FAILURE
        }
    }
}

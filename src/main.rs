use std::process::ExitCode;

use clap::Parser;
use warren::cli::{self, Cli};
use warren::telemetry;

fn main() -> ExitCode {
    // A missing .env is normal; a malformed one is worth a word but not a refusal to start.
    if let Err(err) = dotenvy::dotenv()
        && !err.not_found()
    {
        eprintln!("warning: ignoring .env: {err}");
    }
    // The sentence model reads one learner message at a time on each core. Splitting a pass of
    // a dozen tokens over every core (candle's default) costs a third more CPU than it saves.
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        // SAFETY: no other thread exists yet; the runtime starts below.
        unsafe { std::env::set_var("RAYON_NUM_THREADS", "1") };
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("warren: cannot start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(run())
}

async fn run() -> ExitCode {
    let cli = Cli::parse();
    telemetry::init(&cli.config.log);
    match cli::run(cli).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // One sentence for the operator: what is wrong and how to fix it. No backtrace.
            eprintln!("warren: {err}");
            ExitCode::FAILURE
        }
    }
}

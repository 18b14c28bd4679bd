//! Logging with `tracing`; the filter comes from `WARREN_LOG` (see `config`).

use tracing_subscriber::EnvFilter;

pub fn init(filter: &str) {
    let filter = EnvFilter::try_new(filter).unwrap_or_else(|err| {
        eprintln!("warning: WARREN_LOG '{filter}' is not a valid filter ({err}); using 'info'");
        EnvFilter::new("info")
    });
    // To stderr: stdout is for what a command prints (`warren export` writes a file there).
    // `try_init` so that tests starting several apps in one process do not panic.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .with_writer(std::io::stderr)
        .try_init();
}

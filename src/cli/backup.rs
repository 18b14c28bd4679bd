//! `warren backup FILE` and `warren restore FILE`: a consistent copy of a SQLite database taken
//! while Warren serves, and one put back while nothing does.

use std::path::Path;

use super::CliError;
use crate::config::Config;
use crate::store::{Backend, BackupError, Copied, Store, restore, sqlite_path};

pub async fn backup(config: &Config, to: &Path) -> Result<(), CliError> {
    if let Some(file) = sqlite_path(&config.database_url)
        && !file.exists()
    {
        return Err(BackupError::Missing(file.display().to_string()).into());
    }
    let store = Store::open_with(&config.database_url, &config.pool_settings()).await?;
    if store.backend() != Backend::Sqlite {
        return Err(BackupError::NotSqlite.into());
    }
    let copied = store.backup(to).await?;
    println!("Backed up to {}: {}; its integrity checks out.", copied.path.display(), holds(&copied));
    Ok(())
}

pub async fn restore_from(config: &Config, from: &Path) -> Result<(), CliError> {
    let copied = restore(&config.database_url, from).await?;
    println!(
        "Restored {} into {}: {}; its integrity checks out. Start Warren again.",
        from.display(),
        copied.path.display(),
        holds(&copied)
    );
    Ok(())
}

fn holds(copied: &Copied) -> String {
    let count = |n: i64, word: &str| warren_app::format::plural(n, word);
    format!(
        "{} KiB, {}, {}, {}",
        copied.bytes.div_ceil(1024),
        count(copied.learners, "learner"),
        count(copied.sessions, "session"),
        count(copied.entries, "entry")
    )
}

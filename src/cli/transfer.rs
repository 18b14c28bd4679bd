//! `warren import`, `warren export`, `warren summaries` and `warren disputes`: the same import,
//! export, session summaries and disputed recalls as the web pages, from a shell. Import prints
//! what it added and every row it left out; the others write to standard output.

use std::io::Write;
use std::path::Path;
use warren_app::learner::LearnerId;

use super::{CliError, ExportFormat};
use crate::config::Config;
use crate::startup::open_and_migrate;
use crate::store::{Store, StoreError, SummaryScope};
use crate::transfer::{self, Format, Upload, archive, export};

/// Why a command could not do its job, in one sentence.
#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    #[error("there is no learner called “{0}”")]
    NoSuchUser(String),
    #[error("{0} has no set called “{1}”")]
    NoSuchSet(String, String),
    #[error("cannot read {0}: {1}")]
    Read(String, std::io::Error),
    #[error("{0}")]
    Upload(transfer::UploadError),
    #[error("cannot write to standard output: {0}")]
    Write(std::io::Error),
    #[error("name the set with --set, or export everything with --format archive")]
    NoSetNamed,
}

/// The learner called `username`.
pub(super) async fn learner(store: &Store, username: &str) -> Result<LearnerId, CliError> {
    let name = username.trim().to_lowercase();
    match store.credentials(&name).await? {
        Some(credentials) => Ok(credentials.learner),
        None => Err(TransferError::NoSuchUser(username.to_string()).into()),
    }
}

/// The store, opened and migrated, and the learner called `username` in it.
pub(super) async fn open_as(config: &Config, username: &str) -> Result<(Store, LearnerId), CliError> {
    let store = open_and_migrate(config).await?;
    let learner = learner(&store, username).await?;
    Ok((store, learner))
}

/// A file's bytes, or which file could not be read and why.
pub(super) fn read_file(file: &Path) -> Result<Vec<u8>, TransferError> {
    std::fs::read(file).map_err(|e| TransferError::Read(file.display().to_string(), e))
}

pub async fn import(
    config: &Config,
    username: &str,
    file: &Path,
    with_suspended: bool,
) -> Result<(), CliError> {
    let (store, learner) = open_as(config, username).await?;
    let bytes = read_file(file)?;
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("import");
    let (format, previews) = match transfer::read_upload(name, &bytes).await.map_err(TransferError::Upload)? {
        Upload::Archive(read) => {
            let done = archive::import(&store, &learner, read).await?;
            println!("Imported {} sets and {} sessions.", done.sets, done.sessions);
            if done.left_out > 0 {
                println!("Left out {} rows the sets' files could not hold.", done.left_out);
            }
            return Ok(());
        }
        Upload::Session(read) => {
            let id = transfer::session::import(&store, &learner, *read).await?;
            println!("Imported session {id}.");
            return Ok(());
        }
        Upload::Sets(format, previews) => (format, previews),
    };
    // Every set is kept in one transaction, so what is printed after is what was kept.
    let mut kept = Vec::new();
    for preview in previews {
        let suspended = preview.suspended.len();
        let preview = if with_suspended { preview } else { preview.without_suspended() };
        if preview.set.points.is_empty() {
            match suspended {
                0 => println!("Left out “{}”: none of its notes could be imported.", preview.set.name),
                _ => println!(
                    "Left out “{}”: every card of it is suspended (import with --suspended).",
                    preview.set.name
                ),
            }
            for rejected in &preview.rejected {
                println!("Left out {}: {}.", rejected.place, rejected.reason);
            }
            continue;
        }
        kept.push((preview, suspended));
    }
    let mut sets: Vec<_> = kept.iter().map(|(preview, _)| preview.set.clone()).collect();
    store.import_sets(&learner, &mut sets, None).await?;
    for ((preview, suspended), set) in kept.iter().zip(&sets) {
        println!(
            "Imported “{}” ({}): {} points, {} resources, {} reviews.",
            set.name,
            format.label(),
            set.points.len(),
            set.resources.len(),
            preview.reviews()
        );
        if *suspended > 0 && !with_suspended {
            println!("Left out {suspended} suspended cards' points (import with --suspended to keep them).");
        }
        for rejected in &preview.rejected {
            println!("Left out {}: {}.", rejected.place, rejected.reason);
        }
    }
    Ok(())
}

pub async fn export(
    config: &Config,
    username: &str,
    set: Option<&str>,
    format: ExportFormat,
) -> Result<(), CliError> {
    let (store, learner) = open_as(config, username).await?;
    if format == ExportFormat::Archive {
        let name = username.trim().to_lowercase();
        let file = archive::export(&store, &learner, &name).await?;
        std::io::stdout().write_all(&file.bytes).map_err(TransferError::Write)?;
        return Ok(());
    }
    let set = set.ok_or(TransferError::NoSetNamed)?;
    let found = store.set_named(&learner, set).await?;
    let found = found.ok_or_else(|| TransferError::NoSuchSet(username.to_string(), set.to_string()))?;
    let format = match format {
        ExportFormat::Json => Format::Json,
        ExportFormat::Csv => Format::Csv,
        ExportFormat::Md => Format::Markdown,
        ExportFormat::Archive => return Err(TransferError::NoSetNamed.into()),
    };
    let file = export::export(&store, &learner, &found.id, format).await?;
    let file = file.ok_or_else(|| TransferError::NoSuchSet(username.to_string(), set.to_string()))?;
    std::io::stdout().write_all(&file.bytes).map_err(TransferError::Write)?;
    Ok(())
}

/// Prints the newest session summaries, each under a line naming its set, session and date.
pub async fn summaries(
    config: &Config,
    username: &str,
    set: Option<&str>,
    limit: u32,
) -> Result<(), CliError> {
    let (store, learner) = open_as(config, username).await?;
    let set_id = match set {
        Some(name) => {
            let found = store.set_named(&learner, name).await?;
            Some(found.ok_or_else(|| TransferError::NoSuchSet(username.to_string(), name.to_string()))?.id)
        }
        None => None,
    };
    let scope = set_id.as_deref().map_or(SummaryScope::Every, SummaryScope::Set);
    let summaries = store.latest_summaries(&learner, scope, false, limit).await?;
    std::io::stdout()
        .write_all(archive::summaries_text(&summaries).as_bytes())
        .map_err(TransferError::Write)?;
    Ok(())
}

/// `warren disputes`: the learner's disputed recalls as evaluator cases on standard output.
pub async fn disputes(config: &Config, username: &str) -> Result<(), CliError> {
    let (store, learner) = open_as(config, username).await?;
    let mut out = String::new();
    for case in store.disputed_cases(&learner).await? {
        let line = crate::eval::disputed_case(&case).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        out.push_str(&line);
        out.push('\n');
    }
    std::io::stdout().write_all(out.as_bytes()).map_err(TransferError::Write)?;
    Ok(())
}

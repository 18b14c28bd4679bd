//! `warren import` and `warren export`: the same import and export as the web pages, from a
//! shell. Import prints what it added and every row it left out; export writes to standard
//! output.

use std::io::Write;
use std::path::Path;

use crate::config::{Config, ExportFormat};
use crate::startup::{StartupError, open_and_migrate};
use crate::store::Store;
use crate::transfer::{self, Format, export};

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
    Import(transfer::ImportError),
    #[error("cannot write to standard output: {0}")]
    Write(std::io::Error),
}

async fn learner(store: &Store, user: &str) -> Result<String, StartupError> {
    let name = user.trim().to_lowercase();
    match store.account_by_username(&name).await? {
        Some(account) => Ok(account.id),
        None => Err(TransferError::NoSuchUser(user.to_string()).into()),
    }
}

pub async fn import(config: &Config, user: &str, file: &Path) -> Result<(), StartupError> {
    let store = open_and_migrate(config).await?;
    let owner = learner(&store, user).await?;
    let bytes = std::fs::read(file).map_err(|e| TransferError::Read(file.display().to_string(), e))?;
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("import");
    let (format, mut preview) = transfer::read(name, &bytes).await.map_err(TransferError::Import)?;
    preview.set.name = store.free_name(&owner, &preview.set.name).await?;
    store.create_set(&owner, &preview.set).await?;
    println!(
        "Imported “{}” ({}): {} points, {} resources.",
        preview.set.name,
        format.label(),
        preview.set.points.len(),
        preview.set.resources.len()
    );
    for rejected in &preview.rejected {
        println!("Left out {}: {}.", rejected.place, rejected.reason);
    }
    Ok(())
}

pub async fn export(
    config: &Config,
    user: &str,
    set: &str,
    format: ExportFormat,
) -> Result<(), StartupError> {
    let store = open_and_migrate(config).await?;
    let owner = learner(&store, user).await?;
    let found = store.set_named(&owner, set).await?;
    let found = found.ok_or_else(|| TransferError::NoSuchSet(user.to_string(), set.to_string()))?;
    let format = match format {
        ExportFormat::Json => Format::Json,
        ExportFormat::Csv => Format::Csv,
        ExportFormat::Md => Format::Markdown,
    };
    let file = export::export(&store, &owner, &found.id, format).await?;
    let file = file.ok_or_else(|| TransferError::NoSuchSet(user.to_string(), set.to_string()))?;
    std::io::stdout().write_all(&file.bytes).map_err(TransferError::Write)?;
    Ok(())
}

//! `warren draft`: recall points drafted from a file, as the "from a source" page drafts
//! them (the configured language model, or the offline drafter), printed with their quotes
//! and checks; kept with `--yes`, else left for review on the web for a day.

use std::path::Path;

use super::CliError;
use super::transfer::{open_as, read_file};
use crate::config::Config;
use crate::drafting::{self, Drafting, passages};
use crate::llm::select;
use crate::store::KeptDraft;
use warren_app::api::DraftCheck;

pub async fn command(
    config: &Config,
    username: &str,
    set_name: &str,
    file: &Path,
    keep: bool,
) -> Result<(), CliError> {
    let (store, learner) = open_as(config, username).await?;
    let bytes = read_file(file)?;
    let title = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let text = drafting::read(Some(&title), bytes).await?;
    let set = store.set_named(&learner, set_name).await?;
    let judgement = config.llm.load_judgement();
    let mut llm = config.llm.clone();
    llm.offline_delay_ms = 0;
    let drafting = Drafting {
        store: store.clone(),
        provider: select::build(&llm, &judgement)?,
        embedder: judgement.embedder().cloned(),
        meter: None,
    };
    let passages = passages(&text);
    let set_id = set.as_ref().map(|s| s.id.as_str());
    let id = store.create_source(&learner, set_id, set_name, &title, &passages).await?;
    drafting.run(&learner, &id, crate::store::FIRST_RUN).await?;
    let Some(source) = store.source(&learner, &id).await? else { return Ok(()) };
    let reviewed = drafting::reviewed(&store, drafting.embedder.as_ref(), &learner, &source).await?;
    let count = |n: usize, word: &str| warren_app::format::plural(i64::try_from(n).unwrap_or(i64::MAX), word);
    println!(
        "{} drafted from “{title}” ({}):",
        count(reviewed.len(), "point"),
        count(passages.len(), "passage")
    );
    for (i, (draft, checks)) in reviewed.iter().enumerate() {
        println!("{:>3}. {}", i + 1, draft.content);
        println!("     cue: {}", draft.cue);
        println!("     quote (passage {}): “{}”", draft.passage + 1, draft.quote);
        for check in checks {
            println!("     check: {}", check.message());
        }
    }
    for passage in &source.not_drafted {
        println!(
            "Passage {} was not drafted: the model did not answer, or its answer could not be read.",
            passage + 1
        );
    }
    if !keep {
        println!("Nothing is kept yet: review them at /sources/{id} (for a day), or run again with --yes.");
        return Ok(());
    }
    let kept: Vec<KeptDraft> = reviewed
        .into_iter()
        .filter(|(_, checks)| !checks.contains(&DraftCheck::Duplicate))
        .map(|(d, _)| KeptDraft {
            content: d.content,
            cue: d.cue,
            passage: usize::try_from(d.passage).unwrap_or(0),
        })
        .collect();
    if kept.is_empty() {
        store.delete_source(&learner, &id).await?;
        println!("Nothing to keep.");
        return Ok(());
    }
    store.keep_drafts(&learner, &id, &kept).await?;
    println!("Kept {} in “{set_name}”.", count(kept.len(), "point"));
    Ok(())
}

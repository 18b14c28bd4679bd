//! `warren eval`: measures a judge of the configured provider on labelled cases (see
//! `crate::eval`).

use std::path::Path;

use clap::ValueEnum;

use super::CliError;
use crate::config::Config;
use crate::eval::{EvalError, Judge, run};
use crate::llm::select;

/// `warren eval JUDGE FILE [--min-f1 X]`.
pub async fn command(
    config: &Config,
    judge: Judge,
    file: &Path,
    min_f1: Option<f64>,
) -> Result<(), CliError> {
    let text = std::fs::read_to_string(file).map_err(|e| EvalError::Read(file.display().to_string(), e))?;
    // The offline provider's typing pause is for people watching, not for measuring.
    let mut llm = config.llm.clone();
    llm.offline_delay_ms = 0;
    let provider = select::build(&llm, &crate::embed::Judgement::load(&llm.model_dir))?;
    println!(
        "{} on {} ({})",
        file.display(),
        provider.info().label,
        judge.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default()
    );
    let report = run(&*provider, judge, &text, &mut std::io::stdout()).await?;
    print!("{}", report.summary());
    match min_f1 {
        Some(min) if report.scores.f1() < min => {
            Err(EvalError::BelowMinimum { f1: report.scores.f1(), min }.into())
        }
        Some(_) | None => Ok(()),
    }
}

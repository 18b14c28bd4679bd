//! `warren eval`: measures a judge of the configured provider, or its drafter, on labelled
//! cases (see `crate::eval`).

use std::path::Path;

use clap::ValueEnum;

use super::CliError;
use crate::config::Config;
use crate::eval::{EvalError, Judge, drafter, run};
use crate::llm::select;

/// What `warren eval` measures.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measured {
    Evaluator,
    Detector,
    Drafter,
}

/// The figures under which a run fails.
#[derive(Debug, Clone, Copy, Default)]
pub struct Minimums {
    pub f1: Option<f64>,
    pub kinds: Option<f64>,
    pub coverage: Option<f64>,
    pub faithfulness: Option<f64>,
}

/// `warren eval WHAT FILE [--min-f1 X] [--min-kinds X] [--min-coverage X] [--min-faithfulness X]`.
pub async fn command(
    config: &Config,
    what: Measured,
    file: &Path,
    minimums: Minimums,
    features: Option<&Path>,
) -> Result<(), CliError> {
    let text = std::fs::read_to_string(file).map_err(|e| EvalError::Read(file.display().to_string(), e))?;
    // The offline provider's typing pause is for people watching, not for measuring.
    let mut llm = config.llm.clone();
    llm.offline_delay_ms = 0;
    let judgement = llm.load_judgement();
    let provider = select::build(&llm, &judgement)?;
    println!(
        "{} on {} ({})",
        file.display(),
        provider.info().label,
        what.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default()
    );
    let below = |what: &'static str, got: f64, min: Option<f64>| match min {
        Some(min) if got < min => Err(EvalError::Below { what, got, min }),
        Some(_) | None => Ok(()),
    };
    if let Some(path) = features {
        let mut out = Vec::new();
        let rows = crate::eval::features(judgement.embedder().map(|e| &**e), &text, &mut out)?;
        std::fs::write(path, out).map_err(|e| EvalError::Read(path.display().to_string(), e))?;
        println!("{rows} points' features written to {}", path.display());
    }
    let judge = match what {
        Measured::Evaluator => Judge::Evaluator,
        Measured::Detector => Judge::Detector,
        Measured::Drafter => {
            let report =
                drafter::run(&*provider, judgement.embedder(), &text, &mut std::io::stdout()).await?;
            print!("{}", report.summary());
            below("coverage", report.coverage(), minimums.coverage)?;
            below("faithfulness", report.faithfulness(), minimums.faithfulness)?;
            return Ok(());
        }
    };
    let report = run(&*provider, judge, &text, &mut std::io::stdout()).await?;
    print!("{}", report.summary());
    if let Some((agreed, labelled)) = report.kinds {
        below("message kinds", crate::eval::ratio(agreed, labelled), minimums.kinds)?;
    }
    match minimums.f1 {
        Some(min) if report.scores.f1() < min => {
            Err(EvalError::BelowMinimum { f1: report.scores.f1(), min }.into())
        }
        Some(_) | None => Ok(()),
    }
}

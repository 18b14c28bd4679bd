//! Choosing and checking the provider at start-up.

use std::sync::Arc;
use std::time::Duration;

use super::anthropic::Anthropic;
use super::offline::Offline;
use super::openai::{self, OpenAi};
use super::settings::{LlmConfig, ProviderChoice};
use super::{NetPolicy, SharedProvider};
use crate::embed::Judgement;

#[derive(Debug, thiserror::Error)]
pub enum ProviderConfigError {
    #[error("WARREN_LLM=anthropic needs ANTHROPIC_API_KEY; set it, or use WARREN_LLM=offline")]
    MissingAnthropicKey,
}

/// Whether the provider answered its start-up check, and how the offline judges compare
/// text; shown on `/readyz` and in the UI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderStatus {
    pub ok: bool,
    pub detail: String,
    /// The offline judges compare meaning (the sentence model loaded), not words alone.
    pub by_meaning: bool,
    /// `Judgement::describe`.
    pub judge: String,
}

fn present(value: &Option<String>) -> Option<String> {
    value.as_ref().map(|v| v.trim().to_string()).filter(|v| !v.is_empty())
}

/// The provider `config` names. The offline one judges with `judgement` (see `embed`).
pub fn build(config: &LlmConfig, judgement: &Judgement) -> Result<SharedProvider, ProviderConfigError> {
    let anthropic_key = present(&config.anthropic_api_key);
    let openai_key = present(&config.openai_api_key);
    let openai_base = present(&config.openai_base_url);
    let choice = match config.provider {
        ProviderChoice::Auto if anthropic_key.is_some() => ProviderChoice::Anthropic,
        ProviderChoice::Auto if openai_key.is_some() || openai_base.is_some() => ProviderChoice::Openai,
        ProviderChoice::Auto => ProviderChoice::Offline,
        explicit @ (ProviderChoice::Offline | ProviderChoice::Anthropic | ProviderChoice::Openai) => explicit,
    };
    let timeout = Duration::from_millis(config.llm_timeout_ms);
    let policy = NetPolicy { first_byte_timeout: timeout, idle_timeout: timeout, ..NetPolicy::default() };
    Ok(match choice {
        ProviderChoice::Anthropic => {
            let key = anthropic_key.ok_or(ProviderConfigError::MissingAnthropicKey)?;
            Arc::new(Anthropic::new(
                &config.anthropic_base_url,
                key,
                config.anthropic_model.clone(),
                config.anthropic_fast_model.clone(),
                policy,
            ))
        }
        ProviderChoice::Openai => Arc::new(OpenAi::new(
            openai_base.as_deref().unwrap_or(openai::DEFAULT_BASE_URL),
            openai_key,
            config.openai_model.clone(),
            present(&config.openai_fast_model).unwrap_or_else(|| config.openai_model.clone()),
            policy,
        )),
        ProviderChoice::Offline | ProviderChoice::Auto => Arc::new(Offline::new(
            Duration::from_millis(config.offline_delay_ms),
            judgement.embedder().cloned(),
        )),
    })
}

/// Asks the provider whether its configuration works, within `timeout`.
pub async fn check(provider: &SharedProvider, judgement: &Judgement, timeout: Duration) -> ProviderStatus {
    let info = provider.info();
    let (ok, detail) = match tokio::time::timeout(timeout, provider.probe()).await {
        Ok(Ok(())) => (true, info.label),
        Ok(Err(err)) => (false, format!("{}: {err}", info.label)),
        Err(_) => (false, format!("{}: no answer within {}s", info.label, timeout.as_secs())),
    };
    ProviderStatus { ok, detail, by_meaning: judgement.embedder().is_some(), judge: judgement.describe() }
}

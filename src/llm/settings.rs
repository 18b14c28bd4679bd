//! The language model's settings: which provider answers, how to reach it, and how the
//! offline one behaves. Part of the command line (`config::Config` flattens them in).

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::{anthropic, openai};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProviderChoice {
    /// Anthropic if ANTHROPIC_API_KEY is set, else OpenAI-compatible if OPENAI_API_KEY or
    /// WARREN_OPENAI_BASE_URL is set, else the built-in offline tutor.
    Auto,
    Offline,
    Anthropic,
    Openai,
}

/// Where scripts/run installs the sentence model, relative to the working directory.
pub const DEFAULT_MODEL_DIR: &str = "data/models/all-MiniLM-L6-v2";
/// Where scripts/run installs WordNet's nouns, relative to the working directory.
pub const DEFAULT_WORDNET_DIR: &str = "data/models/wordnet";

/// Which language model answers, and how to reach it.
#[derive(Args, Debug, Clone)]
pub struct LlmConfig {
    /// Language model provider.
    #[arg(long = "llm", env = "WARREN_LLM", value_enum, default_value = "auto", global = true)]
    pub provider: ProviderChoice,

    /// Anthropic API key (prefer the environment variable to the flag).
    #[arg(long, env = "ANTHROPIC_API_KEY", hide_env_values = true, global = true)]
    pub anthropic_api_key: Option<String>,
    #[arg(long, env = "WARREN_ANTHROPIC_BASE_URL", default_value = anthropic::DEFAULT_BASE_URL, global = true)]
    pub anthropic_base_url: String,
    /// Model for conversation (tutor, explorer).
    #[arg(long, env = "WARREN_ANTHROPIC_MODEL", default_value = anthropic::DEFAULT_MODEL, global = true)]
    pub anthropic_model: String,
    /// Model for quick structured checks (evaluator, detector).
    #[arg(long, env = "WARREN_ANTHROPIC_FAST_MODEL", default_value = anthropic::DEFAULT_FAST_MODEL, global = true)]
    pub anthropic_fast_model: String,

    /// OpenAI API key; local servers (Ollama, llama.cpp, vLLM) need none.
    #[arg(long, env = "OPENAI_API_KEY", hide_env_values = true, global = true)]
    pub openai_api_key: Option<String>,
    /// Base URL of an OpenAI-compatible API, e.g. http://localhost:11434/v1 for Ollama.
    #[arg(long, env = "WARREN_OPENAI_BASE_URL", global = true)]
    pub openai_base_url: Option<String>,
    #[arg(long, env = "WARREN_OPENAI_MODEL", default_value = openai::DEFAULT_MODEL, global = true)]
    pub openai_model: String,
    /// Model for quick structured checks; defaults to WARREN_OPENAI_MODEL.
    #[arg(long, env = "WARREN_OPENAI_FAST_MODEL", global = true)]
    pub openai_fast_model: Option<String>,

    /// How often at most the language model is checked again after start-up (in the
    /// background, and soon after a turn fails), in seconds; `/readyz` and the pages' notice
    /// follow it.
    #[arg(long, env = "WARREN_PROVIDER_RECHECK_SECS", default_value_t = 60, global = true)]
    pub provider_recheck_secs: u64,

    /// Pause between the offline tutor's streamed pieces, in milliseconds.
    #[arg(long, env = "WARREN_OFFLINE_DELAY_MS", default_value_t = 25, global = true)]
    pub offline_delay_ms: u64,

    /// Folder of the offline judges' sentence model (all-MiniLM-L6-v2: config.json,
    /// tokenizer.json, model.safetensors), which scripts/run installs. Without it the offline
    /// judges compare words only, and say so.
    #[arg(long, env = "WARREN_MODEL_DIR", default_value = DEFAULT_MODEL_DIR, global = true)]
    pub model_dir: PathBuf,

    /// Folder of WordNet's nouns (index.noun, data.noun), which scripts/run installs: the
    /// offline evaluator reads a sibling term in place of a point's ("troposphere" for
    /// "stratosphere") as a wrong detail. Without it, it does not (and says so in the log).
    #[arg(long, env = "WARREN_WORDNET_DIR", default_value = DEFAULT_WORDNET_DIR, global = true)]
    pub wordnet_dir: PathBuf,

    /// Milliseconds to wait for a network model's first byte, and then between two pieces of
    /// a streamed reply, before the request counts as failed (and is retried).
    #[arg(long, env = "WARREN_LLM_TIMEOUT_MS", default_value_t = 60_000,
          value_parser = clap::value_parser!(u64).range(100..), global = true)]
    pub llm_timeout_ms: u64,

    /// Start the tutor while the evaluator judges, keeping its reply when nothing was recalled
    /// (one model round trip to the first word). `auto`: on for network providers.
    #[arg(long, env = "WARREN_SPECULATIVE_TUTOR", value_enum, default_value = "auto", global = true)]
    pub speculative_tutor: Switch,
}

/// On, off, or decided by the provider.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Switch {
    Auto,
    On,
    Off,
}

impl LlmConfig {
    /// The offline judges' aids, read once: WordNet's nouns and antonyms (for the rest of the
    /// process; the log says whether) and the sentence model.
    pub fn load_judgement(&self) -> crate::embed::Judgement {
        match crate::text::kinship::install(&self.wordnet_dir) {
            Ok(lemmas) => tracing::info!(lemmas, "offline judges: WordNet's nouns loaded"),
            Err(why) => tracing::warn!(
                "offline judges: no sibling terms without WordNet's nouns ({why}); scripts/install-model installs them"
            ),
        }
        match crate::text::antonyms::install(&self.wordnet_dir) {
            Ok(pairs) => tracing::info!(pairs, "offline judges: WordNet's antonyms loaded"),
            Err(why) => tracing::warn!(
                "offline judges: opposites from the built-in list only, without WordNet's antonyms ({why}); scripts/install-model installs them"
            ),
        }
        crate::embed::Judgement::load(&self.model_dir)
    }

    /// The offline provider with no streaming delay: what tests use.
    pub fn offline() -> Self {
        Self {
            provider: ProviderChoice::Offline,
            anthropic_api_key: None,
            anthropic_base_url: anthropic::DEFAULT_BASE_URL.into(),
            anthropic_model: anthropic::DEFAULT_MODEL.into(),
            anthropic_fast_model: anthropic::DEFAULT_FAST_MODEL.into(),
            openai_api_key: None,
            openai_base_url: None,
            openai_model: openai::DEFAULT_MODEL.into(),
            openai_fast_model: None,
            provider_recheck_secs: 60,
            offline_delay_ms: 0,
            model_dir: DEFAULT_MODEL_DIR.into(),
            wordnet_dir: DEFAULT_WORDNET_DIR.into(),
            llm_timeout_ms: 60_000,
            speculative_tutor: Switch::Auto,
        }
    }
}

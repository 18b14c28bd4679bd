//! Transcription's settings: where an OpenAI-compatible `/audio/transcriptions` endpoint is,
//! which model it runs, its key and how long to wait. Part of the command line
//! (`config::Config` flattens them in). Without a URL, answering by voice is off.

use clap::Args;

#[derive(Args, Debug, Clone, Default)]
pub struct VoiceConfig {
    /// Base URL of an OpenAI-compatible API that transcribes speech
    /// (`{url}/audio/transcriptions`), e.g. https://api.openai.com/v1 or a self-hosted
    /// speaches server at http://localhost:8000/v1. Unset: answering by voice is off.
    #[arg(long, env = "WARREN_TRANSCRIBE_URL", global = true)]
    pub transcribe_url: Option<String>,

    /// The transcription model, e.g. `whisper-1`, `gpt-4o-mini-transcribe`, or a self-hosted
    /// server's `Systran/faster-whisper-small`.
    #[arg(long, env = "WARREN_TRANSCRIBE_MODEL", default_value = "whisper-1", global = true)]
    pub transcribe_model: String,

    /// The transcription API's key, if it needs one (prefer the environment variable).
    #[arg(long, env = "WARREN_TRANSCRIBE_API_KEY", hide_env_values = true, global = true)]
    pub transcribe_api_key: Option<String>,

    /// Milliseconds to wait for a transcript (each try) before the request counts as failed.
    #[arg(long, env = "WARREN_TRANSCRIBE_TIMEOUT_MS", default_value_t = 60_000,
          value_parser = clap::value_parser!(u64).range(100..), global = true)]
    pub transcribe_timeout_ms: u64,
}

impl VoiceConfig {
    /// Voice off, as a server without these settings has it.
    pub fn off() -> Self {
        Self {
            transcribe_url: None,
            transcribe_model: "whisper-1".into(),
            transcribe_api_key: None,
            transcribe_timeout_ms: 60_000,
        }
    }

    /// Voice through `url` with `model`.
    pub fn at(url: &str, model: &str) -> Self {
        Self { transcribe_url: Some(url.to_string()), transcribe_model: model.to_string(), ..Self::off() }
    }
}

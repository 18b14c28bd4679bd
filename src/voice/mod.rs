//! Answering by voice: a recording transcribed by an OpenAI-compatible endpoint, biased
//! toward the set's terms (`text::vocabulary`), then the set's misheard terms put right by the
//! clean-up agent (`engine::agents::cleanup`; offline, by sound and spelling). The audio is
//! held only while it is sent; the transcript goes back to the page, never into a session.

pub mod settings;
mod transcriber;

use warren_app::voice::{TranscribeError, Transcript};

use crate::engine::agents::cleanup;
use crate::llm::Provider;
use crate::llm::brief::CleanupBrief;
use crate::text::vocabulary as terms;
pub use settings::VoiceConfig;
pub use transcriber::{TranscribeFailed, Transcriber};

/// Answering by voice as this server offers it: on when a transcription URL is configured.
pub struct Voice {
    transcriber: Option<Transcriber>,
}

/// The set a recording answers in: its name and the texts its terms come from.
pub struct SetText {
    pub name: String,
    pub texts: Vec<String>,
}

impl Voice {
    pub fn new(config: &VoiceConfig) -> Self {
        Self { transcriber: Transcriber::from_config(config) }
    }

    /// Through what, when voice is on (the model and where it runs).
    pub fn describe(&self) -> Option<String> {
        self.transcriber.as_ref().map(Transcriber::describe)
    }

    /// A recording's transcript, its terms corrected with `provider` (the session's language
    /// model, or the offline correction).
    pub async fn transcribe(
        &self,
        provider: &dyn Provider,
        set: SetText,
        audio: &[u8],
        mime: &str,
    ) -> Result<Transcript, TranscribeError> {
        let transcriber = self.transcriber.as_ref().ok_or(TranscribeError::VoiceOff)?;
        let terms = terms::vocabulary(set.texts.iter().map(String::as_str).chain([set.name.as_str()]));
        let heard = match transcriber.transcribe(audio, mime, &terms::prompt(&terms)).await {
            Ok(heard) => heard,
            Err(TranscribeFailed::Timeout) => return Err(TranscribeError::Timeout),
            Err(TranscribeFailed::Unavailable(why)) => {
                tracing::warn!("transcription failed: {why}");
                return Err(TranscribeError::Unavailable);
            }
        };
        if heard.trim().is_empty() {
            return Err(TranscribeError::Empty);
        }
        let brief = CleanupBrief { set_name: set.name, terms, transcript: heard.clone() };
        let (text, corrections) = cleanup::correct(provider, brief).await;
        Ok(Transcript { text, heard, corrections })
    }
}

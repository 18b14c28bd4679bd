//! The client of an OpenAI-compatible `POST {base}/audio/transcriptions` (OpenAI, speaches /
//! faster-whisper-server, LocalAI, vLLM): the recording as a multipart `file` with its MIME
//! type, the `model`, and a `prompt` of the set's terms that biases the recogniser toward
//! them. Retries and timeouts as for the chat providers; the audio is held only for the
//! request.

use std::time::Duration;

use reqwest::multipart::{Form, Part};
use serde::Deserialize;

use super::settings::VoiceConfig;
use crate::llm::http::send_with_retries;
use crate::llm::{LlmError, NetPolicy};

/// Why there is no transcript.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TranscribeFailed {
    #[error("the transcription service did not answer in time")]
    Timeout,
    #[error("the transcription service failed: {0}")]
    Unavailable(String),
}

pub struct Transcriber {
    client: reqwest::Client,
    /// `{base}/audio/transcriptions`.
    endpoint: String,
    model: String,
    api_key: Option<String>,
    policy: NetPolicy,
}

#[derive(Deserialize)]
struct Answer {
    text: String,
}

impl Transcriber {
    /// A transcriber when a URL is configured.
    pub fn from_config(config: &VoiceConfig) -> Option<Self> {
        let base = config.transcribe_url.as_deref().map(str::trim).filter(|u| !u.is_empty())?;
        let timeout = Duration::from_millis(config.transcribe_timeout_ms);
        let policy = NetPolicy {
            first_byte_timeout: timeout,
            idle_timeout: timeout,
            max_retries: 2,
            ..NetPolicy::default()
        };
        let client =
            reqwest::Client::builder().connect_timeout(policy.connect_timeout).build().unwrap_or_default();
        Some(Self {
            client,
            endpoint: format!("{}/audio/transcriptions", base.trim_end_matches('/')),
            model: config.transcribe_model.clone(),
            api_key: config.transcribe_api_key.clone().filter(|k| !k.is_empty()),
            policy,
        })
    }

    /// What the notice and `/readyz` say: the model, and where.
    pub fn describe(&self) -> String {
        let place = self.endpoint.trim_end_matches("/audio/transcriptions");
        format!("{} at {place}", self.model)
    }

    /// The words heard in `audio` (of type `mime`), biased toward `prompt`'s terms.
    pub async fn transcribe(
        &self,
        audio: &[u8],
        mime: &str,
        prompt: &str,
    ) -> Result<String, TranscribeFailed> {
        let build = || {
            let file = Part::bytes(audio.to_vec()).file_name(file_name(mime));
            // A type reqwest cannot parse goes as bytes; the server may still know it by name.
            let file = match file.mime_str(mime) {
                Ok(typed) => typed,
                Err(_) => Part::bytes(audio.to_vec()).file_name(file_name(mime)),
            };
            let mut form = Form::new()
                .part("file", file)
                .text("model", self.model.clone())
                .text("response_format", "json")
                .text("temperature", "0");
            if !prompt.is_empty() {
                form = form.text("prompt", prompt.to_string());
            }
            let request = self.client.post(&self.endpoint).multipart(form);
            match &self.api_key {
                Some(key) => request.bearer_auth(key),
                None => request,
            }
        };
        let response = send_with_retries(&self.policy, build).await.map_err(failed)?;
        let body = tokio::time::timeout(self.policy.idle_timeout, response.bytes())
            .await
            .map_err(|_| TranscribeFailed::Timeout)?
            .map_err(|e| TranscribeFailed::Unavailable(format!("its answer was cut off: {e}")))?;
        let answer: Answer = serde_json::from_slice(&body).map_err(|_| {
            TranscribeFailed::Unavailable("its answer was not a transcript (JSON with `text`)".into())
        })?;
        Ok(answer.text.trim().to_string())
    }
}

fn failed(err: LlmError) -> TranscribeFailed {
    match err {
        LlmError::Timeout => TranscribeFailed::Timeout,
        other @ (LlmError::Unreachable(_)
        | LlmError::Rejected { .. }
        | LlmError::Exhausted { .. }
        | LlmError::Interrupted(_)
        | LlmError::Protocol(_)) => TranscribeFailed::Unavailable(other.to_string()),
    }
}

/// A file name whose extension matches the recording's type: some servers go by it.
fn file_name(mime: &str) -> String {
    let kind = mime.split(';').next().unwrap_or_default().trim();
    let extension = match kind {
        "audio/ogg" => "ogg",
        "audio/mp4" | "audio/aac" | "audio/x-m4a" => "m4a",
        "audio/mpeg" => "mp3",
        "audio/wav" | "audio/x-wav" | "audio/wave" => "wav",
        "audio/flac" => "flac",
        _ => "webm",
    };
    format!("answer.{extension}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recordings_are_named_for_their_type() {
        assert_eq!(file_name("audio/webm;codecs=opus"), "answer.webm");
        assert_eq!(file_name("audio/ogg; codecs=opus"), "answer.ogg");
        assert_eq!(file_name("audio/mp4"), "answer.m4a");
        assert_eq!(file_name(""), "answer.webm");
    }

    #[test]
    fn off_without_a_url() {
        assert!(Transcriber::from_config(&VoiceConfig::default()).is_none());
        let on = VoiceConfig {
            transcribe_url: Some("http://localhost:8000/v1/".into()),
            transcribe_model: "whisper-1".into(),
            transcribe_timeout_ms: 1000,
            ..VoiceConfig::default()
        };
        let t = Transcriber::from_config(&on).expect("configured");
        assert_eq!(t.describe(), "whisper-1 at http://localhost:8000/v1");
    }
}

//! Answering by voice: what the live page posts to be transcribed, and what it gets back. The
//! page records, the server transcribes (an OpenAI-compatible `/audio/transcriptions`) and
//! corrects the set's terms; the transcript goes into the input box, never sent by itself.

use serde::{Deserialize, Serialize};

/// Where the live page posts a recording (multipart: `session`, then `audio`).
pub const TRANSCRIBE_PATH: &str = "/api/transcribe";
/// The longest recording, in seconds: the recorder stops itself there.
pub const MAX_SECONDS: u32 = 120;
/// The largest recording the server takes, in bytes (two minutes of Opus take about 1 MB).
pub const MAX_BYTES: usize = 10 * 1024 * 1024;

crate::named_enum! {
    /// Why a recording has no transcript: the `code` of a refusal.
    pub enum TranscribeError {
        /// Transcription is not configured on this server.
        VoiceOff = "voice_off",
        /// Not signed in.
        Unauthorized = "unauthorized",
        /// The session does not exist or is someone else's.
        NotFound = "not_found",
        /// The request is not a session and a recording.
        BadRequest = "bad_request",
        /// Over [`MAX_BYTES`].
        TooLarge = "too_large",
        /// Too many recordings in a short time.
        RateLimited = "rate_limited",
        /// The transcription service failed or could not be reached, after retries.
        Unavailable = "unavailable",
        /// The transcription service did not answer in time.
        Timeout = "timeout",
        /// Nothing was heard.
        Empty = "empty",
    }
}

impl TranscribeError {
    /// What the live page says.
    pub fn message(self) -> &'static str {
        match self {
            TranscribeError::VoiceOff => "Answering by voice is not set up on this server.",
            TranscribeError::Unauthorized => "You are signed out; sign in again to answer by voice.",
            TranscribeError::NotFound => "This session cannot be found.",
            TranscribeError::BadRequest => "The recording did not arrive whole; record it again.",
            TranscribeError::TooLarge => "The recording is too long; keep an answer under two minutes.",
            TranscribeError::RateLimited => "Too many recordings at once; wait a moment and record again.",
            TranscribeError::Unavailable => "The transcription service is not answering right now.",
            TranscribeError::Timeout => "The transcription service took too long to answer.",
            TranscribeError::Empty => "Nothing was heard in that recording; try again a little closer.",
        }
    }

    /// Whether sending the same recording again may work (the page keeps it for one retry).
    pub fn worth_retrying(self) -> bool {
        match self {
            TranscribeError::Unavailable | TranscribeError::Timeout => true,
            TranscribeError::VoiceOff
            | TranscribeError::Unauthorized
            | TranscribeError::NotFound
            | TranscribeError::BadRequest
            | TranscribeError::TooLarge
            | TranscribeError::RateLimited
            | TranscribeError::Empty => false,
        }
    }
}

/// A transcript, as the input box receives it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Transcript {
    /// What goes into the box: the words heard, the set's terms corrected.
    pub text: String,
    /// What the recogniser heard, before corrections.
    pub heard: String,
    /// Each word or phrase changed, so the page can show it.
    pub corrections: Vec<Correction>,
}

/// A misheard term put right.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Correction {
    pub heard: String,
    pub meant: String,
}

/// A refusal: its code and the sentence to show.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TranscribeFailure {
    pub code: TranscribeError,
    pub message: String,
}

impl From<TranscribeError> for TranscribeFailure {
    fn from(code: TranscribeError) -> Self {
        Self { code, message: code.message().to_string() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_travel_as_their_codes() {
        let failure = TranscribeFailure::from(TranscribeError::TooLarge);
        let json = serde_json::to_string(&failure).unwrap_or_default();
        assert!(json.contains(r#""code":"too_large""#), "{json}");
        assert_eq!(serde_json::from_str::<TranscribeFailure>(&json).ok(), Some(failure));
        assert!(TranscribeError::Timeout.worth_retrying() && !TranscribeError::NotFound.worth_retrying());
    }
}

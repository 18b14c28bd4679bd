//! `POST /api/transcribe`: a recording from the live page (multipart: `session`, then
//! `audio` with its MIME type) back as a transcript for the input box. Only the session's
//! learner may send one, at most `voice::MAX_BYTES`, within an allowance per learner kept in
//! the database (so every instance counts the same). Every refusal is JSON with a code
//! (`TranscribeFailure`) and changes nothing; the audio is never stored.

use std::time::Duration;

use axum::Json;
use axum::extract::{Multipart, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use warren_app::voice::{MAX_BYTES, TranscribeError, TranscribeFailure};

use super::AppState;
use super::viewer::CurrentViewer;
use crate::voice::SetText;

/// Recordings a learner may send at once, and how soon another may follow after that.
const BURST: u32 = 12;
const REFILL: Duration = Duration::from_secs(5);

/// A refusal as the page reads it.
pub fn refusal(code: TranscribeError) -> Response {
    let status = match code {
        TranscribeError::VoiceOff | TranscribeError::NotFound => StatusCode::NOT_FOUND,
        TranscribeError::Unauthorized => StatusCode::UNAUTHORIZED,
        TranscribeError::BadRequest => StatusCode::BAD_REQUEST,
        TranscribeError::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        TranscribeError::RateLimited => StatusCode::TOO_MANY_REQUESTS,
        TranscribeError::Unavailable => StatusCode::BAD_GATEWAY,
        TranscribeError::Timeout => StatusCode::GATEWAY_TIMEOUT,
        TranscribeError::Empty => StatusCode::UNPROCESSABLE_ENTITY,
    };
    let mut response = (status, Json(TranscribeFailure::from(code))).into_response();
    if code == TranscribeError::RateLimited {
        response.headers_mut().insert(header::RETRY_AFTER, header::HeaderValue::from(REFILL.as_secs()));
    }
    response
}

pub async fn transcribe(
    State(state): State<AppState>,
    CurrentViewer(viewer): CurrentViewer,
    multipart: Result<Multipart, axum::extract::multipart::MultipartRejection>,
) -> Response {
    let Some(viewer) = viewer else { return refusal(TranscribeError::Unauthorized) };
    if state.voice.describe().is_none() {
        return refusal(TranscribeError::VoiceOff);
    }
    let learner = &viewer.learner;
    // Counted before the body is read, so a flood of recordings is turned away unread; a
    // recording refused later (too large, another's session) has used its turn like any other.
    match state.store.take_token(&format!("transcribe {learner}"), BURST, REFILL).await {
        Ok(true) => {}
        Ok(false) => return refusal(TranscribeError::RateLimited),
        Err(err) => {
            tracing::error!("cannot count a learner's recordings: {err}");
            return refusal(TranscribeError::Unavailable);
        }
    }
    let Ok(multipart) = multipart else { return refusal(TranscribeError::BadRequest) };
    let (session_id, audio, mime) = match read(multipart).await {
        Ok(read) => read,
        Err(code) => return refusal(code),
    };
    // Someone else's session is as unknown as one that does not exist.
    let session = match state.store.session(learner, &session_id).await {
        Ok(Some(session)) => session,
        Ok(None) => return refusal(TranscribeError::NotFound),
        Err(err) => {
            tracing::error!("cannot read a session: {err}");
            return refusal(TranscribeError::Unavailable);
        }
    };
    let set = match set_text(&state, learner, &session).await {
        Ok(set) => set,
        Err(err) => {
            tracing::error!("cannot read a set's terms: {err}");
            return refusal(TranscribeError::Unavailable);
        }
    };
    let provider = state.engine.metered(learner, Some(&session_id));
    match state.voice.transcribe(provider.as_ref(), set, &audio, &mime).await {
        Ok(transcript) => {
            (StatusCode::OK, [(header::CACHE_CONTROL, "no-store")], Json(transcript)).into_response()
        }
        Err(code) => refusal(code),
    }
}

/// The form's session id, the recording and its type. The recording may be at most
/// [`MAX_BYTES`]; a part over it is refused as it arrives.
async fn read(mut multipart: Multipart) -> Result<(String, Vec<u8>, String), TranscribeError> {
    let mut session = None;
    let mut audio = None;
    loop {
        let field = match multipart.next_field().await {
            Ok(Some(field)) => field,
            Ok(None) => break,
            Err(err) => return Err(body_error(&err.body_text(), err.status())),
        };
        match field.name() {
            Some("session") => {
                let text = field.text().await.map_err(|e| body_error(&e.body_text(), e.status()))?;
                session = Some(text.trim().chars().take(100).collect::<String>());
            }
            Some("audio") => {
                let mime = field.content_type().unwrap_or("application/octet-stream").to_string();
                let mut field = field;
                let mut bytes = Vec::new();
                loop {
                    match field.chunk().await {
                        Ok(Some(chunk)) => {
                            if bytes.len() + chunk.len() > MAX_BYTES {
                                return Err(TranscribeError::TooLarge);
                            }
                            bytes.extend_from_slice(&chunk);
                        }
                        Ok(None) => break,
                        Err(err) => return Err(body_error(&err.body_text(), err.status())),
                    }
                }
                audio = Some((bytes, mime));
            }
            // Anything else is not ours to read.
            Some(_) | None => {}
        }
    }
    match (session, audio) {
        (Some(session), Some((audio, mime))) if !session.is_empty() && !audio.is_empty() => {
            Ok((session, audio, mime))
        }
        (Some(_) | None, Some(_) | None) => Err(TranscribeError::BadRequest),
    }
}

/// A body that broke off, or grew past what this address accepts.
fn body_error(text: &str, status: StatusCode) -> TranscribeError {
    if status == StatusCode::PAYLOAD_TOO_LARGE || text.contains("length limit") {
        TranscribeError::TooLarge
    } else {
        TranscribeError::BadRequest
    }
}

/// The session's name and the texts its terms come from: its sets' descriptions, points and
/// cues (a review's, of every set it draws on).
async fn set_text(
    state: &AppState,
    learner: &warren_app::learner::LearnerId,
    session: &crate::store::SessionRow,
) -> Result<SetText, crate::store::StoreError> {
    let name = state.store.session_title(learner, session).await?;
    let sets = state.store.session_sets(learner, &session.id).await?;
    let points = state.store.session_points(learner, &session.id).await?;
    let mut texts: Vec<String> = sets.into_iter().map(|s| s.description).collect();
    for point in points {
        texts.push(point.content);
        texts.push(point.context);
    }
    Ok(SetText { name, texts })
}

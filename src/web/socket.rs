//! `/ws/sessions/{id}`: a learner's socket on a live session. Every frame is parsed and
//! validated here; a bad one gets an `error` frame with a code and changes nothing. Valid
//! messages go to the session's actor, whose frames come back through the attachment.

use std::time::Duration;
use warren_app::learner::LearnerId;

use axum::Extension;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::response::Response;
use futures_util::{SinkExt, StreamExt};
use warren_app::protocol::{
    ClientMessage, ErrorCode, ErrorPayload, MAX_FRAME_BYTES, Pong, ServerMessage, client_message_id_in,
    parse_client_message,
};

use super::viewer::{CurrentViewer, StorageAway};
use crate::engine::rate::TokenBucket;
use crate::engine::{Engine, EngineError, Outbound, STORAGE_PAUSED};
use crate::store::now_ms;
use warren_app::api::CurrentSignIn;

/// Close code for a session that does not exist or is not the learner's (like HTTP 404).
pub const CLOSE_NOT_FOUND: u16 = 4404;
/// Close code for a socket without a signed-in learner (like HTTP 401).
pub const CLOSE_UNAUTHORIZED: u16 = 4401;
/// Close code for a socket whose session was opened on a newer socket (like HTTP 409).
pub const CLOSE_TAKEN_OVER: u16 = 4409;
/// Close code for a session another instance has not handed over yet (RFC 6455's "try again
/// later"): the page reconnects.
pub const CLOSE_TRY_AGAIN: u16 = 1013;
/// Frames beyond this size close the connection (an `error` frame, then close code 1009,
/// "message too big"); frames between [`MAX_FRAME_BYTES`] and this get a `FRAME_TOO_LARGE`
/// error and the socket stays open.
const HARD_FRAME_LIMIT: usize = 4 * MAX_FRAME_BYTES;
/// What each socket reads into at a time; a larger frame takes more reads.
const READ_BUFFER: usize = 4 * 1024;
/// RFC 6455's close code for a message too big to process.
pub const CLOSE_TOO_BIG: u16 = 1009;
/// The server failed opening the session (RFC 6455 "internal error").
pub const CLOSE_INTERNAL: u16 = 1011;
/// Frames of any kind per socket: a burst, then one per interval.
const FRAME_BURST: u32 = 30;
const FRAME_INTERVAL: Duration = Duration::from_millis(100);

/// The socket URL's query: `?since=N`, the last `seq` the page saw, when it reconnects. A
/// value that is not a number is taken as none (the page gets the whole state).
#[derive(serde::Deserialize)]
pub struct Reconnect {
    since: Option<String>,
}

pub async fn upgrade(
    ws: WebSocketUpgrade,
    Path(session_id): Path<String>,
    Query(reconnect): Query<Reconnect>,
    State(engine): State<Engine>,
    CurrentViewer(viewer): CurrentViewer,
    sign_in: Option<Extension<CurrentSignIn>>,
    away: Option<Extension<StorageAway>>,
) -> Response {
    let sign_in = sign_in.map(|Extension(CurrentSignIn(id))| id);
    let away = away.is_some();
    let since = reconnect.since.and_then(|since| since.parse::<u64>().ok());
    ws.max_message_size(HARD_FRAME_LIMIT)
        .max_frame_size(HARD_FRAME_LIMIT)
        // The defaults (128 KiB each) were most of an idle session's memory. Frames are small
        // and every send flushes, so a few KiB to read into and no write buffering will do.
        .read_buffer_size(READ_BUFFER)
        .write_buffer_size(0)
        .max_write_buffer_size(HARD_FRAME_LIMIT * 4)
        .on_upgrade(move |socket| {
            let learner = viewer.map(|v| v.learner).zip(sign_in);
            serve(socket, engine, learner, away, session_id, since)
        })
}

/// How often an open socket checks that its sign-in still stands (the learner may have
/// signed out elsewhere, changed their password or ended it from the account page).
const SIGN_IN_CHECK: Duration = Duration::from_secs(30);

/// `learner`: the signed-in learner's id and their sign-in's; `away`: the database could not
/// say who it is (the page is told to try again, not to sign in).
async fn serve(
    mut socket: WebSocket,
    engine: Engine,
    learner: Option<(LearnerId, String)>,
    away: bool,
    session_id: String,
    since: Option<u64>,
) {
    let Some((learner, sign_in)) = learner else {
        if away {
            let code = ErrorCode::StorageUnavailable;
            refuse(&mut socket, &engine, code, STORAGE_PAUSED, CLOSE_TRY_AGAIN).await;
            return;
        }
        refuse(
            &mut socket,
            &engine,
            ErrorCode::Unauthorized,
            "Sign in to open a session.",
            CLOSE_UNAUTHORIZED,
        )
        .await;
        return;
    };
    let mut attachment = match engine.attach(&learner, &session_id, since).await {
        Ok(attachment) => attachment,
        Err(err) => {
            let (code, message, close) = match err {
                EngineError::NotFound => {
                    (ErrorCode::SessionNotFound, "There is no such session.".to_string(), CLOSE_NOT_FOUND)
                }
                EngineError::Elsewhere { .. } => {
                    tracing::warn!(session = session_id, "cannot attach: {err}");
                    (
                        ErrorCode::SessionElsewhere,
                        "This session is still open on another server; trying again.".to_string(),
                        CLOSE_TRY_AGAIN,
                    )
                }
                EngineError::Store(err) if err.is_unavailable() => {
                    tracing::warn!(
                        session = session_id,
                        "cannot attach: the database is out of reach: {err}"
                    );
                    (ErrorCode::StorageUnavailable, STORAGE_PAUSED.to_string(), CLOSE_TRY_AGAIN)
                }
                EngineError::EmptySet
                | EngineError::Archived
                | EngineError::NothingDue(_)
                | EngineError::Gone
                | EngineError::Store(_) => {
                    tracing::error!(session = session_id, "cannot attach: {err}");
                    (
                        ErrorCode::Internal,
                        "The session could not be opened; try again.".to_string(),
                        CLOSE_INTERNAL,
                    )
                }
            };
            refuse(&mut socket, &engine, code, &message, close).await;
            return;
        }
    };

    let (mut sink, mut stream) = socket.split();
    let mut frames = TokenBucket::new(FRAME_BURST, FRAME_INTERVAL);
    let mut check = tokio::time::interval_at(tokio::time::Instant::now() + SIGN_IN_CHECK, SIGN_IN_CHECK);
    let mut ended = engine.watch_sign_ins();
    loop {
        let recheck = tokio::select! {
            _ = check.tick() => true,
            // This learner's, or more than were kept (lagging): check now.
            whose = ended.recv() => whose.map_or(true, |whose| whose == learner),
            outgoing = attachment.messages.recv() => {
                match outgoing {
                    Some(Outbound::Frame(text)) => {
                        if sink.send(Message::Text(Utf8Bytes::from(&*text))).await.is_err() {
                            break;
                        }
                    }
                    Some(Outbound::TakenOver(e)) => {
                        close_with(&mut sink, e.code, &e.message, CLOSE_TAKEN_OVER).await;
                        break;
                    }
                    Some(Outbound::SignedOut(e)) => {
                        close_with(&mut sink, e.code, &e.message, CLOSE_UNAUTHORIZED).await;
                        break;
                    }
                    Some(Outbound::Paused(e)) => {
                        close_with(&mut sink, e.code, &e.message, CLOSE_TRY_AGAIN).await;
                        break;
                    }
                    None => break,
                }
                false
            }
            incoming = stream.next() => {
                if !answer(incoming, &mut sink, &engine, &attachment, &mut frames).await {
                    break;
                }
                false
            }
        };
        if recheck {
            match engine.store().sign_in_active(&sign_in).await {
                Ok(true) => {}
                Ok(false) => {
                    let message = "You were signed out; sign in again to go on.";
                    engine.metrics().error(ErrorCode::Unauthorized);
                    close_with(&mut sink, ErrorCode::Unauthorized, message, CLOSE_UNAUTHORIZED).await;
                    break;
                }
                // The database is away for a moment: the socket carries on, checked again later.
                Err(err) => tracing::warn!("cannot check a socket's sign-in: {err}"),
            }
        }
    }
}

/// Answers one frame from the page (or its end); `false` when the socket is done.
async fn answer<S>(
    incoming: Option<Result<Message, axum::Error>>,
    sink: &mut S,
    engine: &Engine,
    attachment: &crate::engine::Attachment,
    frames: &mut TokenBucket,
) -> bool
where
    S: futures_util::Sink<Message> + Unpin,
{
    let reply = match incoming {
        Some(Ok(Message::Text(text))) => {
            if frames.try_take() {
                handle(&text, attachment).await
            } else {
                let refused = client_message_id_in(text.as_str());
                Some(error(ErrorCode::RateLimited, "Too many frames; slow down.", refused))
            }
        }
        Some(Ok(Message::Binary(_))) => {
            Some(error(ErrorCode::InvalidPayload, "Frames must be JSON text, not binary.", None))
        }
        // The WebSocket layer answers pings itself.
        Some(Ok(Message::Ping(_) | Message::Pong(_))) => None,
        Some(Err(err)) if too_big(&err) => {
            let message = format!("Frames are limited to {MAX_FRAME_BYTES} bytes; this one was far over.");
            engine.metrics().error(ErrorCode::FrameTooLarge);
            close_with(sink, ErrorCode::FrameTooLarge, &message, CLOSE_TOO_BIG).await;
            return false;
        }
        Some(Ok(Message::Close(_)) | Err(_)) | None => return false,
    };
    if let Some(ServerMessage::Error(error)) = &reply {
        engine.metrics().error(error.code);
    }
    match reply.map(|reply| serde_json::to_string(&reply)) {
        Some(Ok(text)) => sink.send(Message::Text(text.into())).await.is_ok(),
        Some(Err(_)) | None => true,
    }
}

/// Parses one frame and hands it on; returns a frame to send straight back, if any.
async fn handle(text: &Utf8Bytes, attachment: &crate::engine::Attachment) -> Option<ServerMessage> {
    match parse_client_message(text.as_str()) {
        Err(err) => Some(error(err.code, &err.message, client_message_id_in(text.as_str()))),
        // Answered here so a heartbeat never waits behind a reply in progress.
        Ok(ClientMessage::Ping) => Some(ServerMessage::Pong(Pong { timestamp: now_ms() })),
        Ok(message) => {
            let refused = message.client_message_id().map(str::to_string);
            match attachment.send(message).await {
                Ok(()) => None,
                Err(_) => {
                    Some(error(ErrorCode::Internal, "The session stopped; reconnect to go on.", refused))
                }
            }
        }
    }
}

/// A recoverable `error` frame; `refused` names the learner message it refuses.
fn error(code: ErrorCode, message: &str, refused: Option<String>) -> ServerMessage {
    ServerMessage::Error(ErrorPayload {
        client_message_id: refused,
        ..ErrorPayload::new(code, message, true)
    })
}

/// Whether a read failed on a frame over [`HARD_FRAME_LIMIT`].
fn too_big(err: &axum::Error) -> bool {
    let source: &(dyn std::error::Error + 'static) = err;
    let mut next = Some(source);
    while let Some(err) = next {
        if let Some(tungstenite::Error::Capacity(_)) = err.downcast_ref::<tungstenite::Error>() {
            return true;
        }
        next = err.source();
    }
    false
}

/// Sends a final `error` frame and closes with `close`.
async fn refuse(socket: &mut WebSocket, engine: &Engine, code: ErrorCode, message: &str, close: u16) {
    engine.metrics().error(code);
    close_with(socket, code, message, close).await;
}

/// A final `error` frame, then a close frame with `close` and the message as its reason.
async fn close_with<S>(sink: &mut S, code: ErrorCode, message: &str, close: u16)
where
    S: futures_util::Sink<Message> + Unpin,
{
    // Only a session still held elsewhere is worth reconnecting for at once.
    let recoverable = code == ErrorCode::SessionElsewhere;
    let frame = ServerMessage::Error(ErrorPayload::new(code, message, recoverable));
    if let Ok(text) = serde_json::to_string(&frame) {
        let _ = sink.send(Message::Text(text.into())).await;
    }
    // A close reason is at most 123 bytes.
    let mut reason = String::new();
    for c in message.chars() {
        if reason.len() + c.len_utf8() > 120 {
            break;
        }
        reason.push(c);
    }
    let _ = sink.send(Message::Close(Some(CloseFrame { code: close, reason: reason.into() }))).await;
}

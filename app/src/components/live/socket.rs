//! The browser's end of `/ws/sessions/{id}`: one task that owns the socket (gloo-net, split
//! into a sink and a stream) and selects over incoming frames, the page's outgoing frames and
//! a heartbeat. It reconnects with backoff after any drop (a restart included) and notices a
//! dead connection by its silence. A session that is not found (4404), a learner not signed
//! in (4401) or a session opened on another socket (4409) ends the attempts. The task stops
//! when the page drops its [`Outbox`].
//!
//! It remembers the last `seq` it was given and reconnects with `?since=` it, so the server
//! sends only what the page missed (then `resumed`), or the whole state when it cannot. A
//! frame whose `seq` the page has already had is not applied twice.
//!
//! During server rendering there is no socket: [`connect`] hands back an outbox nobody reads.

use futures::channel::mpsc::{UnboundedSender, unbounded};

use super::state::Connection;
use crate::protocol::{ClientMessage, ServerMessage};

/// Where the page puts frames for the server.
pub type Outbox = UnboundedSender<ClientMessage>;

/// Opens the session's socket in the background. Frames go to `on_frame`, changes of the
/// connection to `on_connection`.
pub fn connect(
    session_id: &str,
    on_frame: impl Fn(ServerMessage) + 'static,
    on_connection: impl Fn(Connection) + 'static,
) -> Outbox {
    let (outbox, pending) = unbounded();
    #[cfg(feature = "hydrate")]
    leptos::task::spawn_local(browser::run(browser::url(session_id), pending, on_frame, on_connection));
    #[cfg(not(feature = "hydrate"))]
    let _ = (session_id, pending, on_frame, on_connection);
    outbox
}

/// A new id for a learner message, unique across this browser's pages: resending a message
/// with its id is safe, the server stores each id once.
pub fn client_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    static PAGE: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    #[cfg(feature = "hydrate")]
    let page = *PAGE.get_or_init(|| (js_sys::Math::random() * 1e12) as u64);
    #[cfg(not(feature = "hydrate"))]
    let page = *PAGE.get_or_init(|| 0);
    format!("{page:x}-{}", COUNTER.fetch_add(1, Ordering::Relaxed))
}

#[cfg(feature = "hydrate")]
mod browser {
    use futures::channel::mpsc::UnboundedReceiver;
    use futures::{FutureExt, SinkExt, StreamExt, select};
    use gloo_net::websocket::futures::WebSocket;
    use gloo_net::websocket::{Message, WebSocketError};
    use gloo_timers::future::{IntervalStream, TimeoutFuture};

    use super::super::state::Connection;
    use crate::protocol::{ClientMessage, ServerFrame, ServerMessage};

    /// Close codes after which reconnecting cannot help (or would take the session back from
    /// the tab that has it now, 4409).
    const FINAL_CLOSE_CODES: [u16; 3] = [4401, 4404, 4409];
    const HEARTBEAT_MS: u32 = 15_000;
    /// Silence after which the connection is taken for dead.
    const DEAD_AFTER_MS: f64 = 40_000.0;
    const MAX_BACKOFF_MS: f64 = 8_000.0;

    pub fn url(session_id: &str) -> String {
        let location = leptos::prelude::location();
        let scheme = if location.protocol().ok().as_deref() == Some("https:") { "wss" } else { "ws" };
        let host = location.host().unwrap_or_default();
        format!("{scheme}://{host}/ws/sessions/{session_id}")
    }

    /// Where the page stands in the session's stream of frames.
    #[derive(Default)]
    struct Position {
        /// The last `seq` applied.
        seen: Option<u64>,
    }

    impl Position {
        /// Whether to apply a frame: a snapshot always (it starts the count again), any other
        /// frame of the stream once.
        fn fresh(&mut self, frame: &ServerFrame) -> bool {
            let Some(seq) = frame.seq else { return true };
            if matches!(frame.message, ServerMessage::SessionStarted(_))
                || self.seen.is_none_or(|seen| seq > seen)
            {
                self.seen = Some(seq);
                return true;
            }
            false
        }

        fn url(&self, base: &str) -> String {
            match self.seen {
                Some(seen) => format!("{base}?since={seen}"),
                None => base.to_string(),
            }
        }
    }

    /// How one connection ended.
    enum Ended {
        /// Lost (network, restart, silence): try again.
        Dropped,
        /// Refused for good (4401, 4404, 4409), with the server's reason.
        Refused(String),
        /// The page is gone.
        PageGone,
    }

    pub async fn run(
        url: String,
        mut outbox: UnboundedReceiver<ClientMessage>,
        on_frame: impl Fn(ServerMessage),
        on_connection: impl Fn(Connection),
    ) {
        let mut attempt = 0u32;
        let mut position = Position::default();
        loop {
            if let Ok(ws) = WebSocket::open(&position.url(&url)) {
                match connection(ws, &mut outbox, &on_frame, &mut attempt, &mut position).await {
                    Ended::Dropped => {}
                    Ended::Refused(reason) => {
                        let why =
                            if reason.is_empty() { "This session cannot be opened.".into() } else { reason };
                        on_connection(Connection::Closed(why));
                        return;
                    }
                    Ended::PageGone => return,
                }
            }
            attempt += 1;
            on_connection(Connection::Reconnecting(attempt));
            // While waiting, what the page sends is dropped: learner messages stay in its
            // outbox and go again once the server has said what it has.
            let mut wait = TimeoutFuture::new(backoff_ms(attempt)).fuse();
            loop {
                select! {
                    () = wait => break,
                    unsent = outbox.next() => if unsent.is_none() { return },
                }
            }
        }
    }

    /// Exponential backoff with jitter.
    fn backoff_ms(attempt: u32) -> u32 {
        let base = (250.0 * 2f64.powi(attempt.min(6) as i32)).min(MAX_BACKOFF_MS);
        (base * (0.75 + js_sys::Math::random() * 0.5)) as u32
    }

    /// Serves one connection until it ends. Dropping the socket's halves closes it.
    async fn connection(
        ws: WebSocket,
        outbox: &mut UnboundedReceiver<ClientMessage>,
        on_frame: &impl Fn(ServerMessage),
        attempt: &mut u32,
        position: &mut Position,
    ) -> Ended {
        let (mut sink, stream) = ws.split();
        let mut stream = stream.fuse();
        let mut heartbeat = IntervalStream::new(HEARTBEAT_MS).fuse();
        let mut last_heard = js_sys::Date::now();
        // Open once the server has said where the page stands (`session_started`, or `resumed`
        // after the frames it missed).
        let mut open = false;
        loop {
            select! {
                frame = stream.next() => match frame {
                    Some(Ok(Message::Text(text))) => {
                        last_heard = js_sys::Date::now();
                        if let Ok(frame) = serde_json::from_str::<ServerFrame>(&text)
                            && position.fresh(&frame)
                        {
                            if matches!(frame.message, ServerMessage::SessionStarted(_) | ServerMessage::Resumed(_)) {
                                open = true;
                                *attempt = 0;
                            }
                            on_frame(frame.message);
                        }
                    }
                    Some(Ok(Message::Bytes(_))) => {}
                    Some(Err(WebSocketError::ConnectionClose(close))) => {
                        return if FINAL_CLOSE_CODES.contains(&close.code) {
                            Ended::Refused(close.reason)
                        } else {
                            Ended::Dropped
                        };
                    }
                    // An error event; the close event follows.
                    Some(Err(_)) => {}
                    None => return Ended::Dropped,
                },
                message = outbox.next() => match message {
                    None => return Ended::PageGone,
                    // Until then nothing is sent: the page resends what matters.
                    Some(message) if open => {
                        if let Ok(text) = serde_json::to_string(&message)
                            && sink.send(Message::Text(text)).await.is_err()
                        {
                            return Ended::Dropped;
                        }
                    }
                    Some(_) => {}
                },
                _ = heartbeat.next() => {
                    if js_sys::Date::now() - last_heard > DEAD_AFTER_MS {
                        return Ended::Dropped;
                    }
                    if open
                        && let Ok(ping) = serde_json::to_string(&ClientMessage::Ping)
                        && sink.send(Message::Text(ping)).await.is_err()
                    {
                        return Ended::Dropped;
                    }
                },
            }
        }
    }
}

//! The browser's end of `/ws/sessions/{id}`: connects, reconnects with backoff after any drop
//! (a restart included), and keeps a heartbeat so a dead connection is noticed. A session that
//! is not found, or a learner not signed in, ends the attempts.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use leptos::prelude::{IntervalHandle, set_interval_with_handle, set_timeout};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{CloseEvent, MessageEvent, WebSocket};

use super::state::Connection;
use crate::protocol::{ClientMessage, ServerMessage};

/// Close codes after which reconnecting cannot help.
const FINAL_CLOSE_CODES: [u16; 2] = [4401, 4404];
const HEARTBEAT: Duration = Duration::from_secs(15);
/// Silence after which the connection is taken for dead.
const DEAD_AFTER_MS: f64 = 40_000.0;
const MAX_BACKOFF_MS: f64 = 8_000.0;

type OnMessage = Rc<dyn Fn(ServerMessage)>;
type OnConnection = Rc<dyn Fn(Connection)>;

struct Inner {
    url: String,
    ws: Option<WebSocket>,
    attempt: u32,
    stopped: bool,
    last_heard: f64,
    heartbeat: Option<IntervalHandle>,
    on_message: OnMessage,
    on_connection: OnConnection,
    // Kept alive as long as the socket they belong to.
    handlers: Vec<Closure<dyn FnMut(JsValue)>>,
}

#[derive(Clone)]
pub struct Socket(Rc<RefCell<Inner>>);

impl Socket {
    pub fn connect(session_id: &str, on_message: OnMessage, on_connection: OnConnection) -> Option<Self> {
        let location = web_sys::window()?.location();
        let scheme = if location.protocol().ok()? == "https:" { "wss" } else { "ws" };
        let url = format!("{scheme}://{}/ws/sessions/{session_id}", location.host().ok()?);
        let socket = Socket(Rc::new(RefCell::new(Inner {
            url,
            ws: None,
            attempt: 0,
            stopped: false,
            last_heard: js_sys::Date::now(),
            heartbeat: None,
            on_message,
            on_connection,
            handlers: Vec::new(),
        })));
        socket.open();
        let beat = socket.clone();
        let handle = set_interval_with_handle(move || beat.heartbeat(), HEARTBEAT).ok();
        socket.0.borrow_mut().heartbeat = handle;
        Some(socket)
    }

    /// Sends a frame now; false when not connected (the caller keeps what must not be lost).
    pub fn send(&self, message: &ClientMessage) -> bool {
        let inner = self.0.borrow();
        let Some(ws) = inner.ws.as_ref().filter(|ws| ws.ready_state() == WebSocket::OPEN) else {
            return false;
        };
        match serde_json::to_string(message) {
            Ok(text) => ws.send_with_str(&text).is_ok(),
            Err(_) => false,
        }
    }

    /// Stops for good (the page is going away).
    pub fn stop(&self) {
        let mut inner = self.0.borrow_mut();
        inner.stopped = true;
        if let Some(handle) = inner.heartbeat.take() {
            handle.clear();
        }
        if let Some(ws) = inner.ws.take() {
            let _ = ws.close();
        }
    }

    fn open(&self) {
        let url = self.0.borrow().url.clone();
        let Ok(ws) = WebSocket::new(&url) else {
            self.retry();
            return;
        };
        let this = self.clone();
        let on_open = Closure::<dyn FnMut(JsValue)>::new(move |_| {
            let mut inner = this.0.borrow_mut();
            inner.attempt = 0;
            inner.last_heard = js_sys::Date::now();
        });
        let this = self.clone();
        let on_message = Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
            let Ok(event) = event.dyn_into::<MessageEvent>() else { return };
            let Some(text) = event.data().as_string() else { return };
            let handler = {
                let mut inner = this.0.borrow_mut();
                inner.last_heard = js_sys::Date::now();
                inner.on_message.clone()
            };
            if let Ok(message) = serde_json::from_str::<ServerMessage>(&text) {
                handler(message);
            }
        });
        let this = self.clone();
        let on_close = Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
            let code = event.dyn_into::<CloseEvent>().map(|e| e.code()).unwrap_or(1006);
            if FINAL_CLOSE_CODES.contains(&code) {
                let handler = {
                    let mut inner = this.0.borrow_mut();
                    inner.stopped = true;
                    inner.on_connection.clone()
                };
                handler(Connection::Closed("This session cannot be opened.".into()));
            } else {
                this.retry();
            }
        });
        ws.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        ws.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        ws.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        let mut inner = self.0.borrow_mut();
        if let Some(old) = inner.ws.replace(ws) {
            old.set_onclose(None);
            let _ = old.close();
        }
        inner.handlers = vec![on_open, on_message, on_close];
    }

    /// After a drop: wait (exponential backoff with jitter), then open again.
    fn retry(&self) {
        let (delay, handler, attempt) = {
            let mut inner = self.0.borrow_mut();
            if inner.stopped {
                return;
            }
            inner.ws = None;
            inner.attempt += 1;
            let base = (250.0 * 2f64.powi(inner.attempt.min(6) as i32)).min(MAX_BACKOFF_MS);
            (base * (0.75 + js_sys::Math::random() * 0.5), inner.on_connection.clone(), inner.attempt)
        };
        handler(Connection::Reconnecting(attempt));
        let this = self.clone();
        set_timeout(move || this.open(), Duration::from_millis(delay as u64));
    }

    fn heartbeat(&self) {
        let (silent_for, open) = {
            let inner = self.0.borrow();
            let open = inner.ws.as_ref().is_some_and(|ws| ws.ready_state() == WebSocket::OPEN);
            (js_sys::Date::now() - inner.last_heard, open)
        };
        if !open {
            return;
        }
        if silent_for > DEAD_AFTER_MS {
            // Closing fires `close`, which schedules the reconnect.
            if let Some(ws) = self.0.borrow().ws.as_ref() {
                let _ = ws.close();
            }
        } else {
            self.send(&ClientMessage::Ping);
        }
    }
}

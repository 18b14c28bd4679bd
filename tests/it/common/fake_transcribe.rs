//! A local server speaking OpenAI's `POST /v1/audio/transcriptions` multipart wire format:
//! it reads the form as OpenAI does (a `file` part with its type, `model`, `prompt`,
//! `response_format`), answers from a script, and records what it was sent.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Multipart, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;

/// One scripted answer.
#[derive(Clone, Debug)]
pub enum Heard {
    /// `{"text": …}`.
    Text(&'static str),
    /// An error status with OpenAI's error body.
    Status(u16),
    /// No answer for this long.
    Silent(Duration),
}

/// A request as the fake read it.
#[derive(Clone, Debug, Default)]
pub struct Sent {
    pub authorization: Option<String>,
    pub model: Option<String>,
    pub prompt: Option<String>,
    pub response_format: Option<String>,
    pub file_name: Option<String>,
    pub file_type: Option<String>,
    pub file_bytes: usize,
}

#[derive(Clone)]
struct Shared {
    script: Arc<Mutex<VecDeque<Heard>>>,
    sent: Arc<Mutex<Vec<Sent>>>,
}

pub struct FakeTranscriber {
    pub addr: SocketAddr,
    shared: Shared,
}

impl FakeTranscriber {
    /// Answers from `script`, then with the last line of it again and again.
    pub async fn start(script: Vec<Heard>) -> Self {
        let shared = Shared { script: Arc::new(Mutex::new(script.into())), sent: Arc::default() };
        let app = Router::new()
            .route("/v1/audio/transcriptions", post(transcribe))
            .layer(DefaultBodyLimit::max(25 * 1024 * 1024))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.ok() });
        Self { addr, shared }
    }

    /// The base URL Warren is given (`WARREN_TRANSCRIBE_URL`).
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    pub fn sent(&self) -> Vec<Sent> {
        self.shared.sent.lock().unwrap().clone()
    }
}

async fn transcribe(State(shared): State<Shared>, headers: HeaderMap, mut form: Multipart) -> Response {
    let mut sent = Sent {
        authorization: headers.get("authorization").and_then(|v| v.to_str().ok()).map(str::to_string),
        ..Sent::default()
    };
    while let Ok(Some(field)) = form.next_field().await {
        match field.name().unwrap_or_default().to_string().as_str() {
            "file" => {
                sent.file_name = field.file_name().map(str::to_string);
                sent.file_type = field.content_type().map(str::to_string);
                sent.file_bytes = field.bytes().await.map(|b| b.len()).unwrap_or(0);
            }
            "model" => sent.model = field.text().await.ok(),
            "prompt" => sent.prompt = field.text().await.ok(),
            "response_format" => sent.response_format = field.text().await.ok(),
            _ => {}
        }
    }
    let (model, file) = (sent.model.clone(), sent.file_bytes);
    shared.sent.lock().unwrap().push(sent);
    // OpenAI's own refusals of a form without its parts.
    if model.is_none() || file == 0 {
        let body =
            r#"{"error":{"message":"you must provide a model and a file","type":"invalid_request_error"}}"#;
        return (StatusCode::BAD_REQUEST, body).into_response();
    }
    let next = {
        let mut script = shared.script.lock().unwrap();
        if script.len() > 1 { script.pop_front() } else { script.front().cloned() }
    };
    match next.unwrap_or(Heard::Text("")) {
        Heard::Text(text) => {
            ([("content-type", "application/json")], serde_json::json!({ "text": text }).to_string())
                .into_response()
        }
        Heard::Status(status) => {
            let body = r#"{"error":{"message":"the server had an error","type":"server_error"}}"#;
            (StatusCode::from_u16(status).unwrap(), body).into_response()
        }
        Heard::Silent(wait) => {
            tokio::time::sleep(wait).await;
            ([("content-type", "application/json")], r#"{"text":"too late"}"#).into_response()
        }
    }
}

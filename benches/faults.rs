//! Provider faults: the server's language model is a local server speaking OpenAI's streamed
//! Chat Completions that fails a share of its requests (`FAULT_RATE`, default 0.2) in every
//! way a provider does: 429 with `retry-after-ms`, 500, 529 (overloaded), no answer within
//! the timeout, malformed server-sent events, a stream cut midway, an empty reply, and a
//! tool call with arguments that are not JSON. Many sessions run their turns at once.
//!
//! It checks that no session crashed (each socket answers every turn, with a reply or a coded
//! `error` frame), that every failure the learner sees is a `PROVIDER_ERROR` frame, and that
//! every learner message is stored once and answered once the provider recovers (the page
//! reconnects, as it does, and the server answers the message left waiting). It prints the
//! faults injected, the errors shown and what was recovered, and exits non-zero on a crashed
//! session, a lost or unanswered message, or another error code.
//!
//! `cargo bench --bench faults` (1,000 turns: `FAULT_SESSIONS` 100 × `FAULT_TURNS` 10).

// A measuring harness: a failure to set up should stop it loudly, like a test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{Response, StatusCode};
use axum::routing::{get, post};
use futures_util::SinkExt;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use warren::config::{Config, ProviderChoice};
use warren::startup::Application;
use warren::store::{NewPoint, NewResource, NewSet, Speaker};
use warren_app::protocol::{ErrorCode, ServerMessage};

mod common;

use common::Socket;

const FAULTS: [&str; 8] = ["429", "500", "529", "timeout", "malformed", "cut", "empty", "bad tool call"];
/// Warren's wait for a first byte or the next piece (`WARREN_LLM_TIMEOUT_MS`) in this run.
const TIMEOUT_MS: u64 = 400;

#[derive(Clone)]
struct Faulty {
    rate: f64,
    rng: Arc<Mutex<fastrand::Rng>>,
    injected: Arc<Mutex<BTreeMap<&'static str, usize>>>,
    requests: Arc<Mutex<usize>>,
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    let failures = runtime.block_on(run());
    if failures > 0 {
        eprintln!("faults: {failures} failures");
        std::process::exit(1);
    }
}

async fn run() -> usize {
    let env =
        |name: &str, default: f64| std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    let sessions = env("FAULT_SESSIONS", 100.0) as usize;
    let turns = env("FAULT_TURNS", 10.0) as usize;
    let faulty = Faulty {
        rate: env("FAULT_RATE", 0.2),
        rng: Arc::new(Mutex::new(fastrand::Rng::with_seed(11))),
        injected: Arc::default(),
        requests: Arc::default(),
    };
    let app = Router::new()
        .route("/v1/chat/completions", post(answer))
        .route("/v1/models", get(|| async { "{\"data\":[]}" }))
        .with_state(faulty.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let model = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });

    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::for_database(format!("sqlite://{}/faults.db", dir.path().display()));
    config.llm.provider = ProviderChoice::Openai;
    config.llm.openai_base_url = Some(format!("http://{model}/v1"));
    config.llm.llm_timeout_ms = TIMEOUT_MS;
    let server = Application::build(&config).await.expect("app starts");
    let addr = server.local_addr();
    let engine = server.engine();
    tokio::spawn(server.run());
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let cookie = common::sign_up(&http, &addr.to_string(), "faults").await;
    let store = engine.store().clone();
    let owner = store.credentials("faults").await.unwrap().unwrap().learner;
    let mut plans = Vec::new();
    for i in 0..sessions {
        let points: Vec<NewPoint> = (0..20)
            .map(|p| NewPoint {
                content: format!("Fault fact {p} of set {i}: gauge {p} reads {} units.", p * 3 + 1),
                context: format!("What does gauge {p} read?"),
                card: None,
                log: None,
            })
            .collect();
        // A note the tutor may show: its requests then offer tools, and a tool call can go wrong.
        let note = NewResource {
            kind: warren_app::api::ResourceKind::Text,
            title: "About the gauges".into(),
            body: "Each gauge reads three units more than the one before.".into(),
            points: (0..20).map(|p| (p, 1.0)).collect(),
            ..NewResource::default()
        };
        let set =
            NewSet { name: format!("Fault set {i}"), points, resources: vec![note], ..NewSet::default() };
        let set_id = store.create_set(&owner, &set).await.unwrap();
        let session = engine.start_session(&owner, &set_id, true).await.unwrap();
        let points = store.points(&owner, &set_id).await.unwrap();
        plans.push((session.id, points.into_iter().map(|p| p.content).collect::<Vec<_>>()));
    }

    let started = Instant::now();
    let runs = plans.into_iter().enumerate().map(|(s, (session, points))| {
        let (addr, cookie) = (addr.to_string(), cookie.clone());
        async move {
            let mut outcome = Outcome::default();
            let Some(mut ws) = connect(&addr, &cookie, &session).await else {
                outcome.crashed = true;
                return (session, outcome);
            };
            // The tutor's opening, asked again on a new socket if the provider failed it.
            let mut opened = read_turn(&mut ws, &mut outcome).await;
            for _ in 0..20 {
                if opened != Turn::ProviderError {
                    break;
                }
                let Some(again) = connect(&addr, &cookie, &session).await else { break };
                ws = again;
                opened = read_turn(&mut ws, &mut outcome).await;
                outcome.recovered += usize::from(opened == Turn::Answered);
            }
            if opened != Turn::Answered {
                outcome.crashed = true;
                return (session, outcome);
            }
            for t in 0..turns {
                let text = if t % 3 == 1 {
                    points[t / 3].clone()
                } else {
                    format!("I am not sure, it could be something else ({s}, {t}).")
                };
                let frame =
                    json!({"type": "user_message", "content": text, "clientMessageId": format!("f-{s}-{t}")});
                if ws.send(Message::Text(frame.to_string().into())).await.is_err() {
                    outcome.crashed = true;
                    break;
                }
                outcome.sent += 1;
                // A provider error keeps the message: the page reconnects and the server
                // answers it then (the provider fails a share of tries, so a few may be needed).
                let mut answered = read_turn(&mut ws, &mut outcome).await;
                let mut tries = 0;
                while answered == Turn::ProviderError && tries < 20 {
                    tries += 1;
                    let Some(again) = connect(&addr, &cookie, &session).await else { break };
                    ws = again;
                    answered = read_turn(&mut ws, &mut outcome).await;
                    if answered == Turn::Answered {
                        outcome.recovered += 1;
                    }
                }
                match answered {
                    Turn::Answered => {}
                    Turn::ProviderError | Turn::Other => outcome.unanswered += 1,
                    Turn::Crashed => {
                        outcome.crashed = true;
                        break;
                    }
                }
            }
            (session, outcome)
        }
    });
    let results = futures_util::future::join_all(runs).await;
    let took = started.elapsed();

    // Every learner message stored once, each followed on the main line by a reply.
    let mut total = Outcome::default();
    let (mut lost, mut duplicated, mut without_reply, mut crashed) = (0, 0, 0, 0);
    for (session, outcome) in &results {
        let (row, tree) = store.tree(&owner, session).await.unwrap().unwrap();
        let path = tree.path(row.leaf_id.as_deref());
        let mut ids = BTreeMap::<String, usize>::new();
        for (i, entry) in path.iter().enumerate() {
            if entry.is_message_from(Speaker::Learner) {
                if let Some(id) = &entry.client_message_id {
                    *ids.entry(id.clone()).or_default() += 1;
                }
                let replied = path[i + 1..].iter().find(|e| e.kind == warren::store::EntryKind::Message);
                if replied.is_none_or(|e| e.speaker == Some(Speaker::Learner)) {
                    without_reply += 1;
                    {
                        let around: Vec<String> = path[i.saturating_sub(2)..(i + 3).min(path.len())]
                            .iter()
                            .map(|e| format!("{}:{:?}:{:.30}", e.kind, e.speaker, e.content))
                            .collect();
                        eprintln!("no reply in {session}: {around:?}");
                    }
                }
            }
        }
        lost += outcome.sent.saturating_sub(ids.len());
        duplicated += ids.values().filter(|n| **n > 1).count();
        crashed += usize::from(outcome.crashed);
        total.sent += outcome.sent;
        total.provider_errors += outcome.provider_errors;
        total.other_errors += outcome.other_errors;
        total.recovered += outcome.recovered;
        total.unanswered += outcome.unanswered;
    }
    let injected = faulty.injected.lock().unwrap().clone();
    let requests = *faulty.requests.lock().unwrap();
    let injected_total: usize = injected.values().sum();
    println!(
        "faults: {} turns in {sessions} sessions, provider requests {requests}, {injected_total} failed on purpose ({:.0} %) in {:.1} s",
        total.sent,
        100.0 * injected_total as f64 / requests.max(1) as f64,
        took.as_secs_f64()
    );
    let kinds: Vec<String> =
        FAULTS.iter().map(|k| format!("{k} {}", injected.get(k).copied().unwrap_or(0))).collect();
    println!("  injected: {}", kinds.join(", "));
    println!(
        "  seen by the learner: {} PROVIDER_ERROR frames (each message kept); {} turns answered after the page reconnected; other error codes {}",
        total.provider_errors, total.recovered, total.other_errors
    );
    println!(
        "  crashed sessions {crashed}, messages lost {lost}, stored twice {duplicated}, left without a reply {without_reply}, unanswered turns {}",
        total.unanswered
    );
    crashed + lost + duplicated + without_reply + total.other_errors + total.unanswered
}

#[derive(Default)]
struct Outcome {
    sent: usize,
    provider_errors: usize,
    other_errors: usize,
    recovered: usize,
    unanswered: usize,
    crashed: bool,
}

#[derive(Debug, PartialEq)]
enum Turn {
    Answered,
    ProviderError,
    Other,
    Crashed,
}

/// A socket on the session, past its greeting; what follows (the opening, or the answer to a
/// message left waiting) is the caller's to read.
async fn connect(addr: &str, cookie: &str, session: &str) -> Option<Socket> {
    let mut ws = common::connect(addr, cookie, session).await?;
    matches!(next(&mut ws).await?, ServerMessage::SessionStarted(_)).then_some(ws)
}

/// Reads to the end of a turn: a finished reply, the completion overlay, or an error frame.
async fn read_turn(ws: &mut Socket, outcome: &mut Outcome) -> Turn {
    loop {
        let Some(frame) = next(ws).await else { return Turn::Crashed };
        match frame {
            ServerMessage::AssistantComplete(_) | ServerMessage::SessionCompleteOverlay(_) => {
                return Turn::Answered;
            }
            ServerMessage::Error(e) if e.code == ErrorCode::ProviderError => {
                outcome.provider_errors += 1;
                return Turn::ProviderError;
            }
            ServerMessage::Error(e) => {
                eprintln!("error frame: {:?} {}", e.code, e.message);
                outcome.other_errors += 1;
                return Turn::Other;
            }
            ServerMessage::SessionStarted(_)
            | ServerMessage::AssistantChunk(_)
            | ServerMessage::RecallPointRecalled(_)
            | ServerMessage::RecallPointNearMiss(_)
            | ServerMessage::RabbitholeDetected(_)
            | ServerMessage::RabbitholeEntered(_)
            | ServerMessage::RabbitholeExited(_)
            | ServerMessage::SessionPaused(_)
            | ServerMessage::ShowImage(_)
            | ServerMessage::ShowResource(_)
            | ServerMessage::SessionComplete(_)
            | ServerMessage::Pong(_)
            | ServerMessage::Resumed(_)
            | ServerMessage::Notice(_) => {}
        }
    }
}

async fn next(ws: &mut Socket) -> Option<ServerMessage> {
    common::next_frame(ws, Duration::from_secs(30)).await
}

/// One request to the faulty model: a fault at the configured rate, else a proper answer.
async fn answer(State(faulty): State<Faulty>, body: String) -> Response<Body> {
    let request: Value = serde_json::from_str(&body).unwrap_or_default();
    *faulty.requests.lock().unwrap() += 1;
    let has_tools = request["tools"].as_array().is_some_and(|t| !t.is_empty());
    let fault = {
        let mut rng = faulty.rng.lock().unwrap();
        (rng.f64() < faulty.rate).then(|| FAULTS[rng.usize(0..FAULTS.len())])
    };
    // A bad tool call needs a request that offers tools; others get another fault.
    let fault = match fault {
        Some("bad tool call") if !has_tools => Some("cut"),
        other => other,
    };
    if let Some(kind) = fault {
        *faulty.injected.lock().unwrap().entry(kind).or_default() += 1;
    }
    let text = proper_answer(&request);
    let chunk = |delta: Value, finish: Option<&str>| {
        format!("data: {}\n\n", json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}))
    };
    let sse = |body: String| {
        Response::builder().header("content-type", "text/event-stream").body(Body::from(body)).unwrap()
    };
    let status = |code: u16, headers: &[(&str, &str)]| {
        let mut response = Response::builder().status(StatusCode::from_u16(code).unwrap());
        for (name, value) in headers {
            response = response.header(*name, *value);
        }
        response.body(Body::from(r#"{"error":{"message":"injected fault"}}"#)).unwrap()
    };
    match fault {
        Some("429") => status(429, &[("retry-after-ms", "30")]),
        Some("500") => status(500, &[]),
        Some("529") => status(529, &[]),
        Some("timeout") => {
            tokio::time::sleep(Duration::from_millis(TIMEOUT_MS * 3)).await;
            sse(chunk(json!({"content": text}), Some("stop")) + "data: [DONE]\n\n")
        }
        Some("malformed") => sse("data: {\"choices\": [{\"delta\": {\"content\": \"Hal\n\n".to_string()),
        Some("cut") => {
            let half: String = text.chars().take(text.chars().count() / 2).collect();
            sse(chunk(json!({"role": "assistant", "content": half}), None))
        }
        Some("empty") => sse("data: [DONE]\n\n".to_string()),
        Some("bad tool call") => sse(chunk(
            json!({"tool_calls": [{"index": 0, "id": "t1", "type": "function",
                    "function": {"name": "show_resource", "arguments": "{not json"}}]}),
            None,
        ) + &chunk(json!({"content": text}), Some("tool_calls"))
            + "data: [DONE]\n\n"),
        _ => sse(chunk(json!({"role": "assistant", "content": text}), Some("stop")) + "data: [DONE]\n\n"),
    }
}

/// What each agent would say: the evaluator recalls a point whose whole text the message
/// holds; the tutor, explorer and summariser say something plain.
fn proper_answer(request: &Value) -> String {
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let system = messages.first().and_then(|m| m["content"].as_str()).unwrap_or_default().to_string();
    let last = messages.last().and_then(|m| m["content"].as_str()).unwrap_or_default().to_string();
    if system.contains("You check which recall points") {
        let said = last.split_once("Latest learner message:\n").map(|(_, m)| m.trim()).unwrap_or_default();
        let recalled: Vec<Value> = system
            .lines()
            .filter_map(|l| l.strip_prefix("- id \""))
            .filter_map(|l| l.split_once("\": "))
            .filter(|(_, content)| said.contains(content.trim()))
            .map(|(id, _)| json!({"pointId": id, "confidence": 0.9}))
            .collect();
        json!({"recalled": recalled, "nearMisses": []}).to_string()
    } else if system.contains("for tangents") {
        json!({"isRabbithole": false, "topic": "", "confidence": 0.0}).to_string()
    } else if system.contains("You write the record of a recall session") {
        json!({"overview": "A session under faults.", "nextSteps": ["Go on."]}).to_string()
    } else {
        "What else do you remember about it?".to_string()
    }
}

//! Gaps between the frames of a streamed reply, over a real socket to the real server, with
//! the offline tutor at zero delay: how long the learner waits for the first frame after
//! sending, and whether the stream ever stalls between frames (a stall of about 40 ms is
//! Nagle's algorithm waiting for a delayed acknowledgement). Run with
//! `cargo bench --bench frame_gaps`; `FRAME_GAPS_TURNS` sets the number of turns (default 200).

// A measuring harness: a failure to set up should stop it loudly, like a test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use warren_app::protocol::ServerMessage;

mod common;

/// Below the burst of learner messages a session accepts at once.
const TURNS_PER_SESSION: usize = 10;

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(run());
}

async fn run() {
    let turns: usize = std::env::var("FRAME_GAPS_TURNS").ok().and_then(|n| n.parse().ok()).unwrap_or(200);
    let served = common::serve(|config| config.llm.offline_delay_ms = 0).await;
    let (addr, engine, cookie, owner) = (served.addr, &served.engine, &served.cookie, &served.owner);
    let set = engine.store().list_sets(owner, i64::MAX).await.unwrap().remove(0);

    let mut first = Vec::with_capacity(turns);
    let mut gaps = Vec::new();
    let mut frames = 0usize;
    let mut ws = None;
    for i in 0..turns {
        // A fresh session every few turns keeps within the learner message rate.
        if i % TURNS_PER_SESSION == 0 {
            let session = engine.start_session(owner, &set.id, true).await.unwrap();
            let mut request =
                format!("ws://{addr}/ws/sessions/{}", session.id).into_client_request().unwrap();
            request.headers_mut().insert("cookie", cookie.parse().unwrap());
            let (mut socket, _) = tokio_tungstenite::connect_async(request).await.expect("socket connects");
            read_turn(&mut socket).await; // the opening
            ws = Some(socket);
        }
        let ws = ws.as_mut().expect("a socket");
        // Nothing here is ever recalled, so every turn streams a full reply.
        let text = format!("I am not sure, let me think about it ({i})");
        let sent = Instant::now();
        let frame =
            serde_json::json!({"type": "user_message", "content": text, "clientMessageId": format!("b{i}")});
        ws.send(Message::Text(frame.to_string().into())).await.unwrap();
        let times = read_turn(ws).await;
        frames += times.len();
        first.push(times[0] - sent);
        gaps.extend(times.windows(2).map(|w| w[1] - w[0]));
    }
    first.sort();
    gaps.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let pct = |v: &[Duration], p: f64| ms(v[((v.len() - 1) as f64 * p) as usize]);
    let stalls = gaps.iter().filter(|g| **g > Duration::from_millis(10)).count();
    println!("frame gaps over a real socket, offline tutor at zero delay ({turns} turns, {frames} frames)");
    println!(
        "  first frame after sending: median {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        pct(&first, 0.5),
        pct(&first, 0.99),
        ms(first[first.len() - 1])
    );
    println!(
        "  gap between frames:        median {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        pct(&gaps, 0.5),
        pct(&gaps, 0.99),
        ms(gaps[gaps.len() - 1])
    );
    println!("  gaps over 10 ms: {stalls} of {}", gaps.len());
}

/// Arrival times of a turn's frames, up to and including `assistant_complete`.
async fn read_turn(
    ws: &mut tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
) -> Vec<Instant> {
    let mut times = Vec::new();
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("a frame within 10 s")
            .expect("socket open")
            .expect("frame");
        let Message::Text(text) = frame else { continue };
        times.push(Instant::now());
        match serde_json::from_str::<ServerMessage>(&text).expect("a protocol frame") {
            ServerMessage::AssistantComplete(_) => return times,
            ServerMessage::Error(e) => panic!("error frame: {}", e.message),
            ServerMessage::SessionStarted(_)
            | ServerMessage::AssistantChunk(_)
            | ServerMessage::RecallPointRecalled(_)
            | ServerMessage::RecallPointNearMiss(_)
            | ServerMessage::RabbitholeDetected(_)
            | ServerMessage::RabbitholeEntered(_)
            | ServerMessage::RabbitholeExited(_)
            | ServerMessage::SessionCompleteOverlay(_)
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

//! Crash safety: a scripted session over the real socket while the server is killed with
//! SIGKILL at random moments (mid-turn, mid-stream, between turns), restarted on the same
//! database and reconnected, as a page would. After every restart it checks that nothing the
//! server had acknowledged was lost:
//! - every learner message acknowledged (a frame of its turn arrived) is stored, once;
//! - every recall announced is still counted;
//! - the session's mode (recall or rabbit hole) is the one last announced;
//! - its study time never goes backwards;
//! - and the session goes on: messages not yet acknowledged are sent again (each stored at
//!   most once) and answered.
//!
//! It prints kills, losses (must be 0) and the time from restart to a greeted socket, and
//! exits non-zero on any loss. `cargo bench --bench crash` (release; `CRASH_KILLS`, default
//! 100); `scripts/test` runs 10 on the dev build.

// A measuring harness: a failure to set up should stop it loudly, like a test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use warren_app::learner::LearnerId;

use futures_util::SinkExt;
use tokio_tungstenite::tungstenite::Message;
use warren::store::{NewPoint, NewSet, Store};
use warren_app::protocol::{ServerMessage, SessionMode, SessionStarted};

mod common;

use common::Socket;

struct Server {
    child: Option<Child>,
    addr: String,
    database: String,
}

impl Server {
    fn start(&mut self) {
        let child = Command::new(env!("CARGO_BIN_EXE_warren"))
            .arg("serve")
            .env("WARREN_ADDR", &self.addr)
            .env("DATABASE_URL", &self.database)
            .env("WARREN_LLM", "offline")
            .env("WARREN_OFFLINE_DELAY_MS", "2")
            .env("WARREN_LOG", "error")
            .stdout(Stdio::null())
            .spawn()
            .expect("the server starts");
        self.child = Some(child);
    }

    /// SIGKILL: no shutdown, no flushing, as a crash or a power cut.
    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// What the harness knows the server has acknowledged.
#[derive(Default)]
struct Known {
    /// Learner messages (id → text) sent and not yet acknowledged, in order.
    unacknowledged: Vec<(String, String)>,
    acknowledged: Vec<String>,
    recalled: u32,
    mode: Option<SessionMode>,
    /// A mode change was asked for and not yet announced.
    mode_pending: bool,
    elapsed_ms: u64,
    /// The rabbit hole on offer, if any.
    offer: Option<(String, String)>,
    completed: bool,
    /// The server answers a stored message left unanswered by the kill on its own: the next
    /// turn's frames are that answer, not an acknowledgement of anything sent since.
    unsolicited_turn: bool,
    /// Messages refused (each names its id); none is expected.
    refused: usize,
    /// Frames of a turn have come and its end has not.
    in_turn: bool,
    /// Acknowledged messages looked for in the database, over every check.
    checked: usize,
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    let losses = runtime.block_on(run());
    if losses > 0 {
        eprintln!("crash: {losses} losses");
        std::process::exit(1);
    }
}

async fn run() -> usize {
    let kills: usize = std::env::var("CRASH_KILLS").ok().and_then(|n| n.parse().ok()).unwrap_or(100);
    let mut rng =
        fastrand::Rng::with_seed(std::env::var("CRASH_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(7));
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut server = Server {
        child: None,
        addr: format!("127.0.0.1:{port}"),
        database: format!("sqlite://{}/crash.db", dir.path().display()),
    };
    server.start();
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    common::ready(&http, &server.addr, Duration::from_secs(30)).await;
    let cookie = common::sign_up(&http, &server.addr, "crash").await;
    let store = Store::open(&server.database).await.unwrap();
    let owner = store.credentials("crash").await.unwrap().unwrap().learner;

    let mut losses = 0;
    let mut recoveries = Vec::new();
    let mut message_no = 0usize;
    let mut session = new_session(&store, &owner, 0).await;
    let mut known = Known::default();
    let mut points = store.points(&owner, &session.1).await.unwrap();
    let mut restarted = Instant::now();
    let (mut mid_turn, mut in_holes, mut checked) = (0usize, 0usize, 0usize);
    for kill in 0..kills {
        // Connect, check what survived, resend what was not acknowledged.
        let mut ws = connect(&server.addr, &cookie, &session.0).await;
        let started = loop {
            match next(&mut ws).await {
                Some(ServerMessage::SessionStarted(s)) => break *s,
                Some(_) => continue,
                None => panic!("no session_started after restart {kill}"),
            }
        };
        recoveries.push(restarted.elapsed());
        losses += check(&store, &owner, &session.0, &started, &mut known).await;
        if started.overlay.is_some() || known.completed {
            // Every point recalled: on to a new session of a new set.
            session = new_session(&store, &owner, kill + 1).await;
            points = store.points(&owner, &session.1).await.unwrap();
            checked += known.checked;
            known = Known::default();
            drop(ws);
            continue;
        }
        let resend: Vec<(String, String)> = known.unacknowledged.clone();
        for (id, text) in &resend {
            send_message(&mut ws, id, text).await;
        }

        // A few turns, with the kill landing at a random moment in one of them.
        let turns = 1 + rng.usize(0..3);
        let kill_after = Duration::from_millis(rng.u64(0..40));
        for turn in 0..turns {
            message_no += 1;
            let id = format!("m{message_no}");
            // A mode change only while nothing else is in flight, so every reply is matched to
            // what it answers.
            let quiet = known.unacknowledged.is_empty() && !known.unsolicited_turn;
            let text = if let Some((hole, topic)) = known.offer.take().filter(|_| quiet && rng.bool()) {
                ws.send(Message::Text(
                    serde_json::json!({"type": "enter_rabbithole", "rabbitholeEventId": hole, "topic": topic})
                        .to_string()
                        .into(),
                ))
                .await
                .ok();
                known.mode_pending = true;
                None
            } else if quiet && known.mode == Some(SessionMode::Rabbithole) && rng.usize(0..3) == 0 {
                ws.send(Message::Text(serde_json::json!({"type": "exit_rabbithole"}).to_string().into()))
                    .await
                    .ok();
                known.mode_pending = true;
                None
            } else if message_no.is_multiple_of(4) {
                // The next point not yet recalled, said in full: a recall.
                points.get(known.recalled as usize).map(|p| p.content.clone())
            } else if message_no.is_multiple_of(7) {
                Some("Why do volcanoes erupt so violently, and where does the heat come from?".to_string())
            } else {
                Some(format!("I am not sure about this one ({message_no})."))
            };
            if let Some(text) = text {
                known.unacknowledged.push((id.clone(), text.clone()));
                send_message(&mut ws, &id, &text).await;
            }
            let last = turn + 1 == turns;
            let deadline = if last { Some(Instant::now() + kill_after) } else { None };
            read_until_quiet(&mut ws, &mut known, deadline).await;
        }
        mid_turn += usize::from(known.in_turn || !known.unacknowledged.is_empty());
        in_holes += usize::from(known.mode == Some(SessionMode::Rabbithole));
        server.kill();
        drop(ws);
        server.start();
        restarted = Instant::now();
        common::ready(&http, &server.addr, Duration::from_secs(30)).await;
    }
    // After the last kill: everything checked once more.
    let mut ws = connect(&server.addr, &cookie, &session.0).await;
    if let Some(ServerMessage::SessionStarted(started)) = next(&mut ws).await {
        losses += check(&store, &owner, &session.0, &started, &mut known).await;
    }
    let refused = known.refused;
    checked += known.checked;
    let recalls: i64 = store.recalled_counts(&owner).await.unwrap().values().sum();
    recoveries.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!("crash: {kills} kills with SIGKILL at random moments, {message_no} learner messages");
    println!(
        "  killed mid-turn {mid_turn} times, in a rabbit hole {in_holes} times; {recalls} recalls, every one kept"
    );
    println!(
        "  losses: {losses} ({checked} acknowledged messages looked for after the kills), refusals: {refused}"
    );
    println!(
        "  from restart to a greeted socket (start-up, migrations checked, reconnect): p50 {:.0} ms, max {:.0} ms",
        ms(recoveries.get(recoveries.len() / 2).copied().unwrap_or_default()),
        ms(recoveries.last().copied().unwrap_or_default())
    );
    losses
}

/// A set of 24 points and a session of it.
async fn new_session(store: &Store, owner: &LearnerId, n: usize) -> (String, String) {
    let points = (0..24)
        .map(|p| NewPoint {
            content: format!("Crash fact {p}: the marker number {p} sits at {} metres.", 100 + p * 13),
            context: format!("Where does marker {p} sit?"),
            card: None,
            log: None,
        })
        .collect();
    let set = NewSet { name: format!("Crash set {n}"), points, ..NewSet::default() };
    let set_id = store.create_set(owner, &set).await.unwrap();
    let targets: Vec<String> =
        store.points(owner, &set_id).await.unwrap().into_iter().map(|p| p.id).collect();
    (
        store.create_session(owner, Some(&set_id), std::slice::from_ref(&set_id), &targets).await.unwrap().id,
        set_id,
    )
}

/// What survived the kill, against what was acknowledged before it; returns the losses.
async fn check(
    store: &Store,
    owner: &LearnerId,
    session: &str,
    started: &SessionStarted,
    known: &mut Known,
) -> usize {
    let mut losses = 0;
    known.checked += known.acknowledged.len();
    let entries = store.entries(owner, session).await.unwrap();
    let mut stored: HashMap<String, usize> = HashMap::new();
    for id in entries.iter().filter_map(|e| e.client_message_id.clone()) {
        *stored.entry(id).or_default() += 1;
    }
    for id in &known.acknowledged {
        if stored.get(id).copied().unwrap_or(0) == 0 {
            eprintln!("lost: acknowledged message {id}");
            losses += 1;
        }
    }
    for (id, count) in &stored {
        if *count > 1 {
            eprintln!("stored {count} times: {id}");
            losses += 1;
        }
    }
    if started.recalled_count < known.recalled {
        eprintln!("lost recalls: {} announced, {} now", known.recalled, started.recalled_count);
        losses += 1;
    }
    if !known.mode_pending && known.mode.is_some_and(|m| m != started.mode) {
        eprintln!("lost mode: {:?} announced, {:?} now", known.mode, started.mode);
        losses += 1;
    }
    if started.elapsed_ms < known.elapsed_ms {
        eprintln!("study time went back: {} → {}", known.elapsed_ms, started.elapsed_ms);
        losses += 1;
    }
    // What the server says now is what is known from here on; stored messages count as
    // acknowledged (a resend of them would be ignored).
    known.recalled = started.recalled_count;
    known.mode = Some(started.mode);
    known.mode_pending = false;
    known.in_turn = false;
    known.elapsed_ms = started.elapsed_ms;
    known.offer =
        started.pending_rabbithole.as_ref().map(|d| (d.rabbithole_event_id.clone(), d.topic.clone()));
    let (now_stored, still): (Vec<_>, Vec<_>) =
        known.unacknowledged.drain(..).partition(|(id, _)| stored.contains_key(id));
    // A learner message at the leaf has no reply yet: the server gives it on attach. So is a
    // new session's opening question: its frames answer no message of the learner's.
    let leaf = store.session(owner, session).await.unwrap().and_then(|row| row.leaf_id);
    let unanswered = match entries.iter().find(|e| Some(&e.id) == leaf.as_ref()) {
        Some(entry) => entry.is_message_from(warren::store::Speaker::Learner),
        None => entries.is_empty(),
    };
    known.unsolicited_turn = unanswered && started.overlay.is_none();
    known.acknowledged.extend(now_stored.into_iter().map(|(id, _)| id));
    known.unacknowledged = still;
    losses
}

/// Reads frames until the turns in flight are done (quiet for a moment) or `deadline`.
async fn read_until_quiet(ws: &mut Socket, known: &mut Known, deadline: Option<Instant>) {
    loop {
        let wait = match deadline {
            Some(at) => at.saturating_duration_since(Instant::now()),
            None => Duration::from_millis(600),
        };
        if deadline.is_some() && wait.is_zero() {
            return;
        }
        let frame = match tokio::time::timeout(wait, next(ws)).await {
            Ok(Some(frame)) => frame,
            Ok(None) | Err(_) => return,
        };
        // A frame of a message's turn: the message is stored (written before anything about
        // it is said), so the first frame of a turn acknowledges the message it answers.
        let of_a_turn = match &frame {
            ServerMessage::AssistantChunk(_)
            | ServerMessage::AssistantComplete(_)
            | ServerMessage::RecallPointNearMiss(_)
            | ServerMessage::SessionCompleteOverlay(_) => true,
            ServerMessage::RecallPointRecalled(r) => {
                known.recalled = known.recalled.max(r.recalled_count);
                true
            }
            ServerMessage::RabbitholeDetected(d) => {
                known.offer = Some((d.rabbithole_event_id.clone(), d.topic.clone()));
                true
            }
            ServerMessage::RabbitholeEntered(_) => {
                known.mode = Some(SessionMode::Rabbithole);
                known.mode_pending = false;
                false
            }
            ServerMessage::RabbitholeExited(_) => {
                known.mode = Some(SessionMode::Recall);
                known.mode_pending = false;
                false
            }
            ServerMessage::Error(e) => {
                eprintln!("error frame: {:?} {}", e.code, e.message);
                if let Some(id) = &e.client_message_id {
                    known.unacknowledged.retain(|(sent, _)| sent != id);
                    known.refused += 1;
                }
                false
            }
            ServerMessage::SessionStarted(_)
            | ServerMessage::SessionPaused(_)
            | ServerMessage::ShowImage(_)
            | ServerMessage::ShowResource(_)
            | ServerMessage::SessionComplete(_)
            | ServerMessage::Pong(_)
            | ServerMessage::Resumed(_)
            | ServerMessage::Notice(_) => false,
        };
        if !of_a_turn {
            continue;
        }
        if !known.in_turn && !known.unsolicited_turn && !known.unacknowledged.is_empty() {
            let (id, _) = known.unacknowledged.remove(0);
            known.acknowledged.push(id);
        }
        known.in_turn = true;
        if matches!(frame, ServerMessage::AssistantComplete(_) | ServerMessage::SessionCompleteOverlay(_)) {
            known.in_turn = false;
            known.unsolicited_turn = false;
        }
        if matches!(frame, ServerMessage::SessionCompleteOverlay(_)) {
            known.completed = true;
        }
    }
}

async fn send_message(ws: &mut Socket, id: &str, text: &str) {
    let frame = serde_json::json!({"type": "user_message", "content": text, "clientMessageId": id});
    let _ = ws.send(Message::Text(frame.to_string().into())).await;
}

async fn connect(addr: &str, cookie: &str, session: &str) -> Socket {
    common::connect(addr, cookie, session).await.expect("socket connects")
}

async fn next(ws: &mut Socket) -> Option<ServerMessage> {
    common::next_frame(ws, Duration::from_secs(20)).await
}

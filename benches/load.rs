//! Load: many sessions open at once on one release server, over loopback.
//!
//! The server runs as its own process (the `warren` binary, offline tutor at zero delay, so a
//! turn measures the server's own work), on a fresh SQLite file. One learner signs up; the
//! harness gives them one set per session and opens every session's socket, then every
//! session sends its turns at once. It prints sessions held, the server's resident memory per
//! idle session, turns per second, and the time from sending a message to its finished reply
//! (p50 / p99, as the client sees it on the same machine), first with every session sending
//! at once and then at a steady rate (one message a session, `LOAD_RATE` a second); for the
//! steady rate also the server's own time per turn, from its `/metrics` histogram (bucket
//! bounds), and its CPU time and thread switches per turn. It exits non-zero on any error frame or failed connection.
//!
//! `cargo bench --bench load`; `LOAD_SESSIONS` (default 2000), `LOAD_TURNS` (per session in
//! the burst, default 3) and `LOAD_RATE` (default 100) set the size. `LOAD_INSTANCES` servers
//! (default 1) share `LOAD_DATABASE_URL` (default a fresh SQLite file), the sessions spread
//! over them; `scripts/load-postgres` runs two on a PostgreSQL server it starts.

// A measuring harness: a failure to set up should stop it loudly, like a test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::SinkExt;
use tokio_tungstenite::tungstenite::Message;
use warren::store::{NewPoint, NewSet, Store};
use warren_app::protocol::ServerMessage;

mod common;

use common::Socket;

/// What the servers' `/metrics` asks for.
const METRICS_TOKEN: &str = "load-bench";

/// The server process, killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Resident memory of a process, in KiB.
fn rss_kib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse().ok())
        .unwrap_or(0.0)
}

/// CPU time a process has used (user and system), in seconds, and how many times its threads
/// were switched out (voluntarily or not).
fn cpu_and_switches(pid: u32) -> (f64, u64) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The fields after the command's name (which ends at the last ')'): utime and stime are
    // the 12th and 13th, in clock ticks of 1/100 s.
    let fields: Vec<&str> = stat.rsplit_once(')').map_or("", |(_, rest)| rest).split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|t| t.parse::<f64>().ok()).unwrap_or(0.0);
    let cpu = (ticks(11) + ticks(12)) / 100.0;
    let mut switches = 0;
    if let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        for task in tasks.flatten() {
            let status = std::fs::read_to_string(task.path().join("status")).unwrap_or_default();
            switches += status
                .lines()
                .filter(|l| l.contains("ctxt_switches:"))
                .filter_map(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
                .sum::<u64>();
        }
    }
    (cpu, switches)
}

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|n| n.parse().ok()).unwrap_or(default)
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    let failures = runtime.block_on(run());
    if failures > 0 {
        eprintln!("load: {failures} failures");
        std::process::exit(1);
    }
}

async fn run() -> usize {
    let sessions = env_or("LOAD_SESSIONS", 2000);
    let turns = env_or("LOAD_TURNS", 3);
    let instances = env_or("LOAD_INSTANCES", 1).max(1);
    let dir = tempfile::tempdir().unwrap();
    let database = std::env::var("LOAD_DATABASE_URL")
        .unwrap_or_else(|_| format!("sqlite://{}/load.db", dir.path().display()));
    let mut servers = Vec::with_capacity(instances);
    for _ in 0..instances {
        let port = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let addr = format!("127.0.0.1:{port}");
        let child = Command::new(env!("CARGO_BIN_EXE_warren"))
            .arg("serve")
            .env("WARREN_ADDR", &addr)
            .env("DATABASE_URL", &database)
            .env("WARREN_LLM", "offline")
            .env("WARREN_METRICS_TOKEN", METRICS_TOKEN)
            .env("WARREN_OFFLINE_DELAY_MS", "0")
            .env("WARREN_LOG", "error")
            .stdout(Stdio::null())
            .spawn()
            .expect("the server starts");
        servers.push((Server(child), addr));
    }
    let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    for (_, addr) in &servers {
        common::ready(&http, addr, Duration::from_secs(30)).await;
    }
    let addrs: Vec<String> = servers.iter().map(|(_, addr)| addr.clone()).collect();
    let addr = addrs[0].clone();
    // One sign-in serves every instance: they share the database.
    let cookie = common::sign_up(&http, &addr, "load").await;

    // One set per session (a set has one session under way), written beside the server.
    let store = Store::open(&database).await.unwrap();
    let owner = store.credentials("load").await.unwrap().unwrap().learner;
    let mut ids = Vec::with_capacity(sessions);
    for i in 0..sessions {
        let points = (0..3)
            .map(|p| NewPoint {
                content: format!("Fact {p} of set {i}: the value of item {p} is {}.", p * 7 + i),
                context: format!("What is item {p}?"),
                card: None,
                log: None,
            })
            .collect();
        let set = NewSet { name: format!("Load set {i}"), points, ..NewSet::default() };
        let set_id = store.create_set(&owner, &set).await.unwrap();
        let targets: Vec<String> =
            store.points(&owner, &set_id).await.unwrap().into_iter().map(|p| p.id).collect();
        ids.push(
            store
                .create_session(&owner, Some(&set_id), std::slice::from_ref(&set_id), &targets)
                .await
                .unwrap()
                .id,
        );
    }
    let pids: Vec<u32> = servers.iter().map(|(server, _)| server.0.id()).collect();
    let rss = || pids.iter().map(|pid| rss_kib(*pid)).sum::<f64>();
    let idle_before = rss();

    // Every session's socket, each read to the end of its opening.
    let opened = Instant::now();
    let mut sockets: Vec<Socket> = Vec::with_capacity(sessions);
    let mut failures = 0;
    for (c, chunk) in ids.chunks(100).enumerate() {
        let connects = chunk.iter().enumerate().map(|(i, id)| {
            // Sessions are spread over the instances, as a load balancer would.
            let (addr, cookie) = (addrs[(c * 100 + i) % addrs.len()].clone(), cookie.clone());
            async move {
                let mut socket = common::connect(&addr, &cookie, id).await?;
                read_turn(&mut socket).await.ok()?;
                Some(socket)
            }
        });
        for socket in futures_util::future::join_all(connects).await {
            match socket {
                Some(socket) => sockets.push(socket),
                None => failures += 1,
            }
        }
    }
    let open_time = opened.elapsed();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let idle_after = rss();
    let held = sockets.len();

    // Every session sends its turns at once, each waiting for its reply.
    let burst = Instant::now();
    let runs = sockets.into_iter().enumerate().map(|(s, mut socket)| async move {
        let mut times = Vec::with_capacity(turns);
        for t in 0..turns {
            let frame = serde_json::json!({
                "type": "user_message",
                "content": format!("I think it might be something else entirely ({s}, {t})"),
                "clientMessageId": format!("load-{s}-{t}"),
            });
            let sent = Instant::now();
            if socket.send(Message::Text(frame.to_string().into())).await.is_err() {
                return (times, 1, None);
            }
            match read_turn(&mut socket).await {
                Ok(()) => times.push(sent.elapsed()),
                Err(()) => return (times, 1, None),
            }
        }
        (times, 0, Some(socket))
    });
    let results = futures_util::future::join_all(runs).await;
    let burst_time = burst.elapsed();
    let mut times: Vec<Duration> = Vec::new();
    let mut sockets_after = Vec::with_capacity(held);
    for (t, failed, socket) in results {
        times.extend(t);
        failures += failed;
        sockets_after.extend(socket);
    }
    times.sort();

    // Then at a steady rate the server can keep up with: one message a session, spread out,
    // so the time to a reply is the server's work rather than a queue.
    let rate = env_or("LOAD_RATE", 100).max(1);
    let turns_before = turn_buckets(&http, &addrs).await;
    let work = || pids.iter().map(|pid| cpu_and_switches(*pid)).fold((0.0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    let work_before = work();
    let paced_start = Instant::now();
    let paced = sockets_after.into_iter().enumerate().map(|(s, mut socket)| async move {
        tokio::time::sleep(Duration::from_secs_f64(s as f64 / rate as f64)).await;
        let frame = serde_json::json!({
            "type": "user_message",
            "content": format!("Perhaps it is another thing again ({s})"),
            "clientMessageId": format!("paced-{s}"),
        });
        let sent = Instant::now();
        if socket.send(Message::Text(frame.to_string().into())).await.is_err() {
            return Err(());
        }
        read_turn(&mut socket).await.map(|()| sent.elapsed())
    });
    let mut steady: Vec<Duration> = Vec::new();
    for result in futures_util::future::join_all(paced).await {
        match result {
            Ok(took) => steady.push(took),
            Err(()) => failures += 1,
        }
    }
    let paced_time = paced_start.elapsed();
    let work_after = work();
    let turns_after = turn_buckets(&http, &addrs).await;
    let server_turns: Vec<(f64, u64)> = turns_after
        .iter()
        .map(|(le, n)| (*le, n - turns_before.iter().find(|(b, _)| b == le).map_or(0, |(_, m)| *m)))
        .collect();
    steady.sort();
    let at = |times: &[Duration], q: f64| {
        times.get(((times.len() as f64 - 1.0) * q).round() as usize).copied().unwrap_or_default()
    };
    let per_session = (idle_after - idle_before) / held.max(1) as f64;
    let backend = if database.starts_with("postgres") { "PostgreSQL" } else { "SQLite" };
    println!(
        "load: {sessions} sessions, {turns} turns each, {instances} instance(s) on {backend}: {}",
        addrs.join(", ")
    );
    println!("  sessions held: {held} (opened in {:.1} s), failures: {failures}", open_time.as_secs_f64());
    println!(
        "  server memory: {:.0} MiB before the sockets, {:.0} MiB with them idle: {per_session:.0} KiB per idle session",
        idle_before / 1024.0,
        idle_after / 1024.0
    );
    println!(
        "  turns: {} in {:.1} s with every session sending at once: {:.0} turns/s",
        times.len(),
        burst_time.as_secs_f64(),
        times.len() as f64 / burst_time.as_secs_f64()
    );
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "  message to finished reply, all at once: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        ms(at(&times, 0.5)),
        ms(at(&times, 0.99)),
        ms(times.last().copied().unwrap_or_default())
    );
    println!(
        "  message to finished reply at {rate} turns/s ({} turns in {:.1} s): p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        steady.len(),
        paced_time.as_secs_f64(),
        ms(at(&steady, 0.5)),
        ms(at(&steady, 0.99)),
        ms(steady.last().copied().unwrap_or_default())
    );
    let server_at = |q: f64| {
        let total = server_turns.last().map_or(0, |(_, n)| *n);
        server_turns
            .iter()
            .find(|(_, n)| *n as f64 >= q * total as f64)
            .map_or(f64::INFINITY, |(le, _)| le * 1000.0)
    };
    println!(
        "  server time per turn at {rate} turns/s (message reaching its session to reply sent, from /metrics): p50 ≤ {} ms, p99 ≤ {} ms",
        server_at(0.5),
        server_at(0.99)
    );
    let steady_turns = steady.len().max(1) as f64;
    println!(
        "  server work per turn at {rate} turns/s: {:.0} µs of CPU, {:.1} thread switches",
        (work_after.0 - work_before.0) * 1e6 / steady_turns,
        (work_after.1 - work_before.1) as f64 / steady_turns
    );
    drop(servers);
    failures
}

/// The servers' turn-time histograms, added up: (bucket's upper bound in seconds, turns
/// within it).
async fn turn_buckets(http: &reqwest::Client, addrs: &[String]) -> Vec<(f64, u64)> {
    let mut total: Vec<(f64, u64)> = Vec::new();
    for addr in addrs {
        let text = http
            .get(format!("http://{addr}/metrics"))
            .bearer_auth(METRICS_TOKEN)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let buckets = text.lines().filter_map(|line| {
            let rest = line.strip_prefix("warren_turn_seconds_bucket{le=\"")?;
            let (le, count) = rest.split_once("\"} ")?;
            let le = if le == "+Inf" { f64::INFINITY } else { le.parse().ok()? };
            Some((le, count.trim().parse::<u64>().ok()?))
        });
        for (i, (le, count)) in buckets.enumerate() {
            match total.get_mut(i) {
                Some((_, sum)) => *sum += count,
                None => total.push((le, count)),
            }
        }
    }
    total
}

/// Reads frames to the end of a turn (`assistant_complete`); an error frame or a closed
/// socket fails it.
async fn read_turn(socket: &mut Socket) -> Result<(), ()> {
    loop {
        match common::next_frame(socket, Duration::from_secs(60)).await.ok_or(())? {
            ServerMessage::AssistantComplete(_) => return Ok(()),
            ServerMessage::Error(e) => {
                eprintln!("error frame: {:?} {}", e.code, e.message);
                return Err(());
            }
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

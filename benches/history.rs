//! Server time to render history pages, over HTTP from the real server: a session of 10,000
//! entries (a long main line with a rabbit hole every 200 entries), shown as it opens, with a
//! filter, with a search and as a deep link into a branch; and the history list with 5,000
//! sessions, first page, a later page and a search over every message. Run with
//! `cargo bench --bench history` (release build).

// A measuring harness: a failure to set up should stop it loudly, like a test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use warren::transfer::session::{EntryLine, FORMAT, Header, SessionFile, VERSION, import};
use warren_app::protocol::{SessionMode, SessionStatus};
use warren_app::tree::{EntryKind, Speaker};

mod common;

const ENTRIES: usize = 10_000;
const SESSIONS: usize = 5_000;
const RUNS: usize = 20;

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(run());
}

fn header(id: &str, leaf: Option<String>, started_at: i64) -> Header {
    Header {
        line: "header".into(),
        format: FORMAT.into(),
        version: VERSION,
        session_id: id.into(),
        set_name: "Bench set".into(),
        status: SessionStatus::Completed,
        started_at,
        updated_at: started_at,
        ended_at: Some(started_at),
        active_ms: 60_000,
        leaf_id: leaf,
        points: vec!["A point.".into()],
        review: false,
        point_sets: vec!["Bench set".into()],
        recalled: vec![],
        mode: SessionMode::Recall,
        active_rabbithole_id: None,
        decline_cooldown: 0,
        overlay_dismissed: false,
        rabbitholes: vec![],
        struggles: vec![],
        shown_resources: vec![],
    }
}

fn message(id: String, parent: Option<String>, speaker: Speaker, content: String) -> EntryLine {
    EntryLine {
        line: "entry".into(),
        id,
        parent_id: parent,
        timestamp: 0,
        kind: EntryKind::Message,
        speaker: Some(speaker),
        content,
        data: None,
    }
}

/// A long session: a main line, and every 200 entries a rabbit hole of 20 entries hanging
/// from the main line, with its summary.
fn long_session() -> (SessionFile, String) {
    let mut entries = Vec::with_capacity(ENTRIES);
    let mut main: Option<String> = None;
    let mut branch_entry = String::new();
    while entries.len() < ENTRIES {
        let n = entries.len();
        if n % 200 == 199 && n + 20 <= ENTRIES {
            let from = main.clone();
            let hole = format!("hole-{n}");
            entries.push(EntryLine {
                line: "entry".into(),
                id: format!("e{n}"),
                parent_id: from.clone(),
                timestamp: 0,
                kind: EntryKind::ModeChange,
                speaker: None,
                content: String::new(),
                data: Some(
                    serde_json::json!({"mode": "rabbithole", "rabbitholeId": hole, "topic": "a tangent"}),
                ),
            });
            let mut parent = format!("e{n}");
            for k in 0..18 {
                let id = format!("e{n}-{k}");
                let speaker = if k % 2 == 0 { Speaker::Explorer } else { Speaker::Learner };
                entries.push(message(
                    id.clone(),
                    Some(parent),
                    speaker,
                    format!("Inside hole {n}, message {k}."),
                ));
                parent = id;
            }
            branch_entry = parent;
            entries.push(EntryLine {
                line: "entry".into(),
                id: format!("s{n}"),
                parent_id: from,
                timestamp: 0,
                kind: EntryKind::BranchSummary,
                speaker: None,
                content: format!("Explored a tangent at {n}."),
                data: Some(serde_json::json!({"rabbitholeId": hole})),
            });
            main = Some(format!("s{n}"));
            continue;
        }
        let id = format!("e{n}");
        let (speaker, text) = if n % 2 == 0 {
            (Speaker::Tutor, format!("Question {n}: what comes next, and *why* does it follow?"))
        } else {
            (Speaker::Learner, format!("Answer {n}: I think it is the next step, because of the one before."))
        };
        entries.push(message(id.clone(), main.clone(), speaker, text));
        main = Some(id);
    }
    (SessionFile { header: header("long-session", main, 0), entries }, branch_entry)
}

/// Requests `url` a number of times and prints the median, p90 and size.
async fn timed(http: &reqwest::Client, cookie: &str, name: &str, url: &str) {
    let mut times = Vec::with_capacity(RUNS);
    let mut bytes = 0;
    for _ in 0..RUNS {
        let start = Instant::now();
        let res = http.get(url).header("cookie", cookie).send().await.unwrap();
        assert_eq!(res.status(), 200, "{url}");
        bytes = res.bytes().await.unwrap().len();
        times.push(start.elapsed());
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "  {name:<28} median {:>6.1} ms, p90 {:>6.1} ms, {:>6} KiB",
        ms(times[RUNS / 2]),
        ms(times[RUNS * 9 / 10]),
        bytes / 1024
    );
}

async fn run() {
    let served = common::serve(|_| {}).await;
    let (addr, http, cookie, owner) = (served.addr, &served.http, &served.cookie, &served.owner);
    let store = served.engine.store().clone();

    let (file, in_branch) = long_session();
    let session = import(&store, owner, file).await.unwrap();
    let start = Instant::now();
    store.tree(owner, &session).await.unwrap();
    let first = start.elapsed();
    let start = Instant::now();
    for _ in 0..RUNS {
        store.tree(owner, &session).await.unwrap();
    }
    println!(
        "loading the 10,000-entry tree: {:.1} ms the first time, {:.2} ms after (the cache reads only what was appended since)",
        first.as_secs_f64() * 1000.0,
        start.elapsed().as_secs_f64() * 1000.0 / RUNS as f64
    );
    println!("history pages, server time over HTTP, median and p90 of {RUNS} requests (release build):");
    let page = format!("http://{addr}/history/{session}");
    for (name, url) in [
        ("10,000-entry session", page.clone()),
        ("  learner only", format!("{page}?filter=learner")),
        ("  search", format!("{page}?q=answer+because+999")),
        ("  deep link into a branch", format!("{page}?leafId={in_branch}&targetId={in_branch}")),
    ] {
        timed(http, cookie, name, &url).await;
    }

    for i in 0..SESSIONS {
        let id = format!("short-{i}");
        let entries = vec![
            message(format!("{id}-a"), None, Speaker::Tutor, "What do you remember?".into()),
            message(
                format!("{id}-b"),
                Some(format!("{id}-a")),
                Speaker::Learner,
                format!("Word{i} and more."),
            ),
        ];
        let file = SessionFile { header: header(&id, Some(format!("{id}-b")), 1_000 + i as i64), entries };
        import(&store, owner, file).await.unwrap();
    }
    let list = format!("http://{addr}/history");
    for (name, url) in [
        ("history, 5,001 sessions", list.clone()),
        ("  page 60", format!("{list}?page=60")),
        ("  search of every message", format!("{list}?q=word4321")),
    ] {
        timed(http, cookie, name, &url).await;
    }
}

//! Memory under a burst of sign-ups: 200 learners sign up at once (each from its own loopback
//! address, as the per-address throttle would otherwise refuse most), against a server in
//! this process. Prints the process's resident memory before, its peak during the burst, and
//! after; and how long the sign-ups took. Exits non-zero if any sign-up failed.
//!
//! `cargo bench --bench signin_burst` (release). `SIGNIN_BURST=N` changes the burst size.

// A measuring harness: a failure to set up should stop it loudly, like a test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};

/// `VmRSS` and `VmHWM` (the peak) of this process, in MiB.
fn memory() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

#[tokio::main]
async fn main() {
    let burst: u32 = std::env::var("SIGNIN_BURST").ok().and_then(|n| n.parse().ok()).unwrap_or(200);
    let served = common::serve(|_| {}).await;
    let (rss_before, peak_before) = memory();
    let started = Instant::now();
    let mut tasks = Vec::new();
    for i in 0..burst {
        let addr = served.addr;
        tasks.push(tokio::spawn(async move {
            // 127.0.1.x, 127.0.2.x, …: a distinct address per learner.
            let local = IpAddr::V4(Ipv4Addr::new(127, 0, 1 + (i / 250) as u8, 1 + (i % 250) as u8));
            let http = reqwest::Client::builder()
                .local_address(local)
                .redirect(reqwest::redirect::Policy::none())
                .timeout(Duration::from_secs(120))
                .build()
                .expect("client");
            let begun = Instant::now();
            let res = http
                .post(format!("http://{addr}/auth/signup"))
                .form(&[("username", format!("burst{i}")), ("password", "correct horse battery".into())])
                .send()
                .await;
            let ok =
                res.is_ok_and(|r| r.status() == 303 && r.headers().get("location").is_some_and(|l| l == "/"));
            (ok, begun.elapsed())
        }));
    }
    let mut times = Vec::new();
    let mut failed = 0;
    for task in tasks {
        match task.await {
            Ok((true, took)) => times.push(took),
            Ok((false, _)) | Err(_) => failed += 1,
        }
    }
    let total = started.elapsed();
    let (rss_after, peak) = memory();
    times.sort();
    let at =
        |q: f64| times.get(((times.len() as f64 - 1.0) * q).round() as usize).copied().unwrap_or_default();
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    println!("sign-up burst: {burst} at once, {cores} cores, hashes bounded to {cores} at a time");
    println!("  signed up: {} ok, {failed} failed, in {:.1} s", times.len(), total.as_secs_f64());
    println!("  time per sign-up: p50 {:.2} s, p99 {:.2} s", at(0.5).as_secs_f64(), at(0.99).as_secs_f64());
    println!(
        "  resident memory: {rss_before:.0} MiB before (peak so far {peak_before:.0}), peak {peak:.0} MiB during, {rss_after:.0} MiB after"
    );
    println!("  peak growth over the burst: {:.0} MiB", peak - rss_before);
    drop(served);
    if failed > 0 {
        std::process::exit(1);
    }
}

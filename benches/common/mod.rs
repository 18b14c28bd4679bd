//! What the benchmarks that talk to the real server share: the server on a free port with a
//! fresh SQLite file, and a learner signed up through the real form.

// Each benchmark uses what it needs of this.
#![allow(dead_code)]

use std::net::SocketAddr;

use warren::config::Config;
use warren::engine::Engine;
use warren::startup::Application;

pub struct Served {
    pub addr: SocketAddr,
    pub engine: Engine,
    pub http: reqwest::Client,
    /// The learner's sign-in cookie, and their id.
    pub cookie: String,
    pub owner: String,
    _dir: tempfile::TempDir,
}

/// Serves Warren (with `adjust` applied to its configuration) and signs a learner up.
pub async fn serve(adjust: impl FnOnce(&mut Config)) -> Served {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut config = Config::for_database(format!("sqlite://{}/bench.db", dir.path().display()));
    adjust(&mut config);
    let app = Application::build(&config).await.expect("app starts");
    let addr = app.local_addr();
    let engine = app.engine();
    tokio::spawn(app.run());
    let http =
        reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client");
    let res = http
        .post(format!("http://{addr}/auth/signup"))
        .form(&[("username", "bench"), ("password", "correct horse battery")])
        .send()
        .await
        .expect("sign-up");
    let cookie = res
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("warren_session="))
        .and_then(|v| v.split(';').next())
        .expect("a sign-in cookie")
        .to_string();
    let owner = engine.store().account_by_username("bench").await.expect("store").expect("account").id;
    Served { addr, engine, http, cookie, owner, _dir: dir }
}

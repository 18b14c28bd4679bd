//! What the benchmarks that talk to the real server share: the server on a free port with a
//! fresh SQLite file, and a learner signed up through the real form.

// Each benchmark uses what it needs of this.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::time::Duration;
use warren_app::learner::LearnerId;

use futures_util::StreamExt;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use warren_app::protocol::ServerMessage;

use warren::config::Config;
use warren::engine::Engine;
use warren::startup::Application;

pub struct Served {
    pub addr: SocketAddr,
    pub engine: Engine,
    pub http: reqwest::Client,
    /// The learner's sign-in cookie, and their id.
    pub cookie: String,
    pub owner: LearnerId,
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
    let cookie = sign_up(&http, &addr.to_string(), "bench").await;
    let owner = engine.store().credentials("bench").await.expect("store").expect("account").learner;
    Served { addr, engine, http, cookie, owner, _dir: dir }
}

/// A learner socket.
pub type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Signs a learner up through the real form; returns their sign-in cookie.
pub async fn sign_up(http: &reqwest::Client, addr: &str, username: &str) -> String {
    let res = http
        .post(format!("http://{addr}/auth/signup"))
        .form(&[("username", username), ("password", "correct horse battery")])
        .send()
        .await
        .expect("sign-up");
    res.headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("warren_session="))
        .and_then(|v| v.split(';').next())
        .expect("a sign-in cookie")
        .to_string()
}

/// Opens a session's socket as the learner with `cookie`; `None` if it cannot.
pub async fn connect(addr: &str, cookie: &str, session: &str) -> Option<Socket> {
    let mut request = format!("ws://{addr}/ws/sessions/{session}").into_client_request().ok()?;
    request.headers_mut().insert("cookie", cookie.parse().ok()?);
    Some(tokio_tungstenite::connect_async(request).await.ok()?.0)
}

/// The next protocol frame, `None` when the socket closes, fails or says nothing for `within`.
pub async fn next_frame(ws: &mut Socket, within: Duration) -> Option<ServerMessage> {
    loop {
        match tokio::time::timeout(within, ws.next()).await.ok()?? {
            Ok(Message::Text(text)) => return serde_json::from_str(&text).ok(),
            Ok(Message::Close(_)) | Err(_) => return None,
            Ok(_) => continue,
        }
    }
}

/// Waits until a server answers `/readyz`.
pub async fn ready(http: &reqwest::Client, addr: &str, within: Duration) {
    let started = std::time::Instant::now();
    while !http.get(format!("http://{addr}/readyz")).send().await.is_ok_and(|r| r.status().is_success()) {
        assert!(started.elapsed() < within, "the server at {addr} did not come up");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

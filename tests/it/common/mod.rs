//! Starts the real application on a random port against a fresh SQLite file, and speaks to it
//! over HTTP and WebSocket like a browser would.

#![allow(dead_code)]

pub mod fake_llm;
pub mod fake_transcribe;
pub mod pg;
pub mod process;

use std::net::SocketAddr;
use std::time::Duration;
use warren_app::learner::LearnerId;

use futures_util::{SinkExt, StreamExt};
use tempfile::TempDir;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use warren::config::Config;
use warren::engine::{Attachment, Engine, Outbound};
use warren::startup::Application;
use warren::store::{Point, Store};
use warren_app::protocol::{ServerFrame, ServerMessage};

pub struct TestApp {
    pub addr: SocketAddr,
    pub database_url: String,
    pub http: reqwest::Client,
    pub engine: Engine,
    /// A learner signed up when the app started; `start` and `connect` act as them.
    pub learner: Learner,
    /// The SQLite file's folder, owned by the first instance (see `another_instance`).
    _dir: Option<TempDir>,
}

/// A signed-up learner and their sign-in cookie.
#[derive(Clone, Debug)]
pub struct Learner {
    pub id: LearnerId,
    pub username: String,
    pub cookie: String,
}

pub const PASSWORD: &str = "correct horse battery";
/// What the test apps' `/metrics` asks for (see [`TestApp::metrics`]).
pub const METRICS_TOKEN: &str = "metrics-for-the-tests";

impl TestApp {
    pub async fn spawn() -> Self {
        Self::spawn_with(|_| {}).await
    }

    pub async fn spawn_with(adjust: impl FnOnce(&mut Config)) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let database_url = fresh_database(&dir).await;
        Self::spawn_at(dir, database_url, adjust).await
    }

    /// On a SQLite file, whichever database the other tests run on.
    pub async fn spawn_sqlite_with(adjust: impl FnOnce(&mut Config)) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let database_url = format!("sqlite://{}/warren.db", dir.path().display());
        Self::spawn_at(dir, database_url, adjust).await
    }

    /// On `database_url`, whose folder (if any) is `dir`.
    pub async fn spawn_at(dir: TempDir, database_url: String, adjust: impl FnOnce(&mut Config)) -> Self {
        let mut config = Config::for_database(&database_url);
        config.metrics_token = Some(METRICS_TOKEN.into());
        adjust(&mut config);
        let app = Application::build(&config).await.expect("app starts");
        let addr = app.local_addr();
        let engine = app.engine();
        tokio::spawn(app.run());
        let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
        let placeholder = Learner { id: LearnerId::new(""), username: String::new(), cookie: String::new() };
        let mut app = Self { addr, database_url, http, engine, learner: placeholder, _dir: Some(dir) };
        app.learner = app.sign_up("learner").await;
        app
    }

    /// The app with its language model at a fake server speaking `wire`'s format.
    pub async fn on_fake(wire: fake_llm::Wire, fake: &fake_llm::FakeLlm) -> Self {
        Self::on_fake_with(wire, fake, |_| {}).await
    }

    pub async fn on_fake_with(
        wire: fake_llm::Wire,
        fake: &fake_llm::FakeLlm,
        adjust: impl FnOnce(&mut Config),
    ) -> Self {
        let base = fake.base_url();
        Self::spawn_with(|c| {
            adjust(c);
            match wire {
                fake_llm::Wire::Anthropic => {
                    c.llm.provider = warren::config::ProviderChoice::Anthropic;
                    c.llm.anthropic_api_key = Some("sk-test".into());
                    c.llm.anthropic_base_url = base;
                }
                fake_llm::Wire::OpenAi => {
                    c.llm.provider = warren::config::ProviderChoice::Openai;
                    c.llm.openai_base_url = Some(base);
                }
            }
        })
        .await
    }

    /// Another Warren on the same database, as after a restart: fresh actors that know only
    /// what was stored. The learner's sign-in carries over.
    pub async fn another_instance(&self) -> TestApp {
        self.another_instance_with(|_| {}).await
    }

    /// Another Warren on the same database, configured as `adjust` says.
    pub async fn another_instance_with(&self, adjust: impl FnOnce(&mut Config)) -> TestApp {
        let mut config = Config::for_database(&self.database_url);
        config.metrics_token = Some(METRICS_TOKEN.into());
        adjust(&mut config);
        let app = Application::build(&config).await.expect("app starts");
        let addr = app.local_addr();
        let engine = app.engine();
        tokio::spawn(app.run());
        TestApp {
            addr,
            database_url: self.database_url.clone(),
            http: self.http.clone(),
            engine,
            learner: self.learner.clone(),
            _dir: None,
        }
    }

    /// The engine's counters, as the operator's monitoring reads them.
    pub async fn metrics(&self) -> String {
        let res = self.http.get(self.url("/metrics")).bearer_auth(METRICS_TOKEN).send().await.unwrap();
        assert_eq!(res.status(), 200, "/metrics with the token");
        res.text().await.unwrap()
    }

    /// Signs up through the real form handler; returns the learner with their cookie.
    pub async fn sign_up(&self, username: &str) -> Learner {
        let res = self
            .http
            .post(self.url("/auth/signup"))
            .form(&[("username", username), ("password", PASSWORD)])
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 303, "sign-up redirects");
        assert_eq!(res.headers()["location"], "/", "sign-up succeeded");
        let cookie = session_cookie(&res).expect("a session cookie");
        let id = self.store().credentials(username).await.unwrap().expect("account").learner;
        Learner { id, username: username.to_string(), cookie }
    }

    pub fn owner(&self) -> &LearnerId {
        &self.learner.id
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    pub fn store(&self) -> &Store {
        self.engine.store()
    }

    /// A new session on the named demo set, and its target points in order.
    pub async fn start(&self, set_name: &str) -> (String, Vec<Point>) {
        self.start_as(&self.learner, set_name).await
    }

    pub async fn start_as(&self, learner: &Learner, set_name: &str) -> (String, Vec<Point>) {
        let sets = self.store().list_sets(&learner.id, i64::MAX).await.unwrap();
        let set = sets.iter().find(|s| s.name == set_name).expect("demo set exists");
        let session = self.engine.start_session(&learner.id, &set.id, true).await.unwrap();
        let points = self.store().points(&learner.id, &set.id).await.unwrap();
        (session.id, points)
    }

    pub async fn connect(&self, session_id: &str) -> Ws {
        self.connect_as(Some(&self.learner.cookie), session_id).await
    }

    /// Opens the session socket with the given sign-in cookie (or none).
    pub async fn connect_as(&self, cookie: Option<&str>, session_id: &str) -> Ws {
        self.connect_to(cookie, &format!("/ws/sessions/{session_id}")).await
    }

    /// Opens the session socket again as a page that saw frames up to `since` would.
    pub async fn reconnect(&self, session_id: &str, since: u64) -> Ws {
        self.connect_to(Some(&self.learner.cookie), &format!("/ws/sessions/{session_id}?since={since}")).await
    }

    async fn connect_to(&self, cookie: Option<&str>, path: &str) -> Ws {
        socket_at(&self.addr.to_string(), cookie, path).await
    }
}

/// Opens a socket on the server at `addr` with the given sign-in cookie (or none).
pub async fn socket_at(addr: &str, cookie: Option<&str>, path: &str) -> Ws {
    let url = format!("ws://{addr}{path}");
    let mut request = url.into_client_request().unwrap();
    if let Some(cookie) = cookie {
        request.headers_mut().insert("cookie", cookie.parse().unwrap());
    }
    let (stream, _) = tokio_tungstenite::connect_async(request).await.expect("socket connects");
    Ws { stream }
}

/// `name=value` of the sign-in cookie a response sets.
pub fn session_cookie(res: &reqwest::Response) -> Option<String> {
    res.headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("warren_session="))
        .and_then(|v| v.split(';').next())
        .map(str::to_string)
}

/// An empty database: a SQLite file in `dir`, or with `WARREN_TEST_POSTGRES_URL` set
/// (scripts/test sets it) a new database on that PostgreSQL server.
pub async fn fresh_database(dir: &TempDir) -> String {
    match std::env::var("WARREN_TEST_POSTGRES_URL") {
        Ok(server) => fresh_postgres_database(&server).await,
        Err(_) => format!("sqlite://{}/warren.db", dir.path().display()),
    }
}

async fn fresh_postgres_database(server: &str) -> String {
    use sqlx::Connection;
    let name = format!("warren_test_{}", uuid::Uuid::now_v7().simple());
    let mut admin = sqlx::PgConnection::connect(server).await.expect("PostgreSQL reachable");
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut admin)
        .await
        .expect("create database");
    let (base, _) = server.rsplit_once('/').expect("a database URL");
    format!("{base}/{name}")
}

pub struct Ws {
    pub stream: WebSocketStream<MaybeTlsStream<tokio::net::TcpStream>>,
}

/// A frame's `type`.
pub fn kind(m: &ServerMessage) -> &'static str {
    m.frame_type().as_str()
}

/// The next frame an engine attachment receives within `within`, read as a page reads it.
pub async fn attached_frame(a: &mut Attachment, within: Duration) -> Option<ServerMessage> {
    match tokio::time::timeout(within, a.messages.recv()).await.ok()?? {
        Outbound::Frame(text) => Some(serde_json::from_str(&text).expect("a frame the client reads")),
        Outbound::TakenOver(error) | Outbound::SignedOut(error) | Outbound::Paused(error) => {
            Some(ServerMessage::Error(error))
        }
    }
}

impl Ws {
    pub async fn send_raw(&mut self, text: impl Into<String>) {
        self.stream.send(Message::Text(text.into().into())).await.expect("send");
    }

    pub async fn send(&mut self, value: serde_json::Value) {
        self.send_raw(value.to_string()).await;
    }

    pub async fn say(&mut self, content: &str) -> Vec<ServerMessage> {
        self.send(serde_json::json!({"type": "user_message", "content": content})).await;
        self.until(|m| {
            matches!(
                m,
                ServerMessage::AssistantComplete(_)
                    | ServerMessage::SessionCompleteOverlay(_)
                    | ServerMessage::Error(_)
            )
        })
        .await
    }

    /// Takes the rabbit hole offered among `frames` (failing the test when none is); the
    /// frames up to the explorer's opening.
    pub async fn enter(&mut self, frames: &[ServerMessage]) -> Vec<ServerMessage> {
        let offer = frames
            .iter()
            .find_map(|m| match m {
                ServerMessage::RabbitholeDetected(d) => Some(d.clone()),
                _ => None,
            })
            .expect("a rabbit hole offered");
        let enter = serde_json::json!({"type": "enter_rabbithole", "rabbitholeEventId": offer.rabbithole_event_id, "topic": offer.topic});
        self.send(enter).await;
        self.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await
    }

    /// Takes the rabbit hole offered among `frames`, says `said` inside it, and comes back to
    /// the main line.
    pub async fn explore(&mut self, frames: &[ServerMessage], said: &str) {
        self.enter(frames).await;
        self.say(said).await;
        self.send(serde_json::json!({"type": "exit_rabbithole"})).await;
        self.until(|m| matches!(m, ServerMessage::RabbitholeExited(_))).await;
    }

    /// The next frame, failing the test after ten seconds of silence.
    pub async fn next(&mut self) -> ServerMessage {
        self.next_frame().await.message
    }

    /// The next frame with its place in the stream.
    pub async fn next_frame(&mut self) -> ServerFrame {
        loop {
            let frame = tokio::time::timeout(Duration::from_secs(10), self.stream.next())
                .await
                .expect("a frame within 10 s")
                .expect("socket open")
                .expect("frame");
            match frame {
                Message::Text(text) => return serde_json::from_str(&text).expect("a protocol frame"),
                Message::Close(close) => panic!("socket closed: {close:?}"),
                _ => continue,
            }
        }
    }

    /// Frames up to and including the first that matches.
    pub async fn until(&mut self, done: impl Fn(&ServerMessage) -> bool) -> Vec<ServerMessage> {
        let mut seen = Vec::new();
        loop {
            let frame = self.next().await;
            let stop = done(&frame);
            seen.push(frame);
            if stop {
                return seen;
            }
        }
    }

    /// The code the socket closes with (after any frames still on their way), within `within`.
    pub async fn close_code(&mut self, within: Duration) -> Option<u16> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            match tokio::time::timeout_at(deadline, self.stream.next()).await.ok()? {
                Some(Ok(Message::Close(close))) => return close.map(|c| u16::from(c.code)),
                Some(Ok(_)) => continue,
                Some(Err(_)) | None => return None,
            }
        }
    }

    /// Nothing arrives for a short while.
    pub async fn quiet(&mut self) -> bool {
        tokio::time::timeout(Duration::from_millis(300), self.stream.next()).await.is_err()
    }
}

pub fn kinds(frames: &[ServerMessage]) -> Vec<&'static str> {
    frames.iter().map(kind).filter(|k| *k != "assistant_chunk").collect()
}

/// The finished reply among a turn's frames.
pub fn reply_of(frames: &[ServerMessage]) -> String {
    frames
        .iter()
        .find_map(|m| match m {
            ServerMessage::AssistantComplete(done) => Some(done.full_content.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no reply in {frames:?}"))
}

pub fn recalled_ids(frames: &[ServerMessage]) -> Vec<String> {
    frames
        .iter()
        .filter_map(|m| match m {
            ServerMessage::RecallPointRecalled(r) => Some(r.point_id.clone()),
            _ => None,
        })
        .collect()
}

/// The rabbit hole offered among `frames`, if one was.
pub fn offered(frames: &[ServerMessage]) -> Option<warren_app::protocol::RabbitholeDetected> {
    frames.iter().find_map(|m| match m {
        ServerMessage::RabbitholeDetected(d) => Some(d.clone()),
        _ => None,
    })
}

impl Ws {
    /// Takes a session of "The living cell" whose opening has been read down the rabbit hole
    /// of where mitochondria came from (two quiet exchanges, the tangent, Explore), and reads
    /// the explorer's opening; returns the offer taken.
    pub async fn enter_the_mitochondria_hole(&mut self) -> warren_app::protocol::RabbitholeDetected {
        self.say("How did the printing press change Europe?").await;
        self.say("ok").await;
        let frames = self.say("Where did mitochondria originally come from, endosymbiosis?").await;
        let hole =
            offered(&frames).unwrap_or_else(|| panic!("no rabbit hole offered in {:?}", kinds(&frames)));
        self.send(serde_json::json!({"type": "enter_rabbithole", "rabbitholeEventId": hole.rabbithole_event_id, "topic": hole.topic}))
            .await;
        self.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
        hole
    }
}

//! Debian's nginx in front of two instances, with the configuration the README documents
//! (`deploy/nginx.conf`): sign-up and pages through it, a live session's socket upgraded
//! through it, the learner's own address believed from `X-Forwarded-For` and nobody else's,
//! a body the size of an archive let through, and the session taken over by the other
//! instance when the proxy sends a reconnect there.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use warren_app::protocol::ServerMessage;

use crate::common::process::Process;
use crate::common::{TestApp, Ws, reply_of, session_cookie};

/// Where Debian puts nginx; `NGINX` says otherwise.
fn nginx() -> PathBuf {
    let path = std::env::var_os("NGINX").map_or_else(|| PathBuf::from("/usr/sbin/nginx"), PathBuf::from);
    assert!(
        path.exists(),
        "no nginx at {}: scripts/test installs Debian's (apt-get install nginx)",
        path.display()
    );
    path
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// nginx, unprivileged, with the documented server block (its upstream and port swapped for
/// this test's); stopped when dropped.
struct Nginx {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Nginx {
    async fn start(upstreams: &[&str]) -> Nginx {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let documented =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/nginx.conf")).unwrap();
        let servers: String = upstreams.iter().map(|a| format!("    server {a};\n")).collect();
        let block = documented
            .replace("    server 127.0.0.1:3001;\n    server 127.0.0.1:3002;\n", &servers)
            .replace("listen 80;", &format!("listen 127.0.0.1:{port};"));
        assert!(
            block.contains(&servers) && block.contains(&port.to_string()),
            "the documented file's shape changed"
        );
        let prefix = dir.path();
        for temp in ["body", "proxy", "fastcgi", "uwsgi", "scgi", "logs"] {
            std::fs::create_dir_all(prefix.join(temp)).unwrap();
        }
        let main = format!(
            "daemon off;\nworker_processes 1;\npid {p}/nginx.pid;\nerror_log {p}/logs/error.log warn;\n\
             events {{ worker_connections 256; }}\n\
             http {{\n  access_log off;\n  client_body_temp_path {p}/body;\n  proxy_temp_path {p}/proxy;\n  \
             fastcgi_temp_path {p}/fastcgi;\n  uwsgi_temp_path {p}/uwsgi;\n  scgi_temp_path {p}/scgi;\n{block}\n}}\n",
            p = prefix.display()
        );
        let conf = prefix.join("nginx.conf");
        std::fs::write(&conf, main).unwrap();
        let child = Command::new(nginx())
            .arg("-p")
            .arg(prefix)
            .arg("-c")
            .arg(&conf)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nginx starts");
        // Stopped when dropped, even if it never comes up.
        let nginx = Nginx { child, port, _dir: dir };
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "nginx did not listen: {}", read_log(nginx._dir.path()));
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        nginx
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

fn read_log(prefix: &Path) -> String {
    std::fs::read_to_string(prefix.join("logs/error.log")).unwrap_or_default()
}

impl Drop for Nginx {
    /// A fast shutdown (SIGTERM), so the master stops its worker too.
    fn drop(&mut self) {
        let _ = Command::new("kill").arg("-TERM").arg(self.child.id().to_string()).status();
        let _ = self.child.wait();
    }
}

/// A socket through the proxy, as a browser opens it: with the page's origin.
async fn socket(proxy: &Nginx, cookie: &str, session: &str) -> Ws {
    let mut request =
        format!("ws://127.0.0.1:{}/ws/sessions/{session}", proxy.port).into_client_request().unwrap();
    request.headers_mut().insert("cookie", cookie.parse().unwrap());
    request.headers_mut().insert("origin", format!("http://127.0.0.1:{}", proxy.port).parse().unwrap());
    let (stream, _) =
        tokio_tungstenite::connect_async(request).await.expect("the socket upgrades through nginx");
    Ws { stream }
}

fn complete(m: &ServerMessage) -> bool {
    matches!(m, ServerMessage::AssistantComplete(_))
}

/// Which instance runs the session now (from each one's `/readyz`).
async fn runner(instances: &[&Process]) -> Option<usize> {
    for (i, instance) in instances.iter().enumerate() {
        if instance.readyz().await["sessions"] == 1 {
            return Some(i);
        }
    }
    None
}

#[tokio::test]
async fn a_live_session_runs_through_nginx_in_front_of_two_instances_and_moves_between_them() {
    let proxy_from = "127.0.0.1";
    // The app below only owns the database; the learner talks to the two processes.
    let app = TestApp::spawn().await;
    let vars = [("WARREN_TRUSTED_PROXIES", proxy_from), ("WARREN_OFFLINE_DELAY_MS", "5")];
    let a = Process::serve(&app.database_url, &[&vars[..], &[("WARREN_INSTANCE_ID", "a")]].concat()).await;
    let b = Process::serve(&app.database_url, &[&vars[..], &[("WARREN_INSTANCE_ID", "b")]].concat()).await;
    let proxy = Nginx::start(&[&a.addr, &b.addr]).await;

    // A learner whose machine is 127.0.0.2 (the loopback network is all this host's), with a
    // forged header of their own: Warren believes nginx about them, and them about nothing.
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .local_address(std::net::IpAddr::from([127, 0, 0, 2]))
        .build()
        .unwrap();
    let origin = format!("http://127.0.0.1:{}", proxy.port);
    let res = browser
        .post(proxy.url("/auth/signup"))
        .header("origin", &origin)
        .header("x-forwarded-for", "203.0.113.9")
        .form(&[("username", "proxied"), ("password", crate::common::PASSWORD)])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 303, "{}", res.text().await.unwrap_or_default());
    let cookie = session_cookie(&res).expect("signed in through the proxy");
    let account = browser.get(proxy.url("/account")).header("cookie", &cookie).send().await.unwrap();
    let page = account.text().await.unwrap();
    assert!(page.contains("127.0.0.2"), "the sign-in is from the learner's own address: {page}");
    assert!(!page.contains("203.0.113.9"), "a header the learner forged is not believed");

    // A body the size of an archive passes nginx (its default stops at 1 MB); Warren reads it.
    let big = vec![b'a'; 3 * 1024 * 1024];
    let form = reqwest::multipart::Form::new()
        .part("file", reqwest::multipart::Part::bytes(big).file_name("big.csv"));
    let res = browser
        .post(proxy.url("/import"))
        .header("cookie", &cookie)
        .header("origin", &origin)
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_ne!(res.status(), 413, "nginx let a 3 MB upload through");

    // A session started through the proxy, studied over a socket nginx upgrades.
    let learner = app.store().credentials("proxied").await.unwrap().unwrap().learner;
    let sets = app.store().list_sets(&learner, i64::MAX).await.unwrap();
    let set = sets.iter().find(|s| s.name == "The living cell").unwrap();
    let points = app.store().points(&learner, &set.id).await.unwrap();
    let session = app.engine.start_session(&learner, &set.id, true).await.unwrap().id;
    let mut ws = socket(&proxy, &cookie, &session).await;
    ws.until(complete).await;
    let frames = ws.say(&points[0].content).await;
    assert!(!reply_of(&frames).is_empty());
    let first = runner(&[&a, &b]).await.expect("one instance runs it");

    // The learner's connection drops; nginx sends the reconnect to an instance of its choosing
    // (round robin): until it reaches the other one, which takes the session over.
    drop(ws);
    let mut moved = None;
    for _ in 0..6 {
        let mut again = socket(&proxy, &cookie, &session).await;
        let frames = again.until(|m| matches!(m, ServerMessage::SessionStarted(_))).await;
        assert!(matches!(frames.last(), Some(ServerMessage::SessionStarted(_))));
        // Whoever runs it now (the one that handed it over stops within a moment).
        let mut now = None;
        for _ in 0..40 {
            now = runner(&[&a, &b]).await;
            let both = a.readyz().await["sessions"] == 1 && b.readyz().await["sessions"] == 1;
            if now.is_some() && !both {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        if now.is_some_and(|now| now != first) {
            moved = Some(again);
            break;
        }
    }
    let mut ws = moved.expect("a reconnect reached the other instance, which took the session over");
    let frames = ws.say(&points[1].content).await;
    assert!(!reply_of(&frames).is_empty(), "answered by the instance that took over");
    let recalled: Vec<String> =
        app.store().outcomes(&learner, &session).await.unwrap().into_iter().map(|o| o.point_id).collect();
    assert!(recalled.contains(&points[0].id) && recalled.contains(&points[1].id), "{recalled:?}");
    let entries = app.store().entries(&learner, &session).await.unwrap();
    for said in [&points[0].content, &points[1].content] {
        assert_eq!(entries.iter().filter(|e| &e.content == said).count(), 1, "{said} kept once");
    }
}

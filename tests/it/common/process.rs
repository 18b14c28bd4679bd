//! Warren as its own process (`warren serve`), for what only a process shows: two instances
//! on one database, and one killed with SIGKILL.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Process {
    child: Option<Child>,
    pub addr: String,
    pub http: reqwest::Client,
}

impl Process {
    /// Starts `warren serve` on `database` with the offline tutor and the given variables,
    /// and waits until it is ready.
    pub async fn serve(database: &str, vars: &[(&str, &str)]) -> Self {
        let process = Self::start(database, vars);
        process.wait_ready().await;
        process
    }

    /// Starts it without waiting.
    pub fn start(database: &str, vars: &[(&str, &str)]) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let addr = format!("127.0.0.1:{port}");
        let mut command = Command::new(env!("CARGO_BIN_EXE_warren"));
        command
            .arg("serve")
            .env("WARREN_ADDR", &addr)
            .env("DATABASE_URL", database)
            .env("WARREN_LLM", "offline")
            .env("WARREN_LOG", "warn")
            .stdout(Stdio::null());
        for (name, value) in vars {
            command.env(name, value);
        }
        let child = command.spawn().expect("the server starts");
        let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
        Self { child: Some(child), addr, http }
    }

    /// `/readyz` answers 200 within 30 seconds, or the test fails.
    pub async fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(res) = self.http.get(self.url("/readyz")).send().await
                && res.status() == 200
            {
                return;
            }
            assert!(Instant::now() < deadline, "{} never became ready", self.addr);
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub async fn readyz(&self) -> serde_json::Value {
        self.http.get(self.url("/readyz")).send().await.unwrap().json().await.unwrap()
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Sends a signal by name (`STOP`, `CONT`), as `kill -NAME` does.
    pub fn signal(&self, name: &str) {
        let Some(child) = &self.child else { return };
        let sent = Command::new("kill").arg(format!("-{name}")).arg(child.id().to_string()).status();
        assert!(sent.is_ok_and(|s| s.success()), "kill -{name} {}", child.id());
    }

    /// SIGKILL: no shutdown, nothing flushed or given back.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

//! Starts the real application on a random port against a fresh SQLite file.

#![allow(dead_code)]

use std::net::SocketAddr;

use tempfile::TempDir;
use warren::config::Config;
use warren::startup::Application;

pub struct TestApp {
    pub addr: SocketAddr,
    pub database_url: String,
    pub http: reqwest::Client,
    _dir: TempDir,
}

impl TestApp {
    pub async fn spawn() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let database_url = format!("sqlite://{}/warren.db", dir.path().display());
        let app = Application::build(&Config::for_database(&database_url)).await.expect("app starts");
        let addr = app.local_addr();
        tokio::spawn(app.run());
        Self { addr, database_url, http: reqwest::Client::new(), _dir: dir }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }
}

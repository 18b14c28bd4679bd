//! A PostgreSQL server of a test's own, which the test may stop and start again (the shared
//! one of `WARREN_TEST_POSTGRES_URL` serves every other test and must stay up). Debian's
//! PostgreSQL, as `scripts/test` installs it; run as the `postgres` user when the tests run as
//! root, as initdb requires.

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct PgServer {
    bin: PathBuf,
    dir: tempfile::TempDir,
    pub port: u16,
}

/// The newest of Debian's PostgreSQL versions installed.
fn bin_dir() -> PathBuf {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| d.filter_map(Result::ok).map(|e| e.path().join("bin")).filter(|b| b.exists()).collect())
        .unwrap_or_default();
    versions.sort_by_key(|p| {
        p.parent().and_then(Path::file_name).and_then(|v| v.to_str()).and_then(|v| v.parse::<u32>().ok())
    });
    versions.pop().expect("Debian's PostgreSQL under /usr/lib/postgresql: scripts/test installs it")
}

fn as_postgres(command: &Path) -> Command {
    // Root or not, as `id -u` tells (the scripts ask the same).
    let root = Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.starts_with(b"0"));
    if root {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(command);
        c
    } else {
        Command::new(command)
    }
}

impl PgServer {
    /// A new server on a free port, started.
    pub fn start() -> PgServer {
        let bin = bin_dir();
        let dir = tempfile::tempdir().unwrap();
        let _ = Command::new("chown").args(["-R", "postgres"]).arg(dir.path()).status();
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let status = as_postgres(&bin.join("initdb"))
            .args(["-A", "trust", "-U", "warren", "-D"])
            .arg(dir.path().join("data"))
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "initdb");
        let server = PgServer { bin, dir, port };
        server.up();
        server
    }

    /// What the server logged.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default()
    }

    pub fn url(&self) -> String {
        format!("postgres://warren@127.0.0.1:{}/warren", self.port)
    }

    /// Starts it (again), and waits until it takes connections.
    pub fn up(&self) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            self.port,
            self.dir.path().display()
        );
        let status = as_postgres(&self.bin.join("pg_ctl"))
            .arg("-D")
            .arg(self.dir.path().join("data"))
            .arg("-l")
            .arg(self.dir.path().join("log"))
            .args(["-w", "-o", &options, "start"])
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "pg_ctl start");
    }

    /// Stops it as an operator restarting it would (fast: connections are cut).
    pub fn down(&self) {
        let status = as_postgres(&self.bin.join("pg_ctl"))
            .arg("-D")
            .arg(self.dir.path().join("data"))
            .args(["-m", "fast", "-w", "stop"])
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "pg_ctl stop");
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        let _ = as_postgres(&self.bin.join("pg_ctl"))
            .arg("-D")
            .arg(self.dir.path().join("data"))
            .args(["-m", "immediate", "stop"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
    }
}

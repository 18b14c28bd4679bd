//! Logging with `tracing`; the filter comes from `WARREN_LOG` (see `config`).

use std::io::{self, Write};

use tracing_subscriber::EnvFilter;

pub fn init(filter: &str) {
    let filter = EnvFilter::try_new(filter).unwrap_or_else(|err| {
        eprintln!("warning: WARREN_LOG '{filter}' is not a valid filter ({err}); using 'info'");
        EnvFilter::new("info")
    });
    // To stderr: stdout is for what a command prints (`warren export` writes a file there).
    // `try_init` so that tests starting several apps in one process do not panic.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .with_writer(|| OneLine(io::stderr()))
        .try_init();
}

/// Keeps each log record on one line. Records carry text from outside (a provider's error
/// body, a tool name a model chose, a file's name): a line break in it could forge a record
/// of its own, and `tracing-subscriber` escapes only terminal escape sequences. The formatter
/// hands over each record whole, ending in its one newline; every other line break or control
/// character in it is written escaped (`\n`, `\u{2028}`, `\0`).
pub struct OneLine<W>(pub W);

impl<W: Write> Write for OneLine<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        let (record, end) = match text.strip_suffix('\n') {
            Some(record) => (record, "\n"),
            None => (&*text, ""),
        };
        let mut out = String::with_capacity(buf.len() + 8);
        for c in record.chars() {
            match c {
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                // Tabs are harmless; ESC starts the formatter's own colours (escaped in values).
                '\t' | '\x1b' => out.push(c),
                c if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') => {
                    out.extend(c.escape_unicode());
                }
                c => out.push(c),
            }
        }
        out.push_str(end);
        self.0.write_all(out.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().map_err(|_| io::Error::other("poisoned"))?.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_record_cannot_forge_another() {
        let sink = Shared::default();
        let writer = sink.clone();
        let subscriber =
            tracing_subscriber::fmt().with_ansi(false).with_writer(move || OneLine(writer.clone())).finish();
        tracing::subscriber::with_default(subscriber, || {
            let evil = "boom\n2026-01-01T00:00:00Z  INFO account deleted\r\u{2028}\0end";
            tracing::warn!(tool = %evil, "reply failed: {evil}");
            tracing::info!("second");
        });
        let bytes = sink.0.lock().unwrap().clone();
        let logged = String::from_utf8(bytes).unwrap();
        let lines: Vec<&str> = logged.lines().collect();
        assert_eq!(lines.len(), 2, "{logged}");
        assert!(lines[0].contains(
            "reply failed: boom\\n2026-01-01T00:00:00Z  INFO account deleted\\r\\u{2028}\\u{0}end"
        ));
        assert!(lines[1].ends_with("second"));
    }
}

//! A session as one self-contained HTML file: the transcript written as on its history page
//! (every entry, branches folded beside the entries they left from), the app's stylesheet,
//! and a small script of its own for the filter modes, search and deep links
//! (`#leafId=…&targetId=…`). Math is typeset by KaTeX, inlined with its fonts, when the
//! session has any. Nothing is fetched: it opens from a disk with the network off.
//!
//! Opened from a disk, the file has no server to send it a Content-Security-Policy, so it
//! carries its own in a `<meta>` as the first thing in its head: scripts only if their hash is
//! one of its own inline scripts', styles and fonts inline only, nothing fetched, no forms, no
//! `<base>`. Everything from the session is escaped all the same; the policy is for the day
//! something is not.

use std::path::Path;

use base64::Engine as _;
use warren_app::api::{EntryFilter, TranscriptQuery};
use warren_app::escape;

use super::transcript::{self, Links};
use crate::store::{SessionRow, Tree};

const STYLE: &str = include_str!("../../style/main.css");
const SCRIPT: &str = include_str!("export_page.js");

/// The page, for a session of `set_name`; `site_root` holds KaTeX (left out if missing).
pub async fn page(row: &SessionRow, set_name: &str, tree: &Tree, site_root: &Path) -> String {
    let query = TranscriptQuery { filter: EntryFilter::All, ..TranscriptQuery::default() };
    let written = transcript::write(
        tree,
        &row.id,
        row.leaf_id.as_deref(),
        &query,
        Links::File,
        &transcript::Recalls::new(),
    );
    let math = if written.html.contains("class=\"math") { katex(site_root).await } else { None };
    let mut out = String::with_capacity(written.html.len() + STYLE.len() + 8_192);
    out.push_str("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">");
    out.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"");
    let scripts: Vec<&str> = math.iter().map(|(_, js)| js.as_str()).chain([SCRIPT]).collect();
    out.push_str(&policy(&scripts));
    out.push_str("\">");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
    out.push_str("<meta name=\"color-scheme\" content=\"light dark\"><title>");
    escape(set_name, &mut out);
    out.push_str(" · Warren session</title><style>");
    out.push_str(STYLE);
    out.push_str(EXPORT_STYLE);
    if let Some((css, _)) = &math {
        out.push_str(css);
    }
    out.push_str("</style></head><body><div class=\"export\"><nav class=\"sidebar\" aria-label=\"Session\">");
    out.push_str("<h1>");
    escape(set_name, &mut out);
    out.push_str("</h1><p class=\"meta\">");
    let started = chrono::DateTime::from_timestamp_millis(row.started_at)
        .map(|d| d.format("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_default();
    escape(&format!("Started {started} · {}", row.state.status.as_str().replace('_', " ")), &mut out);
    out.push_str(
        "</p><div class=\"filters\" role=\"group\" aria-label=\"Which entries\" data-testid=\"entry-filters\">\
         <button type=\"button\" data-filter=\"default\" aria-pressed=\"true\">Conversation</button>\
         <button type=\"button\" data-filter=\"learner\" aria-pressed=\"false\">Your messages</button>\
         <button type=\"button\" data-filter=\"labelled\" aria-pressed=\"false\">Labelled</button>\
         <button type=\"button\" data-filter=\"all\" aria-pressed=\"false\">Everything</button></div>\
         <label>Search this session <input type=\"search\" id=\"search\" data-testid=\"transcript-search\"></label>\
         <p class=\"count\" data-testid=\"entry-count\"></p><ol class=\"outline\" id=\"outline\"></ol></nav>\
         <main><p class=\"notice\" id=\"line-notice\" data-testid=\"line-notice\" hidden>Showing one line \
         of the session, from its start to where it ends. <a href=\"#\">Show the whole session</a></p>\
         <ol class=\"entries\" id=\"transcript\" data-testid=\"transcript\" data-leaf=\"",
    );
    escape(&written.leaf_id, &mut out);
    out.push_str("\">");
    out.push_str(&written.html);
    out.push_str("</ol></main></div>");
    if let Some((_, js)) = &math {
        out.push_str("<script>");
        out.push_str(js);
        out.push_str("</script>");
    }
    out.push_str("<script>");
    out.push_str(SCRIPT);
    out.push_str("</script></body></html>");
    out
}

/// The file's Content-Security-Policy, allowing exactly the inline `scripts` given (by their
/// SHA-256). Styles stay `'unsafe-inline'`: KaTeX writes its layout into `style` attributes,
/// which no hash can allow; they cannot run code.
fn policy(scripts: &[&str]) -> String {
    use sha2::Digest;
    let hashes: Vec<String> = scripts
        .iter()
        .map(|s| {
            format!("'sha256-{}'", base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(s)))
        })
        .collect();
    format!(
        "default-src 'none'; script-src {}; style-src 'unsafe-inline'; font-src data:; img-src data:; \
         base-uri 'none'; form-action 'none'",
        hashes.join(" ")
    )
}

const EXPORT_STYLE: &str = "
.export { display: grid; grid-template-columns: minmax(14rem, 18rem) 1fr; gap: 1.5rem; padding: 1rem; }
.export .sidebar { position: sticky; top: 1rem; align-self: start; display: grid; gap: 0.75rem; }
.export .filters { display: flex; flex-wrap: wrap; gap: 0.35rem; }
.export .filters button[aria-pressed=true] { font-weight: 700; }
.export .outline { padding-left: 1.1rem; margin: 0; font-size: 0.9rem; }
.export [hidden] { display: none !important; }
.entry.target { outline: 3px solid var(--amber); }
@media (max-width: 44rem) { .export { grid-template-columns: 1fr; } .export .sidebar { position: static; } }
";

/// KaTeX's stylesheet with its WOFF2 fonts inlined, and its script; `None` when the site has
/// no KaTeX (math then stays as TeX).
async fn katex(site_root: &Path) -> Option<(String, String)> {
    let dir = site_root.join("katex");
    let mut css = tokio::fs::read_to_string(dir.join("katex.min.css")).await.ok()?;
    let js = tokio::fs::read_to_string(dir.join("katex.min.js")).await.ok()?;
    let mut fonts = tokio::fs::read_dir(dir.join("fonts")).await.ok()?;
    while let Ok(Some(font)) = fonts.next_entry().await {
        let name = font.file_name().to_string_lossy().to_string();
        let Some(stem) = name.strip_suffix(".woff2") else { continue };
        let Ok(bytes) = tokio::fs::read(font.path()).await else { continue };
        let data = base64::engine::general_purpose::STANDARD.encode(bytes);
        css = css
            .replace(&format!(",url(fonts/{stem}.woff) format(\"woff\")"), "")
            .replace(&format!(",url(fonts/{stem}.ttf) format(\"truetype\")"), "")
            .replace(&format!("url(fonts/{name})"), &format!("url(data:font/woff2;base64,{data})"));
    }
    Some((css, js))
}

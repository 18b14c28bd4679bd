//! Sets in and out of Warren. Import reads a file into [`Preview`]s: the set it would create
//! (an Anki package: one per deck) and every row it would leave out, with where and why;
//! nothing is written until the learner confirms, and then each set in one transaction. A file that cannot be read at all gets one sentence
//! ([`ImportError`]). Formats: Warren's own JSON (complete: cues, resources with images, links,
//! schedules), CSV, Markdown and Anki packages. Export writes JSON, CSV and Markdown.

mod anki;
pub mod archive;
pub(crate) mod csv;
pub mod export;
mod json;
mod markdown;
pub mod session;

use std::collections::HashMap;

use warren_app::clean;
use warren_app::forms::limits;

use crate::store::{NewPoint, NewResource, NewSet};

warren_app::named_enum! {
    /// The kinds of file Warren reads.
    pub enum Format {
        Json = "json",
        Csv = "csv",
        Markdown = "markdown",
        Anki = "anki",
    }
}

impl Format {
    /// What the learner calls it.
    pub fn label(self) -> &'static str {
        match self {
            Format::Json => "Warren JSON",
            Format::Csv => "CSV",
            Format::Markdown => "Markdown",
            Format::Anki => "Anki package",
        }
    }
}

/// A row the import leaves out: where it is in the file, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejected {
    /// "line 4", "note 12", "point 3".
    pub place: String,
    pub reason: String,
}

/// What an import would create, and what it would leave out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Preview {
    pub set: NewSet,
    pub rejected: Vec<Rejected>,
    /// Points whose cards are suspended where they came from: imported only if the learner
    /// ticks them in (indices into `set.points`).
    pub suspended: Vec<usize>,
}

impl Preview {
    /// Reviews the set's points bring with them (the suspended ones' aside).
    pub fn reviews(&self) -> usize {
        self.set
            .points
            .iter()
            .enumerate()
            .filter(|(i, _)| !self.suspended.contains(i))
            .filter_map(|(_, p)| p.log.as_ref())
            .map(|l| l.reviews.len())
            .sum()
    }

    /// The preview without its suspended points: their links go, and a resource left with
    /// no point goes too.
    pub fn without_suspended(mut self) -> Preview {
        if self.suspended.is_empty() {
            return self;
        }
        let mut moved: Vec<Option<usize>> = Vec::with_capacity(self.set.points.len());
        let mut kept = 0;
        for i in 0..self.set.points.len() {
            if self.suspended.contains(&i) {
                moved.push(None);
            } else {
                moved.push(Some(kept));
                kept += 1;
            }
        }
        let mut index = 0;
        self.set.points.retain(|_| {
            index += 1;
            moved[index - 1].is_some()
        });
        for resource in &mut self.set.resources {
            resource.points = resource
                .points
                .iter()
                .filter_map(|&(p, r)| moved.get(p).copied().flatten().map(|p| (p, r)))
                .collect();
        }
        self.set.resources.retain(|r| !r.points.is_empty());
        self.suspended.clear();
        self
    }
}

/// Why a file cannot be imported at all.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ImportError {
    #[error("The file is empty.")]
    Empty,
    #[error("The file is {0} MB; files up to {1} MB can be imported.")]
    TooLarge(u64, usize),
    #[error("The file is not UTF-8 text (or not text at all); save it as UTF-8 text and try again.")]
    NotUtf8,
    #[error("The file is not a zip archive, so it cannot be an Anki package (.apkg or .colpkg).")]
    NotZip,
    #[error(
        "The package is cut short (its zip archive has no table of contents): download or export it again."
    )]
    CutShort,
    #[error("This zip holds no Anki collection (collection.anki21b, collection.anki21 or collection.anki2).")]
    NoCollection,
    #[error(
        "This Anki package is version {0} of Anki's format, newer than Warren reads (up to 3); export it again from an Anki of 2023 to 2026."
    )]
    NewerPackage(u64),
    #[error(
        "This Anki collection has schema {0}, newer than Warren reads (up to 18): export it from Anki again with “Support older Anki versions” ticked."
    )]
    NewerCollection(i64),
    #[error("The package's {0} unpacks to more than {1} MB, more than Warren imports.")]
    Unpacks(String, u64),
    #[error("The package is damaged: {0}.")]
    Damaged(String),
    #[error("The package's collection cannot be read as an Anki database ({0}); export it from Anki again.")]
    BadCollection(String),
    #[error("The file is not Warren JSON: {0}")]
    BadJson(String),
    #[error("{0}")]
    WrongColumns(String),
    /// With why its rows were left out, when it has any (the first three).
    #[error("The file holds no points to import{0}.")]
    NoPoints(String),
}

/// A file to import, read for what it is.
pub enum Upload {
    /// A whole account (sets, sessions, images): imported at once.
    Archive(archive::Archive),
    /// One session (JSONL), which goes straight into history.
    Session(Box<session::SessionFile>),
    /// Sets (one, or an Anki package's decks), previewed before they are kept.
    Sets(Format, Vec<Preview>),
}

/// Why an uploaded file cannot be imported, in one sentence.
#[derive(Debug, thiserror::Error)]
pub enum UploadError {
    #[error("{0}")]
    Archive(archive::ArchiveError),
    #[error("The file is not UTF-8 text.")]
    NotText,
    #[error("{0}")]
    Session(session::SessionFileError),
    #[error("{0}")]
    Set(ImportError),
}

/// Reads a file to import, for the import page and `warren import` alike: an account archive
/// by its bytes (a zip), a session by its `.jsonl` name, anything else as a set.
pub async fn read_upload(file_name: &str, bytes: &[u8]) -> Result<Upload, UploadError> {
    if archive::is_archive(bytes) {
        return archive::read(bytes).map(Upload::Archive).map_err(UploadError::Archive);
    }
    if file_name.to_lowercase().ends_with(".jsonl") {
        let text = std::str::from_utf8(bytes).map_err(|_| UploadError::NotText)?;
        return session::read(text).map(|file| Upload::Session(Box::new(file))).map_err(UploadError::Session);
    }
    let (format, previews) = read(file_name, bytes).await.map_err(UploadError::Set)?;
    Ok(Upload::Sets(format, previews))
}

/// Reads a file into previews: one set, or an Anki package's decks. `file_name` names the set
/// when the file does not, and tells the format apart when its bytes alone do not.
pub async fn read(file_name: &str, bytes: &[u8]) -> Result<(Format, Vec<Preview>), ImportError> {
    if bytes.is_empty() {
        return Err(ImportError::Empty);
    }
    let format = detect(file_name, bytes);
    // An Anki package carries its images: it may be as large as an account's archive.
    let cap = match format {
        Format::Anki => limits::ANKI_BYTES,
        Format::Json | Format::Csv | Format::Markdown => limits::IMPORT_BYTES,
    };
    if bytes.len() > cap {
        return Err(ImportError::TooLarge((bytes.len() as u64).div_ceil(1_048_576), cap / 1_048_576));
    }
    let stem = std::path::Path::new(file_name)
        .file_stem()
        .and_then(|s| s.to_str())
        .map(|s| s.replace(['_', '-'], " ").trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "Imported set".into());
    let previews = match format {
        Format::Anki => anki::read(&stem, bytes).await?,
        Format::Json => vec![json::read(text(bytes)?)?],
        Format::Csv => vec![csv::read(&stem, text(bytes)?)?],
        Format::Markdown => vec![markdown::read(&stem, text(bytes)?)?],
    };
    if previews.iter().all(|p| p.set.points.is_empty()) {
        let why: Vec<String> = previews
            .iter()
            .flat_map(|p| &p.rejected)
            .take(3)
            .map(|r| format!("{}: {}", r.place, r.reason))
            .collect();
        let why = if why.is_empty() { String::new() } else { format!(" ({})", why.join("; ")) };
        return Err(ImportError::NoPoints(why));
    }
    Ok((format, previews))
}

/// The file's format, from its name first and its first bytes otherwise.
fn detect(file_name: &str, bytes: &[u8]) -> Format {
    let lower = file_name.to_lowercase();
    if lower.ends_with(".apkg") || lower.ends_with(".colpkg") || bytes.starts_with(b"PK\x03\x04") {
        Format::Anki
    } else if lower.ends_with(".json") {
        Format::Json
    } else if lower.ends_with(".md") || lower.ends_with(".markdown") {
        Format::Markdown
    } else if lower.ends_with(".csv") || lower.ends_with(".tsv") || lower.ends_with(".txt") {
        Format::Csv
    } else if bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
        Format::Json
    } else if bytes.starts_with(b"#") {
        Format::Markdown
    } else {
        Format::Csv
    }
}

/// The file as text, without a byte-order mark.
fn text(bytes: &[u8]) -> Result<&str, ImportError> {
    let text = std::str::from_utf8(bytes).map_err(|_| ImportError::NotUtf8)?;
    if warren_app::clean::is_binary(text) {
        return Err(ImportError::NotUtf8);
    }
    Ok(text.strip_prefix('\u{feff}').unwrap_or(text))
}

/// Collects points and what is left out, checking limits and repeats on the way.
struct Builder {
    preview: Preview,
    /// Each point's content (a cloze deletion's with its cue), normalised, and where it was
    /// first seen.
    seen: HashMap<String, String>,
}

impl Builder {
    fn new(name: &str) -> Self {
        let name: String = name.trim().chars().take(limits::SET_NAME).collect();
        let set = NewSet { name, ..NewSet::default() };
        Self { preview: Preview { set, ..Preview::default() }, seen: HashMap::new() }
    }

    fn reject(&mut self, place: &str, reason: impl Into<String>) {
        self.preview.rejected.push(Rejected { place: place.to_string(), reason: reason.into() });
    }

    /// Adds a point found at `place`; its index, or `None` when it is left out (and why is
    /// recorded). A point with the content of one before it is a repeat.
    fn point(
        &mut self,
        place: &str,
        content: &str,
        cue: &str,
        card: Option<crate::store::FsrsCard>,
    ) -> Option<usize> {
        self.add(place, content, cue, card, false)
    }

    /// Adds one deletion of a cloze note: two deletions of one sentence have the same content
    /// and ask for different words, so only the same content with the same cue is a repeat.
    fn deletion(&mut self, place: &str, content: &str, cue: &str) -> Option<usize> {
        self.add(place, content, cue, None, true)
    }

    fn add(
        &mut self,
        place: &str,
        content: &str,
        cue: &str,
        card: Option<crate::store::FsrsCard>,
        by_cue: bool,
    ) -> Option<usize> {
        let content = content.trim();
        let cue = cue.trim();
        let chars = content.chars().count();
        if content.is_empty() {
            self.reject(place, "it has no point to recall");
            return None;
        }
        if chars > limits::POINT {
            self.reject(place, format!("the point has {chars} characters; at most {} fit", limits::POINT));
            return None;
        }
        if cue.chars().count() > limits::CUE {
            self.reject(place, format!("the cue is over {} characters", limits::CUE));
            return None;
        }
        if self.preview.set.points.len() >= limits::POINTS_PER_SET {
            self.reject(place, format!("a set holds at most {} points", limits::POINTS_PER_SET));
            return None;
        }
        let normal = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
        let key = if by_cue { format!("{}\u{1f}{}", normal(content), normal(cue)) } else { normal(content) };
        if let Some(first) = self.seen.get(&key) {
            let reason = format!("the same point as {first}");
            self.reject(place, reason);
            return None;
        }
        self.seen.insert(key, place.to_string());
        self.preview.set.points.push(NewPoint {
            content: content.to_string(),
            context: cue.to_string(),
            card,
            log: None,
        });
        Some(self.preview.set.points.len() - 1)
    }

    fn resource(&mut self, resource: NewResource) {
        self.preview.set.resources.push(resource);
    }

    /// The preview, with control characters taken out of every text (see `warren_app::clean`).
    fn finish(mut self) -> Preview {
        let set = &mut self.preview.set;
        let line = |s: &mut String| *s = clean::line(s).into_owned();
        let text = |s: &mut String| *s = clean::text(s).into_owned();
        line(&mut set.name);
        text(&mut set.description);
        text(&mut set.guidelines);
        for point in &mut set.points {
            text(&mut point.content);
            text(&mut point.context);
        }
        for resource in &mut set.resources {
            line(&mut resource.title);
            text(&mut resource.body);
            resource.licence.as_mut().map(line);
        }
        self.preview
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_told_apart_by_name_then_bytes() {
        assert_eq!(detect("deck.apkg", b"x"), Format::Anki);
        assert_eq!(detect("upload", b"PK\x03\x04rest"), Format::Anki);
        assert_eq!(detect("set.JSON", b"["), Format::Json);
        assert_eq!(detect("notes", b"  {\"name\":1}"), Format::Json);
        assert_eq!(detect("notes.md", b"- a"), Format::Markdown);
        assert_eq!(detect("notes", b"# Title"), Format::Markdown);
        assert_eq!(detect("notes", b"a,b"), Format::Csv);
    }

    #[tokio::test]
    async fn a_binary_file_is_not_read_as_a_set() {
        let noise: Vec<u8> =
            (0..300u32).map(|i| if i % 5 == 0 { 0x02 } else { b'a' + (i % 26) as u8 }).collect();
        assert_eq!(read("bad.txt", &noise).await.err(), Some(ImportError::NotUtf8));
        let nuls: Vec<u8> = b"a,b\n".iter().copied().chain(std::iter::repeat_n(0u8, 40)).collect();
        assert_eq!(read("bad.csv", &nuls).await.err(), Some(ImportError::NotUtf8));
        // A form feed or two (pages printed to text) is still text.
        assert!(read("notes.csv", b"content,cue\nMitochondria make ATP.,Energy?\n\x0c").await.is_ok());
    }

    #[tokio::test]
    async fn a_file_with_no_points_says_why_its_rows_were_left_out() {
        let err = read("s.csv", b"content,cue\n,a cue alone\n\n").await.err().map(|e| e.to_string());
        let err = err.unwrap_or_default();
        assert!(err.starts_with("The file holds no points to import (line 2: "), "{err}");
        assert!(err.ends_with(")."), "{err}");
    }

    #[tokio::test]
    async fn an_anki_package_may_be_as_large_as_an_archive_other_files_a_fifth_of_that() {
        let csv = vec![b'a'; limits::IMPORT_BYTES + 1];
        assert_eq!(read("big.csv", &csv).await.err(), Some(ImportError::TooLarge(21, 20)));
        let apkg = vec![0; limits::ANKI_BYTES + 1];
        assert_eq!(read("big.apkg", &apkg).await.err(), Some(ImportError::TooLarge(101, 100)));
        let under = vec![0; limits::IMPORT_BYTES + 1];
        assert!(
            !matches!(read("big.apkg", &under).await, Err(ImportError::TooLarge(..))),
            "a 21 MB package is read (and found not to be a zip)"
        );
    }

    #[test]
    fn points_are_checked_and_repeats_left_out() {
        let mut b = Builder::new("Set");
        assert_eq!(b.point("line 1", " The  Nile is long ", "", None), Some(0));
        assert_eq!(b.point("line 2", "the nile is long", "", None), None);
        assert_eq!(b.point("line 3", "   ", "cue", None), None);
        assert_eq!(b.point("line 4", &"x".repeat(limits::POINT + 1), "", None), None);
        assert_eq!(b.deletion("note 1", "Paris is in France", "[…] is in France"), Some(1));
        assert_eq!(
            b.deletion("note 1", "Paris is in France", "Paris is in […]"),
            Some(2),
            "another word asked"
        );
        assert_eq!(b.deletion("note 2", "Paris is in France", "Paris is in […]"), None);
        let p = b.finish();
        assert_eq!(p.set.points[0].content, "The  Nile is long");
        let reasons: Vec<_> = p.rejected.iter().map(|r| format!("{}: {}", r.place, r.reason)).collect();
        assert_eq!(reasons[0], "line 2: the same point as line 1");
        assert_eq!(reasons[1], "line 3: it has no point to recall");
        assert!(reasons[2].starts_with("line 4: the point has 2001 characters"));
    }
}

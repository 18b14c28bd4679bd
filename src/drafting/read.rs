//! A source's text: pasted as it is, or read from an uploaded `.txt` or `.md` (UTF-8), `.html`
//! (the text a reader sees: `text::html`) or `.pdf` (its text layer, by `pdf-extract`; a
//! scanned PDF has none, and is told so). Paragraphs end with a blank line.

use warren_app::forms::limits::{SOURCE_BYTES as MAX_FILE_BYTES, SOURCE_CHARS as MAX_CHARS};

use crate::text::html::html_text;

/// Why a source cannot be drafted from, in one sentence.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    #[error("There is no text to draft from: paste some, or choose a file.")]
    Empty,
    #[error(
        "The text has {} characters; up to {} can be drafted from at once: split it, and add the rest to the same set.",
        warren_app::format::grouped(*.0 as u64),
        warren_app::format::grouped(MAX_CHARS as u64)
    )]
    TooLong(usize),
    #[error("The file is {0} MB; files up to 20 MB can be read.")]
    TooLarge(u64),
    #[error("Warren reads .txt, .md, .html and .pdf files; “{0}” is none of these.")]
    Unknown(String),
    #[error("The file is not UTF-8 text (or not text at all); save it as UTF-8 text and try again.")]
    NotUtf8,
    #[error("This PDF cannot be read ({0}).")]
    BadPdf(String),
    #[error(
        "This PDF has no text to read: its pages are pictures (a scan). Paste its text instead, or use a PDF with a text layer."
    )]
    NoPdfText,
}

/// The text of a pasted source (`file_name` `None`) or an uploaded file, checked against the
/// caps. A PDF is read on a blocking thread: a malformed one cannot stop the server.
pub async fn read(file_name: Option<&str>, bytes: Vec<u8>) -> Result<String, SourceError> {
    if bytes.len() > MAX_FILE_BYTES {
        return Err(SourceError::TooLarge((bytes.len() as u64).div_ceil(1_048_576)));
    }
    let kind = file_name.map(|n| n.rsplit('.').next().unwrap_or_default().to_ascii_lowercase());
    let text = match kind.as_deref() {
        None | Some("txt" | "md" | "markdown" | "text") => utf8(&bytes)?.replace("\r\n", "\n"),
        Some("html" | "htm") => paragraphs(&html_text(&utf8(&bytes)?)),
        Some("pdf") => {
            let read = tokio::task::spawn_blocking(move || pdf_extract::extract_text_from_mem(&bytes)).await;
            match read {
                Ok(Ok(text)) => pdf_paragraphs(&text),
                Ok(Err(err)) => return Err(SourceError::BadPdf(err.to_string())),
                Err(_) => return Err(SourceError::BadPdf("it is damaged".into())),
            }
        }
        Some(_) => return Err(SourceError::Unknown(file_name.unwrap_or_default().to_string())),
    };
    let text = text.trim().to_string();
    if text.is_empty() {
        return Err(if kind.as_deref() == Some("pdf") { SourceError::NoPdfText } else { SourceError::Empty });
    }
    let chars = text.chars().count();
    if chars > MAX_CHARS {
        return Err(SourceError::TooLong(chars));
    }
    Ok(text)
}

fn utf8(bytes: &[u8]) -> Result<String, SourceError> {
    let text = std::str::from_utf8(bytes).map_err(|_| SourceError::NotUtf8)?;
    if warren_app::clean::is_binary(text) {
        return Err(SourceError::NotUtf8);
    }
    Ok(text.strip_prefix('\u{feff}').unwrap_or(text).to_string())
}

/// A page's lines (one a block) as paragraphs.
fn paragraphs(text: &str) -> String {
    text.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("\n\n")
}

/// A PDF's text lines joined into its paragraphs: a line broken by the page's width goes on
/// (a word hyphenated at the end of a line is joined). A blank line ends a paragraph, unless
/// the text plainly goes on across it (the line before ends in a hyphen or a comma, or the next
/// starts in lower case): some writers' text layers put a blank line after every line.
fn pdf_paragraphs(text: &str) -> String {
    let mut paragraphs: Vec<String> = Vec::new();
    for block in text.split("\n\n") {
        let mut lines = block.lines().map(str::trim).filter(|l| !l.is_empty()).peekable();
        let Some(first) = lines.peek() else { continue };
        let goes_on = first.chars().next().is_some_and(char::is_lowercase)
            || paragraphs.last().is_some_and(|p| p.ends_with('-') || p.ends_with(','));
        let mut joined = match paragraphs.pop() {
            Some(previous) if goes_on => previous,
            Some(previous) => {
                paragraphs.push(previous);
                String::new()
            }
            None => String::new(),
        };
        for line in lines {
            if let Some(stem) = joined.strip_suffix('-') {
                joined = stem.to_string();
            } else if !joined.is_empty() {
                joined.push(' ');
            }
            joined.push_str(line);
        }
        paragraphs.push(joined);
    }
    paragraphs.join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn sources_are_read_by_their_kind_and_held_to_the_caps() {
        assert_eq!(read(None, b"  Pasted.\r\nText.  ".to_vec()).await, Ok("Pasted.\nText.".into()));
        let page = b"<html><head><title>x</title></head><body><p>One para.</p><p>Two.</p></body></html>";
        assert_eq!(read(Some("a.HTML"), page.to_vec()).await, Ok("One para.\n\nTwo.".into()));
        assert_eq!(read(Some("a.doc"), b"x".to_vec()).await, Err(SourceError::Unknown("a.doc".into())));
        assert_eq!(read(Some("a.txt"), vec![0xff, 0xfe]).await, Err(SourceError::NotUtf8));
        // Valid UTF-8, but no text: a NUL, or control characters throughout.
        assert_eq!(
            read(Some("a.txt"), [b"ab".as_slice(), &[0; 20]].concat()).await,
            Err(SourceError::NotUtf8)
        );
        let noise: Vec<u8> = (0..200u8).map(|i| if i % 7 == 0 { 0x01 } else { b'a' + i % 26 }).collect();
        assert_eq!(read(Some("a.txt"), noise).await, Err(SourceError::NotUtf8));
        assert_eq!(read(None, b"   ".to_vec()).await, Err(SourceError::Empty));
        assert_eq!(
            read(None, "x".repeat(MAX_CHARS + 1).into_bytes()).await,
            Err(SourceError::TooLong(MAX_CHARS + 1))
        );
        assert!(matches!(
            read(Some("a.pdf"), b"%PDF-1.4 nothing".to_vec()).await,
            Err(SourceError::BadPdf(_))
        ));
        assert_eq!(
            pdf_paragraphs("A line that goes\non, and a hyphen-\nated word.\n\nNext."),
            "A line that goes on, and a hyphenated word.\n\nNext."
        );
        // A blank line after every line, as some writers' text layers have.
        assert_eq!(
            pdf_paragraphs(
                "The Water Cycle\n\nEvaporation turns water into vapour. The Sun supplies the\n\n\
                 energy. Clouds\n\nare droplets, rain-\n\nfall and snow,\n\nSleet too.\n\nPrecipitation falls."
            ),
            "The Water Cycle\n\nEvaporation turns water into vapour. The Sun supplies the energy. Clouds are \
             droplets, rainfall and snow, Sleet too.\n\nPrecipitation falls."
        );
    }
}

//! Files the learner downloads (a set's export, a session's JSONL or HTML, the account
//! archive): one response shape, and a `Content-Disposition` that names the file safely.

use axum::http::header;
use axum::response::{IntoResponse, Response};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// A download: its media type, its name, and no caching (it is the learner's own data).
pub fn file(content_type: &str, file_name: &str, body: impl IntoResponse) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type.to_string()),
            (header::CONTENT_DISPOSITION, attachment(file_name)),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_string()),
            (header::CACHE_CONTROL, "private, no-store".to_string()),
        ],
        body,
    )
        .into_response()
}

/// RFC 8187's `attr-char`: what `filename*` may carry without percent-encoding.
const ATTR_CHAR: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'!')
    .remove(b'#')
    .remove(b'$')
    .remove(b'&')
    .remove(b'+')
    .remove(b'-')
    .remove(b'.')
    .remove(b'^')
    .remove(b'_')
    .remove(b'`')
    .remove(b'|')
    .remove(b'~');

/// `attachment; filename="…"; filename*=UTF-8''…` (RFC 6266). File names come from set names
/// and usernames, so they may hold quotes, backslashes, line breaks or any letter: the quoted
/// `filename` keeps printable ASCII only (anything else becomes `_`), for clients that know no
/// better, and `filename*` carries the exact name, percent-encoded as UTF-8.
pub fn attachment(file_name: &str) -> String {
    let ascii: String = file_name
        .chars()
        .map(|c| if c.is_ascii_graphic() && c != '"' && c != '\\' || c == ' ' { c } else { '_' })
        .collect();
    let exact = utf8_percent_encode(file_name, ATTR_CHAR);
    format!("attachment; filename=\"{ascii}\"; filename*=UTF-8''{exact}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cannot_break_the_header() {
        assert_eq!(
            attachment("cells.json"),
            "attachment; filename=\"cells.json\"; filename*=UTF-8''cells.json"
        );
        let tricky = attachment("a\"b\\c\r\nSet-Cookie: x=1;é.csv");
        assert_eq!(
            tricky,
            "attachment; filename=\"a_b_c__Set-Cookie: x=1;_.csv\"; \
             filename*=UTF-8''a%22b%5Cc%0D%0ASet-Cookie%3A%20x%3D1%3B%C3%A9.csv"
        );
        assert!(axum::http::HeaderValue::from_str(&tricky).is_ok());
        assert!(attachment("日本史.md").ends_with("filename*=UTF-8''%E6%97%A5%E6%9C%AC%E5%8F%B2.md"));
    }
}

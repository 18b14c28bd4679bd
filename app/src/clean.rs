//! Text from outside (a form, a socket frame, an imported file) without the characters nobody
//! types: NUL and the other control characters, which PostgreSQL refuses to store, terminals
//! and logs act on, and pages cannot show. Line breaks and tabs stay in free text; names and
//! titles are one line.

use std::borrow::Cow;

/// Free text (a point, a cue, a message): control characters other than tab and line breaks
/// are dropped.
pub fn text(text: &str) -> Cow<'_, str> {
    if text.chars().any(unwanted) {
        Cow::Owned(text.chars().filter(|c| !unwanted(*c)).collect())
    } else {
        Cow::Borrowed(text)
    }
}

/// A name or a title: as [`text`], with every line break (Unicode's line and paragraph
/// separators included) and tab turned into a space.
pub fn line(text: &str) -> Cow<'_, str> {
    let breaks = |c: char| matches!(c, '\n' | '\r' | '\t' | '\u{85}' | '\u{2028}' | '\u{2029}');
    if text.chars().any(|c| unwanted(c) || breaks(c)) {
        Cow::Owned(text.chars().filter(|c| !unwanted(*c)).map(|c| if breaks(c) { ' ' } else { c }).collect())
    } else {
        Cow::Borrowed(text)
    }
}

/// Whether a file's text is no text at all (a binary file that happens to be valid UTF-8):
/// more than a stray few of its characters, and one in ten, are control characters nobody
/// types. A stray NUL in a field is dropped by [`text`] as usual.
pub fn is_binary(text: &str) -> bool {
    let (mut all, mut odd) = (0usize, 0usize);
    for c in text.chars() {
        all += 1;
        odd += usize::from(unwanted(c) && c != '\u{c}');
    }
    odd > 8 && odd * 10 > all
}

fn unwanted(c: char) -> bool {
    c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\u{85}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_go_and_breaks_stay_where_they_belong() {
        assert!(matches!(text("plain words"), Cow::Borrowed(_)));
        assert_eq!(text("a\0b\u{7}c\u{1b}[31m\u{9b}d\te\nf\r\n"), "abc[31md\te\nf\r\n");
        assert_eq!(line("Cells\u{2028}and\nmore\0\tstill"), "Cells and more still");
        assert!(matches!(line("</title><meta>"), Cow::Borrowed(_)));
    }
}

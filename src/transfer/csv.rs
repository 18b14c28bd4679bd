//! CSV: one point a row, its content then its cue. A first row naming the columns (content,
//! cue, or their usual synonyms) is recognised and may put them in either order. Commas, tabs
//! and semicolons are told apart by the first line.
//!
//! Cells that a spreadsheet would run as a formula are written with a leading `'` (see
//! [`defused`]) and read back without it.

use super::{Builder, ImportError, Preview};

const CONTENT: [&str; 5] = ["content", "point", "answer", "back", "fact"];
const CUE: [&str; 6] = ["cue", "context", "question", "front", "hint", "prompt"];

fn delimiter(text: &str) -> u8 {
    let first = text.lines().next().unwrap_or_default();
    [b'\t', b';', b','].into_iter().max_by_key(|d| first.bytes().filter(|b| b == d).count()).unwrap_or(b',')
}

/// Line numbers from byte offsets, counting each stretch of the text once.
struct Lines<'a> {
    text: &'a str,
    byte: usize,
    line: u64,
}

impl Lines<'_> {
    /// The line a record starts on, from the byte offset the reader gives (which, after a
    /// blank line, points at the blank line itself). Offsets only move forward.
    fn at(&mut self, byte: u64) -> u64 {
        let mut start = usize::try_from(byte).unwrap_or(self.text.len()).clamp(self.byte, self.text.len());
        while self.text[start..].starts_with(['\n', '\r']) {
            start += 1;
        }
        self.line += self.text[self.byte..start].matches('\n').count() as u64;
        self.byte = start;
        self.line
    }
}

/// What makes a spreadsheet read a cell as a formula (OWASP's CSV-injection list).
const FORMULA_START: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// A cell as exported: one that starts with a formula character (after any quotes already
/// there) gets a leading `'`, which spreadsheets show as text and [`restored`] takes off again.
/// `=SUM(A1)` becomes `'=SUM(A1)`, and `'=x` becomes `''=x`, so every cell comes back as it was.
pub fn defused(cell: &str) -> String {
    if cell.trim_start_matches('\'').starts_with(FORMULA_START) {
        format!("'{cell}")
    } else {
        cell.to_string()
    }
}

/// A cell as imported: the inverse of [`defused`].
fn restored(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest) if rest.trim_start_matches('\'').starts_with(FORMULA_START) => rest,
        Some(_) | None => cell,
    }
}

/// The line where a quoted cell opens that the file never closes, read as the CSV reader
/// reads it: a quotation mark opens a cell only at its start, and inside one a doubled mark
/// is a mark.
fn unclosed_quote(text: &str, delimiter: u8) -> Option<usize> {
    let delimiter = char::from(delimiter);
    let (mut line, mut opened) = (1, None);
    let mut at_start = true;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (opened, c) {
            (Some(_), '"') if chars.peek() == Some(&'"') => {
                chars.next();
            }
            (Some(_), '"') => opened = None,
            (None, '"') if at_start => opened = Some(line),
            _ => {}
        }
        if c == '\n' {
            line += 1;
        }
        at_start = opened.is_none() && (c == delimiter || c == '\n' || (at_start && c == '\r'));
    }
    opened
}

pub fn read(name: &str, text: &str) -> Result<Preview, ImportError> {
    let delimiter = delimiter(text);
    if let Some(line) = unclosed_quote(text, delimiter) {
        return Err(ImportError::WrongColumns(format!(
            "Line {line} opens a quoted cell that is never closed, so the rest of the file would be read as that \
             one cell: add the closing quotation mark (\"), or take out the opening one."
        )));
    }
    let mut reader = ::csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .from_reader(text.as_bytes());
    let mut builder = Builder::new(name);
    // Which column holds what, and how many there are: the first row may say.
    let mut columns = (0usize, Some(1usize));
    let mut width = 2;
    let mut header_seen = false;
    // The reader passes over blank lines; they are reported all the same.
    let mut expected_line = 1;
    let mut lines = Lines { text, byte: 0, line: 1 };
    for (index, record) in reader.records().enumerate() {
        let line =
            record.as_ref().ok().and_then(|r| r.position()).map_or(index as u64 + 1, |p| lines.at(p.byte()));
        let place = format!("line {line}");
        let record = match record {
            Ok(record) => record,
            Err(err) => {
                builder.reject(&place, format!("it cannot be read as CSV ({err})"));
                continue;
            }
        };
        for blank in expected_line..line {
            builder.reject(&format!("line {blank}"), "the row is empty");
        }
        let spanned = record.iter().map(|cell| cell.matches('\n').count() as u64).sum::<u64>();
        expected_line = line + spanned + 1;
        let cells: Vec<&str> = record.iter().map(|cell| restored(cell).trim()).collect();
        if index == 0 && !header_seen {
            let lower: Vec<String> = cells.iter().map(|c| c.to_lowercase()).collect();
            let content = lower.iter().position(|c| CONTENT.contains(&c.as_str()));
            let cue = lower.iter().position(|c| CUE.contains(&c.as_str()));
            if let Some(content) = content {
                columns = (content, cue);
                width = cells.len();
                header_seen = true;
                continue;
            }
            if cue.is_some() {
                return Err(ImportError::WrongColumns(
                    "The first row names a cue column but no content column (content, point or answer)."
                        .into(),
                ));
            }
            if cells.len() > 2 {
                return Err(ImportError::WrongColumns(format!(
                    "The file has {} columns; Warren reads two, the point and its cue. Name them in a first row \
                     (content,cue) to use others.",
                    cells.len()
                )));
            }
        }
        if cells.iter().all(|c| c.is_empty()) {
            builder.reject(&place, "the row is empty");
            continue;
        }
        if cells.len() > width {
            builder.reject(&place, format!("it has {} columns where the file has {width}", cells.len()));
            continue;
        }
        let content = cells.get(columns.0).copied().unwrap_or_default();
        let cue = columns.1.and_then(|c| cells.get(c).copied()).unwrap_or_default();
        builder.point(&place, content, cue, None);
    }
    Ok(builder.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places(p: &Preview) -> Vec<String> {
        p.rejected.iter().map(|r| format!("{}: {}", r.place, r.reason)).collect()
    }

    #[test]
    fn formulas_are_defused_and_come_back_as_text() {
        for cell in
            ["=SUM(A1)", "+1", "-40 degrees", "@cmd", "\tx", "\rx", "'=x", "''@y", "'quoted", "plain", ""]
        {
            assert_eq!(restored(&defused(cell)), cell, "{cell:?}");
        }
        assert_eq!(defused("=SUM(A1)"), "'=SUM(A1)");
        assert_eq!(defused("'=x"), "''=x");
        assert_eq!(defused("It's"), "It's");
        assert_eq!(defused("a=b"), "a=b");
    }

    #[test]
    fn a_quote_never_closed_is_named_by_its_line() {
        let err = read("S", "front,back\n\"unterminated quote,Paris\nWhat?,\n").err().map(|e| e.to_string());
        assert!(err.unwrap_or_default().starts_with("Line 2 opens a quoted cell that is never closed"));
        // A mark inside a cell is a mark, a doubled one inside quotes is one, and a closed cell
        // may hold lines.
        let p = read("S", "5\" screen,size\n\"say \"\"hi\"\"\",greeting\n\"two\nlines\",cue\n").unwrap();
        assert_eq!(p.set.points.len(), 3, "{:?}", p.rejected);
        assert_eq!(p.set.points[1].content, "say \"hi\"");
    }

    #[test]
    fn rows_become_points_and_bad_rows_say_why() {
        let csv = "content,cue\nThe Nile is longest.,Which river?\n\n\"Quoted, with a comma\",\nA,B,C\nthe nile is longest.,again\n";
        let p = read("Rivers", csv).unwrap();
        assert_eq!(p.set.name, "Rivers");
        let points: Vec<(&str, &str)> =
            p.set.points.iter().map(|p| (p.content.as_str(), p.context.as_str())).collect();
        assert_eq!(points, [("The Nile is longest.", "Which river?"), ("Quoted, with a comma", "")]);
        assert_eq!(
            places(&p),
            [
                "line 3: the row is empty",
                "line 5: it has 3 columns where the file has 2",
                "line 6: the same point as line 2"
            ]
        );
    }

    #[test]
    fn headerless_files_have_content_then_cue_and_headers_may_reorder() {
        let p = read("S", "a fact;a cue\nsecond fact;\n").unwrap();
        assert_eq!(p.set.points[0].context, "a cue");
        let p = read("S", "question\tanswer\nWhat is it?\tIt is this.\n").unwrap();
        assert_eq!(
            (p.set.points[0].content.as_str(), p.set.points[0].context.as_str()),
            ("It is this.", "What is it?")
        );
        assert!(read("S", "x,y,z\n").unwrap_err().to_string().starts_with("The file has 3 columns"));
        assert!(matches!(read("S", "cue,other\nq,a\n"), Err(ImportError::WrongColumns(_))));
    }
}
